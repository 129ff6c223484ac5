// One integration step on the Lie group G = SE(3) × R^nJ × R^6 × R^nJ (docs/dynamics.md §4):
// semi-implicit Euler, its variant with the joint damping implicit (D55) (the Euler step of the
// model with armature + h d, (D56)), a caller's joint feedback at every stage (D57), and the
// Runge–Kutta–Munthe-Kaas method of order 4 (H. Munthe-Kaas,
// "Runge-Kutta methods on Lie groups", BIT 1998; A. Iserles, H. Munthe-Kaas, S. Nørsett,
// A. Zanna, "Lie-group methods", Acta Numerica 2000, §5.2).
//
// For x(t) = x₀ exp(Θ(t)) with ẋ = x λ(x), Θ̇ = dexp⁻¹_{−Θ} λ(x₀ exp Θ), and
// dexp⁻¹_{−Θ} k = k + ½ [Θ, k] + 1/12 [Θ, [Θ, k]] + O(Θ³) (the bracket is non-zero on the SE(3)
// block only, where [Θ, k] = Θ × k). RKMK4 applies classical RK4 to this ODE; two brackets
// suffice for order 4.
#include "geolin/constraints.hpp"
#include "geolin/state.hpp"
#include "numeric_checks.hpp"

namespace geolin {
namespace {

// The Butcher tableau of classical RK4, which RKMK4 applies on the Lie algebra (docs/dynamics.md
// §4, (D25)): stage i is evaluated at x exp(θᵢ), θ₁ = 0, θᵢ = cᵢ k̃ᵢ₋₁, and x⁺ = x exp(Θ) with
// Θ = Σ bᵢ k̃ᵢ; the step's λ is Σ bᵢ λᵢ (docs/contacts.md (C12), (C13)). The step and its
// linearization read this one table.
struct Rk4Tableau {
  double c[4];
  double b[4];
};
constexpr Rk4Tableau kRk4{{0.0, 0.5, 0.5, 1.0}, {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0}};

// What a step integrates: the free dynamics (ν̇ of aba) or the contact-constrained one (ν̇ and λ
// of contact_dynamics, the contacts held; docs/contacts.md §10).
enum class StepDynamics { free, held_contacts, constrained };

// The dynamics of a step, its contacts (an empty set for StepDynamics::free) and the caller's
// joint feedback.
struct StepField {
  StepDynamics dynamics;
  const Contacts &contacts;
  const JointFeedback &feedback;
  const ConstraintSet *set = nullptr;  // StepDynamics::constrained (docs/constraints.md §6)
  double mu = 0.0;                     // its regularization
  int rows() const {
    if (dynamics == StepDynamics::held_contacts) return contacts.rows();
    return dynamics == StepDynamics::constrained ? set->rows() : 0;
  }
};

// The joint torques at a stage's (s, r): τ, or with feedback
// τ + kp∘(s_ref − s) + kd∘(r_ref − r) (docs/dynamics.md (D57)) in ws.step_tau. A view, by value.
Eigen::Ref<const VecX> stage_torque(Workspace &ws, const JointFeedback &fb, CRefVec s, CRefVec r,
                                    CRefVec tau) {
  if (!fb.any()) return tau;
  ws.step_tau = tau;
  const Eigen::Index nj = tau.size();
  if (fb.kp)
    for (Eigen::Index j = 0; j < nj; ++j)
      ws.step_tau[j] += fb.kp[j] * ((fb.s_ref ? fb.s_ref[j] : 0.0) - s[j]);  // (D57)
  if (fb.kd)
    for (Eigen::Index j = 0; j < nj; ++j)
      ws.step_tau[j] += fb.kd[j] * ((fb.r_ref ? fb.r_ref[j] : 0.0) - r[j]);  // (D57)
  return ws.step_tau;
}

// ν̇ at x into ws.nu_dot and, with held contacts, weight · λ(x, τ) added to lambda (m rows):
// (C12) summed over the stages. τ: with the feedback at (s, r).
Outcome field_accelerations(const Model &model, Workspace &ws, const StepField &field,
                            const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau_in,
                            double weight, RefVec lambda) {
  CRefVec tau = stage_torque(ws, field.feedback, s, r, tau_in);
  if (field.dynamics == StepDynamics::free) return aba(model, ws, H, s, v, r, tau, ws.nu_dot);
  const int m = field.rows();
  const Outcome outcome = field.dynamics == StepDynamics::constrained
                              ? constrained_dynamics(model, ws, H, s, v, r, tau, *field.set,
                                                     field.mu, ws.nu_dot, ws.contact_lambda)
                              : contact_dynamics(model, ws, H, s, v, r, tau, field.contacts,
                                                 ws.nu_dot, ws.contact_lambda);
  lambda.head(m) += weight * ws.contact_lambda.head(m);  // (C12)
  return outcome;
}

// h λ(x, τ) = h [v; r; ν̇] into k (N), with field_accelerations' λ.
Outcome scaled_field(const Model &model, Workspace &ws, const StepField &field, double h,
                     const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                     double weight, RefVec lambda, RefVec k) {
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset();
  if (!model.fixed_base) k.head<6>() = h * v;
  k.segment(o, nj) = h * r;
  const Outcome outcome = field_accelerations(model, ws, field, H, s, v, r, tau, weight, lambda);
  k.tail(n) = h * ws.nu_dot;
  return outcome;
}

// k ← dexp⁻¹_{−Θ} k on the SE(3) block, to second order in Θ: docs/dynamics.md (D25).
void dexp_inverse(const Model &model, CRefVec theta, RefVec k) {
  if (model.fixed_base) return;
  const Vec6 th = theta.head<6>();
  const Vec6 b1 = cross_motion(th, k.head<6>());
  k.head<6>() += 0.5 * b1 + cross_motion(th, b1) / 12.0;
}

}  // namespace

namespace {

// The semi-implicit Euler step (D24), λ = λ(x, τ) (C12).
Outcome euler_step(const Model &model, Workspace &ws, const StepField &field, double h,
                   const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                   Transform &H_next, RefVec s_next, Vec6 &v_next, RefVec r_next, RefVec lambda) {
  const int nj = model.n_B, o = model.joint_offset();
  const bool moving = !model.fixed_base;
  const Outcome outcome = field_accelerations(model, ws, field, H, s, v, r, tau, 1.0, lambda);
  if (!outcome) return outcome;
  Vec6 v_plus = v;
  if (moving) v_plus += h * ws.nu_dot.head<6>();
  r_next = r + h * ws.nu_dot.segment(o, nj);
  s_next = s + h * r_next;
  if (moving) {
    H_next = H * exp_se3(h * v_plus);  // docs/dynamics.md (D24)
    v_next = v_plus;
  }
  return outcome;
}

// RKMK4 with the tableau kRk4; stops at the first stage that fails.
Outcome rk4_step(const Model &model, Workspace &ws, const StepField &field, double h,
                 const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                 Transform &H_next, RefVec s_next, Vec6 &v_next, RefVec r_next, RefVec lambda) {
  Transform Hs = H;
  Vec6 vs = v;
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      ws.rk4_theta = kRk4.c[i] * ws.stage_k.col(i - 1);
      state_integrate(model, H, s, v, r, ws.rk4_theta, Hs, ws.stage_s, vs, ws.stage_r);
    }
    const Outcome outcome = i == 0
                                ? scaled_field(model, ws, field, h, H, s, v, r, tau, kRk4.b[0],
                                               lambda, ws.stage_k.col(0))
                                : scaled_field(model, ws, field, h, Hs, ws.stage_s, vs, ws.stage_r,
                                               tau, kRk4.b[i], lambda, ws.stage_k.col(i));
    if (!outcome) return outcome;
    if (i > 0) dexp_inverse(model, ws.rk4_theta, ws.stage_k.col(i));
  }
  ws.rk4_Theta = kRk4.b[0] * ws.stage_k.col(0) + kRk4.b[1] * ws.stage_k.col(1) +
                 kRk4.b[2] * ws.stage_k.col(2) + kRk4.b[3] * ws.stage_k.col(3);
  Transform Hn = H;
  Vec6 vn = v;
  state_integrate(model, H, s, v, r, ws.rk4_Theta, Hn, s_next, vn, r_next);
  if (!model.fixed_base) {
    H_next = Hn;
    v_next = vn;
  }
  return Outcome();
}

