// Analytical partial derivatives of RNEAmb with respect to s and ν, in O(n·depth).
//
// After J. Carpentier and N. Mansard, "Analytical derivatives of rigid body dynamics algorithms"
// (RSS 2018), written here in frame-0 coordinates (the moving base plays the role of their
// inertial frame; docs/dynamics.md §3–4). With Ψ̇_j = v_λ(j) × S_j, Ψ̈_j = a_λ(j) × S_j + v_λ(j) ×
// Ψ̇_j, h_k = M_k v_k and B_k = (v_k ×*) M_k − M_k (v_k ×) + Ξ(h_k), where Ξ(h) u = u ×* h, a change
// of s_j moves the subtree of j rigidly by exp(ε S_j^), which gives for the body wrenches
//   ∂f_k/∂s_j = S_j ×* f_k + M_k Ψ̈_j + B_k Ψ̇_j,     ∂f_k/∂r_j = 2 M_k Ψ̇_j + B_k S_j,
//   ∂f_k/∂v   = B_k + M_k (v_0 ×)                       (k in the subtree of j; all k for v).
// Summing over subtrees with composites I^C_i = Σ M_k, B^C_i = Σ B_k and projecting on S_i
// (whose own derivative cancels the S_j ×* F_i term for i in the subtree of j):
//   i in subtree(j):  ∂τ_i/∂s_j = S_iᵀ (I^C_i Ψ̈_j + B^C_i Ψ̇_j),
//                     ∂τ_i/∂r_j = S_iᵀ (2 I^C_i Ψ̇_j + B^C_i S_j),
//   i ancestor of j:  ∂τ_i/∂s_j = S_iᵀ (S_j ×* F_j + I^C_j Ψ̈_j + B^C_j Ψ̇_j),
//                     ∂τ_i/∂r_j = S_iᵀ (2 I^C_j Ψ̇_j + B^C_j S_j),
// with the base (S_0 = 1_6) an ancestor of every joint, and ∂τ_i/∂v = S_iᵀ (B^C_i + I^C_i (v_0×)).
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {
namespace {

// B = (v ×*) M − M (v ×) + Ξ(h), h = M v. Written out in 3x3 blocks with
// M = [[m 1, −m c^], [m c^, Ī]] (Ī the rotational inertia about the frame origin; M given as
// (m, m c, Ī), Workspace::CompactInertia), its left
// half vanishes and B = [[0, −2 h_f^], [0, −m (l^ c^ + c^ l^) + w^ Ī − Ī w^ − h_n^]]
// for v = [l; w], h = [h_f; h_n]: an O(1) closed form instead of two 6x6 products. With Ī
// symmetric, w^ Ī − Ī w^ = w^ Ī + (w^ Ī)ᵀ, and a^ b^ = b aᵀ − (a·b) 1 gives
// l^ c^ + c^ l^ = c lᵀ + l cᵀ − 2 (l·c) 1. Writes the right half.
using Mat63 = Eigen::Matrix<double, 6, 3>;
void body_B(const Workspace::CompactInertia &M, const Vec6 &v, const Vec6 &h, Mat63 &B) {
  const double c0 = M.h[0], c1 = M.h[1], c2 = M.h[2];  // m c
  const double l0 = v[0], l1 = v[1], l2 = v[2], w0 = v[3], w1 = v[4], w2 = v[5];
  auto I = [&](int r, int c) { return M.I(r, c); };  // Ī, symmetric
  // P = w^ Ī, row by row.
  double P[3][3];
  for (int c = 0; c < 3; ++c) {
    P[0][c] = w1 * I(2, c) - w2 * I(1, c);
    P[1][c] = w2 * I(0, c) - w0 * I(2, c);
    P[2][c] = w0 * I(1, c) - w1 * I(0, c);
  }
  const double lc = 2.0 * (l0 * c0 + l1 * c1 + l2 * c2);
  const double l[3] = {l0, l1, l2}, mc[3] = {c0, c1, c2};
  const double hf0 = h[0], hf1 = h[1], hf2 = h[2], hn0 = h[3], hn1 = h[4], hn2 = h[5];
  // Top: −2 h_f^.
  B(0, 0) = 0.0, B(0, 1) = 2.0 * hf2, B(0, 2) = -2.0 * hf1;
  B(1, 0) = -2.0 * hf2, B(1, 1) = 0.0, B(1, 2) = 2.0 * hf0;
  B(2, 0) = 2.0 * hf1, B(2, 1) = -2.0 * hf0, B(2, 2) = 0.0;
  // Bottom: P + Pᵀ − (m c lᵀ + l m cᵀ) + 2 (l·m c) 1 − h_n^.
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      B(3 + r, c) = P[r][c] + P[c][r] - mc[r] * l[c] - l[r] * mc[c] + (r == c ? lc : 0.0);
  B(3, 1) += hn2, B(3, 2) -= hn1;
  B(4, 0) -= hn2, B(4, 2) += hn0;
  B(5, 0) += hn1, B(5, 1) -= hn0;
}

// RNEA's forward pass (RBDA Table 5.1) plus Ψ̇_j = v_λ(j) × S_j, Ψ̈_j = a_λ(j) × S_j + v_λ(j) × Ψ̇_j
// and the body terms of the header's formulas: F_k = M_k a_k + v_k ×* h_k, I^C_k = M_k and B_k
// (body_B), each M_k as 10 numbers (Workspace::CompactInertia): from the poses (body_inertia0), or
// after aba_pass at the same state from its 6x6 ws.I0, where v_k, a_k, Ψ̇_k and h_k = M_k v_k are
// already in the workspace (ABA's accelerations are those of RNEA at ν̇ = FD).
// (v0, a0, r, ṙ, ws.S0, ws.H0 or ws.I0) => (ws.v, ws.a, ws.Psi_dot, ws.h; ws.Psi_ddot, ws.F,
// ws.IC_compact, ws.BC)
void forward_terms(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
                   CRefVec r_dot, DerivativeInputs inputs) {
  const bool after_aba = inputs == DerivativeInputs::aba_state;
  ws.v[0] = v0;
  ws.a[0] = a0;
  for (int k = 0; k <= model.n_B; ++k) {
    if (k > 0) {
      const int lam = model.parent[k];
      const Vec6 &S = ws.S0[k];
      if (!after_aba) {
        ws.Psi_dot[k] = cross_motion(ws.v[lam], S);
        ws.v[k] = ws.v[lam] + S * r[k - 1];
        ws.a[k] = ws.a[lam] + S * r_dot[k - 1] + ws.Psi_dot[k] * r[k - 1];
      }
      cross_motion_to(ws.a[lam], S, ws.Psi_ddot[k]);
      cross_motion_to<true>(ws.v[lam], ws.Psi_dot[k], ws.Psi_ddot[k]);
    }
    const Workspace::CompactInertia I =
        after_aba ? compact_of(ws.I0[k]) : body_inertia0(model, ws.H0[k], k);
    if (!after_aba) ws.h[k] = inertia_times(I, ws.v[k]);
    const Vec6 &h = ws.h[k];
    ws.F[k] = inertia_times(I, ws.a[k]);  // f = I a + v ×* I v (RBDA Table 5.1)
    cross_force_to<true>(ws.v[k], h, ws.F[k]);
    ws.IC_compact[k] = I;
    body_B(I, ws.v[k], h, ws.BC[k]);
  }
}

// RNEA's backward pass (RBDA Table 5.1) on the composites I^C_i = Σ M_k (10 numbers each),
// B^C_i = Σ B_k, the forces F_i and (Mixed wrenches) EC_i over i's subtree, then the rows
// S_iᵀ I^C_i = (I^C_i S_i)ᵀ (I^C is symmetric) and S_iᵀ B^C_i (and S_iᵀ EC_i) of the header's
// formulas, and I^C_0 as a 6x6 matrix.
// (ws.IC_compact, ws.BC, ws.F, ws.EC_ext of each body) => (their subtree sums; ws.SI_row,
// ws.SB_row, ws.SE_row, ws.IC[0])
void composites_and_rows(const Model &model, Workspace &ws, bool mixed) {
  auto &IC = ws.IC_compact;
  for (int k = model.n_B; k >= 1; --k) {
    const int lam = model.parent[k];
    IC[lam].m += IC[k].m;  // (D8)
    IC[lam].h += IC[k].h;
    IC[lam].I += IC[k].I;
    ws.BC[lam] += ws.BC[k];
    ws.F[lam] += ws.F[k];
    if (mixed) ws.EC_ext[lam] += ws.EC_ext[k];
  }
  for (int i = 1; i <= model.n_B; ++i) {
    ws.SI_row[i] = inertia_times(IC[i], ws.S0[i]);
    ws.SB_row[i].noalias() = ws.BC[i].transpose() * ws.S0[i];
    if (mixed) ws.SE_row[i].noalias() = ws.EC_ext[i].transpose() * ws.S0[i];
  }
  ws.IC[0] = spatial_of(IC[0]);
}

// Column j of ∂ID/∂s and ∂ID/∂r (the header's formulas; Carpentier & Mansard 2018 in frame 0):
// rows i in subtree(j) from S_iᵀ I^C_i and S_iᵀ B^C_i, the ancestors' rows and the base's from
// Q = S_j ×* F_j + I^C_j Ψ̈_j + B^C_j Ψ̇_j and W = 2 I^C_j Ψ̇_j + B^C_j S_j.
// (ws.S0, ws.Psi_dot, ws.Psi_ddot, ws.IC, ws.BC, ws.F, ws.EC_ext, the rows) => (dID_ds, dID_dr)
void joint_column(const Model &model, const Workspace &ws, int j, bool mixed, StridedMat &dID_ds,
                  StridedMat &dID_dr) {
  const int cj = j - 1;  // column of s_j and r_j
  const Vec6 &Sj = ws.S0[j], &Pd = ws.Psi_dot[j], &Pdd = ws.Psi_ddot[j];
  // Subtree rows (B^C has a zero left half: only angular parts of Ψ̇_j and S_j enter).
  for (int i = j; i < model.subtree_end[j]; ++i) {
    const Vec6 &SI = ws.SI_row[i];
    const Vec3 &SB = ws.SB_row[i];
    // docs/dynamics.md (D27): S_iᵀ (I^C_i Ψ̈_j + B^C_i Ψ̇_j)
    double ds = SI.dot(Pdd) + SB.dot(Pd.tail<3>());
    if (mixed) ds -= ws.SE_row[i].dot(Sj.tail<3>());
    dID_ds(model.dof(i), cj) = ds;
    dID_dr(model.dof(i), cj) = 2.0 * SI.dot(Pd) + SB.dot(Sj.tail<3>());
  }
  // Ancestor rows: docs/dynamics.md (D28).
  Vec6 Q = inertia_times(ws.IC_compact[j], Pdd);
  Q.noalias() += ws.BC[j] * Pd.tail<3>();
  cross_force_to<true>(Sj, ws.F[j], Q);
  if (mixed) Q.noalias() -= ws.EC_ext[j] * Sj.tail<3>();
  Vec6 W = inertia_times(ws.IC_compact[j], Vec6(2.0 * Pd));
  W.noalias() += ws.BC[j] * Sj.tail<3>();
  for (int i = model.parent[j]; i >= 1; i = model.parent[i]) {
    dID_ds(model.dof(i), cj) = ws.S0[i].dot(Q);
    dID_dr(model.dof(i), cj) = ws.S0[i].dot(W);
  }
  if (!model.fixed_base) {
    dID_ds.block<6, 1>(0, cj) = Q;
    dID_dr.block<6, 1>(0, cj) = W;
  }
}

// ∂ID/∂v of a moving base (docs/dynamics.md (D29)): ∂τ_i/∂v = S_iᵀ (B^C_i + I^C_i (v_0×)) = [0,
// S_iᵀ B^C_i] −
// ((v_0 ×*) I^C_i S_i)ᵀ, using (v×)ᵀ = −(v×*): O(1) per body instead of a 6x6 product.
// (ws.v[0] = v_0, ws.SI_row, ws.SB_row, ws.IC[0], ws.BC[0]) => (dID_dv)
void base_velocity_columns(const Model &model, const Workspace &ws, StridedMat &dID_dv) {
  const Vec6 &v0 = ws.v[0];
  const Vec6 minus_v0 = -v0;
  for (int i = 1; i <= model.n_B; ++i) {
    auto row = dID_dv.block<1, 6>(model.dof(i), 0);
    row.head<3>().setZero();
    row.tail<3>() = ws.SB_row[i].transpose();
    cross_force_to<true>(minus_v0, ws.SI_row[i], row);
  }
  // I^C_0 (v_0×) = −((v_0 ×*) I^C_0)ᵀ (I^C_0 symmetric): six cross products, not a 6x6 product.
  for (int e = 0; e < 6; ++e) {
    const Vec6 col = cross_force(v0, ws.IC[0].col(e));
    dID_dv.block<1, 6>(e, 0) = -col.transpose();
  }
  dID_dv.block<6, 3>(0, 3) += ws.BC[0];
}

}  // namespace

void rnea_derivative_terms(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, const BodyWrenches &fext,
                           DerivativeInputs inputs) {
  forward_terms(model, ws, v0, a0, r, r_dot, inputs);
  // External wrenches: covariant ones (Local) only shift F; Mixed ones also keep their world
  // directions, which adds −S_iᵀ EC ω_j terms (frames.cpp, load_external_wrenches).
  const bool mixed = fext.mixed();
  if (fext.any())
    for (int k = 0; k <= model.n_B; ++k) ws.F[k] -= fext.f[k];
  if (mixed)
    for (int k = 0; k <= model.n_B; ++k) ws.EC_ext[k] = fext.E[k];
  composites_and_rows(model, ws, mixed);
}

bool rnea_derivative_terms_bounded(const Workspace &ws) {
  // Every entry of the columns is a sum of products of at most three of these: the joints' S_i,
  // Ψ̇_i, Ψ̈_i and rows (from 1), every body's I^C_i, B^C_i and F_i, and v_0 (Q and W are
  // products of two). EC_ext is not among them: no Mixed wrench.
  static_assert(sizeof(Workspace::CompactInertia) == 13 * sizeof(double), "13 contiguous numbers");
  const auto compact_count = static_cast<std::ptrdiff_t>(13 * ws.IC_compact.size());
  return within_term_bound(ws.S0, 1) && within_term_bound(ws.Psi_dot, 1) &&
         within_term_bound(ws.Psi_ddot, 1) && within_term_bound(ws.SI_row, 1) &&
         within_term_bound(ws.SB_row, 1) && within_term_bound(ws.F) && within_term_bound(ws.BC) &&
         within_term_bound(&ws.IC_compact[0].m, compact_count) &&
         within_term_bound(ws.IC[0].data(), 36) && within_term_bound(ws.v[0].data(), 6);
}

void rnea_derivative_columns(const Model &model, const Workspace &ws, bool mixed, StridedMat dID_ds,
                             StridedMat dID_dv, StridedMat dID_dr) {
  const int nb = model.n_B;
  for (int j = 1; j <= nb; ++j) joint_column(model, ws, j, mixed, dID_ds, dID_dr);
  if (!model.fixed_base) base_velocity_columns(model, ws, dID_dv);
  if (model.joint_damping)  // τ = ID + D r
    for (int i = 1; i <= nb; ++i) dID_dr(model.dof(i), i - 1) += model.damping[i];
}

void rnea_derivatives_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, const BodyWrenches &fext, StridedMat dID_ds,
                           StridedMat dID_dv, StridedMat dID_dr, DerivativeInputs inputs) {
  rnea_derivative_terms(model, ws, v0, a0, r, r_dot, fext, inputs);
  rnea_derivative_columns(model, ws, fext.mixed(), dID_ds, dID_dv, dID_dr);
}

}  // namespace detail

