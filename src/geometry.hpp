// Small kinematic helpers of the passes, in base-frame coordinates (docs/dynamics.md §2-3):
// gravity as a base acceleration, the base motion, joint transforms, frame poses, paths.
#pragma once

#include <cmath>

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

/// The joint transform ^{λ(i)|i} H_i(q) = exp(q S_i^) (docs/dynamics.md §2), given c = cos q and
/// s = sin q (used by a revolute joint only).
inline Transform joint_motion(const Model &model, int i, double q, double c, double s) {
  Transform T;
  if (model.joint_type[i] == JointType::Prismatic) {
    T.o = q * model.joint_axis[i];
  } else {
    // exp(s_i S_i^) (docs/dynamics.md (D2)) about the unit axis a: Rodrigues' formula
    // R = cos q 1 + sin q a^ + (1 − cos q) a aᵀ, without exp_so3's norm and series of a general
    // rotation vector (one sine and cosine, a few products).
    const Vec3 &a = model.joint_axis[i];
    const double k = 1.0 - c;
    const Vec3 sa = s * a, ka = k * a;
    T.R.noalias() = ka * a.transpose();
    T.R(0, 0) += c, T.R(1, 1) += c, T.R(2, 2) += c;
    T.R(0, 1) -= sa[2], T.R(1, 0) += sa[2];
    T.R(0, 2) += sa[1], T.R(2, 0) -= sa[1];
    T.R(1, 2) -= sa[0], T.R(2, 1) += sa[0];
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

/// M_i in frame 0 as (m, h, Ī) (Workspace::CompactInertia), after forward_poses: p the centre of
/// mass in frame 0, h = m p and Ī = R I_c Rᵀ + m (|p|² 1 − p pᵀ) (parallel axes), without the 6x6
/// matrix of transform_inertia.
inline Workspace::CompactInertia body_inertia0(const Model &model, const Transform &H0, int i) {
  Workspace::CompactInertia c;
  const double m = model.mass[i];
  const Vec3 p = H0.apply(model.com[i]);
  c.m = m;
  c.h = m * p;
  // R I_c Rᵀ is symmetric: B = R I_c, then the six entries B_a · R_b (a >= b), not all nine
  const Mat3 &R = H0.R;
  const Mat3 B = R * model.inertia_com[i];
  auto entry = [&](int a, int b) {
    return B(a, 0) * R(b, 0) + B(a, 1) * R(b, 1) + B(a, 2) * R(b, 2) - c.h[a] * p[b];
  };
  const double mpp = c.h.dot(p);
  c.I(0, 0) = entry(0, 0) + mpp;
  c.I(1, 1) = entry(1, 1) + mpp;
  c.I(2, 2) = entry(2, 2) + mpp;
  c.I(1, 0) = c.I(0, 1) = entry(1, 0);
  c.I(2, 0) = c.I(0, 2) = entry(2, 0);
  c.I(2, 1) = c.I(1, 2) = entry(2, 1);
  return c;
}

/// The 6x6 matrix [[m 1, −h^], [h^, Ī]] of a compact inertia.
inline Mat6 spatial_of(const Workspace::CompactInertia &c) {
  Mat6 I;
  const Mat3 Hh = hat(c.h);
  I.topLeftCorner<3, 3>() = c.m * Mat3::Identity();
  I.topRightCorner<3, 3>() = -Hh;
  I.bottomLeftCorner<3, 3>() = Hh;
  I.bottomRightCorner<3, 3>() = c.I;
  return I;
}

/// The compact form (m, h, Ī) of a spatial inertia [[m 1, −h^], [h^, Ī]] (the inverse of
/// spatial_of): h read from the bottom-left h^.
inline Workspace::CompactInertia compact_of(const Mat6 &M) {
  Workspace::CompactInertia c;
  c.m = M(0, 0);
  c.h = Vec3(M(5, 1), M(3, 2), M(4, 0));
  c.I = M.bottomRightCorner<3, 3>();
  return c;
}

/// I x = [m l − h × w; h × l + Ī w] for x = [l; w] and I = [[m 1, −h^], [h^, Ī]].
inline Vec6 inertia_times(const Workspace::CompactInertia &c, const Vec6 &x) {
  const Vec3 l = x.head<3>(), w = x.tail<3>();
  Vec6 f;
  f.head<3>() = c.m * l - c.h.cross(w);
  f.tail<3>().noalias() = c.I * w;
  f.tail<3>() += c.h.cross(l);
  return f;
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
