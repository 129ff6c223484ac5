// The exact left-trivialized linearization ż = A z + B w of ẋ = x λ(x, τ) on
// G = SE(3) × R^nJ × R^6 × R^nJ (Bos et al. 2022, §3; Saccon et al. 2013; docs/dynamics.md §4):
//   A = D_x λ · T_e L_x − ad_λ,  B = D_τ λ  (docs/dynamics.md (D16)), with
//   A = [[−v×, 0, 1_6, 0], [0, 0, 0, 1], [F_H, F_s, F_v, F_r]],  B = [0; 0; M⁻¹ S],
//   F_H = [[0, (Rᵀg)^], [0, 0]] (first 6 rows, zero below),
//   [F_s, F_v, F_r] = −M⁻¹ [∂ID/∂s, ∂ID/∂ν] at ν̇ = FD  (D19),
// with M⁻¹ applied to all right-hand sides by the articulated-body recursion
// (articulated_solve.cpp).
#include <algorithm>

#include "geometry.hpp"
#include "linearize_solve.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace detail {

LinearizeLayout linearize_layout(const Model &model, int nf, bool mixed, bool base_pose_cols) {
  LinearizeLayout L;
  L.n = model.num_dofs();
  L.nj = model.n_B;
  L.nv = L.n - L.nj;  // base velocity columns: 6, or 0 for a fixed base
  L.nf = nf;
  L.mixed = mixed;
  L.c_J = L.nv;
  L.c_w = L.nv + 3 * L.nj;
  L.c_E = L.c_w + 6 * nf;
  L.cols = L.c_E + (mixed ? 3 : 0);
  L.c_H = L.cols;
  L.base_pose_cols = base_pose_cols && !model.fixed_base;
  if (L.base_pose_cols) L.cols += 6;
  L.ldx = solve_stride(L.cols);
  return L;
}

// Right-hand sides, one column each, row-major and compact at the start of ws.rhs: the base
// columns of ∂ID/∂ν (moving base), then per joint j the triple [∂ID/∂s_j, ∂ID/∂r_j, S_j]
// (they share j's branch sparsity, so the solve sees one contiguous range per body), then
// J_Fᵀ per wrench and E (Mixed). Their solutions X = M⁻¹ R give −F_s, −[F_v F_r], M⁻¹S, the
// wrench columns of B and the attitude term of F_H without forming M⁻¹ (O(n) per column).
int linearize_solve(const Model &model, Workspace &ws, const Transform &H, const Vec6 &v0,
                    const Vec6 &a0, CRefVec r, const BodyWrenches &fext,
                    const ExternalWrenches *ext, const LinearizeLayout &L, SolveExtent extent) {
  const int n = L.n, nj = L.nj, nv = L.nv, ldx = L.ldx;
  const bool moving = !model.fixed_base;
  double *X = ws.rhs.data();
  std::fill_n(X, n * ldx, 0.0);
  Eigen::Map<Workspace::RowMajorMat, 0, Eigen::OuterStride<>> R(X, n, L.cols,
                                                                Eigen::OuterStride<>(ldx));
  using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  rnea_derivatives_pass(
      model, ws, v0, a0, r, ws.nu_dot.segment(model.joint_offset(), nj), fext,
      StridedMat(X + L.c_J, n, nj, Stride(ldx, 3)), StridedMat(X, n, nv, Stride(ldx, 1)),
      StridedMat(X + L.c_J + 1, n, nj, Stride(ldx, 3)), DerivativeInputs::aba_state);
  for (int i = 1; i <= nj; ++i) R(model.dof(i), L.c_J + 3 * (i - 1) + 2) = 1.0;
  for (int w = 0; w < L.nf; ++w) {
    // J_Fᵀ = [X; S_iᵀ X (i on the path to the frame's body)], X the wrench's force transform:
    // the generalized force of a wrench, docs/dynamics.md (D22).
    const Mat6 Xf = force_transform(wrench_frame0(model, ws, H, ext->frames[w], ext->flags));
    auto G = R.middleCols(L.c_w + 6 * w, 6);
    if (moving) G.topRows<6>() = Xf;
    for (int i = model.frames[ext->frames[w]].body; i >= 1; i = model.parent[i])
      G.row(model.dof(i)) = ws.S0[i].transpose() * Xf;
  }
  if (L.mixed) {
    // Mixed wrenches keep their world directions: ∂FD/∂ω_H = M⁻¹ [EC_0; S_iᵀ EC_i].
    auto G = R.middleCols(L.c_E, 3);
    G.topRows<6>() = ws.EC_ext[0];
    for (int i = 1; i <= nj; ++i) G.row(model.dof(i)) = ws.SE_row[i].transpose();
  }
  // The sparsity of each block, so that the solve skips columns that are zero on a branch.
  RhsBlock *blocks = ws.rhs_blocks.data();
  int nblk = 0;
  if (nv > 0) blocks[nblk++] = {RhsBlock::kDense, 0, nv};
  blocks[nblk++] = {RhsBlock::kPerJoint, L.c_J, 3 * nj, 3};
  for (int w = 0; w < L.nf; ++w)
    blocks[nblk++] = {RhsBlock::kAtBody, L.c_w + 6 * w, 6, 1, model.frames[ext->frames[w]].body};
  if (L.mixed) blocks[nblk++] = {RhsBlock::kDense, L.c_E, 3};
  // Columns for the caller (zero here): only the base's step and the forward pass touch them.
  if (L.base_pose_cols) blocks[nblk++] = {RhsBlock::kAtBody, L.c_H, 6, 1, 0};
  if (extent == SolveExtent::to_innovations)
    articulated_solve_backward(model, ws, blocks, nblk, L.cols);
  else
    articulated_solve(model, ws, blocks, nblk, L.cols);
  return nblk;
}

