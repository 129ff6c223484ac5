// ABAmb: forward dynamics of a moving-base tree. RBDA Table 7.1 with the floating base of
// RBDA §9.3 (the base is a 6-DoF articulated body, S_0 = 1_6, solved with its 6x6 articulated
// inertia), written in frame-0 coordinates so that articulated inertias add without transforms.
#include <Eigen/Cholesky>

#include "geometry.hpp"
#include "numeric_checks.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {

namespace {

// First pass (RBDA Table 7.1, in frame 0): velocities v_i, velocity-product accelerations
// c_i = (v_λ × S_i) r_i, momenta h_i = M_i v_i and bias forces p_i = v_i ×* h_i − f^x_i.
// (v0, r, fext) => (ws.v, ws.Psi_dot, ws.c, ws.h, ws.p; ws.IA = M_i). Ψ̇_i = v_λ × S_i and h_i are
// kept for the RNEA derivatives that linearize runs next at the same state.
void aba_velocities(const Model &model, Workspace &ws, const Vec6 &v0, CRefVec r,
                    const BodyWrenches &fext) {
  ws.v[0] = v0;
  ws.IA[0] = ws.I0[0];
  ws.h[0] = ws.I0[0] * v0;
  ws.p[0] = cross_force(v0, ws.h[0]);
  for (int i = 1; i <= model.n_B; ++i) {
    const int lam = model.parent[i];
    const Vec6 v = ws.v[lam] + ws.S0[i] * r[i - 1];
    const Vec6 psi_dot = cross_motion(ws.v[lam], ws.S0[i]);
    const Vec6 h = ws.I0[i] * v;
    ws.v[i] = v;
    ws.Psi_dot[i] = psi_dot;
    ws.c[i] = psi_dot * r[i - 1];  // velocity-product acceleration c_i  (docs/dynamics.md (D9))
    ws.IA[i] = ws.I0[i];
    ws.h[i] = h;
    ws.p[i] = cross_force(v, h);  // bias force p_i  (D9)
  }
  if (fext.any())  // external wrenches enter the bias forces (RBDA Table 7.1: p_i − f^x_i)
    for (int i = 0; i <= model.n_B; ++i) ws.p[i] -= fext.f[i];
}

// Second pass, tip to base: articulated inertias and bias forces (RBDA Table 7.1).
// (ws.IA, ws.p, ws.c, tau) => (ws.U, ws.D, ws.D_inv, ws.u; ws.IA, ws.p summed into the parents;
// the first failed joint pivot in outcome).
void aba_articulated_bodies(const Model &model, Workspace &ws, CRefVec r, CRefVec tau,
                            Outcome &outcome) {
  for (int i = model.n_B; i >= 1; --i) {
    const int lam = model.parent[i];
    const Mat6 Ia = articulated_inertia_step(model, ws, i, outcome);
    ws.u[i] = net_torque(model, tau, r, i) - ws.S0[i].dot(ws.p[i]);  // u_i = τ_i − S_iᵀ p_i (D10)
    // p^a_i = p_i + I^a_i c_i + U_i D_i⁻¹ u_i   (docs/dynamics.md (D11); RBDA Table 7.1)
    ws.p[lam] += ws.p[i] + Ia * ws.c[i] + ws.U[i] * (ws.D_inv[i] * ws.u[i]);
    ws.IA[lam] += Ia;
  }
}

// Third pass, base to tip: the base acceleration from I^A_0 a_0 + p_0 = f_0 (RBDA §9.3; a_0
// includes the fictitious gravity), then r̈_i = D_i⁻¹ (u_i − U_iᵀ (a_λ + c_i)) and
// a_i = a_λ + c_i + S_i r̈_i (RBDA Table 7.1). (factorization, f0) => (ws.IA0_llt, ws.a, nu_dot;
// a failed base pivot in outcome).
void aba_accelerations(const Model &model, Workspace &ws, const Vec6 &a_gravity, const Vec6 &f0,
                       RefVec nu_dot, Outcome &outcome) {
  if (model.fixed_base) {
    ws.a[0] = a_gravity;
  } else {
    ws.IA0_llt.compute(ws.IA[0]);  // kept: articulated_solve reuses the factorization
    ws.IA0_inv_valid = false;
    check_base_pivots(outcome, ws);
    ws.a[0] = ws.IA0_llt.solve(f0 - ws.p[0]);  // I^A_0 a_0 = f_0 − p_0  (docs/dynamics.md (D12))
    nu_dot.head<6>() = ws.a[0] - a_gravity;
  }
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 a_pre = ws.a[model.parent[i]] + ws.c[i];
    const double r_dot = ws.D_inv[i] * (ws.u[i] - ws.U[i].dot(a_pre));  // (D13)
    ws.a[i] = a_pre + ws.S0[i] * r_dot;
    nu_dot[model.dof(i)] = r_dot;
  }
}

}  // namespace

Outcome aba_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a_gravity,
                 CRefVec r, CRefVec tau, const BodyWrenches &fext, RefVec nu_dot, const Vec6 &f0) {
  Outcome outcome;
  aba_velocities(model, ws, v0, r, fext);
  aba_articulated_bodies(model, ws, r, tau, outcome);
  aba_accelerations(model, ws, a_gravity, f0, nu_dot, outcome);
  return outcome;
}

Outcome aba_pass_at_rest(const Model &model, Workspace &ws) {
  // aba_velocities at ν = 0 with no wrench: every twist, c_i, Ψ̇_i, h_i and p_i vanish.
  ws.v[0].setZero(), ws.h[0].setZero(), ws.p[0].setZero();
  ws.IA[0] = ws.I0[0];
  for (int i = 1; i <= model.n_B; ++i) {
    ws.v[i].setZero(), ws.Psi_dot[i].setZero(), ws.c[i].setZero();
    ws.h[i].setZero(), ws.p[i].setZero();
    ws.IA[i] = ws.I0[i];
  }
  // aba_articulated_bodies with u_i = 0 (τ = 0, r = 0): the p's stay zero (D10), (D11).
  Outcome outcome;
  for (int i = model.n_B; i >= 1; --i) {
    ws.u[i] = 0.0;
    ws.IA[model.parent[i]] += articulated_inertia_step(model, ws, i, outcome);
  }
  // aba_accelerations with f_0 = 0 and no gravity: a_0 = 0 (D12), every r̈_i = 0 (D13).
  if (!model.fixed_base) {
    ws.IA0_llt.compute(ws.IA[0]);
    ws.IA0_inv_valid = false;
    check_base_pivots(outcome, ws);
  }
  for (int i = 0; i <= model.n_B; ++i) ws.a[i].setZero();
  return outcome;
}

}  // namespace detail

Outcome aba(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
            CRefVec r, CRefVec tau, RefVec nu_dot) {
  forward_kinematics(model, ws, s);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  return detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau,
                          {}, nu_dot);
}

Outcome aba(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
            CRefVec r, CRefVec tau, const ExternalWrenches &ext, RefVec nu_dot) {
  forward_kinematics(model, ws, s);
  const detail::BodyWrenches fext = detail::load_external_wrenches(model, ws, H, &ext);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  return detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau,
                          fext, nu_dot);
}

Outcome aba_with_base_wrench(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                             const Vec6 &v, CRefVec r, CRefVec tau, const Vec6 &f0, RefVec nu_dot) {
  forward_kinematics(model, ws, s);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  return detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau,
                          {}, nu_dot, f0);
}

}  // namespace geolin