// The model whose semi-implicit Euler step is the implicit step (docs/dynamics.md (D56)): the
// damping d = the model's joint damping + kd enters M + h D as the armature a + h d. The model
// itself when d = 0; else ws.step_model, assigned the whole model here (every field it is read
// for is written in this call) with that armature.
const Model &implicit_step_model(const Model &model, Workspace &ws, double h,
                                 const JointFeedback &feedback) {
  bool damped = false;
  for (int k = 0; k < model.n_B && !damped; ++k)
    damped = (model.joint_damping && model.damping[k + 1] != 0.0) ||
             (feedback.kd && feedback.kd[k] != 0.0);
  if (!damped) return model;
  ws.step_model = model;
  for (int k = 0; k < model.n_B; ++k) {
    const double d =
        (model.joint_damping ? model.damping[k + 1] : 0.0) + (feedback.kd ? feedback.kd[k] : 0.0);
    ws.step_model.armature[k] += h * d;  // M + h D = M_{a + h d}  (D56)
  }
  return ws.step_model;
}

// step and contact_step: λ (field.rows() entries) of the step into lambda.
Outcome step_impl(const Model &model, Workspace &ws, StepMethod method, const StepField &field,
                  double h, const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                  Transform &H_next, RefVec s_next, Vec6 &v_next, RefVec r_next, RefVec lambda) {
  lambda.head(field.rows()).setZero();
  if (method == StepMethod::SemiImplicitEuler)
    return euler_step(model, ws, field, h, H, s, v, r, tau, H_next, s_next, v_next, r_next, lambda);
  if (method == StepMethod::ImplicitEuler)  // (D55), (D56)
    return euler_step(implicit_step_model(model, ws, h, field.feedback), ws, field, h, H, s, v, r,
                      tau, H_next, s_next, v_next, r_next, lambda);
  return rk4_step(model, ws, field, h, H, s, v, r, tau, H_next, s_next, v_next, r_next, lambda);
}

