// Small kinematic helpers of the passes, in base-frame coordinates (docs/dynamics.md §2-3):
// gravity as a base acceleration, the base motion, joint transforms, frame poses, paths.
#pragma once

#include "geolin/algorithms.hpp"

namespace geolin::detail {

/// Gravity as a fictitious base acceleration in frame 0: a_g = [-R^T g; 0] (docs/dynamics.md §3),
/// with R the rotation of H (moving base) or of model.H_A_0 (fixed base).
/// docs/dynamics.md (D4) and (D5).
inline Vec6 gravity_base_acceleration(const Model &model, const Workspace &ws, const Transform &H) {
  const Mat3 &R = model.fixed_base ? model.H_A_0.R : H.R;
  Vec6 a = Vec6::Zero();
  a.head<3>().noalias() = -(R.transpose() * ws.gravity);
  return a;
}

/// The base motion seen by RNEAmb in frame 0: v_0 = v and a_0 = ν̇_b + [−Rᵀg; 0] (moving base),
/// or v_0 = 0 and a_0 = [−R_0ᵀg; 0] (fixed base): docs/dynamics.md (D5).
inline void base_motion(const Model &model, const Workspace &ws, const Transform &H, const Vec6 &v,
                        CRefVec nu_dot, Vec6 &v0, Vec6 &a0) {
  a0 = gravity_base_acceleration(model, ws, H);
  v0.setZero();
  if (!model.fixed_base) {
    a0 += nu_dot.head<6>();
    v0 = v;
  }
}

/// The joint transform ^{λ(i)|i} H_i(q) = exp(q S_i^) (docs/dynamics.md §2).
inline Transform joint_motion(const Model &model, int i, double q) {
  Transform T;
  if (model.joint_type[i] == JointType::Prismatic) {
    T.o = q * model.joint_axis[i];
  } else {
    T.R = exp_so3(q * model.joint_axis[i]);  // exp(s_i S_i^)  docs/dynamics.md (D2)
  }
  return T;
}

/// ^0 H_F of a frame, after forward_kinematics.
inline Transform frame_pose0(const Model &model, const Workspace &ws, int frame) {
  const Frame &F = model.frames[frame];
  return ws.H0[F.body] * F.H;
}

/// The frame-0 force transform of a wrench given at frame F: Local axes, or Mixed (axes of A at
/// the frame origin, whose orientation in frame 0 is Rᵀ).
inline Transform wrench_frame0(const Model &model, const Workspace &ws, const Transform &H,
                               int frame, unsigned flags) {
  Transform T = frame_pose0(model, ws, frame);
  if (flags & kWrenchMixed) T.R = (model.fixed_base ? model.H_A_0.R : H.R).transpose();
  return T;
}

/// Joint torque net of damping, τ_i − D_i r_i (GEOLIN_JOINT_DAMPING), for body i.
inline double net_torque(const Model &model, CRefVec tau, CRefVec r, int i) {
  return model.joint_damping ? tau[i - 1] - model.damping[i] * r[i - 1] : tau[i - 1];
}

/// The classical acceleration of a frame's origin in its own axes, p̈ = a_lin + ω × v_lin, from its
/// body twist vF = [v_lin; ω] and the derivative aF of that twist (docs/dynamics.md (D37)).
inline Vec3 origin_acceleration(const Vec6 &vF, const Vec6 &aF) {
  return aF.head<3>() + vF.tail<3>().cross(vF.head<3>());
}

/// The frame-0 change of a body's acceleration along s_j (j on the body's path), seen from the
/// body, is w_j + Ψ̇_j × v_b; this returns the part that does not depend on the body,
/// w_j = (a_j − a_g) × S_j − Ψ̇_j × v_j, from ws.a (which holds the fictitious gravity a_g, or
/// zero), ws.v, ws.Psi_dot (docs/dynamics.md (D38); docs/contacts.md §5.2).
inline Vec6 acceleration_along_joint(const Workspace &ws, int j, const Vec6 &a_g) {
  return cross_motion(ws.a[j] - a_g, ws.S0[j]) - cross_motion(ws.Psi_dot[j], ws.v[j]);
}

/// Calls f(lo, hi) for the degrees of freedom of the joints on the path from body b to the root,
/// as runs [lo, hi) of consecutive ones (a limb is numbered consecutively), tip first; the base's
/// six are not included. The non-zero columns of a frame Jacobian row on body b.
template <class F>
void for_each_path_run(const Model &model, int b, F &&f) {
  if (b < 1) return;
  int lo = model.dof(b), hi = lo + 1;
  for (int i = model.parent[b]; i >= 1; i = model.parent[i]) {
    if (model.dof(i) == lo - 1) {
      --lo;
      continue;
    }
    f(lo, hi);
    lo = model.dof(i);
    hi = lo + 1;
  }
  f(lo, hi);
}

}  // namespace geolin::detail
