// M(s)^{-1} by an ABA-like recursion, without forming or factorizing M (J. Carpentier,
// "Analytical inverse of the joint space inertia matrix", 2018), in frame-0 coordinates with the
// moving base as a 6-DoF root body (RBDA §9.3). Column c of M^{-1} is the acceleration produced
// by a unit generalized force e_c at zero velocity and zero gravity; all n columns are carried
// at once, and each body only touches the columns of its subtree (DFS numbering makes them
// contiguous).
#include <Eigen/Cholesky>

#include "internal.hpp"

namespace geolin {
namespace detail {

void minv_pass(const Model &model, Workspace &ws, RefMat Minv) {
  const int n = model.num_dofs();
  for (int i = 0; i <= model.n_B; ++i) ws.IA[i] = ws.I0[i];
  ws.Fcols.setZero();
  Minv.setZero();
  // Backward pass: articulated inertias and the bias forces F_i (6 x n) of the unit torques.
  for (int i = model.n_B; i >= 1; --i) {
    const int lam = model.parent[i];
    const Vec6 &S = ws.S0[i];
    ws.U[i].noalias() = ws.IA[i] * S;
    ws.D_inv[i] = 1.0 / S.dot(ws.U[i]);
    const int k = model.dof(i);
    const int len = model.subtree_end[i] - i;  // columns of the subtree: k .. k + len - 1
    auto Fi = ws.Fcols.block(6 * i, k, 6, len);
    // Row k of M^-1 holds D^-1 (e_i - S^T F_i) for now (u_i / D_i of RBDA Table 7.1).
    Minv.row(k).segment(k, len).noalias() = -ws.D_inv[i] * (S.transpose() * Fi);
    Minv(k, k) += ws.D_inv[i];
    ws.Fcols.block(6 * lam, k, 6, len) += Fi;
    ws.Fcols.block(6 * lam, k, 6, len).noalias() += ws.U[i] * Minv.row(k).segment(k, len);
    Mat6 Ia = ws.IA[i];
    Ia.noalias() -= ws.D_inv[i] * ws.U[i] * ws.U[i].transpose();
    ws.IA[lam] += Ia;
  }
  // The base: a_0 = (I^A_0)^-1 ([1_6 0] - F_0); these are the base rows of M^-1.
  if (model.fixed_base) {
    ws.Acols.topRows<6>().setZero();
  } else {
    Eigen::LLT<Mat6> llt(ws.IA[0]);
    ws.Acols.topRows<6>() = -ws.Fcols.topRows<6>();
    ws.Acols.topLeftCorner<6, 6>() += Mat6::Identity();
    llt.solveInPlace(ws.Acols.topRows<6>());
    Minv.topRows<6>() = ws.Acols.topRows<6>();
  }
  // Forward pass: r_dot_i = D^-1 (u_i - U_i^T a_λ), a_i = a_λ + S_i r_dot_i, for all columns.
  for (int i = 1; i <= model.n_B; ++i) {
    const int lam = model.parent[i];
    const int k = model.dof(i);
    Minv.row(k).noalias() -= (ws.D_inv[i] * ws.U[i].transpose()) * ws.Acols.middleRows<6>(6 * lam);
    ws.Acols.middleRows<6>(6 * i) = ws.Acols.middleRows<6>(6 * lam);
    ws.Acols.middleRows<6>(6 * i).noalias() += ws.S0[i] * Minv.row(k);
  }
  (void)n;
}

}  // namespace detail

void mass_matrix_inverse(const Model &model, Workspace &ws, CRefVec s, RefMat Minv) {
  forward_kinematics(model, ws, s);
  detail::minv_pass(model, ws, Minv);
}

}  // namespace geolin