void linearize_write(const Model &model, const Workspace &ws, const LinearizeLayout &L,
                     const Vec6 &v, bool F_H_in_X, RefMat A, RefMat B) {
  const int n = L.n, nj = L.nj, nv = L.nv, ldx = L.ldx;
  const bool moving = !model.fixed_base;
  const double *X = ws.rhs.data();
  // A and B are column-major, written column by column: z_H's columns (zero but for F_H), then
  // per block the zero top half and the bottom half from the rows of X, then the few non-zeros
  // of the top halves.
  const Eigen::Index lda = A.outerStride(), ldb = B.outerStride();
  double *a = A.data();
  if (moving && F_H_in_X)  // z_H: zero top half, F_H below (from −X's z_H columns, or zero)
    write_columns(X + L.c_H, ldx, n, 6, {a, lda, -1.0}, n);
  else if (moving)
    for (int c = 0; c < 6; ++c) std::fill_n(a + c * lda, 2 * n, 0.0);
  const int s_col = moving ? 6 : 0;  // first column of z_s
  // The triples (∂ID/∂s_j, ∂ID/∂r_j, S_j) give F_s, F_r and M⁻¹ S.
  const ColumnDest triple[3] = {
      {a + s_col * lda, lda, -1.0}, {a + (n + nv) * lda, lda, -1.0}, {B.data(), ldb, 1.0}};
  write_columns(X + L.c_J, ldx, n, nj, 3, triple, n);
  write_columns(X, ldx, n, nv, {a + n * lda, lda, -1.0}, n);                       // F_v, base
  write_columns(X + L.c_w, ldx, n, 6 * L.nf, {B.data() + nj * ldb, ldb, 1.0}, n);  // M⁻¹ J_Fᵀ
  if (moving) {
    A.topLeftCorner<6, 6>() = -cross_motion(v);     // −ad_v  (D16), (D17)
    for (int k = 0; k < n; ++k) A(k, n + k) = 1.0;  // ż_H ← z_v, ż_s ← z_r
  } else {
    for (int k = 0; k < nj; ++k) A(k, n + k) = 1.0;  // ż_s ← z_r
  }
}

}  // namespace detail

