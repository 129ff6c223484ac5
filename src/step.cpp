// One integration step on the Lie group G = SE(3) × R^nJ × R^6 × R^nJ (docs/dynamics.md §4):
// semi-implicit Euler, and the Runge–Kutta–Munthe-Kaas method of order 4 (H. Munthe-Kaas,
// "Runge-Kutta methods on Lie groups", BIT 1998; A. Iserles, H. Munthe-Kaas, S. Nørsett,
// A. Zanna, "Lie-group methods", Acta Numerica 2000, §5.2).
//
// For x(t) = x₀ exp(Θ(t)) with ẋ = x λ(x), Θ̇ = dexp⁻¹_{−Θ} λ(x₀ exp Θ), and
// dexp⁻¹_{−Θ} k = k + ½ [Θ, k] + 1/12 [Θ, [Θ, k]] + O(Θ³) (the bracket is non-zero on the SE(3)
// block only, where [Θ, k] = Θ × k). RKMK4 applies classical RK4 to this ODE; two brackets
// suffice for order 4.
#include "geolin/state.hpp"
#include "numeric_checks.hpp"

namespace geolin {
namespace {

// h λ(x, τ) into out (N): ν̇ of aba, or of contact_dynamics when contacts is not NULL (the
// contact step; docs/contacts.md §10), whose λ, times weight, is added to ws.step_lambda.
// Returns false when the contacts are singular at x (ws.contact_failed).
bool scaled_field(const Model &model, Workspace &ws, double h, const Transform &H, CRefVec s,
                  const Vec6 &v, CRefVec r, CRefVec tau, RefVec out, detail::SingularLatch &latch,
                  const Contacts *contacts = nullptr, double weight = 0.0) {
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset();
  if (!model.fixed_base) out.head<6>() = h * v;
  out.segment(o, nj) = h * r;
  bool ok = true;
  if (contacts == nullptr) {
    aba(model, ws, H, s, v, r, tau, ws.nu_dot);
  } else {
    const int m = contacts->rows();
    ok = contact_dynamics(model, ws, H, s, v, r, tau, *contacts, ws.nu_dot, ws.contact_lambda);
    ws.step_lambda.head(m) += weight * ws.contact_lambda.head(m);  // (C12)
  }
  latch.take(ws);
  out.tail(n) = h * ws.nu_dot;
  return ok;
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

// step and contact_step (contacts not NULL): false when the contacts are singular at a stage.
bool step_impl(const Model &model, Workspace &ws, StepMethod method, double h, const Transform &H,
               CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, const Contacts *contacts,
               Transform &H_next, RefVec s_next, Vec6 &v_next, RefVec r_next) {
  const int nj = model.n_B, o = model.joint_offset();
  const bool moving = !model.fixed_base;
  if (contacts != nullptr) ws.step_lambda.head(contacts->rows()).setZero();
  if (method == StepMethod::SemiImplicitEuler) {
    bool ok = true;
    if (contacts == nullptr) {
      aba(model, ws, H, s, v, r, tau, ws.nu_dot);
    } else {
      const int m = contacts->rows();
      ok = contact_dynamics(model, ws, H, s, v, r, tau, *contacts, ws.nu_dot, ws.contact_lambda);
      ws.step_lambda.head(m) = ws.contact_lambda.head(m);  // (C12)
    }
    if (!ok) return false;
    Vec6 v_plus = v;
    if (moving) v_plus += h * ws.nu_dot.head<6>();
    r_next = r + h * ws.nu_dot.segment(o, nj);
    s_next = s + h * r_next;
    if (moving) {
      H_next = H * exp_se3(h * v_plus);  // docs/dynamics.md (D24)
      v_next = v_plus;
    }
    return true;
  }
  // RKMK4.
  Transform Hs = H;
  Vec6 vs = v;
  detail::SingularLatch latch;  // a singular stage makes the step singular
  const double b[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  bool ok = scaled_field(model, ws, h, H, s, v, r, tau, ws.stage_k.col(0), latch, contacts, b[0]);
  const double c[3] = {0.5, 0.5, 1.0};
  for (int stage = 1; stage < 4 && ok; ++stage) {
    ws.theta = c[stage - 1] * ws.stage_k.col(stage - 1);
    state_integrate(model, H, s, v, r, ws.theta, Hs, ws.stage_s, vs, ws.stage_r);
    ok = scaled_field(model, ws, h, Hs, ws.stage_s, vs, ws.stage_r, tau, ws.stage_k.col(stage),
                      latch, contacts, b[stage]);
    dexp_inverse(model, ws.theta, ws.stage_k.col(stage));
  }
  if (!ok) return false;
  ws.theta =
      (ws.stage_k.col(0) + 2.0 * ws.stage_k.col(1) + 2.0 * ws.stage_k.col(2) + ws.stage_k.col(3)) /
      6.0;
  Transform Hn = H;
  Vec6 vn = v;
  state_integrate(model, H, s, v, r, ws.theta, Hn, s_next, vn, r_next);
  latch.restore(ws);
  if (moving) {
    H_next = Hn;
    v_next = vn;
  }
  return true;
}

}  // namespace

void step(const Model &model, Workspace &ws, StepMethod method, double h, const Transform &H,
          CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, Transform &H_next, RefVec s_next,
          Vec6 &v_next, RefVec r_next) {
  step_impl(model, ws, method, h, H, s, v, r, tau, nullptr, H_next, s_next, v_next, r_next);
}

bool contact_step(const Model &model, Workspace &ws, StepMethod method, double h,
                  const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                  const Contacts &contacts, Transform &H_next, RefVec s_next, Vec6 &v_next,
                  RefVec r_next, RefVec lambda) {
  ws.contact_failed = -1;
  if (contacts.count == 0) {  // nothing held: geolin_step, exactly
    step(model, ws, method, h, H, s, v, r, tau, H_next, s_next, v_next, r_next);
    return true;
  }
  if (!step_impl(model, ws, method, h, H, s, v, r, tau, &contacts, H_next, s_next, v_next, r_next))
    return false;
  const int m = contacts.rows();
  lambda.head(m) = ws.step_lambda.head(m);
  return true;
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

// The continuous A, B at a stage into ws.A_stage, ws.B_stage (ν̇ left in ws.nu_dot): linearize,
// or contact_linearize with ∂λ/∂z, ∂λ/∂w in ws.step_dlambda_dz, ws.step_dlambda_dw.
bool stage_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                     const Vec6 &v, CRefVec r, CRefVec tau, const Contacts *contacts) {
  if (contacts == nullptr) {
    linearize(model, ws, H, s, v, r, tau, ws.A_stage, ws.B_stage);
    return true;
  }
  const int m = contacts->rows();
  auto dz = ws.step_dlambda_dz.topRows(m);
  auto dw = ws.step_dlambda_dw.topRows(m);
  return contact_linearize(model, ws, H, s, v, r, tau, *contacts, ws.A_stage, ws.B_stage, dz, dw);
}

// Dλ += weight (∂λ/∂z Z + [0, ∂λ/∂w]): the stage's λ through its state x exp(θ) (Z = ∂ζ/∂(z, w)
// of retraction_jacobian) and through w: (C13).
void add_lambda_derivative(const Model &model, Workspace &ws, const Contacts &contacts,
                           double weight, const MatX &Z) {
  const int m = contacts.rows(), nj = model.n_B;
  ws.step_dlambda.topRows(m).noalias() += weight * ws.step_dlambda_dz.topRows(m) * Z;
  ws.step_dlambda.topRows(m).rightCols(nj) += weight * ws.step_dlambda_dw.topRows(m);
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

bool step_linearize_impl(const Model &model, Workspace &ws, StepMethod method, double h,
                         const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                         const Contacts *contacts, RefMat A_d, RefMat B_d) {
  const int nj = model.n_B, n = model.num_dofs(), N = model.state_dim(), o = model.joint_offset();
  const bool moving = !model.fixed_base;
  if (method == StepMethod::SemiImplicitEuler) {
    if (!stage_linearize(model, ws, H, s, v, r, tau, contacts)) return false;
    euler_step_jacobian(model, ws, h, v, A_d, B_d);
    return true;
  }
  // RKMK4: k₁ = hλ(x); θᵢ = cᵢ k̃ᵢ₋₁, kᵢ = hλ(x exp θᵢ), k̃ᵢ = dexp⁻¹ correction of kᵢ;
  // Θ = (k̃₁ + 2k̃₂ + 2k̃₃ + k̃₄)/6; x⁺ = x exp Θ. Differentiate each line.
  const double c[4] = {0.0, 0.5, 0.5, 1.0};
  const double b[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  Transform Hs = H;
  Vec6 vs = v;
  ws.D_Theta.setZero();
  ws.D_theta.setZero();
  ws.theta.setZero();
  detail::SingularLatch latch;  // a singular stage makes the step singular
  if (contacts != nullptr) ws.step_dlambda.topRows(contacts->rows()).setZero();
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      ws.theta = c[i] * ws.stage_k.col(i - 1);
      ws.D_theta = c[i] * ws.D_k;
    }
    state_integrate(model, H, s, v, r, ws.theta, Hs, ws.stage_s, vs, ws.stage_r);
    retraction_jacobian(model, ws.theta, ws.D_theta, ws.Z);
    if (!stage_linearize(model, ws, Hs, ws.stage_s, vs, ws.stage_r, tau, contacts)) return false;
    latch.take(ws);
    if (contacts != nullptr) add_lambda_derivative(model, ws, *contacts, b[i], ws.Z);
    // λ at the stage (linearize leaves ν̇ in ws.nu_dot) and Dλ = A + ad_λ.
    auto k = ws.stage_k.col(i);
    if (moving) k.head<6>() = h * vs;
    k.segment(o, nj) = h * ws.stage_r;
    k.tail(n) = h * ws.nu_dot;
    if (moving) ws.A_stage.topLeftCorner<6, 6>().setZero();
    ws.D_k.noalias() = h * ws.A_stage * ws.Z;
    ws.D_k.rightCols(nj) += h * ws.B_stage;
    if (moving && i > 0) {
      // k̃ = k + ½ θ×k + 1/12 θ×(θ×k) on the SE(3) block, and its derivative.
      const Vec6 th = ws.theta.head<6>();
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
    ws.D_Theta += b[i] * ws.D_k;
  }
  ws.theta = b[0] * ws.stage_k.col(0) + b[1] * ws.stage_k.col(1) + b[2] * ws.stage_k.col(2) +
             b[3] * ws.stage_k.col(3);
  retraction_jacobian(model, ws.theta, ws.D_Theta, ws.Z);
  A_d = ws.Z.leftCols(N);
  B_d = ws.Z.rightCols(nj);
  latch.restore(ws);
  return true;
}

}  // namespace

void step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                    const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                    RefMat A_d, RefMat B_d) {
  step_linearize_impl(model, ws, method, h, H, s, v, r, tau, nullptr, A_d, B_d);
}

bool contact_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                            const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                            const Contacts &contacts, RefMat A_d, RefMat B_d, RefMat dlambda_dz,
                            RefMat dlambda_dw) {
  ws.contact_failed = -1;
  if (contacts.count == 0) {  // nothing held: step_linearize, exactly
    step_linearize(model, ws, method, h, H, s, v, r, tau, A_d, B_d);
    return true;
  }
  if (!step_linearize_impl(model, ws, method, h, H, s, v, r, tau, &contacts, A_d, B_d))
    return false;
  const int m = contacts.rows(), N = model.state_dim(), nj = model.n_B;
  if (method == StepMethod::SemiImplicitEuler) {  // λ at (x, τ): contact_linearize's, (C13)
    ws.step_dlambda.topLeftCorner(m, N) = ws.step_dlambda_dz.topRows(m);
    ws.step_dlambda.topRightCorner(m, nj) = ws.step_dlambda_dw.topRows(m);
  }
  // Dλ = [∂λ/∂z, ∂λ/∂w] stays in ws.step_dlambda (the C API copies it from there).
  if (dlambda_dz.size() > 0) dlambda_dz = ws.step_dlambda.topLeftCorner(m, N);
  if (dlambda_dw.size() > 0) dlambda_dw = ws.step_dlambda.topRightCorner(m, nj);
  return true;
}

}  // namespace geolin
