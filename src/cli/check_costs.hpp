// geolin check --costs (check_costs.cpp): the kinematic cost functions' derivatives against
// finite differences (inverse dynamics' are checked in cmd_check.cpp).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "state_io.hpp"

namespace geolin::cli {

/// The worst relative error of each cost function's derivative over the states and frames.
struct CostCheck {
  std::map<std::string, double> worst;
  double tol = 0.0;
  bool pass() const;
};

/// Checks every cost derivative at the states (geometric central differences with step eps,
/// Richardson-extrapolated if asked) against tol.
CostCheck check_kinematic_costs(const Model &model, const std::vector<State> &states, double eps,
                                bool richardson, double tol);

}  // namespace geolin::cli
