// The dense solve of a constraint set shared by constrained_dynamics.cpp and
// constrained_impulse.cpp (docs/constraints.md §3).
#pragma once

#include "geolin/constraints.hpp"

namespace geolin::detail {

/// M (in ws.cs_M, from crba or inverse_dynamics_linearize) into its Cholesky factor, in place.
/// False when M is not numerically positive definite.
bool factor_mass_matrix(Workspace &ws);

/// X ← M⁻¹ X with the factor of factor_mass_matrix.
void mass_matrix_solve(const Workspace &ws, RefMat X);

/// (K2): ws.cs_Y = M⁻¹ J_cᵀ (J_c: the first m rows of ws.cs_J) and the factor of
/// J_c Y + mu 1 in ws.cs_L, ws.cs_dinv; Outcome::dependent_constraint names a dependent row.
Outcome factor_constraints(const ConstraintSet &set, Workspace &ws, int m, double mu);

/// x ← (J_c Y + mu 1)⁻¹ x (m entries) with the factor of factor_constraints.
void constraint_solve(const Workspace &ws, int m, double *x);

/// (K1)-(K3): ν̇ (ws.cs_nu2) and λ (ws.cs_lambda) of a set at (x, τ), keeping ws.cs_Y and the
/// factors; v0 is zero for a fixed base.
Outcome dense_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v0, CRefVec r, CRefVec tau, const ConstraintSet &set, double mu);

/// §4: K = Λ [ws.cs_Dc + J_c ws.cs_X, J_c ws.cs_Bu] into ws.cs_K (m x (N + n_J)), then
/// ws.cs_X −= Y K_z and ws.cs_Bu −= Y K_w: the constrained derivatives, with ∂λ/∂(z, w) = −K.
void correct_by_constraints(const Model &model, Workspace &ws, int m);

}  // namespace geolin::detail
