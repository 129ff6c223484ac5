// The algorithms of docs/dynamics.md §3–5, as free functions f(const Model&, Workspace&,
// inputs...). One source file each. Inputs are not checked here (the C API checks them); sizes are:
//   s, r, tau: n_J;  v: base body twist (ignored for a fixed base);  nu, nu_dot: n;
//   H: ^A H_0 (ignored for a fixed base, which uses model.H_A_0).
// None of them allocates. M is the model's M(s) + diag(0_6, armature) (fixed base:
// M(s) + diag(armature)) everywhere (model.hpp, Model::armature; docs/dynamics.md (D50)): the
// inverse dynamics gains armature_j r_dot_j on joint j, and every derivative follows.
#pragma once

#include <Eigen/Core>

#include "geolin/model.hpp"
#include "geolin/outcome.hpp"
#include "geolin/spatial.hpp"
#include "geolin/workspace.hpp"

namespace geolin {

using CRefVec = const Eigen::Ref<const VecX> &;
using RefVec = Eigen::Ref<VecX>;
using RefMat = Eigen::Ref<MatX>;

/// Coordinates of external wrenches (the values of GEOLIN_WRENCH_*): each wrench [force; torque]
/// acts at the origin of a frame, in the frame's own axes (Local) or in axes aligned with the
/// inertial frame A (Mixed, the usual choice for contact forces).
enum WrenchFlags : unsigned { kWrenchLocal = 0u, kWrenchMixed = 1u };

/// External wrenches applied in one evaluation: `count` wrenches, wrench w (6 doubles at
/// wrenches + 6 w) at frame frames[w]. An optional extra wrench at extra_frame (>= 0) is added
/// (used by the finite-difference check, with no copy of the caller's arrays).
struct ExternalWrenches {
  int count = 0;
  const int *frames = nullptr;
  const double *wrenches = nullptr;
  unsigned flags = kWrenchLocal;
  int extra_frame = -1;
  Vec6 extra = Vec6::Zero();
};

/// Whether no entry of p[0, count) is NaN or ±Inf, with the processor's widest vectors.
bool all_finite(const double *p, std::ptrdiff_t count);

/// The largest contact regularization Contacts::mu accepted by the C API and the tool
/// (GEOLIN_CONTACT_REGULARIZATION_MAX, docs/contacts.md §4.2): mu is a compliance compared with
/// the diagonal of J_c M⁻¹ J_cᵀ, the inverse mass (inertia) a contact carries, and 1e12 is that
/// of the lightest parts the library is made for (an insect-scale link of 5 mg and 1e-12 kg m²);
/// a larger mu only makes the contact forces vanish (λ ≈ −c / mu).
constexpr double kMaxContactRegularization = 1e12;

/// Contact types (the values of GEOLIN_CONTACT_*): the number of constraint rows of a contact.
enum ContactType : int {
  kContactPoint = 3,  // the frame origin is held: its world acceleration is prescribed
  kContactRigid = 6,  // the whole frame is held: the derivative of its body twist is prescribed
};

/// The contacts of one constrained evaluation (contact_dynamics.cpp): `count` frames, each held
/// as a point or rigidly, with the constraint forces λ in Local or Mixed axes (kWrench*), and
/// Baumgarte-style gains: point p̈_F = −Kd ṗ_F − Kp (p_F − p_ref), rigid
/// d/dt(^F v_F) = −Kd ^F v_F − Kp log(H_ref⁻¹ H_F). refs: 16 doubles per contact (H_ref,
/// column-major), read only when Kp ≠ 0 (a point uses its translation only).
struct Contacts {
  int count = 0;
  const int *frames = nullptr;
  const int *types = nullptr;
  unsigned flags = kWrenchLocal;
  double Kp = 0.0, Kd = 0.0;
  const double *refs = nullptr;
  // The contact regularization mu >= 0 (docs/contacts.md §4, (C14)): 0 solves the contacts
  // exactly and refuses dependent rows; mu > 0 solves (J_c M⁻¹ J_cᵀ + mu 1) λ = −c, a soft
  // constraint whose error is c = −mu λ ((m/s²)/N on force rows, (rad/s²)/(N m) on torque rows).
  double mu = 0.0;  // at most kMaxContactRegularization
  int rows() const {
    int m = 0;
    for (int k = 0; k < count; ++k) m += types[k];
    return m;
  }
};

/// ^0 H_i, S_i and M_i in base-frame coordinates for every body (kinematics.cpp).
void forward_kinematics(const Model &model, Workspace &ws, CRefVec s);

/// World pose ^A H_i of body i after forward_kinematics (uses H, or model.H_A_0 if fixed).
Transform body_pose(const Model &model, const Workspace &ws, const Transform &H, int body);

/// World pose ^A H_F of a frame (frames.cpp).
Transform frame_pose(const Model &model, Workspace &ws, const Transform &H, CRefVec s, int frame);

/// Frame Jacobian J (6 x n): ^F v_{A,F} = J ν, the body twist of frame F in its own axes.
void frame_jacobian(const Model &model, Workspace &ws, const Transform &H, CRefVec s, int frame,
                    RefMat J);

/// RNEAmb: generalized force [f_0; tau] (n) for (H, s, v, r, nu_dot). rnea.cpp
void rnea(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
          CRefVec r, CRefVec nu_dot, RefVec out);

/// CRBAmb: the mass matrix M(s), n x n, symmetric. crba.cpp
void crba(const Model &model, Workspace &ws, CRefVec s, RefMat M);

/// As crba, for callers that must not see a partial result (the C API), without a staging copy:
/// M is written only when every term its entries are formed from (the composite inertias and
/// their columns I^C_i S_i) is finite and below 2^332 ≈ 8.7e99, which makes every entry finite
/// (docs/c-api.md, "Outputs"). Returns false, with M untouched, otherwise (then compute into a
/// buffer and check it).
bool crba_if_bounded(const Model &model, Workspace &ws, CRefVec s, RefMat M);

/// ABAmb: forward dynamics nu_dot (n) for joint torques tau (n_J). aba.cpp. Every algorithm that
/// factorizes M returns its Outcome (include/geolin/outcome.hpp): the first failed articulated
/// pivot (M singular at this state, or an overflow), when its results are not to be used.
Outcome aba(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
            CRefVec r, CRefVec tau, RefVec nu_dot);

/// ABAmb with external wrenches: M ν̇ + C ν + G = S τ + Σ J_Fᵀ f_F.
Outcome aba(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
            CRefVec r, CRefVec tau, const ExternalWrenches &ext, RefVec nu_dot);

/// ABAmb with a wrench f_0 (frame 0) applied to the moving base as well: the inverse of the full
/// RNEAmb map, ABA(RNEA(ν̇)) = ν̇ (docs/dynamics.md §6 item 1). f_0 is ignored for a fixed base.
Outcome aba_with_base_wrench(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                             const Vec6 &v, CRefVec r, CRefVec tau, const Vec6 &f0, RefVec nu_dot);

/// M(s)^{-1}, n x n, by an ABA-like recursion (Carpentier 2018), no factorization. minv.cpp
Outcome mass_matrix_inverse(const Model &model, Workspace &ws, CRefVec s, RefMat Minv);

/// Analytical partial derivatives of RNEAmb: dID/ds (n x n_J) and dID/dnu (n x n), at the
/// given nu_dot. rnea_derivatives.cpp
void rnea_derivatives(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v, CRefVec r, CRefVec nu_dot, RefMat dID_ds, RefMat dID_dnu);

/// Inverse dynamics and its exact linearization (docs/dynamics.md (D39)): tau (n) as rnea(), and
/// dtau_dz (n x N) = ∂τ/∂z at fixed nu_dot in the coordinates z = [z_H; z_s; z_v; z_r] of
/// linearize() (a fixed base has no z_H, z_v columns), M (n x n) = ∂τ/∂ν̇, the mass matrix.
/// dtau_dz and M may be empty (0 x 0): not computed. Uses only the O(n_B) workspace.
/// inverse_dynamics_linearize.cpp
void inverse_dynamics_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                                const Vec6 &v, CRefVec r, CRefVec nu_dot, RefVec tau,
                                RefMat dtau_dz, RefMat M);