namespace {

// Whether A and B are written whatever the solution (the C++ calls, with the outcome beside
// them) or only when it is trusted and finite (the C API's calls).
enum class WriteWhen { always, trusted_and_finite };

// WriteWhen::trusted_and_finite: leave A and B untouched when M is singular at this state or the
// solution is not finite (Outcome::overflowed).
Outcome linearize_impl(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v, CRefVec r, CRefVec tau, const ExternalWrenches *ext, RefMat A,
                       RefMat B, WriteWhen when) {
  const int n = model.num_dofs();
  const bool moving = !model.fixed_base;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  const Vec6 a_g = detail::gravity_base_acceleration(model, ws, H);

  forward_kinematics(model, ws, s);
  const detail::BodyWrenches fext = detail::load_external_wrenches(model, ws, H, ext);
  // also factorizes M (IA, U, D)
  const Outcome outcome = detail::aba_pass(model, ws, v0, a_g, r, tau, fext, ws.nu_dot);
  Vec6 a0 = a_g;
  if (moving) a0 += ws.nu_dot.head<6>();
  const detail::LinearizeLayout L =
      detail::linearize_layout(model, ext ? ext->count : 0, moving && fext.mixed());
  detail::linearize_solve(model, ws, H, v0, a0, r, fext, ext, L, detail::SolveExtent::to_solution);
  // Every entry of A and B comes from X but −v× (finite with v), the identities and F_H's gravity
  // block (Rᵀg)^, which a huge finite g can overflow, alone or summed with the Mixed terms.
  const double *X = ws.rhs.data();
  const Mat3 gravity_block = hat(H.R.transpose() * ws.gravity);
  Eigen::Map<const Workspace::RowMajorMat, 0, Eigen::OuterStride<>> R(X, n, L.cols,
                                                                      Eigen::OuterStride<>(L.ldx));
  if (when == WriteWhen::trusted_and_finite) {
    if (!outcome) return outcome;
    bool finite = detail::all_finite(X, static_cast<std::ptrdiff_t>(n) * L.ldx);
    if (moving) finite = finite && gravity_block.allFinite();
    if (finite && L.mixed)
      finite = (R.middleCols(L.c_E, 3).topRows<3>() + gravity_block).allFinite();
    if (!finite) return Outcome::overflowed();
  }
  detail::linearize_write(model, ws, L, v, false, A, B);
  if (moving) {
    // F_H: d/dε of [(H exp(ε z^))ᵀ-rotated gravity] = [0, (Rᵀg)^] on the base linear rows
    // (docs/dynamics.md (D18)); Mixed wrenches add M⁻¹ E (D23).
    A.block<3, 3>(n, 3) = gravity_block;
    if (L.mixed) A.block(n, 3, n, 3) += R.middleCols(L.c_E, 3);
  }
  return outcome;
}

}  // namespace

Outcome linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                  CRefVec r, CRefVec tau, RefMat A, RefMat B) {
  return linearize_impl(model, ws, H, s, v, r, tau, nullptr, A, B, WriteWhen::always);
}

Outcome linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                  CRefVec r, CRefVec tau, const ExternalWrenches &ext, RefMat A, RefMat B) {
  return linearize_impl(model, ws, H, s, v, r, tau, &ext, A, B, WriteWhen::always);
}

Outcome linearize_if_finite(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, CRefVec tau, RefMat A, RefMat B) {
  return linearize_impl(model, ws, H, s, v, r, tau, nullptr, A, B, WriteWhen::trusted_and_finite);
}

Outcome linearize_if_finite(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, CRefVec tau, const ExternalWrenches &ext,
                            RefMat A, RefMat B) {
  return linearize_impl(model, ws, H, s, v, r, tau, &ext, A, B, WriteWhen::trusted_and_finite);
}

}  // namespace geolin
