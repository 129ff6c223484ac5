// The dense solve of a constraint set shared by constrained_dynamics.cpp and
// constrained_impulse.cpp (docs/constraints.md §3).
#pragma once

#include "geolin/constraints.hpp"

namespace geolin::detail {

/// ws.gravity set to zero for the scope (a solve at rest, an impact), restored on every path.
class NoGravity {
 public:
  explicit NoGravity(Workspace &ws) : ws_(ws), g_(ws.gravity) { ws.gravity.setZero(); }
  ~NoGravity() { ws_.gravity = g_; }
  NoGravity(const NoGravity &) = delete;
  NoGravity &operator=(const NoGravity &) = delete;

 private:
  Workspace &ws_;
  Vec3 g_;
};

/// ws.cs_Y = M⁻¹ J_cᵀ for the first m rows of ws.cs_J, by ABA at rest (O(n) per row).
Outcome inverse_mass_columns(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                             int m);

/// (K2): the factor of J_c Y + mu 1 in ws.cs_L, ws.cs_dinv (J_c: the first m rows of ws.cs_J,
/// Y = M⁻¹ J_cᵀ in ws.cs_Y); Outcome::dependent_constraint names a dependent row.
Outcome factor_constraints(const ConstraintSet &set, Workspace &ws, int m, double mu);

/// x ← (J_c Y + mu 1)⁻¹ x (m entries) with the factor of factor_constraints.
void constraint_solve(const Workspace &ws, int m, double *x);

/// (K1)-(K3): ν̇ (ws.cs_nu2) and λ (ws.cs_lambda) of a set at (x, τ), keeping ws.cs_Y and the
/// factors; v0 is zero for a fixed base.
Outcome dense_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v0, CRefVec r, CRefVec tau, const ConstraintSet &set, double mu);

/// (K4) at fixed λ after the rows with λ (constraint_rows): ws.cs_A, ws.cs_B from linearize with
/// λ's wrenches and τ plus the couplings' forces; ws.cs_X = ∂ν̇/∂z at fixed λ, ws.cs_Bu = M⁻¹ S.
Outcome linearize_at_fixed_lambda(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                                  const Vec6 &v0, CRefVec r, CRefVec tau, const ConstraintSet &set);

/// §4: K = Λ [ws.cs_Dc + J_c ws.cs_X, J_c ws.cs_Bu] into ws.cs_K (m x (N + n_J)), then
/// ws.cs_X −= Y K_z and ws.cs_Bu −= Y K_w: the constrained derivatives, with ∂λ/∂(z, w) = −K.
void correct_by_constraints(const Model &model, Workspace &ws, int m);

}  // namespace geolin::detail
