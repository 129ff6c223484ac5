// One integration step on the Lie group G = SE(3) × R^nJ × R^6 × R^nJ (dynamics.md §4):
// semi-implicit Euler, and the Runge–Kutta–Munthe-Kaas method of order 4 (H. Munthe-Kaas,
// "Runge-Kutta methods on Lie groups", BIT 1998; A. Iserles, H. Munthe-Kaas, S. Nørsett,
// A. Zanna, "Lie-group methods", Acta Numerica 2000, §5.2).
//
// For x(t) = x₀ exp(Θ(t)) with ẋ = x λ(x), Θ̇ = dexp⁻¹_{−Θ} λ(x₀ exp Θ), and
// dexp⁻¹_{−Θ} k = k + ½ [Θ, k] + 1/12 [Θ, [Θ, k]] + O(Θ³) (the bracket is non-zero on the SE(3)
// block only, where [Θ, k] = Θ × k). RKMK4 applies classical RK4 to this ODE; two brackets
// suffice for order 4.
#include "internal.hpp"

namespace geolin {
namespace {

// x exp(u), for u = [u_H; u_s; u_v; u_r] (moving base) or [u_s; u_r] (fixed base).
void retract(const Model &model, const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec u,
             Transform &H_out, RefVec s_out, Vec6 &v_out, RefVec r_out) {
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset();
  if (!model.fixed_base) {
    H_out = H * exp_se3(u.head<6>());
    v_out = v + u.segment<6>(n);
  }
  s_out = s + u.segment(o, nj);
  r_out = r + u.segment(n + o, nj);
}

// h λ(x, τ) into out (N).
void scaled_field(const Model &model, Workspace &ws, double h, const Transform &H, CRefVec s,
                  const Vec6 &v, CRefVec r, CRefVec tau, RefVec out) {
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset();
  if (!model.fixed_base) out.head<6>() = h * v;
  out.segment(o, nj) = h * r;
  aba(model, ws, H, s, v, r, tau, ws.nu_dot);
  out.tail(n) = h * ws.nu_dot;
}

// k ← dexp⁻¹_{−Θ} k on the SE(3) block, to second order in Θ.
void dexp_inverse(const Model &model, CRefVec theta, RefVec k) {
  if (model.fixed_base) return;
  const Vec6 th = theta.head<6>();
  const Vec6 b1 = cross_motion(th, k.head<6>());
  k.head<6>() += 0.5 * b1 + cross_motion(th, b1) / 12.0;
}

}  // namespace

void step(const Model &model, Workspace &ws, StepMethod method, double h, const Transform &H,
          CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, Transform &H_next, RefVec s_next,
          Vec6 &v_next, RefVec r_next) {
  const int nj = model.n_B, n = model.num_dofs(), o = model.joint_offset();
  const bool moving = !model.fixed_base;
  if (method == StepMethod::SemiImplicitEuler) {
    aba(model, ws, H, s, v, r, tau, ws.nu_dot);
    Vec6 v_plus = v;
    if (moving) v_plus += h * ws.nu_dot.head<6>();
    r_next = r + h * ws.nu_dot.segment(o, nj);
    s_next = s + h * r_next;
    if (moving) {
      H_next = H * exp_se3(h * v_plus);
      v_next = v_plus;
    }
    return;
  }
  // RKMK4.
  Transform Hs = H;
  Vec6 vs = v;
  scaled_field(model, ws, h, H, s, v, r, tau, ws.stage_k.col(0));
  const double c[3] = {0.5, 0.5, 1.0};
  for (int stage = 1; stage < 4; ++stage) {
    ws.theta = c[stage - 1] * ws.stage_k.col(stage - 1);
    retract(model, H, s, v, r, ws.theta, Hs, ws.stage_s, vs, ws.stage_r);
    scaled_field(model, ws, h, Hs, ws.stage_s, vs, ws.stage_r, tau, ws.stage_k.col(stage));
    dexp_inverse(model, ws.theta, ws.stage_k.col(stage));
  }
  ws.theta =
      (ws.stage_k.col(0) + 2.0 * ws.stage_k.col(1) + 2.0 * ws.stage_k.col(2) + ws.stage_k.col(3)) /
      6.0;
  Transform Hn = H;
  Vec6 vn = v;
  retract(model, H, s, v, r, ws.theta, Hn, s_next, vn, r_next);
  if (moving) {
    H_next = Hn;
    v_next = vn;
  }
  (void)n;
}

}  // namespace geolin