/// As inverse_dynamics_linearize with dtau_dz, for callers that must not see a partial result
/// (the C API), without a staging copy: tau, dtau_dz and M are written only when every term of
/// the pass (the per-body terms, gravity, the damping forces) is finite and below 2^332 ≈ 8.7e99,
/// which makes every output finite. Returns false, with every output untouched, otherwise or when
/// dtau_dz is empty. r is read after tau is written (joint damping): they must not overlap.
bool inverse_dynamics_linearize_if_bounded(const Model &model, Workspace &ws, const Transform &H,
                                           CRefVec s, const Vec6 &v, CRefVec r, CRefVec nu_dot,
                                           RefVec tau, RefMat dtau_dz, RefMat M);

/// The exact left-trivialized linearization (docs/dynamics.md §4): A (N x N), B (N x n_J).
/// linearize.cpp
Outcome linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                  CRefVec r, CRefVec tau, RefMat A, RefMat B);

/// The same with external wrenches as inputs: B is N x (n_J + 6 count), torques then wrenches;
/// A gains the terms of J_Fᵀ f (through s, and through the base attitude for Mixed wrenches).
Outcome linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                  CRefVec r, CRefVec tau, const ExternalWrenches &ext, RefMat A, RefMat B);

/// As linearize, for callers that must not see a partial result (the C API): A and B are
/// written only if the result is finite, checked on the solution before A and B are assembled
/// (no staging copy). Returns a failed outcome, with A and B untouched, when the dynamics is
/// numerically singular at this state. The inputs must be finite.
Outcome linearize_if_finite(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, CRefVec tau, RefMat A, RefMat B);
Outcome linearize_if_finite(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, CRefVec tau, const ExternalWrenches &ext,
                            RefMat A, RefMat B);

