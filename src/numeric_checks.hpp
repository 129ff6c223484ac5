// Numeric checks shared by the passes: the articulated pivots of M's factorization
// (docs/c-api.md, "Numeric contract") and the pivots of the contacts' Λ⁻¹.
#pragma once

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

#include "geolin/algorithms.hpp"

namespace geolin::detail {

/// Threshold of the articulated pivots (docs/c-api.md, "Numeric contract"). A joint
/// pivot D_i = S_iᵀ I^A_i S_i is computed in frame 0 from terms as large as |S_i|ᵀ |I^A_i| |S_i|
/// (entrywise absolute values): when D_i is not above kPivotTolerance times that, the round-off of
/// the sum is comparable with D_i itself and M is singular to working precision at this state
/// (iCub at its zero pose: 1e-11; the worst of 2000 random iCub states: 1e-7; a 2000-body chain
/// stretched straight: 6e-9). A base pivot of the Cholesky factor of I^A_0 fails the same way when
/// L_kk² is not above kPivotTolerance · (I^A_0)_kk.
constexpr double kPivotTolerance = 1e-10;

/// Records a failed pivot of body i in ws.singular: its value and its ratio to its scale, or a NaN
/// ratio when the pivot or its scale is not finite (the computation overflowed:
/// singular_overflowed).
inline void record_singular(Workspace &ws, int i, double pivot, double ratio) {
  if (ws.singular >= 0) return;
  ws.singular = i;
  ws.singular_pivot = pivot;
  ws.singular_ratio = ratio;
}

/// Whether the failure recorded in ws.singular is an overflow (a pivot or its scale is not
/// finite: inputs too large, not a singular M).
inline bool singular_overflowed(const Workspace &ws) {
  return ws.singular >= 0 && !std::isfinite(ws.singular_ratio);
}

/// Checks the joint pivot D of body i (articulated inertia IA, motion subspace S, frame 0) and
/// records a failure in ws.singular. The cheap bound tr(I^A) |S|² ≥ |S|ᵀ|I^A||S| (I^A is positive
/// semidefinite) settles every regular state; the exact scale is formed only below it. A pivot or
/// scale that is not finite is an overflow.
inline void check_joint_pivot(Workspace &ws, int i, double D, const Vec6 &S, const Mat6 &IA) {
  if (D > kPivotTolerance * IA.trace() * S.squaredNorm()) return;
  const Vec6 a = S.cwiseAbs();
  const double scale = a.dot(IA.cwiseAbs() * a);
  if (D > kPivotTolerance * scale) return;
  const bool finite = std::isfinite(D) && std::isfinite(scale);
  record_singular(ws, i, D, !finite ? NAN : scale > 0.0 ? D / scale : 0.0);
}

/// Whether the Cholesky factor of the base's articulated inertia I^A_0 is regular: every pivot
/// L_kk² above kPivotTolerance times the diagonal entry it comes from (dimensionless, the 6
/// coordinates mixing masses and inertias); records a failure as body 0 in ws.singular.
inline void check_base_pivots(Workspace &ws) {
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
  if (!ok) record_singular(ws, 0, worst, IA0.allFinite() ? worst : NAN);
}

/// The first pivot failure over a sequence of factorizations (the evaluations of a finite
/// difference, the stages of a step), each of which resets ws.singular.
struct SingularLatch {
  int body = -1;
  double pivot = 0.0, ratio = 0.0;
  void take(const Workspace &ws) {
    if (body < 0 && ws.singular >= 0) {
      body = ws.singular;
      pivot = ws.singular_pivot;
      ratio = ws.singular_ratio;
    }
  }
  void restore(Workspace &ws) const {
    if (body >= 0) {
      ws.singular = body;
      ws.singular_pivot = pivot;
      ws.singular_ratio = ratio;
    }
  }
};

/// Threshold of the pivots of Λ⁻¹ = J_c M⁻¹ J_cᵀ relative to their diagonal entries: below it
/// a contact row (nearly) repeats the others (redundant or singular contacts).
constexpr double kContactPivotTolerance = 1e-10;

}  // namespace geolin::detail
