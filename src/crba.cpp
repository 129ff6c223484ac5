// CRBAmb: the mass matrix of a moving-base tree (RBDA Table 6.2 and §9.3, in frame-0
// coordinates, where composite inertias add without transforms).
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {

void mass_matrix_from_composites(const Model &model, const Workspace &ws, RefMat M) {
  const int off = model.joint_offset(), n = static_cast<int>(M.rows());
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 &Fi = ws.SI_row[i];  // composite-inertia force of joint i, I^C_i S_i
    const int di = model.dof(i);
    // Column i's joint rows are written only here and by i's descendants, which come later
    // (λ(i) < i); rows of bodies off i's paths stay zero (RBDA §6.2). Zeroed per column:
    // short contiguous stores, in cache when the column is filled.
    M.col(di).segment(off, n - off).setZero();
    // M_ij = S_iᵀ I^C_i S_j (D8), plus the rotor's armature_i on the diagonal (D51)
    M(di, di) = ws.S0[i].dot(Fi) + model.armature[i - 1];
    for (int j = model.parent[i]; j >= 1; j = model.parent[j]) {
      M(model.dof(j), di) = M(di, model.dof(j)) = ws.S0[j].dot(Fi);
    }
    if (!model.fixed_base) {
      M.block<6, 1>(0, di) = Fi;
      M.block<1, 6>(di, 0) = Fi.transpose();
    }
  }
  if (!model.fixed_base) M.topLeftCorner<6, 6>() = ws.IC[0];  // base block I^C_0 (D8)
}

}  // namespace detail

using CompactInertia = Workspace::CompactInertia;

namespace {

// CRBA up to the mass matrix: the poses, the composite inertias as 10 numbers each, the columns
// I^C_i S_i and the base block I^C_0. (s) => (ws.H0, ws.S0, ws.IC_compact, ws.SI_row, ws.IC[0])
void composite_inertias(const Model &model, Workspace &ws, CRefVec s) {
  detail::forward_poses(model, ws, s);
  auto &IC = ws.IC_compact;
  for (int i = 0; i <= model.n_B; ++i) IC[i] = detail::body_inertia0(model, ws.H0[i], i);
  // I^C_λ(i) += I^C_i  (docs/dynamics.md (D8); RBDA Table 6.2): 10 numbers, not 36
  for (int i = model.n_B; i >= 1; --i) {
    CompactInertia &P = IC[model.parent[i]];
    P.m += IC[i].m;
    P.h += IC[i].h;
    P.I += IC[i].I;
  }
  for (int i = 1; i <= model.n_B; ++i) ws.SI_row[i] = detail::inertia_times(IC[i], ws.S0[i]);
  ws.IC[0] = detail::spatial_of(IC[0]);  // the base block of M
}

}  // namespace

void crba(const Model &model, Workspace &ws, CRefVec s, RefMat M) {
  composite_inertias(model, ws, s);
  detail::mass_matrix_from_composites(model, ws, M);
}

bool crba_if_bounded(const Model &model, Workspace &ws, CRefVec s, RefMat M) {
  composite_inertias(model, ws, s);
  // Every entry of M is I^C_0's, one of I^C_i S_i or a product S_jᵀ (I^C_i S_i), plus an
  // armature on the diagonal (D51).
  if (!detail::within_term_bound(ws.S0, 1) || !detail::within_term_bound(ws.SI_row, 1) ||
      !detail::within_term_bound(ws.IC[0].data(), 36) ||
      !detail::within_term_bound(model.armature.data(), model.n_B))
    return false;
  detail::mass_matrix_from_composites(model, ws, M);
  return true;
}

}  // namespace geolin
