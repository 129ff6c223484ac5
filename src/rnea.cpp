// RNEAmb: inverse dynamics of a moving-base tree (RBDA Table 5.1, floating-base form of §9.3;
// Bos et al. 2022, eq. (5)): the left side of docs/dynamics.md (D3) by the recursion (D5)-(D7).
// Gravity enters as a fictitious base acceleration.
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {

void rnea_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
               CRefVec r_dot, const BodyWrenches &fext, RefVec out) {
  ws.v[0] = v0;
  ws.a[0] = a0;
  ws.f[0].noalias() = ws.I0[0] * a0;
  ws.f[0] += cross_force(v0, ws.I0[0] * v0);
  for (int i = 1; i <= model.n_B; ++i) {
    const int lam = model.parent[i];
    const Vec6 &S = ws.S0[i];
    ws.v[i] = ws.v[lam] + S * r[i - 1];  // docs/dynamics.md (D6)
    // a_i = a_λ + S_i r_dot_i + (v_λ x S_i) r_i   (frame-0 coordinates; (D6))
    ws.a[i] = ws.a[lam] + S * r_dot[i - 1] + cross_motion(ws.v[lam], S) * r[i - 1];
    // f_i = M_i a_i + v_i x* M_i v_i   (Newton-Euler, docs/dynamics.md (D1), (D7))
    ws.f[i].noalias() = ws.I0[i] * ws.a[i];
    ws.f[i] += cross_force(ws.v[i], ws.I0[i] * ws.v[i]);
  }
  for (int i = 0; i <= model.n_B; ++i) ws.F[i] = ws.f[i];
  if (fext.any())  // f_i − f^x_i (RBDA Table 5.1)
    for (int i = 0; i <= model.n_B; ++i) ws.F[i] -= fext.f[i];
  for (int i = model.n_B; i >= 1; --i) {
    // τ_i = S_iᵀ F_i (D7) + armature_i ṙ_i, the rotor's torque (docs/dynamics.md (D50))
    out[model.dof(i)] = ws.S0[i].dot(ws.F[i]) + model.armature[i - 1] * r_dot[i - 1];
    if (model.joint_damping) out[model.dof(i)] += model.damping[i] * r[i - 1];  // τ = ID + D r
    ws.F[model.parent[i]] += ws.F[i];
  }
  if (!model.fixed_base) out.head<6>() = ws.F[0];
}

namespace {

// rnea_pass without external wrenches and with each M_i in frame 0 as 10 numbers
// (body_inertia0), formed where it is used: inverse dynamics alone needs no 6x6 inertia.
// After forward_poses. (v0, a0, r, r_dot) => (ws.v, ws.a, ws.f, ws.F, out)
void rnea_compact_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
                       CRefVec r_dot, RefVec out) {
  ws.v[0] = v0;
  ws.a[0] = a0;
  for (int i = 0; i <= model.n_B; ++i) {
    if (i > 0) {
      const int lam = model.parent[i];
      const Vec6 &S = ws.S0[i];
      ws.v[i] = ws.v[lam] + S * r[i - 1];  // docs/dynamics.md (D6)
      ws.a[i] = ws.a[lam] + S * r_dot[i - 1] + cross_motion(ws.v[lam], S) * r[i - 1];
    }
    // f_i = M_i a_i + v_i x* M_i v_i   (Newton-Euler, docs/dynamics.md (D1), (D7))
    const Workspace::CompactInertia I = body_inertia0(model, ws.H0[i], i);
    ws.F[i] = inertia_times(I, ws.a[i]);
    cross_force_to<true>(ws.v[i], inertia_times(I, ws.v[i]), ws.F[i]);
    ws.f[i] = ws.F[i];
  }
  for (int i = model.n_B; i >= 1; --i) {
    // τ_i = S_iᵀ F_i (D7) + armature_i ṙ_i, the rotor's torque (docs/dynamics.md (D50))
    out[model.dof(i)] = ws.S0[i].dot(ws.F[i]) + model.armature[i - 1] * r_dot[i - 1];
    if (model.joint_damping) out[model.dof(i)] += model.damping[i] * r[i - 1];  // τ = ID + D r
    ws.F[model.parent[i]] += ws.F[i];
  }
  if (!model.fixed_base) out.head<6>() = ws.F[0];
}

}  // namespace

}  // namespace detail

void rnea(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
          CRefVec r, CRefVec nu_dot, RefVec out) {
  detail::forward_poses(model, ws, s);
  Vec6 v0, a0;
  detail::base_motion(model, ws, H, v, nu_dot, v0, a0);
  detail::rnea_compact_pass(model, ws, v0, a0, r, nu_dot.segment(model.joint_offset(), model.n_B),
                            out);
}

}  // namespace geolin
