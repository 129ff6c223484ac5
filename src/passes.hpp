// The recursive passes shared by the algorithms (not installed). Every pass runs in base-frame
// coordinates after forward_kinematics has filled ws.H0, ws.S0, ws.I0: M and C depend on s only
// and H enters through gravity alone (docs/dynamics.md §3), so frame 0 plays the role that the
// inertial frame plays in RBDA's fixed-base algorithms.
#pragma once

#include "geolin/algorithms.hpp"
#include "numeric_checks.hpp"

namespace geolin::detail {

/// External wrenches as the passes take them, an argument as spatial_v2's f_ext and Pinocchio's
/// fext: per body i (0..n_B), the frame-0 wrench f[i] acting on it and, for Mixed wrenches only,
/// E[i] = ∂φ_i/∂ω, the derivative of that wrench along a rotation of the body (frames.cpp).
/// A default-constructed BodyWrenches is "no external wrench".
struct BodyWrenches {
  const Vec6 *f = nullptr;
  const Eigen::Matrix<double, 6, 3> *E = nullptr;  // Mixed wrenches, else nullptr
  bool any() const { return f != nullptr; }
  bool mixed() const { return E != nullptr; }
};

/// The body wrenches of ext after forward_kinematics: (ext) => (ws.f_ext, ws.E_ext), returned as
/// views of them; none (an empty BodyWrenches) when ext is nullptr or holds no wrench.
BodyWrenches load_external_wrenches(const Model &model, Workspace &ws, const Transform &H,
                                    const ExternalWrenches *ext);

/// Forward kinematics without the inertias (kinematics.cpp), for what needs poses only (CRBA's
/// compact composites need no 6x6 inertia; the cost functions): (s) => (ws.H0, ws.S0 of every
/// body).
void forward_poses(const Model &model, Workspace &ws, CRefVec s);

/// forward_poses with frame 0's axes turned to R (the inertial axes, R = ^A R_0), about frame
/// 0's origin: ws.H0[i] = (R, 0) ^0 H_i and ws.S0[i] in those axes. For the centroidal
/// quantities, which are wanted in the inertial axes: the rotation is paid once per body instead
/// of once per output column. (s, R) => (ws.H0, ws.S0 of every body, in the inertial axes)
void forward_poses_in_axes(const Model &model, Workspace &ws, CRefVec s, const Mat3 &R);

/// Forward kinematics along one path (kinematics.cpp): the bodies from the base to `body`
/// (base excluded), root first, into ws.path[0, count), and their ws.H0, ws.S0; returns count.
/// Other bodies' entries are left as they are. (s) => (ws.path, ws.H0, ws.S0 on the path)
int path_kinematics(const Model &model, Workspace &ws, CRefVec s, int body);

/// Subtree masses and first moments after the poses (center_of_mass.cpp):
/// (ws.H0) => (ws.m_sub, ws.mc_sub).
void subtree_moments(const Model &model, Workspace &ws);

/// m^C_i S_i,lin + S_i,ang × (m c)^C_i: m times the centre of mass's velocity per unit r_i, in
/// frame 0 (docs/dynamics.md (D31)), after subtree_moments.
Vec3 com_joint_column(const Workspace &ws, int i);

/// RNEA forward and backward passes (RBDA Table 5.1 in frame-0 coordinates). v0: base twist
/// (zero for a fixed base), a0: base acceleration including gravity, r and r_dot: joint rates.
/// fext: the external wrenches (RBDA Table 5.1: f_i − f^x_i).
/// (v0, a0, r, r_dot, fext) => (ws.v, ws.a, ws.f per body, ws.F subtree sums, out).
void rnea_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
               CRefVec r_dot, const BodyWrenches &fext, RefVec out);

/// aba_pass at rest (ν = 0, τ = 0, no gravity, no wrench), as an impact needs it: M's
/// articulated factorization, with every velocity term, bias force and acceleration zero and
/// without computing them. (ws.I0, ws.S0) => (ws.IA, ws.U, ws.D, ws.D_inv, ws.IA0_llt;
/// ws.v, ws.Psi_dot, ws.c, ws.h, ws.p, ws.u, ws.a zero); returns the first failed pivot. aba.cpp
Outcome aba_pass_at_rest(const Model &model, Workspace &ws);

/// ABA passes (RBDA Table 7.1 / §9.3 in frame-0 coordinates) after kinematics, with the external
/// wrenches fext (RBDA Table 7.1: p_i − f^x_i) and a wrench f0 on the moving base.
/// (v0, a_gravity, r, tau, fext, f0) => (ws.v, ws.Psi_dot, ws.c, ws.h, ws.p, the factorization
/// ws.IA, ws.U, ws.D, ws.D_inv, ws.IA0_llt, the innovations ws.u, ws.a, nu_dot); returns the
/// first failed pivot of the factorization (then nu_dot is not to be used).
Outcome aba_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a_gravity,
                 CRefVec r, CRefVec tau, const BodyWrenches &fext, RefVec nu_dot,
                 const Vec6 &f0 = Vec6::Zero());

