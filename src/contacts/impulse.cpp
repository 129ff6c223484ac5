// The impact map at touchdown and its exact left-trivialized Jacobian (docs/contacts.md §9;
// Featherstone, RBDA ch. 11, for impulsive dynamics; Bos et al. 2022 for the coordinates).
//
// At an impact the contacts stop within an instant: the velocity jumps, the pose does not,
//   M (ν⁺ − ν⁻) = J_cᵀ Λ,   J_c ν⁺ = −e J_c ν⁻                                   (C9)
// This is the contact problem of contact_dynamics with ν̇ replaced by the jump Δν = ν⁺ − ν⁻ and
// no bias, gravity or torque: Δν_free = 0, γ = −(1 + e) J_c ν⁻, so that
//   Λ = (J_c M⁻¹ J_cᵀ)⁻¹ γ,   Δν = M⁻¹ J_cᵀ Λ                                    (C10)
// by the same factorization (contact_factor, contact_forces) after an articulated-body pass at
// zero velocity, gravity and torque. Its derivative is the contact linearization's system with
// the inverse dynamics ID₀(q, Δν, Λ) = M(q) Δν − J_c(q)ᵀ Λ (no velocity, no gravity) and the
// constraint c(q, ν⁻, ν⁺) = J_c(q) (ν⁺ + e ν⁻), whose derivative along z is (C11).
#include <algorithm>

#include "contact_correction.hpp"
#include "contact_solve.hpp"
#include "geometry.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace detail {
namespace {

// Frame-0 twists of the bodies for the velocity x + c y (base twists x0, y0, joint rates xr[j],
// yr[j] of joint j + 1): u_0 = x0 + c y0, u_i = u_λ(i) + S_i (x_i + c y_i).
// (ws.S0, x, y) => (u[i])
void body_twists(const Model &model, const Workspace &ws, const Vec6 &x0, const double *xr,
                 const Vec6 &y0, const double *yr, double c, std::vector<Vec6> &u) {
  u[0] = x0 + c * y0;
  for (int i = 1; i <= model.n_B; ++i)
    u[i] = u[model.parent[i]] + ws.S0[i] * (xr[i - 1] + c * yr[i - 1]);
}

// (C10): the jump and the impulse at (s, ν⁻) with restitution e.
// (s, ν⁻ = (v0, r), contacts) => (ws.nu_dot = Δν, ws.contact_lambda = Λ, the factor of Λ⁻¹ and
// the innovations of J_cᵀ as contact_solve leaves them); a failed outcome as contact_solve
Outcome impulse_solve(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v0, CRefVec r, const Contacts &contacts, double e) {
  forward_kinematics(model, ws, s);
  // M's articulated factorization with ν = 0, g = 0, τ = 0: Δν_free = 0, and the velocity
  // products, Ψ̇ and momenta the linearization reads are zero, as ID₀ has none.
  if (Outcome o = aba_pass_at_rest(model, ws); !o) return o;
  ws.nu_dot.setZero();
  if (Outcome o = contact_factor(model, ws, H, contacts); !o) return o;
  body_twists(model, ws, v0, r.data(), v0, r.data(), 0.0, ws.impulse_twists);  // twists of ν⁻
  for (int k = 0; k < contacts.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    for (int q = 0; q < f.rows; ++q)  // γ = −(1 + e) J_c ν⁻, J_c = G_a J_b: (C9)
      ws.contact_gamma[f.row0 + q] = -(1.0 + e) * f.Ga.row(q).dot(ws.impulse_twists[f.body]);
  }
  contact_forces(model, ws, contacts);  // Λ and Δν = M⁻¹ J_cᵀ Λ (C10)
  return Outcome();
}

// K += C_z of the impact constraint c = J_c u, u = ν⁺ + e ν⁻ (C11): (1 + e) J_c on the velocity
// columns (through ν⁻; ν⁺'s own change is the solve's), G_a (u_j × S_j) on s_j's (the change of
// the frame's twist under u at fixed u; docs/contacts.md §5.2 with u for ν) and nothing on z_H:
// turning λ's axes multiplies c, which vanishes at the solution. In joint_columns' terms
// [g_a, h, g_x] = [g_a, (1 + e) g_a, 0] with w = u_j × S_j and Ψ̇ = 0. Regularized (C14), c does
// not vanish and Mixed axes add g_x, on z_H and on the joints, for the turn of c = R_F c_F.
// (ws.contacts' G_a, ws.S0, Δν in ws.nu_dot, ν⁻) => (K += C_z; ws.impulse_twists = twists of u)
void add_impact_derivatives(const Correction &s, const Vec6 &v0, CRefVec r, double e) {
  const Model &model = s.model;
  Workspace &ws = s.ws;
  const Vec6 dv0 = s.moving ? Vec6(ws.nu_dot.head<6>()) : Vec6::Zero();
  body_twists(model, ws, dv0, ws.nu_dot.data() + model.joint_offset(), v0, r.data(), 1.0 + e,
              ws.impulse_twists);
  const double ce = 1.0 + e;
  const Vec6 zero = Vec6::Zero();
  for (int k = 0; k < s.contacts.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    // (C14): regularized, c = −mu Λ at the solution; Mixed axes give c = R_F c_F, whose turn
    // with the frame (joints and base attitude) counts: g_x = −c^ [0, Q] (contact_correction.hpp).
    Mat6 Gx = Mat6::Zero();
    if (s.mixed && s.contacts.mu > 0.0)
      add_turning_of_error(f, s.contacts.mu, ws.contact_lambda.data() + f.row0, -1.0, Gx);
    alignas(64) ConstraintColumns G;
    for (int q = 0; q < f.rows; ++q)
      for (int c = 0; c < 6; ++c) {
        G[c][q] = f.Ga(q, c);
        G[6 + c][q] = ce * f.Ga(q, c);
        G[12 + c][q] = Gx(q, c);
      }
    double *Kk = s.K + f.row0 * s.ldx;
    if (s.moving)  // ∂c/∂z_v = (1 + e) G_a (J_b's base block is the identity); ∂c/∂z_H = g_x
      for (int q = 0; q < f.rows; ++q)
        for (int c = 0; c < 6; ++c) {
          Kk[q * s.ldx + c] += ce * f.Ga(q, c);
          Kk[q * s.ldx + s.L.c_H + c] += Gx(q, c);
        }
    for (int j = f.body; j >= 1; j = model.parent[j]) {
      const Vec6 &S = ws.S0[j];
      const Vec6 w = cross_motion(ws.impulse_twists[j], S);
      const int c0 = s.L.c_J + 3 * (j - 1);
      if (f.rows == kContactRigid)
        joint_columns<6>(G, w, zero, S, Kk, s.ldx, c0);
      else
        joint_columns<3>(G, w, zero, S, Kk, s.ldx, c0);
    }
  }
}

}  // namespace
}  // namespace detail