const Contacts kNoContacts{};

}  // namespace

Outcome step(const Model &model, Workspace &ws, StepMethod method, double h, const Transform &H,
             CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, Transform &H_next, RefVec s_next,
             Vec6 &v_next, RefVec r_next, const JointFeedback &feedback) {
  Eigen::Map<VecX> no_lambda(nullptr, 0);
  return step_impl(model, ws, method, {StepDynamics::free, kNoContacts, feedback}, h, H, s, v, r,
                   tau, H_next, s_next, v_next, r_next, no_lambda);
}

Outcome contact_step(const Model &model, Workspace &ws, StepMethod method, double h,
                     const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                     const Contacts &contacts, Transform &H_next, RefVec s_next, Vec6 &v_next,
                     RefVec r_next, RefVec lambda, const JointFeedback &feedback) {
  if (contacts.count == 0)  // nothing held: geolin_step, exactly
    return step(model, ws, method, h, H, s, v, r, tau, H_next, s_next, v_next, r_next, feedback);
  return step_impl(model, ws, method, {StepDynamics::held_contacts, contacts, feedback}, h, H, s, v,
                   r, tau, H_next, s_next, v_next, r_next, lambda);
}

// ---------------------------------------------------------------------------------------------
// Linearization of the step. Every quantity q(z, w) carries its Jacobian Dq = [∂q/∂z, ∂q/∂w]
// (N x (N + n_J)). Two facts do all the work:
//  (1) a right-perturbed retraction x exp(z) exp(θ + δθ) = x exp(θ) exp(ζ) with, on the SE(3)
//      block, ζ = Ad_{exp(−θ)} z + J_r(θ) δθ (and ζ = z + δθ on the vector blocks);
//  (2) the derivative of λ in left-trivialized coordinates is A + ad_λ = A with its top-left
//      6x6 block (−v×) set to zero (docs/dynamics.md §4), and ∂λ/∂τ = B.
namespace {

// Z = P(θ) [1 0] + J(θ) Dθ with P = blockdiag(Ad_{exp(−θ_H)}, 1), J = blockdiag(J_r(θ_H), 1):
// docs/dynamics.md (D26).
void retraction_jacobian(const Model &model, CRefVec theta, const MatX &D_theta, MatX &Z) {
  const int N = model.state_dim();
  Z = D_theta;
  Z.leftCols(N) += MatX::Identity(N, N);
  if (model.fixed_base) return;
  const Vec6 th = theta.head<6>();
  const Mat6 Ad = motion_transform(exp_se3(-th));
  const Mat6 Jr = right_jacobian_se3(th);
  Z.topRows<6>().noalias() = Jr * D_theta.topRows<6>();
  Z.topLeftCorner<6, 6>() += Ad;
}

}  // namespace

