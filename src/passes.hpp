// The recursive passes shared by the algorithms (not installed). Every pass runs in base-frame
// coordinates after forward_kinematics has filled ws.H0, ws.S0, ws.I0: M and C depend on s only
// and H enters through gravity alone (docs/dynamics.md §3), so frame 0 plays the role that the
// inertial frame plays in RBDA's fixed-base algorithms.
#pragma once

#include "geolin/algorithms.hpp"

namespace geolin::detail {

/// Fills ws.f_ext (frame-0 body wrenches) and, for Mixed wrenches, ws.E_ext, after
/// forward_kinematics; ext == nullptr (or no wrench) switches external wrenches off.
void load_external_wrenches(const Model &model, Workspace &ws, const Transform &H,
                            const ExternalWrenches *ext);

/// RNEA forward and backward passes (RBDA Table 5.1 in frame-0 coordinates). v0: base twist
/// (zero for a fixed base), a0: base acceleration including gravity, r and r_dot: joint rates.
/// Fills ws.v, ws.a, ws.f (per body) and ws.F (subtree sums); writes the generalized force.
void rnea_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
               CRefVec r_dot, RefVec out);

/// ABA passes (RBDA Table 7.1 / §9.3 in frame-0 coordinates) after kinematics: writes nu_dot.
void aba_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a_gravity, CRefVec r,
              CRefVec tau, RefVec nu_dot, const Vec6 &f0 = Vec6::Zero());

/// The velocity-free articulated-body factorization of M after kinematics (RBDA Table 7.1):
/// ws.IA, ws.U, ws.D, ws.D_inv and, for a moving base, ws.IA0_llt; checks every pivot
/// (ws.singular).
void articulated_inertias(const Model &model, Workspace &ws);

/// M^{-1} passes (Carpentier 2018) after kinematics.
void minv_pass(const Model &model, Workspace &ws, RefMat Minv);

/// RNEA derivative passes after kinematics (Carpentier & Mansard 2018, derived in frame 0).
/// Writes the structurally non-zero entries of ∂ID/∂s (n x n_J), ∂ID/∂v (base columns, n x 6,
/// none for a fixed base) and ∂ID/∂r (n x n_J) into strided views of a row-major panel (linearize
/// solves with them as right-hand sides); the other entries are left as they are (zero them).
/// after_aba: aba_pass just ran at this state and left v, a, Ψ̇ and h in the workspace.
using StridedMat =
    Eigen::Map<Workspace::RowMajorMat, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
void rnea_derivatives_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, StridedMat dID_ds, StridedMat dID_dv,
                           StridedMat dID_dr, bool after_aba);
}  // namespace geolin::detail
