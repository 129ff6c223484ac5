// Internal passes shared by the algorithms (not installed). Every pass runs in base-frame
// coordinates after forward_kinematics has filled ws.H0, ws.S0, ws.I0: M and C depend on s only
// and H enters through gravity alone (dynamics.md §3), so frame 0 plays the role that the
// inertial frame plays in RBDA's fixed-base algorithms.
#pragma once

#include "geolin/algorithms.hpp"

namespace geolin::detail {

/// Gravity as a fictitious base acceleration in frame 0: a_g = [-R^T g; 0] (dynamics.md §3),
/// with R the rotation of H (moving base) or of model.H_A_0 (fixed base).
inline Vec6 gravity_base_acceleration(const Model &model, const Workspace &ws, const Transform &H) {
  const Mat3 &R = model.fixed_base ? model.H_A_0.R : H.R;
  Vec6 a = Vec6::Zero();
  a.head<3>().noalias() = -(R.transpose() * ws.gravity);
  return a;
}

/// The joint transform ^{λ(i)|i} H_i(q) = exp(q S_i^) (dynamics.md §2).
inline Transform joint_motion(const Model &model, int i, double q) {
  Transform T;
  if (model.joint_type[i] == JointType::Prismatic) {
    T.o = q * model.joint_axis[i];
  } else {
    T.R = exp_so3(q * model.joint_axis[i]);
  }
  return T;
}

/// RNEA forward and backward passes (RBDA Table 5.1 in frame-0 coordinates). v0: base twist
/// (zero for a fixed base), a0: base acceleration including gravity, r and r_dot: joint rates.
/// Fills ws.v, ws.a, ws.f (per body) and ws.F (subtree sums); writes the generalized force.
void rnea_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
               CRefVec r_dot, RefVec out);

/// ABA passes (RBDA Table 7.1 / §9.3 in frame-0 coordinates) after kinematics: writes nu_dot.
void aba_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a_gravity, CRefVec r,
              CRefVec tau, RefVec nu_dot, const Vec6 &f0 = Vec6::Zero());

/// M^{-1} passes (Carpentier 2018) after kinematics.
void minv_pass(const Model &model, Workspace &ws, RefMat Minv);

/// RNEA derivative passes after kinematics (Carpentier & Mansard 2018, derived in frame 0).
void rnea_derivatives_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, RefMat dID_ds, RefMat dID_dnu);

}  // namespace geolin::detail
