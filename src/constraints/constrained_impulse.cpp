// The impact map of a constraint set and its exact Jacobian (docs/constraints.md §5; RBDA
// ch. 11). A contacts-only set is impulse()'s. Otherwise, with J_c the set's velocity rows
// (its acceleration rows' ∂c/∂ν̇) and E = diag(e on contact rows and a wheel's normal row, 0 on
// the rest):
//   M Δν = J_cᵀ Λ,   J_c ν⁺ + E J_c ν⁻ = −mu Λ,   ν⁺ = ν⁻ + Δν                     (K14)
// and, differentiated at fixed Λ with ID₀(q, Δν, Λ) = M(q) Δν − J_c(q)ᵀ Λ:
//   M δΔν = (∂(J_cᵀ Λ)/∂q − ∂(M Δν)/∂q) z + J_cᵀ δΛ,
//   J_c δΔν + [∂(J_c ν⁺)/∂q + E ∂(J_c ν⁻)/∂q, (1 + E) J_c] z = −mu δΛ             (K15)
// the system of constrained_linearize with these right-hand sides. J_c(q) u and its derivative at
// fixed u are the rows at rest (ν = 0) with ν̇ = u and no gains.
#include "constrained_solve.hpp"
#include "constraint_rows.hpp"
#include "passes.hpp"