/// The geometric central finite difference of docs/dynamics.md §5 with step eps; returns the
/// first failure of its evaluations. linearize_fd.cpp
Outcome linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                    CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, double eps,
                                    RefMat A, RefMat B);
Outcome linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                    CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                    const ExternalWrenches &ext, double eps, RefMat A, RefMat B);

/// Contact-constrained forward dynamics (contact_dynamics.cpp): ν̇ (n) and λ (m = Σ types) of
///   M ν̇ + C ν + G = S τ + J_cᵀ λ,  J_c ν̇ + J̇_c ν = the prescribed contact accelerations,
/// by the articulated-body factorization and the operational-space inverse inertia
/// Λ⁻¹ = J_c M⁻¹ J_cᵀ (RBDA §8.3 and ch. 7; Carpentier et al., RSS 2021). Returns
/// Outcome::Kind::dependent_contact_row when the contact Jacobian is rank-deficient at this state
/// (the outcome names the contact and row), or the failed pivot when M is singular; then nu_dot
/// and lambda are not to be used. Needs a
/// workspace with kWorkspaceContacts and room for contacts.count contacts and its rows.
Outcome contact_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                         const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts,
                         RefVec nu_dot, RefVec lambda);

/// The exact left-trivialized linearization of the contact-constrained dynamics
/// (contact_linearize.cpp): A (N x N), B (N x n_J) of ż = A z + B w in the coordinates of
/// linearize(), and ∂λ/∂z (m x N), ∂λ/∂w (m x n_J) (either may be empty: not computed). The
/// unconstrained A gains −M⁻¹ J_cᵀ ∂λ/∂z terms (docs/contacts.md). Returns a failed
/// outcome as contact_dynamics, and Outcome::Kind::overflow (nothing written) when a result is
/// not finite. Needs
/// kWorkspaceContacts and kWorkspaceLinearize.
Outcome contact_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts, RefMat A,
                          RefMat B, RefMat dlambda_dz, RefMat dlambda_dw);

/// The geometric central finite differences of contact_dynamics (linearize_fd.cpp): the
/// independent check of contact_linearize. Returns the first failure of its evaluations.
Outcome contact_linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                            CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                            const Contacts &contacts, double eps, RefMat A,
                                            RefMat B, RefMat dlambda_dz, RefMat dlambda_dw);

/// The impact map at touchdown (impulse.cpp; docs/contacts.md §9): the contacts stop, scaled by
/// the restitution e in [0, 1] (point: the frame origin's velocity; rigid: the frame's twist):
///   M (ν⁺ − ν⁻) = J_cᵀ Λ,   J_c ν⁺ = −e J_c ν⁻,
/// the pose and s unchanged. nu_next: ν⁺ (n); impulse: Λ (m, N s, in the axes of
/// contacts.flags). contacts' gains and refs are not used. Returns a failed outcome as
/// contact_dynamics (nothing to be used then). With no contacts ν⁺ = ν⁻ exactly. Needs
/// kWorkspaceContacts.
Outcome impulse(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                CRefVec r, const Contacts &contacts, double restitution, RefVec nu_next,
                RefVec impulse);

