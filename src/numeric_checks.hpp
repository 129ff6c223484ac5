// Numeric checks shared by the passes: the articulated pivots of M's factorization
// (docs/c-api.md, "Numeric contract") and the pivots of the contacts' Λ⁻¹.
#pragma once

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "geolin/algorithms.hpp"
#include "geolin/outcome.hpp"
#include "solver/solver.hpp"

namespace geolin::detail {

/// Threshold of the articulated pivots (docs/c-api.md, "Numeric contract"). A joint pivot
/// D_i = S_iᵀ I^A_i S_i is the same number in every frame, but the size of the terms it is summed
/// from is not: in frame 0 it grows with the square of the body's distance from the base origin,
/// so that a regular pivot far from it looked singular (the tip of a 20000-body chain stretched
/// straight, 4000 m out: 5.6e-11). Its scale is therefore measured where the joint is
/// (joint_pivot_scale): |S_i|ᵀ |I^A_i| |S_i| (entrywise absolute values) in a frame with frame 0's
/// axes at the joint's origin, plus the inertia the articulated mass would have about the axis at
/// a lever arm kPivotLever (the terms frame 0 added at a distance of that size, now the same
/// wherever the body is); and, since D_i is summed in frame 0, kRoundoffShare of the terms there,
/// whose round-off (~1e-16 of them) D_i must exceed by far. D_i fails when it is not above
/// kPivotTolerance times that scale: M is then singular to working precision at this state. The
/// lever, about a limb's length, keeps the margins the frame-0 scale had on iCub (its zero pose,
/// singular: 4e-12; the worst of 2000 random states: 3.6e-9); the chain passes at 5.6e-8 straight
/// (its tip, through the frame-0 share) and 8e-5 at random states. A base pivot of the Cholesky
/// factor of I^A_0 fails when L_kk² is not above kPivotTolerance · (I^A_0)_kk.
constexpr double kPivotTolerance = 1e-10;
constexpr double kPivotLever = 0.2;      // metres
constexpr double kRoundoffShare = 1e-3;  // frame-0 terms count at 1e-13 (~450 round-offs)

/// |a|ᵀ |M| |a|, entrywise absolute values.
template <class Vec, class Mat>
double absolute_quadratic(const Vec &a, const Mat &M) {
  const auto abs_a = a.cwiseAbs().eval();
  return abs_a.dot(M.cwiseAbs() * abs_a);
}

/// An upper bound of the joint part of joint_pivot_scale without forming the translated inertia:
/// tr(I_p) |S_p|² + kPivotLever² tr(A) |S_ang|² (I_p ⪰ 0, so |x|ᵀ|I_p||x| ≤ tr(I_p) |x|²), where
/// for I^A = [[A, B], [Bᵀ, C]] in frame 0 (linear first) translated to p (^p X^0 I^A ^0 X_p)
///   tr(I_p) = tr(I^A) − 2 p·b + |p|² tr(A) − pᵀ A p,   b = (B₂₃ − B₃₂, B₃₁ − B₁₃, B₁₂ − B₂₁),
/// and S_p = [S_lin − p × S_ang; S_ang]; A is the same in both frames.
inline double joint_scale_bound(const Mat6 &IA, const Vec6 &S, const Vec3 &p) {
  const Mat3 A = IA.topLeftCorner<3, 3>();
  const Vec3 b(IA(1, 5) - IA(2, 4), IA(2, 3) - IA(0, 5), IA(0, 4) - IA(1, 3));
  const double trace_A = A.trace();
  const double trace = IA.trace() - 2.0 * p.dot(b) + p.squaredNorm() * trace_A - p.dot(A * p);
  const Vec3 w = S.tail<3>(), lin = S.head<3>() - p.cross(w);
  return trace * (lin.squaredNorm() + w.squaredNorm()) +
         kPivotLever * kPivotLever * trace_A * w.squaredNorm();
}

/// The scale of body i's pivot (kPivotTolerance): the larger of its terms at the joint and
/// kRoundoffShare of its terms in frame 0.
inline double joint_pivot_scale(const Workspace &ws, int i, const Vec6 &S, const Mat6 &IA) {
  Transform to_joint;  // ^p H_0: frame 0's axes, origin at the joint's p = ^0 o_i
  to_joint.o = -ws.H0[i].o;
  const Vec3 w = S.tail<3>();
  const double at_joint =
      absolute_quadratic(transform_motion(to_joint, S), transform_inertia(to_joint, IA)) +
      kPivotLever * kPivotLever * absolute_quadratic(w, IA.topLeftCorner<3, 3>());
  return std::max(at_joint, kRoundoffShare * absolute_quadratic(S, IA));
}

/// The exact test below the cheap bounds of check_joint_pivot (rare: kept out of its inlined
/// fast path).
inline void check_joint_pivot_exactly(Outcome &outcome, const Workspace &ws, int i, double D,
                                      const Vec6 &S, const Mat6 &IA) {
  const double scale = joint_pivot_scale(ws, i, S, IA);
  if (D > kPivotTolerance * scale) return;
  const bool finite = std::isfinite(D) && std::isfinite(scale);
  outcome.keep_first(Outcome::failed_pivot(i, D, !finite ? NAN : scale > 0.0 ? D / scale : 0.0));
}

/// Checks the joint pivot D of body i (articulated inertia IA, motion subspace S, frame 0) and
/// keeps a failure in `outcome` (the first one: Outcome::failed_pivot). The cheap bounds tr(I^A)
/// |S|² ≥ |S|ᵀ|I^A||S| (I^A is positive semidefinite), at the joint (joint_scale_bound) and in
/// frame 0, settle every regular state; the exact scale is formed only below them. A pivot or scale
/// that is not finite is an overflow.
GEOLIN_ALWAYS_INLINE void check_joint_pivot(Outcome &outcome, const Workspace &ws, int i, double D,
                                            const Vec6 &S, const Mat6 &IA) {
  const double bound0 = IA.trace() * S.squaredNorm();
  const double bound = joint_scale_bound(IA, S, ws.H0[i].o);
  if (D > kPivotTolerance * std::max(bound, kRoundoffShare * bound0)) return;
  check_joint_pivot_exactly(outcome, ws, i, D, S, IA);
}

/// Whether the Cholesky factor of the base's articulated inertia I^A_0 is regular: every pivot
/// L_kk² above kPivotTolerance times the diagonal entry it comes from (dimensionless, the 6
/// coordinates mixing masses and inertias); keeps a failure as body 0 in `outcome`.
inline void check_base_pivots(Outcome &outcome, const Workspace &ws) {
  const Mat6 &IA0 = ws.IA[0];
  double worst = 0.0;
  bool ok = ws.IA0_llt.info() == Eigen::Success && IA0.allFinite();
  if (ok) {
    const Mat6 &L = ws.IA0_llt.matrixLLT();
    worst = HUGE_VAL;
    for (int k = 0; k < 6; ++k) {
      if (!(IA0(k, k) > 0.0)) {
        worst = 0.0;
        break;
      }
      worst = std::min(worst, L(k, k) * L(k, k) / IA0(k, k));
    }
    ok = worst > kPivotTolerance;
  }
  if (!ok) outcome.keep_first(Outcome::failed_pivot(0, worst, IA0.allFinite() ? worst : NAN));
}

/// Threshold of the pivots of Λ⁻¹ = J_c M⁻¹ J_cᵀ relative to their diagonal entries: below it
/// a contact row (nearly) repeats the others (redundant or singular contacts).
constexpr double kContactPivotTolerance = 1e-10;

/// The magnitude under which a pass's terms let its outputs be written straight into the
/// caller's arrays (crba_if_bounded, inverse_dynamics_linearize_if_bounded): each entry of the
/// mass matrix and of the RNEA derivatives is a sum of a few hundred products of at most three
/// terms, so with every term finite and below 2^332 ≈ 8.7e99 it stays below 1e303 < DBL_MAX. No
/// overflow then, hence no NaN either (docs/c-api.md, "Outputs").
constexpr double kTermBound = 0x1p332;

/// Whether every p[0, count) is finite and below kTermBound in magnitude: x · 2^692 overflows
/// exactly when |x| ≥ 2^(1024−692) (a power-of-two scale is exact), which the solver's widest
/// finiteness scan detects.
inline bool within_term_bound(const double *p, std::ptrdiff_t count) {
  return all_finite_wide(p, count, 0x1p692);
}

/// within_term_bound over x[first, end) of a vector of fixed-size Eigen objects (Vec6,
/// Mat63, ...), whose entries are contiguous.
template <class T, class Alloc>
bool within_term_bound(const std::vector<T, Alloc> &x, std::size_t first = 0) {
  if (first >= x.size()) return true;
  return within_term_bound(x[first].data(),
                           static_cast<std::ptrdiff_t>(x.size() - first) * T::SizeAtCompileTime);
}

}  // namespace geolin::detail