namespace geolin {
namespace {

// (K14): ν⁻ into ws.cs_nu, J_c (written out, for J_c ν⁻ and the derivatives), the factor of
// Λ⁻¹ along the rows' paths from M's factorization at rest (constraint_factor, as impulse.cpp's
// contact_factor) and Y = M⁻¹ J_cᵀ from its innovations, Λ into ws.cs_lambda, Δν into
// ws.cs_nu2.
Outcome impulse_solve(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v0, CRefVec r, const ConstraintSet &set, double mu, double e) {
  const int m = set.rows(), nv = model.joint_offset();
  ws.cs_nu.head(nv) = v0.head(nv);
  ws.cs_nu.tail(model.n_B) = r;
  ws.cs_nu2.setZero();
  const Vec6 zero = Vec6::Zero();
  const detail::RowPoint at{H, s, zero, ws.impulse_rest_rates, ws.cs_nu2, 0.0, 0.0, false, nullptr};
  if (Outcome o = detail::constraint_rows(model, ws, set, at); !o) return o;
  {  // at rest: no velocity, no gravity, no torque (the terms of J_c depend on the pose alone)
    const detail::NoGravity no_gravity(ws);
    forward_kinematics(model, ws, s);
    if (Outcome o = detail::aba_pass_at_rest(model, ws); !o) return o;
    if (Outcome o =
            detail::constraint_factor(model, ws, H, s, zero, ws.impulse_rest_rates, set, mu);
        !o)
      return o;
  }
  detail::inverse_mass_columns_from_innovations(model, ws, m);
  auto lambda = ws.cs_lambda.head(m);
  lambda.noalias() = ws.cs_J.topRows(m) * ws.cs_nu;  // J_c ν⁻
  for (int p = 0; p < m; ++p) lambda[p] *= -(1.0 + detail::row_restitution(set, p, e));
  detail::constraint_solve(ws, m, lambda.data());
  ws.cs_nu2.noalias() = ws.cs_Y.leftCols(m) * lambda;
  return Outcome();
}

// (K15)'s ∂c/∂z into ws.cs_Dc and Λ as wrenches (constraint_rows); ν⁺ in ws.cs_tau.
// (ν⁻, Δν, Λ of impulse_solve) => (ws.cs_Dc, ws.cs_wrench_*, ws.cs_Dw)
Outcome impact_constraint_derivatives(const Model &model, Workspace &ws, const Transform &H,
                                      CRefVec s, const ConstraintSet &set, double e) {
  const int m = set.rows(), n = model.num_dofs(), N = model.state_dim();
  const Vec6 zero = Vec6::Zero();
  // E ∂(J_c ν⁻)/∂q, kept in ws.cs_K while the rows are evaluated at ν⁺.
  const detail::RowPoint minus{H,   s,    zero,   ws.impulse_rest_rates, ws.cs_nu, 0.0,
                               0.0, true, nullptr};
  if (Outcome o = detail::constraint_rows(model, ws, set, minus); !o) return o;
  for (int p = 0; p < m; ++p)
    ws.cs_K.row(p).head(n) = detail::row_restitution(set, p, e) * ws.cs_Dc.row(p).head(n);
  ws.cs_tau = ws.cs_nu + ws.cs_nu2;
  const detail::RowPoint plus{H,   s,   zero, ws.impulse_rest_rates, ws.cs_tau,
                              0.0, 0.0, true, ws.cs_lambda.data()};
  if (Outcome o = detail::constraint_rows(model, ws, set, plus); !o) return o;
  for (int p = 0; p < m; ++p) {
    const double ce = 1.0 + detail::row_restitution(set, p, e);
    ws.cs_Dc.row(p).head(n) += ws.cs_K.row(p).head(n);
    ws.cs_Dc.row(p).segment(n, N - n) = ce * ws.cs_J.row(p).head(n);
  }
  return Outcome();
}

}  // namespace

Outcome constrained_impulse(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, const ConstraintSet &set, double mu,
                            double restitution, RefVec nu_next, RefVec impulse_out) {
  if (set.contacts_only())
    return impulse(model, ws, H, s, v, r, set.contacts(mu), restitution, nu_next, impulse_out);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  if (Outcome o = impulse_solve(model, ws, H, s, v0, r, set, mu, restitution); !o) return o;
  const int m = set.rows();
  nu_next = ws.cs_nu + ws.cs_nu2;
  impulse_out.head(m) = ws.cs_lambda.head(m);
  return Outcome();
}

// (K15) by the steps of constrained_linearize: X = M⁻¹ R, K = Λ (C_z + J_c X), δΛ = −K,
// δΔν = X − Y K; A_imp = [1 0; ∂Δν/∂z_pose, 1 + ∂Δν/∂z_vel].
Outcome constrained_impulse_linearize(const Model &model, Workspace &ws, const Transform &H,
                                      CRefVec s, const Vec6 &v, CRefVec r, const ConstraintSet &set,
                                      double mu, double restitution, RefMat A_imp,
                                      RefMat dimpulse_dz) {
  if (set.contacts_only())
    return impulse_linearize(model, ws, H, s, v, r, set.contacts(mu), restitution, A_imp,
                             dimpulse_dz);
  const int m = set.rows(), n = model.num_dofs(), N = model.state_dim();
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  if (Outcome o = impulse_solve(model, ws, H, s, v0, r, set, mu, restitution); !o) return o;
  if (Outcome o = impact_constraint_derivatives(model, ws, H, s, set, restitution); !o) return o;
  {  // ∂Δν/∂q at fixed Λ: forward dynamics at rest without gravity, Λ as wrenches (K15)
    const detail::NoGravity no_gravity(ws);
    const Vec6 zero = Vec6::Zero();
    const VecX &no_torque = ws.impulse_rest_rates;  // n_J zeros
    if (Outcome o = detail::linearize_at_fixed_lambda(model, ws, H, s, zero, ws.impulse_rest_rates,
                                                      no_torque, set);
        !o)
      return o;
  }
  ws.cs_X.rightCols(N - n).setZero();  // ν⁻ enters through C_z only
  if (model.n_B > 0) ws.cs_Bu.setZero();
  detail::correct_by_constraints(model, ws, m);
  const auto K = detail::constraint_K(ws, m, N);
  if (!ws.cs_X.allFinite() || !K.allFinite()) return Outcome::overflowed();
  if (dimpulse_dz.size() > 0) dimpulse_dz = -K;
  A_imp.setIdentity();
  A_imp.bottomRows(n) += ws.cs_X;
  return Outcome();
}

}  // namespace geolin
