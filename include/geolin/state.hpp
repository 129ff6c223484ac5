// The state algebra of the Lie group G = SE(3) × R^nJ × R^6 × R^nJ (docs/dynamics.md §4,
// docs/conventions.md "The state algebra"): the retraction x exp(z), the difference
// log(x0⁻¹ x1), and their Jacobians in the left-trivialized coordinates z = [z_H; z_s; z_v; z_r]
// (fixed base: z = [z_s; z_r], N = 2 n_J). The one implementation used by the core (step,
// finite differences), the C API (geolin_state_*), the tool and the tests.
//
// Free functions f(const Model&, ...). The functions on components (Transform, Eigen::Ref) do
// not allocate; the State overloads allocate only to size a result.
#pragma once

#include "geolin/algorithms.hpp"
#include "geolin/model.hpp"
#include "geolin/spatial.hpp"

namespace geolin {

/// A state x = (H, s, v, r) of the group: base pose ^A H_0, joint positions s (n_J), base body
/// twist v (linear first), joint velocities r (n_J). A fixed base has no H and v: they stay at
/// the identity and zero, and the functions below neither read nor write them.
struct State {
  Transform H;
  VecX s;
  Vec6 v = Vec6::Zero();
  VecX r;

  /// H = 1, s = v = r = 0, sized for model.
  static State zero(const Model &model);
};

// --- the SE(3) factor -------------------------------------------------------------------------

/// H exp(z_H^): docs/dynamics.md (D15).
Transform pose_integrate(const Transform &H, const Vec6 &z_H);

/// log(H0⁻¹ H1)^∨, the z_H with H0 exp(z_H^) = H1, rotation angle in [0, π] (at exactly π the
/// sign of log_so3: the first of the largest components of the rotation axis is positive):
/// docs/dynamics.md (D42).
Vec6 pose_difference(const Transform &H0, const Transform &H1);

/// The pose blocks of the Jacobians (docs/dynamics.md (D43), (D44)), all functions of z_H:
/// Ad_{exp(z_H)}⁻¹ (∂/∂dx of x exp(z)), J_r(z_H) (∂/∂dz of x exp(z)), −J_l(z_H)⁻¹ (∂z/∂dx0 of
/// log(x0⁻¹ x1)) and J_r(z_H)⁻¹ (∂z/∂dx1).
Mat6 pose_integrate_dx(const Vec6 &z_H);
Mat6 pose_integrate_dz(const Vec6 &z_H);
Mat6 pose_difference_dx0(const Vec6 &z_H);
Mat6 pose_difference_dx1(const Vec6 &z_H);

/// D (N x N) = blockdiag(pose, sign 1) in the order of z (moving base), sign 1 (fixed base,
/// pose not read): the shape of every state Jacobian. An empty D is not written.
void state_jacobian(const Model &model, const Mat6 &pose, double sign, RefMat D);

// --- the whole state --------------------------------------------------------------------------

/// x_out = x exp(z) (docs/dynamics.md (D15)): H_out = H exp(z_H^), s_out = s + z_s, v_out = v +
/// z_v, r_out = r + z_r. Each output may be its own input (in place). Fixed base: H, v are not
/// read, H_out, v_out not written.
void state_integrate(const Model &model, const Transform &H, CRefVec s, const Vec6 &v, CRefVec r,
                     CRefVec z, Transform &H_out, RefVec s_out, Vec6 &v_out, RefVec r_out);

/// Whether every entry of x exp(z) is finite (the C API's check before it writes; finite
/// inputs can overflow only near 1e308).
bool state_integrate_finite(const Model &model, const Transform &H, CRefVec s, const Vec6 &v,
                            CRefVec r, CRefVec z);

/// x exp(e ε_k) in place: coordinate k of z moved by e, the others kept (finite differences).
void state_integrate_coordinate(const Model &model, int k, double e, Transform &H, RefVec s,
                                Vec6 &v, RefVec r);

/// z = log(x0⁻¹ x1), the z with x0 exp(z) = x1 (docs/dynamics.md (D42)): [pose_difference(H0, H1);
/// s1 − s0; v1 − v0; r1 − r0]. Fixed base: H0, H1, v0, v1 are not read.
void state_difference(const Model &model, const Transform &H0, CRefVec s0, const Vec6 &v0,
                      CRefVec r0, const Transform &H1, CRefVec s1, const Vec6 &v1, CRefVec r1,
                      RefVec z);

/// Whether every entry of log(x0⁻¹ x1) is finite.
bool state_difference_finite(const Model &model, const Transform &H0, CRefVec s0, const Vec6 &v0,
                             CRefVec r0, const Transform &H1, CRefVec s1, const Vec6 &v1,
                             CRefVec r1);

/// The Jacobians of x_out = x exp(z) in the coordinates of x_out (docs/dynamics.md (D43)):
/// (x exp(dx)) exp(z + dz) = x_out exp(d_dx dx + d_dz dz) + O(|dx|² + |dz|²), with
/// d_dx = blockdiag(Ad_{exp(z_H)}⁻¹, 1), d_dz = blockdiag(J_r(z_H), 1) (N x N). They depend on z
/// only. An empty output is not computed.
void state_integrate_derivatives(const Model &model, CRefVec z, RefMat d_dx, RefMat d_dz);

/// The Jacobians of z = log(x0⁻¹ x1) (docs/dynamics.md (D44)): for x0 exp(dx0), x1 exp(dx1),
/// z' = z + dz_dx0 dx0 + dz_dx1 dx1 + O(|dx|²), dz_dx0 = blockdiag(−J_l(z_H)⁻¹, −1),
/// dz_dx1 = blockdiag(J_r(z_H)⁻¹, 1). They depend on H0, H1 only. An empty output is not
/// computed.
void state_difference_derivatives(const Model &model, const Transform &H0, const Transform &H1,
                                  RefMat dz_dx0, RefMat dz_dx1);

// --- on State -----------------------------------------------------------------------------------

/// out = x exp(z); out may be x. Sizes out's vectors.
void state_integrate(const Model &model, const State &x, CRefVec z, State &out);
State state_integrate(const Model &model, const State &x, CRefVec z);

/// x ← x exp(e ε_k).
void state_integrate_coordinate(const Model &model, int k, double e, State &x);

/// z = log(x0⁻¹ x1) (N).
void state_difference(const Model &model, const State &x0, const State &x1, RefVec z);
VecX state_difference(const Model &model, const State &x0, const State &x1);

}  // namespace geolin
