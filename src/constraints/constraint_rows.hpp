// The rows of a constraint set (docs/constraints.md §2): what the solves of
// constrained_dynamics.cpp, constraint_factor.cpp and constrained_impulse.cpp read.
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
  bool derivatives = false;        // ws.cs_Dc too (kWorkspaceLinearize)
  const double *lambda = nullptr;  // λ (m): the wrenches of J_cᵀ λ too (with derivatives)
  // J_c as terms (ws.cs_terms) in place of ws.cs_J, and the frames' motion from the passes just
  // run (ws.v, ws.a of aba_pass, whose ν̇ nu_dot must be; or of aba_pass_at_rest, with no
  // gravity). With derivatives, each frame term's derivative rows Gv, Gx (K17) and, with λ, the
  // wrenches' turning as maps of a body's displacement (ws.cs_turns, (K18)) instead of ws.cs_Dc
  // and ws.cs_Dw.
  bool terms = false;
};

/// The rows c(x, ν, ν̇) of every constraint of the set at the point (docs/constraints.md (K5)-
/// (K12)): ws.cs_J (m x n) = ∂c/∂ν̇ (or, with at.terms, its terms ws.cs_terms: (K16)), ws.cs_c
/// (m) = c; with derivatives ws.cs_Dc (m x N) = ∂c/∂z
/// at fixed ν̇, and with λ too its generalized force J_cᵀ λ as world wrenches (K13): the
/// ws.cs_wrench_count wrenches ws.cs_wrenches (6 each, [f; τ] at the origins of the frames
/// ws.cs_wrench_frames, world axes) whose values change along z by ws.cs_Dw (6 rows each, N
/// columns) at fixed λ; a coupling's λ is a joint force, not among them. Returns
/// Outcome::wheel_normal for a wheel whose spin axis is normal to the ground at this state.
Outcome constraint_rows(const Model &model, Workspace &ws, const ConstraintSet &set,
                        const RowPoint &at);

/// The next wrench turn of ws.cs_turns (K18): wrench w's change with body's displacement, T zero;
/// the capacity error names the workspace's count.
Workspace::ConstraintTurn &next_turn(Workspace &ws, int w, int body);

/// The restitution of each row of an impact (docs/constraints.md (K14)): e on contact rows and a
/// wheel's normal row, 0 elsewhere.
double row_restitution(const ConstraintSet &set, int row, double e);

/// The couplings' joint forces of λ added to tau (n_J): (K11).
void add_coupling_forces(const ConstraintSet &set, const double *lambda, RefVec tau);

/// The constraint and its row of the set's row `row`.
void constraint_of_row(const ConstraintSet &set, int row, int &k, int &k_row);

}  // namespace geolin::detail