namespace {

// The feedback's chain rule at a stage (docs/dynamics.md (D57)): τ depends on s and r through
// ∂τ/∂z_s = −diag(kp), ∂τ/∂z_r = −diag(kd), so A gains −B diag(kp) in its z_s columns and
// −B diag(kd) in its z_r columns, and ∂λ/∂z the same with ∂λ/∂w.
void add_feedback_derivative(const Model &model, Workspace &ws, const StepField &field) {
  const JointFeedback &fb = field.feedback;
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset(), m = field.rows();
  for (int j = 0; j < nj; ++j) {
    const double kp = fb.kp ? fb.kp[j] : 0.0, kd = fb.kd ? fb.kd[j] : 0.0;
    if (kp != 0.0) {
      ws.A_stage.col(o + j) -= kp * ws.B_stage.col(j);
      if (m > 0) ws.step_dlambda_dz.col(o + j).head(m) -= kp * ws.step_dlambda_dw.col(j).head(m);
    }
    if (kd != 0.0) {
      ws.A_stage.col(n + o + j) -= kd * ws.B_stage.col(j);
      if (m > 0)
        ws.step_dlambda_dz.col(n + o + j).head(m) -= kd * ws.step_dlambda_dw.col(j).head(m);
    }
  }
}

// The continuous A, B at a stage into ws.A_stage, ws.B_stage (ν̇ left in ws.nu_dot): linearize,
// or contact_linearize with ∂λ/∂z, ∂λ/∂w in ws.step_dlambda_dz, ws.step_dlambda_dw; with the
// feedback at (s, r) and its chain rule.
Outcome stage_linearize(const Model &model, Workspace &ws, const StepField &field,
                        const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau_in) {
  CRefVec tau = stage_torque(ws, field.feedback, s, r, tau_in);
  Outcome outcome;
  if (field.dynamics == StepDynamics::free) {
    outcome = linearize(model, ws, H, s, v, r, tau, ws.A_stage, ws.B_stage);
  } else {
    const int m = field.rows();
    auto dz = ws.step_dlambda_dz.topRows(m);
    auto dw = ws.step_dlambda_dw.topRows(m);
    outcome = field.dynamics == StepDynamics::constrained
                  ? constrained_linearize(model, ws, H, s, v, r, tau, *field.set, field.mu,
                                          ws.A_stage, ws.B_stage, dz, dw)
                  : contact_linearize(model, ws, H, s, v, r, tau, field.contacts, ws.A_stage,
                                      ws.B_stage, dz, dw);
  }
  if (outcome && field.feedback.any()) add_feedback_derivative(model, ws, field);
  return outcome;
}

// Dλ += weight (∂λ/∂z Z + [0, ∂λ/∂w]): the stage's λ through its state x exp(θ) (Z = ∂ζ/∂(z, w)
// of retraction_jacobian) and through w: (C13), into the requested (non-empty) outputs.
void add_lambda_derivative(const Model &model, Workspace &ws, int m, double weight, const MatX &Z,
                           RefMat dlambda_dz, RefMat dlambda_dw) {
  const int N = model.state_dim(), nj = model.n_B;
  const auto stage_dz = ws.step_dlambda_dz.topRows(m);
  if (dlambda_dz.size() > 0) dlambda_dz.noalias() += weight * stage_dz * Z.leftCols(N);
  if (dlambda_dw.size() > 0) {
    dlambda_dw.noalias() += weight * stage_dz * Z.rightCols(nj);
    dlambda_dw += weight * ws.step_dlambda_dw.topRows(m);
  }
}

// The semi-implicit Euler step's A_d, B_d from the continuous A, B in ws.A_stage, ws.B_stage
// (ν̇ in ws.nu_dot), written straight into the outputs, rows ν⁺ first (the others read them):
//   z_ν⁺ = z_ν + h (A z + B w)                 (rows n..2n−1 of A and B)
//   z_s⁺ = z_s + h z_r⁺
//   z_H⁺ = Ad_{exp(−h v⁺)} z_H + h J_r(h v⁺) z_v⁺   (docs/dynamics.md (D26))
void euler_step_jacobian(const Model &model, Workspace &ws, double h, const Vec6 &v, RefMat A_d,
                         RefMat B_d) {
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset();
  A_d.bottomRows(n).noalias() = h * ws.A_stage.bottomRows(n);
  A_d.bottomRightCorner(n, n).diagonal().array() += 1.0;
  // (A robot without joints has an empty B_stage with no storage: take no block of it.)
  if (nj > 0) B_d.bottomRows(n).noalias() = h * ws.B_stage.bottomRows(n);
  A_d.middleRows(o, nj) = h * A_d.middleRows(n + o, nj);
  A_d.block(o, o, nj, nj).diagonal().array() += 1.0;
  if (nj > 0) B_d.middleRows(o, nj) = h * B_d.middleRows(n + o, nj);
  if (model.fixed_base) return;
  const Vec6 hv = h * (v + h * ws.nu_dot.head<6>());
  const Mat6 hJr = h * right_jacobian_se3(hv);
  A_d.topRows<6>().noalias() = hJr * A_d.middleRows<6>(n);
  A_d.topLeftCorner<6, 6>() += motion_transform(exp_se3(-hv));
  if (nj > 0) B_d.topRows<6>().noalias() = hJr * B_d.middleRows<6>(n);
}

// k̃ = k + ½ θ×k + 1/12 θ×(θ×k) on the SE(3) block (D25) and its derivative D_k, in place:
// D k̃ = (1 + ½ θ× + 1/12 θ×θ×) D_k − (½ k× + 1/12 (θ×k× + (θ×k)×)) D_θ.
void dexp_inverse_jacobian(Workspace &ws, RefVec k) {
  const Vec6 th = ws.rk4_theta.head<6>();
  const Vec6 kH = k.head<6>();
  const Mat6 TX = cross_motion(th);
  const Mat6 Dk_coef = Mat6::Identity() + 0.5 * TX + TX * TX / 12.0;
  const Mat6 Dth_coef =
      -0.5 * cross_motion(kH) - (TX * cross_motion(kH) + cross_motion(TX * kH)) / 12.0;
  ws.tmp6 = ws.D_k.topRows<6>();
  ws.D_k.topRows<6>().noalias() = Dk_coef * ws.tmp6;
  ws.D_k.topRows<6>().noalias() += Dth_coef * ws.D_theta.topRows<6>();
  k.head<6>() = Dk_coef * kH;
}

// RKMK4: k₁ = hλ(x); θᵢ = cᵢ k̃ᵢ₋₁, kᵢ = hλ(x exp θᵢ), k̃ᵢ = dexp⁻¹ correction of kᵢ;
// Θ = Σ bᵢ k̃ᵢ; x⁺ = x exp Θ (the tableau kRk4). Differentiates each line; stops at the first
// stage that fails.
Outcome rk4_step_linearize(const Model &model, Workspace &ws, const StepField &field, double h,
                           const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                           RefMat A_d, RefMat B_d, RefMat dlambda_dz, RefMat dlambda_dw) {
  const int nj = model.n_B, n = model.num_dofs(), N = model.state_dim(), o = model.joint_offset();
  const bool moving = !model.fixed_base;
  Transform Hs = H;
  Vec6 vs = v;
  ws.D_Theta.setZero();
  ws.D_theta.setZero();
  ws.rk4_theta.setZero();
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      ws.rk4_theta = kRk4.c[i] * ws.stage_k.col(i - 1);
      ws.D_theta = kRk4.c[i] * ws.D_k;
    }
    state_integrate(model, H, s, v, r, ws.rk4_theta, Hs, ws.stage_s, vs, ws.stage_r);
    retraction_jacobian(model, ws.rk4_theta, ws.D_theta, ws.Z);
    const Outcome outcome = stage_linearize(model, ws, field, Hs, ws.stage_s, vs, ws.stage_r, tau);
    if (!outcome) return outcome;
    if (field.dynamics != StepDynamics::free)
      add_lambda_derivative(model, ws, field.rows(), kRk4.b[i], ws.Z, dlambda_dz, dlambda_dw);
    // λ at the stage (linearize leaves ν̇ in ws.nu_dot) and Dλ = A + ad_λ.
    auto k = ws.stage_k.col(i);
    if (moving) k.head<6>() = h * vs;
    k.segment(o, nj) = h * ws.stage_r;
    k.tail(n) = h * ws.nu_dot;
    if (moving) ws.A_stage.topLeftCorner<6, 6>().setZero();
    ws.D_k.noalias() = h * ws.A_stage * ws.Z;
    ws.D_k.rightCols(nj) += h * ws.B_stage;
    if (moving && i > 0) dexp_inverse_jacobian(ws, k);
    ws.D_Theta += kRk4.b[i] * ws.D_k;
  }
  ws.rk4_Theta = kRk4.b[0] * ws.stage_k.col(0) + kRk4.b[1] * ws.stage_k.col(1) +
                 kRk4.b[2] * ws.stage_k.col(2) + kRk4.b[3] * ws.stage_k.col(3);
  retraction_jacobian(model, ws.rk4_Theta, ws.D_Theta, ws.Z);
  A_d = ws.Z.leftCols(N);
  B_d = ws.Z.rightCols(nj);
  return Outcome();
}

