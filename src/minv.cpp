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

namespace geolin::detail {

// ABA's recursion with zero velocities and gravity for the right-hand sides R (generalized
// forces, one per column): backward u_i = R_i − S_iᵀ P_i, P_λ += P_i + U_i D_i⁻¹ u_i; base
// a_0 = (I^A_0)⁻¹ (R_0 − P_0); forward x_i = D_i⁻¹ (u_i − U_iᵀ a_λ), a_i = a_λ + S_i x_i.
// Panels are row-major so that each step is a contiguous axpy over all columns.
namespace {

// One body of the backward pass over all columns, fused: u = D⁻¹ (x − Sᵀ P_i) and
// P_λ (=|+=) P_i + U u. TI: P_i holds data; TL: P_λ already holds data.
template <bool TI, bool TL>
void backward_body(int cols, double *__restrict u, double *const *pp, double *const *ppl,
                   const Vec6 &S, const Vec6 &U, double d) {
  // The rows of P_i, P_λ and u are distinct memory: tell the compiler, so it vectorizes.
  const double *__restrict p[6] = {pp[0], pp[1], pp[2], pp[3], pp[4], pp[5]};
  double *__restrict pl[6] = {ppl[0], ppl[1], ppl[2], ppl[3], ppl[4], ppl[5]};
  for (int c = 0; c < cols; ++c) {
    double uc = u[c];
    if (TI)
      uc -= S[0] * p[0][c] + S[1] * p[1][c] + S[2] * p[2][c] + S[3] * p[3][c] + S[4] * p[4][c] +
            S[5] * p[5][c];
    uc *= d;
    u[c] = uc;
    for (int r = 0; r < 6; ++r) pl[r][c] = (TL ? pl[r][c] : 0.0) + (TI ? p[r][c] : 0.0) + U[r] * uc;
  }
}

// One body of the forward pass, fused per column: x −= (D⁻¹ U)ᵀ a_λ, a_i = a_λ + S x.
void forward_body(int cols, double *__restrict x, double *const *pal, double *const *pai,
                  const Vec6 &S, const Vec6 &DU) {
  const double *__restrict al[6] = {pal[0], pal[1], pal[2], pal[3], pal[4], pal[5]};
  double *__restrict ai[6] = {pai[0], pai[1], pai[2], pai[3], pai[4], pai[5]};
  for (int c = 0; c < cols; ++c) {
    const double xc = x[c] - (DU[0] * al[0][c] + DU[1] * al[1][c] + DU[2] * al[2][c] +
                              DU[3] * al[3][c] + DU[4] * al[4][c] + DU[5] * al[5][c]);
    x[c] = xc;
    for (int r = 0; r < 6; ++r) ai[r][c] = al[r][c] + S[r] * xc;
  }
}

}  // namespace

void articulated_solve(const Model &model, Workspace &ws, int cols) {
  const int nb = model.n_B;
  const Eigen::Index ld = ws.rhs.cols();  // row stride of the panels
  double *X = ws.rhs.data();
  auto prow = [&](int body, int r) { return ws.P_panel.data() + (6 * body + r) * ld; };
  auto arow = [&](int body, int r) { return ws.A_panel.data() + (6 * body + r) * ld; };
  std::fill(ws.touched.begin(), ws.touched.end(), 0);
  double *p[6], *pl[6];
  for (int i = nb; i >= 1; --i) {
    const int lam = model.parent[i];
    double *u = X + model.dof(i) * ld;  // becomes D⁻¹ u_i
    for (int r = 0; r < 6; ++r) {
      p[r] = prow(i, r);
      pl[r] = prow(lam, r);
    }
    const Vec6 &S = ws.S0[i], &U = ws.U[i];
    const double d = ws.D_inv[i];
    const bool ti = ws.touched[i], tl = ws.touched[lam];
    if (ti && tl) backward_body<true, true>(cols, u, p, pl, S, U, d);
    if (ti && !tl) backward_body<true, false>(cols, u, p, pl, S, U, d);
    if (!ti && tl) backward_body<false, true>(cols, u, p, pl, S, U, d);
    if (!ti && !tl) backward_body<false, false>(cols, u, p, pl, S, U, d);
    ws.touched[lam] = 1;
  }
  if (model.fixed_base) {
    for (int r = 0; r < 6; ++r) std::fill(arow(0, r), arow(0, r) + cols, 0.0);
  } else {
    auto X0 = ws.rhs.topLeftCorner(6, cols);
    if (ws.touched[0]) X0 -= ws.P_panel.topLeftCorner(6, cols);
    Eigen::LLT<Mat6>(ws.IA[0]).solveInPlace(X0);
    ws.A_panel.topLeftCorner(6, cols) = X0;
  }
  // Forward pass.
  double *al[6], *ai[6];
  for (int i = 1; i <= nb; ++i) {
    const int lam = model.parent[i];
    double *x = X + model.dof(i) * ld;
    for (int r = 0; r < 6; ++r) {
      al[r] = arow(lam, r);
      ai[r] = arow(i, r);
    }
    const Vec6 &S = ws.S0[i];
    const Vec6 DU = ws.D_inv[i] * ws.U[i];
    forward_body(cols, x, al, ai, S, DU);
  }
}

}  // namespace geolin::detail
