// M(s)^{-1} without forming or factorizing M: column c of M^{-1} is the acceleration produced by
// a unit generalized force e_c at zero velocity and zero gravity (J. Carpentier, "Analytical
// inverse of the joint space inertia matrix", 2018), i.e. ABA's recursion (RBDA Table 7.1, the
// moving base as a 6-DoF root body, RBDA §9.3) applied to the n unit columns at once. The
// articulated inertias come first; the columns then go through articulated_solve, which visits
// per body only the columns a branch can make non-zero and vectorizes over columns.
#include <Eigen/Cholesky>

#include "numeric_checks.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace detail {

Outcome articulated_inertias(const Model &model, Workspace &ws) {
  // I^A_i, U_i = I^A_i S_i and D_i⁻¹ (RBDA Table 7.1, velocity-free part), pivots checked.
  const int nj = model.n_B;
  Outcome outcome;
  for (int i = 0; i <= nj; ++i) ws.IA[i] = ws.I0[i];
  // docs/dynamics.md (D10)-(D11) without velocities
  for (int i = nj; i >= 1; --i)
    ws.IA[model.parent[i]] += articulated_inertia_step(model, ws, i, outcome);
  if (!model.fixed_base) {
    ws.IA0_llt.compute(ws.IA[0]);
    ws.IA0_inv_valid = false;
    check_base_pivots(outcome, ws);
  }
  return outcome;
}

Outcome minv_pass(const Model &model, Workspace &ws, RefMat Minv) {
  const int n = model.num_dofs(), nj = model.n_B, nv = n - nj;
  const Outcome outcome = articulated_inertias(model, ws);
  // The unit columns: a base column is non-zero in the base rows only (kAtBody of body 0), joint
  // column j in row j only (within what kPerJoint allows).
  const int ldx = solve_stride(n);
  double *X = ws.rhs.data();
  std::fill_n(X, static_cast<std::ptrdiff_t>(n) * ldx, 0.0);
  for (int c = 0; c < n; ++c) X[c * ldx + c] = 1.0;
  RhsBlock *blocks = ws.rhs_blocks.data();
  int nblk = 0;
  if (nv > 0) blocks[nblk++] = {RhsBlock::kAtBody, 0, nv, 1, 0};
  blocks[nblk++] = {RhsBlock::kPerJoint, nv, nj, 1};
  articulated_solve(model, ws, blocks, nblk, n);  // docs/dynamics.md (D14)
  Minv = Eigen::Map<const Workspace::RowMajorMat, 0, Eigen::OuterStride<>>(
      X, n, n, Eigen::OuterStride<>(ldx));
  return outcome;
}

}  // namespace detail

Outcome mass_matrix_inverse(const Model &model, Workspace &ws, CRefVec s, RefMat Minv) {
  forward_kinematics(model, ws, s);
  return detail::minv_pass(model, ws, Minv);
}

}  // namespace geolin
