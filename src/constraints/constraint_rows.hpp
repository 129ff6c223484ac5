// The rows of a constraint set (docs/constraints.md §2): what the dense solve of
// constrained_dynamics.cpp and constrained_impulse.cpp reads.
#pragma once

#include "geolin/constraints.hpp"

namespace geolin::detail {

/// The state and acceleration at which a set's rows are evaluated, and what is computed.
struct RowPoint {
  const Transform &H;
  Eigen::Ref<const VecX> s;
  const Vec6 &v;  // zero for a fixed base
  Eigen::Ref<const VecX> r;
  Eigen::Ref<const VecX> nu_dot;
  double Kp = 0.0, Kd = 0.0;       // the holonomic rows' gains (0, 0: an impact's velocity rows)
  bool derivatives = false;        // ws.cs_Dc and ws.cs_dQ too (kWorkspaceLinearize)
  const double *lambda = nullptr;  // λ (m) for ws.cs_dQ
};

/// The rows c(x, ν, ν̇) of every constraint of the set at the point (docs/constraints.md (K5)-
/// (K12)): ws.cs_J (m x n) = ∂c/∂ν̇, ws.cs_c (m) = c; with derivatives ws.cs_Dc (m x N) = ∂c/∂z
/// at fixed ν̇ and ws.cs_dQ (n x N) = ∂(J_cᵀ λ)/∂z at fixed λ. Returns Outcome::wheel_normal for
/// a wheel whose spin axis is normal to the ground at this state.
Outcome constraint_rows(const Model &model, Workspace &ws, const ConstraintSet &set,
                        const RowPoint &at);

/// The restitution of each row of an impact (docs/constraints.md (K14)): e on contact rows and a
/// wheel's normal row, 0 elsewhere.
double row_restitution(const ConstraintSet &set, int row, double e);

/// The constraint and its row of the set's row `row`.
void constraint_of_row(const ConstraintSet &set, int row, int &k, int &k_row);

}  // namespace geolin::detail