Outcome impulse(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                CRefVec r, const Contacts &contacts, double restitution, RefVec nu_next,
                RefVec impulse) {
  const int nj = model.n_B, m = contacts.rows();
  const bool moving = !model.fixed_base;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  if (contacts.count == 0) {  // nothing lands: ν unchanged, exactly
    if (moving) nu_next.head<6>() = v;
    nu_next.tail(nj) = r;
    return Outcome();
  }
  if (Outcome o = detail::impulse_solve(model, ws, H, s, v0, r, contacts, restitution); !o)
    return o;
  if (moving) nu_next.head<6>() = v + ws.nu_dot.head<6>();
  nu_next.tail(nj) = r + ws.nu_dot.tail(nj);
  impulse.head(m) = ws.contact_lambda.head(m);
  return Outcome();
}

// docs/contacts.md §9.2: §5.3's steps with ID₀ and the impact constraint.
// (H, s, ν⁻, contacts, e) => (A_imp, ∂Λ/∂z), or a failed outcome with nothing written
Outcome impulse_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v, CRefVec r, const Contacts &contacts, double restitution,
                          RefMat A_imp, RefMat dimpulse_dz) {
  const int nj = model.n_B, n = model.num_dofs(), m = contacts.rows();
  const bool moving = !model.fixed_base, mixed = (contacts.flags & kWrenchMixed) != 0;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  if (contacts.count == 0) {  // x⁺ = x⁻: the identity, exactly
    A_imp.setIdentity();
    return Outcome();
  }
  // 1. Δν, Λ and the factor of Λ⁻¹ (C10).
  if (Outcome o = detail::impulse_solve(model, ws, H, s, v0, r, contacts, restitution); !o)
    return o;
  // 2. The accelerations of Δν (no velocity products) and Λ as external wrenches: the state at
  // which ID₀ = M Δν − J_cᵀ Λ is differentiated at fixed Λ.
  const Vec6 a0 = moving ? Vec6(ws.nu_dot.head<6>()) : Vec6::Zero();
  ws.a[0] = a0;
  for (int i = 1; i <= nj; ++i)
    ws.a[i] = ws.a[model.parent[i]] + ws.S0[i] * ws.nu_dot[model.dof(i)];
  const detail::BodyWrenches fext = detail::contact_force_wrenches(model, ws, H, contacts);
  const detail::LinearizeLayout L =
      detail::linearize_layout(model, 0, moving && mixed, /*base_pose_cols=*/true);
  // 3. X = M⁻¹ ∂ID₀ (up to its innovations); no gravity block (Gg = 0).
  const int nblk = detail::linearize_solve(model, ws, H, Vec6::Zero(), a0, ws.impulse_rest_rates,
                                           fext, nullptr, L, detail::SolveExtent::to_innovations);
  const detail::Correction corr{model,
                                ws,
                                contacts,
                                m,
                                ws.contact_lambda.data(),
                                L,
                                ws.rhs.data(),
                                ws.contact_K.data(),
                                ws.contact_Y.data(),
                                detail::solve_stride(m),
                                L.ldx,
                                Mat3::Zero(),
                                Vec6::Zero(),
                                Vec6::Zero(),
                                moving,
                                mixed};
  // 4.-7. As contact_linearize, with the impact's C_z.
  detail::minus_jc_x(corr);
  detail::add_impact_derivatives(corr, v0, r, restitution);
  detail::apply_correction(corr, nblk);
  Eigen::Map<MatX> none(nullptr, 0, 0);
  if (!detail::write_results(corr, Vec6::Zero(), A_imp, none, dimpulse_dz, none))
    return Outcome::overflowed();
  // A_imp = [1 0; F 1]: the pose rows keep z, the velocity rows add δν⁻ to F's (C11).
  A_imp.topRows(n).setZero();
  for (int k = 0; k < n; ++k) {
    A_imp(k, k) = 1.0;
    A_imp(n + k, n + k) += 1.0;
  }
  return Outcome();
}

}  // namespace geolin