// step_linearize and contact_step_linearize: Dλ of the step into the non-empty dlambda_dz (m x N)
// and dlambda_dw (m x n_J).
Outcome step_linearize_impl(const Model &model, Workspace &ws, StepMethod method,
                            const StepField &field, double h, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, CRefVec tau, RefMat A_d, RefMat B_d,
                            RefMat dlambda_dz, RefMat dlambda_dw) {
  if (method == StepMethod::Rk4) {
    if (dlambda_dz.size() > 0) dlambda_dz.setZero();
    if (dlambda_dw.size() > 0) dlambda_dw.setZero();
    return rk4_step_linearize(model, ws, field, h, H, s, v, r, tau, A_d, B_d, dlambda_dz,
                              dlambda_dw);
  }
  // ImplicitEuler: the Euler step of the armature-augmented model, linearized as such (D56)
  const Model &stepped = method == StepMethod::ImplicitEuler
                             ? implicit_step_model(model, ws, h, field.feedback)
                             : model;
  const Outcome outcome = stage_linearize(stepped, ws, field, H, s, v, r, tau);
  if (!outcome) return outcome;
  euler_step_jacobian(stepped, ws, h, v, A_d, B_d);
  const int m = field.rows();  // λ at (x, τ): contact_linearize's, (C13)
  if (dlambda_dz.size() > 0) dlambda_dz = ws.step_dlambda_dz.topRows(m);
  if (dlambda_dw.size() > 0) dlambda_dw = ws.step_dlambda_dw.topRows(m);
  return outcome;
}

}  // namespace

