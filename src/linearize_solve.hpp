// The right-hand sides of the linearization and how A and B are written from their solution,
// shared by linearize and contact_linearize (docs/dynamics.md §4).
#pragma once

#include "geolin/algorithms.hpp"
#include "passes.hpp"

namespace geolin::detail {

/// How far linearize_solve solves its right-hand sides.
enum class SolveExtent { to_solution, to_innovations };

/// The columns of linearize's right-hand sides (linearize.cpp): base velocity columns [0, nv),
/// per joint j the triple (∂ID/∂s_j, ∂ID/∂r_j, S_j) at c_J + 3 (j − 1), 6 per wrench from c_w,
/// the 3 Mixed attitude columns at c_E; cols in all, rows of stride ldx.
/// With base_pose_cols (moving base), 6 more columns at c_H, zero in the solve, for a caller that
/// carries the z_H columns along (contact_linearize).
struct LinearizeLayout {
  int n = 0, nj = 0, nv = 0, nf = 0;
  bool mixed = false, base_pose_cols = false;
  int c_J = 0, c_w = 0, c_E = 0, c_H = 0, cols = 0, ldx = 0;
};
LinearizeLayout linearize_layout(const Model &model, int nf, bool mixed,
                                 bool base_pose_cols = false);

/// After kinematics and aba_pass with the external wrenches fext at the state (ws.nu_dot, and the
/// velocities, accelerations a (with a0 = ν̇_base + gravity), Ψ̇ and h consistent with it):
/// fills the right-hand sides of layout L (RNEA derivatives, S, the J_Fᵀ of ext's wrenches, the
/// Mixed attitude terms) and solves them in place as far as `extent` says: X = M⁻¹ R at ws.rhs
/// (to_solution), or only up to the innovations (to_innovations: articulated_solve_backward, for
/// a caller that corrects them before the forward pass; its blocks stay in ws.rhs_blocks).
/// Returns the number of blocks.
int linearize_solve(const Model &model, Workspace &ws, const Transform &H, const Vec6 &v0,
                    const Vec6 &a0, CRefVec r, const BodyWrenches &fext,
                    const ExternalWrenches *ext, const LinearizeLayout &L, SolveExtent extent);

/// Writes A and B from the solution X (linearize_solve) and the state's v; the z_H columns of A
/// are [0; F_H] with −F_H in X's z_H columns (F_H_in_X, layout with base_pose_cols), else zero.
void linearize_write(const Model &model, const Workspace &ws, const LinearizeLayout &L,
                     const Vec6 &v, bool F_H_in_X, RefMat A, RefMat B);

}  // namespace geolin::detail
