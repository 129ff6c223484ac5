// Inverse dynamics and its exact linearization in the left-trivialized coordinates of
// linearize(): τ = ID(x, ν̇), ∂τ/∂z at fixed ν̇ (n x N) and ∂τ/∂ν̇ = M (n x n), from one pass of
// the RNEA derivatives (rnea_derivatives.cpp; Carpentier & Mansard 2018, in frame 0), whose
// composites I^C_i and forces F_i also give τ and M (docs/dynamics.md (D39)).
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {

void project_subtree_forces(const Model &model, const Workspace &ws, CRefVec r, CRefVec r_dot,
                            RefVec out) {
  for (int i = 1; i <= model.n_B; ++i) {
    // τ_i = S_iᵀ F_i (D7) + armature_i ṙ_i: linear in ν̇ with a constant coefficient, so it adds
    // to M's diagonal (∂τ/∂ν̇) and to no column of ∂τ/∂z (docs/dynamics.md (D54))
    double t = ws.S0[i].dot(ws.F[i]) + model.armature[i - 1] * r_dot[i - 1];
    if (model.joint_damping) t += model.damping[i] * r[i - 1];  // τ = ID + D r
    out[model.dof(i)] = t;
  }
  if (!model.fixed_base) out.head<6>() = ws.F[0];
}

}  // namespace detail

namespace {

using Stride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;

// Columns [c0, c0 + cols) of the column-major D as the row-major strided view the RNEA
// derivative pass writes (row step 1, column step the leading dimension).
detail::StridedMat columns_of(RefMat D, int c0, int cols) {
  const Eigen::Index ld = D.outerStride();
  return detail::StridedMat(D.data() + c0 * ld, D.rows(), cols, Stride(1, ld));
}

// The z_H columns of a moving base (docs/dynamics.md (D39)): H enters ID only through
// a_0 = ν̇_b + [−Rᵀg; 0], and x exp(z) turns Rᵀg into Rᵀg − z_ω × Rᵀg, so
// ∂τ/∂z_ω = −M_{:,0:3} (Rᵀg)^ and ∂τ/∂z_p = 0; M's first three columns are the top of I^C_0
// and of I^C_i S_i (CRBA, (D8)). (ws.IC[0], ws.SI_row after the pass) => (dtau_dz's 6 columns)
void base_pose_columns(const Model &model, const Workspace &ws, const Transform &H,
                       RefMat dtau_dz) {
  const Mat3 G = hat(H.R.transpose() * ws.gravity);
  dtau_dz.leftCols<3>().setZero();
  dtau_dz.block<6, 3>(0, 3).noalias() = -(ws.IC[0].leftCols<3>() * G);
  for (int i = 1; i <= model.n_B; ++i)
    dtau_dz.block<1, 3>(model.dof(i), 3).noalias() = -(ws.SI_row[i].head<3>().transpose() * G);
}

// The terms of the RNEA derivatives at this state (the pass's first half): the poses, v_0 and
// a_0 (kept in ws.v[0], ws.a[0]) and every per-body term. (H, s, v, r, ν̇) => (ws: the terms)
void derivative_terms(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v, CRefVec r, CRefVec nu_dot) {
  detail::forward_poses(model, ws, s);  // the pass forms each M_i from the poses
  Vec6 v0, a0;
  detail::base_motion(model, ws, H, v, nu_dot, v0, a0);
  detail::rnea_derivative_terms(model, ws, v0, a0, r,
                                nu_dot.segment(model.joint_offset(), model.n_B), {},
                                detail::DerivativeInputs::poses_only);
}

// τ, ∂τ/∂z and M from the terms. Reads r (joint damping) and ν̇ (armature) before it writes
// dtau_dz and M. (ws: the terms, r, ν̇) => (tau, dtau_dz, M)
void write_outputs(const Model &model, const Workspace &ws, const Transform &H, CRefVec r,
                   CRefVec nu_dot, RefVec tau, RefMat dtau_dz, RefMat M) {
  const int nj = model.n_B, n = model.num_dofs(), nv = n - nj;
  // F_i (subtree sums of f_k), I^C_i and I^C_i S_i give τ (D7), (D54) and M (D8), (D51).
  detail::project_subtree_forces(model, ws, r, nu_dot.segment(nv, nj), tau);
  // z = [z_H; z_s; z_v; z_r]: z_s at nv (after z_H), z_v at n, z_r at n + nv.
  dtau_dz.setZero();
  detail::rnea_derivative_columns(model, ws, /*mixed=*/false, columns_of(dtau_dz, nv, nj),
                                  columns_of(dtau_dz, n, nv), columns_of(dtau_dz, n + nv, nj));
  if (!model.fixed_base) base_pose_columns(model, ws, H, dtau_dz);
  if (M.size() > 0) detail::mass_matrix_from_composites(model, ws, M);
}

}  // namespace

void inverse_dynamics_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                                const Vec6 &v, CRefVec r, CRefVec nu_dot, RefVec tau,
                                RefMat dtau_dz, RefMat M) {
  if (dtau_dz.size() == 0) {  // τ and M alone: CRBA, then RNEA on its kinematics
    if (M.size() > 0) crba(model, ws, s, M);
    rnea(model, ws, H, s, v, r, nu_dot, tau);
    return;
  }
  derivative_terms(model, ws, H, s, v, r, nu_dot);
  write_outputs(model, ws, H, r, nu_dot, tau, dtau_dz, M);
}

bool inverse_dynamics_linearize_if_bounded(const Model &model, Workspace &ws, const Transform &H,
                                           CRefVec s, const Vec6 &v, CRefVec r, CRefVec nu_dot,
                                           RefVec tau, RefMat dtau_dz, RefMat M) {
  if (dtau_dz.size() == 0) return false;
  derivative_terms(model, ws, H, s, v, r, nu_dot);
  // The terms bound every entry but these: the gravity in the z_H columns, the damping forces
  // D_i r_i in τ
  bool bounded =
      detail::rnea_derivative_terms_bounded(ws) && detail::within_term_bound(ws.gravity.data(), 3);
  if (model.joint_damping)
    for (int i = 1; i <= model.n_B; ++i)
      bounded = bounded && std::fabs(model.damping[i] * r[i - 1]) < detail::kTermBound;
  // and the rotors' armature_i ṙ_i in τ and armature_i on M's diagonal (D54)
  const int nv = model.joint_offset();
  for (int i = 1; i <= model.n_B; ++i)
    bounded = bounded && model.armature[i - 1] < detail::kTermBound &&
              std::fabs(model.armature[i - 1] * nu_dot[nv + i - 1]) < detail::kTermBound;
  if (!bounded) return false;
  write_outputs(model, ws, H, r, nu_dot, tau, dtau_dz, M);
  return true;
}

}  // namespace geolin