Outcome step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                       const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                       RefMat A_d, RefMat B_d, const JointFeedback &feedback) {
  Eigen::Map<MatX> none(nullptr, 0, 0);
  return step_linearize_impl(model, ws, method, {StepDynamics::free, kNoContacts, feedback}, h, H,
                             s, v, r, tau, A_d, B_d, none, none);
}

Outcome contact_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                               const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                               const Contacts &contacts, RefMat A_d, RefMat B_d, RefMat dlambda_dz,
                               RefMat dlambda_dw, const JointFeedback &feedback) {
  if (contacts.count == 0)  // nothing held: step_linearize, exactly
    return step_linearize(model, ws, method, h, H, s, v, r, tau, A_d, B_d, feedback);
  return step_linearize_impl(model, ws, method, {StepDynamics::held_contacts, contacts, feedback},
                             h, H, s, v, r, tau, A_d, B_d, dlambda_dz, dlambda_dw);
}

Outcome constrained_step(const Model &model, Workspace &ws, StepMethod method, double h,
                         const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                         const ConstraintSet &set, double mu, Transform &H_next, RefVec s_next,
                         Vec6 &v_next, RefVec r_next, RefVec lambda,
                         const JointFeedback &feedback) {
  if (set.contacts_only())  // contact_step's own (geolin_step's for an empty set), exactly
    return contact_step(model, ws, method, h, H, s, v, r, tau, set.contacts(mu), H_next, s_next,
                        v_next, r_next, lambda, feedback);
  return step_impl(model, ws, method, {StepDynamics::constrained, kNoContacts, feedback, &set, mu},
                   h, H, s, v, r, tau, H_next, s_next, v_next, r_next, lambda);
}

Outcome constrained_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                                   const Transform &H, CRefVec s, const Vec6 &v, CRefVec r,
                                   CRefVec tau, const ConstraintSet &set, double mu, RefMat A_d,
                                   RefMat B_d, RefMat dlambda_dz, RefMat dlambda_dw,
                                   const JointFeedback &feedback) {
  if (set.contacts_only())
    return contact_step_linearize(model, ws, method, h, H, s, v, r, tau, set.contacts(mu), A_d, B_d,
                                  dlambda_dz, dlambda_dw, feedback);
  return step_linearize_impl(model, ws, method,
                             {StepDynamics::constrained, kNoContacts, feedback, &set, mu}, h, H, s,
                             v, r, tau, A_d, B_d, dlambda_dz, dlambda_dw);
}

}  // namespace geolin