/// Its exact Jacobian: x⁻ exp(z) ↦ x⁺ exp(A_imp z), A_imp (N x N, identity in the pose rows),
/// and ∂Λ/∂z (m x N; may be empty). Returns a failed outcome as contact_linearize (nothing
/// written). With no contacts A_imp = I exactly. Needs kWorkspaceContacts and kWorkspaceLinearize.
Outcome impulse_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v, CRefVec r, const Contacts &contacts, double restitution,
                          RefMat A_imp, RefMat dimpulse_dz);

/// Integration methods of step() (the values of GEOLIN_STEP_*).
enum class StepMethod : int { SemiImplicitEuler = 0, Rk4 = 1, ImplicitEuler = 2 };

/// Joint-space feedback held during a step (docs/dynamics.md (D57)): tau + kp∘(s_ref − s) +
/// kd∘(r_ref − r), evaluated at each stage's s and r. Each pointer: n_J entries, or nullptr for
/// zeros. kp and kd must be >= 0 (the C API checks; the core does not).
struct JointFeedback {
  const double *kp = nullptr, *kd = nullptr, *s_ref = nullptr, *r_ref = nullptr;
  bool any() const { return kp || kd || s_ref || r_ref; }
};

/// One step of length h of ẋ = x λ(x, τ) on G with τ held constant (step.cpp):
///  - SemiImplicitEuler: ν⁺ = ν + h FD(x, τ); H⁺ = H exp(h v⁺); s⁺ = s + h r⁺.
///  - Rk4: the Runge–Kutta–Munthe-Kaas method of order 4 (Munthe-Kaas 1998; Iserles et al.,
///    Acta Numerica 2000, §5.2): classical RK4 on the Lie algebra with dexp⁻¹ truncated after
///    the second bracket, x⁺ = x exp(Θ). Chosen over Crouch–Grossman because it needs one
///    exponential per stage and its linearization reuses the same algebra.
///  - ImplicitEuler: SemiImplicitEuler with the joint damping implicit (docs/dynamics.md (D55)):
///    ν⁺ = ν + h a, (M + h D) a = f(x, ν, τ), D = blockdiag(0_6, diag(d)),
///    d_j = the model's damping (model.joint_damping only) + feedback.kd_j; f is forward
///    dynamics' right-hand side at (x, ν) (τ + feedback − bias − damping force). Only the
///    damping's ν⁺ dependence is implicit: the bias, kp and everything else are taken at x.
///    H⁺ = H exp(h v⁺), s⁺ = s + h r⁺ as SemiImplicitEuler. It equals SemiImplicitEuler on a model
///    whose armature is armature + h d (D56), formed in the workspace (ws.step_model) each call.
/// feedback (D57): τ + kp∘(s_ref − s) + kd∘(r_ref − r) at each stage's state (default: none).
/// Fixed base: H and v are ignored and H_next, v_next are left as given. Returns the first failed
/// stage's outcome (M singular there; the step stops and its results are not to be used).
Outcome step(const Model &model, Workspace &ws, StepMethod method, double h, const Transform &H,
             CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, Transform &H_next, RefVec s_next,
             Vec6 &v_next, RefVec r_next, const JointFeedback &feedback = JointFeedback{});

/// The exact linearization of step(): x exp(z) ↦ x⁺ exp(z⁺), z⁺ = A_d z + B_d w (τ ↦ τ + w),
/// from the continuous-time A, B at the stages and the closed-form right Jacobian of the SE(3)
/// exponential; no finite differences. A_d: N x N, B_d: N x n_J. step.cpp
/// ImplicitEuler: the stage's A, B are those of the armature-augmented model (D56). With feedback
/// each stage's A gains −B diag(kp) in its z_s columns and −B diag(kd) in its z_r columns (D57);
/// B_d stays the derivative w.r.t. w, τ ↦ τ + w (so ∂x⁺/∂s_ref = B_d diag(kp),
/// ∂x⁺/∂r_ref = B_d diag(kd)).
Outcome step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                       const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                       RefMat A_d, RefMat B_d, const JointFeedback &feedback = JointFeedback{});