/// One joint of the articulated-body backward pass (RBDA Table 7.1, velocity-free part), shared
/// by aba_pass, aba_pass_at_rest and articulated_inertias, hence by every solve with M⁻¹:
/// (ws.IA[i], model.armature) => (ws.U[i] = I^A_i S_i, ws.D[i] = S_iᵀ U_i + armature_i,
/// ws.D_inv[i], the pivot checked into `outcome`); returns I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ, which
/// the caller adds to I^A_λ(i).
GEOLIN_ALWAYS_INLINE Mat6 articulated_inertia_step(const Model &model, Workspace &ws, int i,
                                                   Outcome &outcome) {
  const Vec6 &S = ws.S0[i];
  ws.U[i].noalias() = ws.IA[i] * S;  // U_i = I^A_i S_i  (docs/dynamics.md (D10))
  // D_i = S_iᵀ U_i + armature_i: the rotor's inertia about the joint, a joint-space term that no
  // body's I^A carries (docs/dynamics.md (D52); RBDA Table 7.1, as Pinocchio's ABA with armature)
  const double D = S.dot(ws.U[i]) + model.armature[i - 1];
  check_joint_pivot(outcome, ws, i, D, S, ws.IA[i]);
  ws.D[i] = D;
  ws.D_inv[i] = 1.0 / D;
  Mat6 Ia = ws.IA[i];  // I^a_i = I^A_i − U_i D_i⁻¹ U_iᵀ  (D11; RBDA Table 7.1)
  Ia.noalias() -= ws.D_inv[i] * ws.U[i] * ws.U[i].transpose();
  return Ia;
}

/// The velocity-free articulated-body factorization of M after kinematics (RBDA Table 7.1):
/// () => (ws.IA, ws.U, ws.D, ws.D_inv and, for a moving base, ws.IA0_llt); returns the first
/// failed pivot.
Outcome articulated_inertias(const Model &model, Workspace &ws);

/// M^{-1} passes (Carpentier 2018) after kinematics; returns articulated_inertias' outcome.
Outcome minv_pass(const Model &model, Workspace &ws, RefMat Minv);

/// RNEA derivative passes after forward_poses (Carpentier & Mansard 2018, derived in frame 0).
/// Writes the structurally non-zero entries of ∂ID/∂s (n x n_J), ∂ID/∂v (base columns, n x 6,
/// none for a fixed base) and ∂ID/∂r (n x n_J) into strided views of a row-major panel (linearize
/// solves with them as right-hand sides); the other entries are left as they are (zero them).
/// inputs: what the pass reads besides the poses (DerivativeInputs). fext:
/// the external wrenches at which ID is differentiated (held fixed; Mixed ones keep their world
/// directions, which adds their E terms: then ws.EC_ext and ws.SE_row are left for the caller).
/// What the RNEA derivative passes read besides the poses and S_i: the twists, accelerations,
/// Ψ̇, momenta and 6x6 inertias I0 that aba_pass just left at the same state (aba_state), or
/// nothing more: they form them from the poses of forward_poses (poses_only).
enum class DerivativeInputs { aba_state, poses_only };
using StridedMat =
    Eigen::Map<Workspace::RowMajorMat, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
void rnea_derivatives_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, const BodyWrenches &fext, StridedMat dID_ds,
                           StridedMat dID_dv, StridedMat dID_dr, DerivativeInputs inputs);
/// rnea_derivatives_pass in two halves, for a caller that checks the terms before it writes
/// (inverse_dynamics_linearize_if_bounded). The terms: RNEA's forward pass with Ψ̇, Ψ̈, the
/// body terms B_k, and the composites and rows. (v0, a0, r, ṙ, fext, ws.S0, ws.H0 or ws.I0) =>
/// (ws.v, ws.a, ws.Psi_dot, ws.Psi_ddot, ws.h, ws.F, ws.IC_compact, ws.BC, ws.SI_row,
/// ws.SB_row, ws.IC[0]; Mixed: ws.EC_ext, ws.SE_row)
void rnea_derivative_terms(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, const BodyWrenches &fext,
                           DerivativeInputs inputs);
/// Whether every term the columns are summed from is within kTermBound (numeric_checks.hpp), so
/// that no column entry can overflow. Without Mixed wrenches.
bool rnea_derivative_terms_bounded(const Workspace &ws);
/// The columns from the terms: (the terms above) => (dID_ds, dID_dv, dID_dr: the entries
/// rnea_derivatives_pass writes). mixed: fext.mixed() of the terms.
void rnea_derivative_columns(const Model &model, const Workspace &ws, bool mixed, StridedMat dID_ds,
                             StridedMat dID_dv, StridedMat dID_dr);

/// The mass matrix from the composite inertias (CRBA, RBDA Table 6.2; docs/dynamics.md (D8)):
/// (ws.IC[0], ws.SI_row[i] = I^C_i S_i, ws.S0) => (M, every entry). crba.cpp
void mass_matrix_from_composites(const Model &model, const Workspace &ws, RefMat M);

/// The generalized force from the subtree forces F_i of RNEA's backward pass (RBDA Table 5.1):
/// τ_i = S_iᵀ F_i + armature_i ṙ_i (+ D_i r_i with joint damping), and F_0 on a moving base.
/// (ws.F, ws.S0, r, ṙ) => (out). inverse_dynamics_linearize.cpp
void project_subtree_forces(const Model &model, const Workspace &ws, CRefVec r, CRefVec r_dot,
                            RefVec out);
}  // namespace geolin::detail
