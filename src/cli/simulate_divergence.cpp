// geolin simulate's divergence criteria (simulate.hpp): each a short check of one symptom of a
// run that grows without bound, returning what diverged with its numbers.
#include <fmt/format.h>

#include <cmath>

#include "labels.hpp"
#include "simulate.hpp"

namespace geolin::cli {

Divergence check_finite(const geolin::State &x, const VecX &lambda) {
  if (!(x.H.R.allFinite() && x.H.o.allFinite() && x.s.allFinite() && x.v.allFinite() &&
        x.r.allFinite()))
    return {"the state is no longer finite"};
  if (!lambda.allFinite()) return {"the contact forces are no longer finite"};
  return {};
}

Divergence check_energy_rise(double rise, double limit, const std::string &since) {
  if (!(rise > limit)) return {};
  return {
      fmt::format("the total energy rose {:.4g} J above {} (allowed: {:.3g} J), although "
                  "nothing does positive work on the robot",
                  rise, since, limit)};
}

Divergence check_speed(const Model &model, const geolin::State &x, double joint_bound,
                       double base_bound) {
  int fastest = -1;
  for (int k = 0; k < x.r.size(); ++k) {
    if (std::abs(x.r[k]) > joint_bound &&
        (fastest < 0 || std::abs(x.r[k]) > std::abs(x.r[fastest])))
      fastest = k;
  }
  if (fastest >= 0)
    return {fmt::format("the joint velocity {} = {:.4g} is beyond the bound {:.3g}",
                        joint_labels(model, "r")[fastest], x.r[fastest], joint_bound)};
  const double base = model.fixed_base ? 0.0 : x.v.head<3>().norm();
  if (base > base_bound)
    return {fmt::format("the base moves at {:.4g} m/s (beyond the bound {:.3g} m/s)", base,
                        base_bound)};
  return {};
}

Divergence check_force_bound(const VecX &lambda, const std::vector<std::string> &names,
                             double limit, const std::string &scale) {
  for (int i = 0; i < lambda.size(); ++i) {
    if (std::abs(lambda[i]) > limit)
      return {fmt::format("the contact force {} = {:.4g} N is beyond {} = {:.4g} N", names[i],
                          lambda[i], scale, limit)};
  }
  return {};
}

Divergence ForceAlternation::check(const VecX &lambda, const std::vector<std::string> &names,
                                   double floor) {
  if (previous_.size() != lambda.size()) {
    previous_ = lambda;
    change_ = VecX::Zero(lambda.size());
    count_.assign(lambda.size(), 0);
    return {};
  }
  Divergence d;
  for (int i = 0; i < lambda.size(); ++i) {
    const double change = lambda[i] - previous_[i];
    const bool flips = change * change_[i] < 0.0 && std::abs(change) > std::abs(change_[i]);
    count_[i] = flips && std::abs(change) > floor ? count_[i] + 1 : 0;
    if (!d && count_[i] >= kAlternations) {
      d.what = fmt::format(
          "the contact force {} oscillates with period two and growing amplitude ({} steps in a "
          "row; now {:.4g} N, {:.4g} N the step before){}",
          names[i], count_[i], lambda[i], previous_[i],
          lambda[i] * previous_[i] < 0.0 ? ", alternating in sign" : "");
    }
    change_[i] = change;
  }
  previous_ = lambda;
  return d;
}

Error divergence_error(const Divergence &d, long k, double t, double h, const std::string &advice) {
  return Error(Status::Numeric,
               fmt::format("the simulation diverged at step {} (t = {:g} s, h = {:g} s): {}. {}", k,
                           t, h, d.what, advice));
}

}  // namespace geolin::cli
