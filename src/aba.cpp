// ABAmb: forward dynamics of a moving-base tree. RBDA Table 7.1 with the floating base of
// RBDA §9.3 (the base is a 6-DoF articulated body, S_0 = 1_6, solved with its 6x6 articulated
// inertia), written in frame-0 coordinates so that articulated inertias add without transforms.
#include <Eigen/Cholesky>

#include "geometry.hpp"
#include "numeric_checks.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {

void aba_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a_gravity, CRefVec r,
              CRefVec tau, RefVec nu_dot, const Vec6 &f0) {
  ws.v[0] = v0;
  ws.IA[0] = ws.I0[0];  // articulated inertias I^A_i
  // Ψ̇_i = v_λ × S_i and the momenta h_i = M_i v_i are kept for the RNEA derivatives that
  // linearize runs next at the same state.
  const Vec6 h0 = ws.I0[0] * v0;
  ws.h[0] = h0;
  ws.p[0] = cross_force(v0, h0);
  for (int i = 1; i <= model.n_B; ++i) {
    const int lam = model.parent[i];
    const Vec6 v = ws.v[lam] + ws.S0[i] * r[i - 1];
    const Vec6 psi_dot = cross_motion(ws.v[lam], ws.S0[i]);
    const Vec6 h = ws.I0[i] * v;
    ws.v[i] = v;
    ws.Psi_dot[i] = psi_dot;
    ws.c[i] = psi_dot * r[i - 1];  // velocity-product acceleration
    ws.IA[i] = ws.I0[i];
    ws.h[i] = h;
    ws.p[i] = cross_force(v, h);  // bias force
  }
  if (ws.ext_active)  // external wrenches enter the bias forces (RBDA Table 7.1: p_i − f^x_i)
    for (int i = 0; i <= model.n_B; ++i) ws.p[i] -= ws.f_ext[i];
  ws.singular = -1;
  for (int i = model.n_B; i >= 1; --i) {
    const int lam = model.parent[i];
    const Vec6 &S = ws.S0[i];
    ws.U[i].noalias() = ws.IA[i] * S;
    const double D = S.dot(ws.U[i]);
    check_joint_pivot(ws, i, D, S, ws.IA[i]);
    ws.D[i] = D;
    ws.D_inv[i] = 1.0 / D;
    ws.u[i] = net_torque(model, tau, r, i) - S.dot(ws.p[i]);
    // I^a = I^A - U D^-1 U^T,  p^a = p + I^a c + U D^-1 u   (RBDA Table 7.1)
    Mat6 Ia = ws.IA[i];
    Ia.noalias() -= ws.D_inv[i] * ws.U[i] * ws.U[i].transpose();
    ws.p[lam] += ws.p[i] + Ia * ws.c[i] + ws.U[i] * (ws.D_inv[i] * ws.u[i]);
    ws.IA[lam] += Ia;
  }
  if (model.fixed_base) {
    ws.a[0] = a_gravity;
  } else {
    // I^A_0 a_0 + p_0 = f_0 (the wrench on the base); a_0 includes the fictitious gravity.
    ws.IA0_llt.compute(ws.IA[0]);  // kept: articulated_solve reuses the factorization
    ws.IA0_inv_valid = false;
    check_base_pivots(ws);
    ws.a[0] = ws.IA0_llt.solve(f0 - ws.p[0]);
    nu_dot.head<6>() = ws.a[0] - a_gravity;
  }
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 a_pre = ws.a[model.parent[i]] + ws.c[i];
    const double r_dot = ws.D_inv[i] * (ws.u[i] - ws.U[i].dot(a_pre));
    ws.a[i] = a_pre + ws.S0[i] * r_dot;
    nu_dot[model.dof(i)] = r_dot;
  }
}

}  // namespace detail

void aba(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v, CRefVec r,
         CRefVec tau, RefVec nu_dot) {
  forward_kinematics(model, ws, s);
  ws.ext_active = false;
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau, nu_dot);
}

void aba(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v, CRefVec r,
         CRefVec tau, const ExternalWrenches &ext, RefVec nu_dot) {
  forward_kinematics(model, ws, s);
  detail::load_external_wrenches(model, ws, H, &ext);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau, nu_dot);
  ws.ext_active = false;
}

void aba_with_base_wrench(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v, CRefVec r, CRefVec tau, const Vec6 &f0, RefVec nu_dot) {
  forward_kinematics(model, ws, s);
  ws.ext_active = false;
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau, nu_dot,
                   f0);
}

}  // namespace geolin