/// One step of the contact-constrained dynamics of contact_dynamics (step.cpp; docs/contacts.md
/// §10): step() with ν̇ of contact_dynamics, the contacts, gains and refs held. lambda (m): the
/// semi-implicit Euler step's λ at (x, τ); RK4's weighted mean (λ₁ + 2λ₂ + 2λ₃ + λ₄)/6 of its
/// stages. With no contacts exactly step(). Returns the first failed stage's outcome (the step
/// stops there). Needs kWorkspaceContacts.
Outcome contact_step(const Model &model, Workspace &ws, StepMethod method, double h,
                     const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                     const Contacts &contacts, Transform &H_next, RefVec s_next, Vec6 &v_next,
                     RefVec r_next, RefVec lambda, const JointFeedback &feedback = JointFeedback{});

/// Its exact linearization as step_linearize, with contact_linearize's A, B at the stages, and
/// the derivatives of the step's λ: ∂λ/∂z (m x N), ∂λ/∂w (m x n_J), either may be empty. With no
/// contacts exactly step_linearize(). Returns the first failed stage's outcome. Needs
/// kWorkspaceContacts and kWorkspaceStepLinearize.
Outcome contact_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                               const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                               const Contacts &contacts, RefMat A_d, RefMat B_d, RefMat dlambda_dz,
                               RefMat dlambda_dw, const JointFeedback &feedback = JointFeedback{});

/// The quantities of MPC costs and their derivatives in z (docs/dynamics.md §11). Matrices with
/// N columns are in the order of z = [z_H; z_s; z_v; z_r] (fixed base: [z_s; z_r]); an empty
/// matrix argument (size 0) is not computed.

/// Centre of mass p_c of the whole robot (inertial frame), its velocity ṗ_c = J_com ν and
/// J_com (3 x n), which also maps [z_H; z_s] to the displacement of p_c. center_of_mass.cpp
void center_of_mass(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, Vec3 &com, Vec3 &com_velocity, RefMat J_com);

/// Centroidal momentum h_G = A_G ν = [linear; angular about p_c] in inertial axes, A_G (6 x n)
/// and dh_dz (6 x N). centroidal_momentum.cpp
void centroidal_momentum(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                         const Vec6 &v, CRefVec r, Vec6 &h_G, RefMat A_G, RefMat dh_dz);

/// Pose error e = log(H_ref⁻¹ H_F) of a frame and de_dz (6 x N, zero velocity columns).
/// frame_derivatives.cpp
void frame_pose_error(const Model &model, Workspace &ws, const Transform &H, CRefVec s, int frame,
                      const Transform &H_ref, Vec6 &error, RefMat de_dz);

/// A frame's twist, Local (^F v_F) or Mixed ([ṗ_F; ω] in inertial axes) per flags (kWrench*),
/// and dtwist_dz (6 x N). frame_derivatives.cpp
void frame_velocity(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, int frame, unsigned flags, Vec6 &twist, RefMat dtwist_dz);

/// A frame's classical acceleration [p̈_F; ω̇] (Local: in F's axes; Mixed: inertial axes) at the
/// generalized acceleration nu_dot, dacc_dz (6 x N, at fixed nu_dot) and dacc_dnudot (6 x n,
/// the frame Jacobian in the same axes). frame_derivatives.cpp
void frame_acceleration(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                        const Vec6 &v, CRefVec r, CRefVec nu_dot, int frame, unsigned flags,
                        Vec6 &acc, RefMat dacc_dz, RefMat dacc_dnudot);

/// Kinetic energy 1/2 nu^T M nu, M with the armature: the links' plus 1/2 sum armature_j r_j^2.
/// energy.cpp
double kinetic_energy(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v, CRefVec r);
/// Potential energy -sum m_i g^T p_{c,i} (world centres of mass). energy.cpp
double potential_energy(const Model &model, Workspace &ws, const Transform &H, CRefVec s);
/// Total spatial momentum sum M_i v_i expressed in the base frame 0 (the links' only: a rotor
/// spinning inside its link is not in it, docs/conventions.md "Armature"). energy.cpp
Vec6 spatial_momentum(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v, CRefVec r);

}  // namespace geolin