void rnea_derivatives(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v, CRefVec r, CRefVec nu_dot, RefMat dID_ds, RefMat dID_dnu) {
  detail::forward_poses(model, ws, s);
  Vec6 v0, a0;
  detail::base_motion(model, ws, H, v, nu_dot, v0, a0);
  const int nj = model.n_B, n = model.num_dofs(), nv = n - nj;
  // [∂ID/∂s | ∂ID/∂v | ∂ID/∂r] side by side in ws.rhs, zeroed first.
  Eigen::Map<Workspace::RowMajorMat, 0, Eigen::OuterStride<>> R(ws.rhs.data(), n, nj + n,
                                                                Eigen::OuterStride<>(ws.max_rhs));
  R.setZero();
  const Eigen::Index ld = R.outerStride();
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  double *p = R.data();
  detail::rnea_derivatives_pass(
      model, ws, v0, a0, r, nu_dot.segment(model.joint_offset(), nj), {},
      detail::StridedMat(p, n, nj, Stride(ld, 1)), detail::StridedMat(p + nj, n, nv, Stride(ld, 1)),
      detail::StridedMat(p + nj + nv, n, nj, Stride(ld, 1)), detail::DerivativeInputs::poses_only);
  dID_ds = R.leftCols(nj);
  dID_dnu = R.rightCols(n);
}

}  // namespace geolin
