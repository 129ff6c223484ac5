// The geometric finite differences of a discrete map (discrete_fd.cpp), for geolin check --step
// and --impulse.
#pragma once

#include <functional>

#include "geolin/model.hpp"
#include "geolin/state.hpp"
#include "geolin/workspace.hpp"

namespace geolin::cli {

/// A discrete map (x, tau) -> (x+, lambda): contact_step or impulse. Returns false where the
/// library does (out and lambda are not to be used then).
using DiscreteMap =
    std::function<bool(const geolin::State &x, const VecX &tau, geolin::State &out, VecX &lambda)>;

/// The geometric central finite differences of a discrete map at (x, tau) with step eps:
/// x exp(z) -> x+ exp(A z + B w), and the derivatives of its lambda (dlambda_dz: m x N,
/// dlambda_dw: m x B.cols()). A map without input takes B with no columns. Returns false if an
/// evaluation failed. The reference of geolin check --step / --impulse.
bool discrete_finite_difference(const Model &model, const DiscreteMap &map, const geolin::State &x,
                                const VecX &tau, double eps, MatX &A, MatX &B, MatX &dlambda_dz,
                                MatX &dlambda_dw);

}  // namespace geolin::cli
