// The solve of a constraint set shared by constrained_dynamics.cpp, constrained_linearize.cpp and
// constrained_impulse.cpp (docs/constraints.md §3, §4): the dynamics and its linearization along
// the rows' paths (constraint_factor.cpp, constrained_linearize.cpp), the impact map and the
// reference linearization from the rows written out (J_c, Y = M⁻¹ J_cᵀ).
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

/// x ← (Λ⁻¹ + mu 1)⁻¹ x (m entries) with the factor of constraint_factor (ws.contact_L,
/// row-major with stride solve_stride(m), and ws.contact_dinv).
void constraint_solve(const Workspace &ws, int m, double *x);

/// The innovations of one term's columns of J_cᵀ added to X (n rows of stride ldm) and, moving
/// base, I^A_0 times their base rows to W (constraint_factor.cpp, (C4), (K16)).
void term_innovations(const Model &model, const Workspace &ws,
                      const Workspace::ConstraintTerm &term, const Mat6 &base_inverse, double *X,
                      double *W, std::ptrdiff_t ldm);

/// The terms [t, block_end(t)) of ws.cs_terms share their rows (one block of J_c).
int block_end(const Workspace &ws, int t);

/// Whether one of the terms [t, e) lies in joint i's subtree (their innovations reach i).
bool block_reaches(const Model &model, const Workspace &ws, int t, int e, int i);

/// Calls fn(i) once for each joint i on the union of block [t, e)'s paths (a later term's path
/// stops where it meets an earlier one's).
template <class Fn>
void for_each_block_joint(const Model &model, const Workspace &ws, int t, int e, Fn &&fn) {
  for (int k = t; k < e; ++k)
    for (int i = ws.cs_terms[k].body; i >= 1; i = model.parent[i]) {
      if (k > t && block_reaches(model, ws, t, k, i)) break;
      fn(i);
    }
}

/// Calls fn(lo, hi) for runs of consecutive dofs [lo, hi) that cover the joints of
/// for_each_block_joint once each (a path's joints are consecutive where λ(i) = i − 1).
template <class Fn>
void for_each_block_run(const Model &model, const Workspace &ws, int t, int e, Fn &&fn) {
  int lo = -1, hi = -1;
  for_each_block_joint(model, ws, t, e, [&](int i) {
    const int d = model.dof(i);
    if (d + 1 == lo) {  // the parent's row, just above the run
      lo = d;
      return;
    }
    if (lo >= 0) fn(lo, hi);
    lo = d;
    hi = d + 1;
  });
  if (lo >= 0) fn(lo, hi);
}

/// The sparse solve (constraint_factor.cpp, (K16)), after forward_kinematics and aba_pass at the
/// point with ν̇_free in ws.cs_nu: the rows c(ν̇_free) (ws.cs_c) and J_c's terms
/// (ws.cs_terms), the innovations of J_cᵀ (ws.contact_Y, stride solve_stride(m); ws.contact_W),
/// and the factor of Λ⁻¹ + mu 1 (ws.contact_L, ws.contact_dinv), without forming J_c or M⁻¹;
/// Outcome::dependent_constraint names a dependent row.
Outcome constraint_factor(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v0, CRefVec r, const ConstraintSet &set, double mu);

/// After constraint_factor: λ = −Λ c(ν̇_free) into ws.cs_lambda and ν̇ = ν̇_free + M⁻¹ J_cᵀ λ
/// into ws.cs_nu2, by one forward pass of the innovations (ws.contact_a as scratch).
void constraint_forces(const Model &model, Workspace &ws, int m);

/// After constraint_factor: ws.cs_Y = M⁻¹ J_cᵀ, one forward pass per row of J_c from its
/// innovations (O(n) each; ws.contact_a as scratch).
void inverse_mass_columns_from_innovations(const Model &model, Workspace &ws, int m);

/// (K1)-(K3): ν̇_free (ws.cs_nu), ν̇ (ws.cs_nu2) and λ (ws.cs_lambda) of a set at (x, τ) by the
/// sparse solve, keeping the factors of M and Λ⁻¹; with inverse_mass, M⁻¹ J_cᵀ in ws.cs_Y too.
/// v0 is zero for a fixed base.
Outcome set_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                     const Vec6 &v0, CRefVec r, CRefVec tau, const ConstraintSet &set, double mu,
                     bool inverse_mass);

/// (K4) at fixed λ after the rows with λ (constraint_rows): ws.cs_A, ws.cs_B from linearize with
/// λ's wrenches and τ plus the couplings' forces; ws.cs_X = ∂ν̇/∂z at fixed λ, ws.cs_Bu = M⁻¹ S.
Outcome linearize_at_fixed_lambda(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                                  const Vec6 &v0, CRefVec r, CRefVec tau, const ConstraintSet &set);

/// §4: K = Λ [ws.cs_Dc + J_c ws.cs_X, J_c ws.cs_Bu] into constraint_K (m x (N + n_J)), then
/// ws.cs_X −= Y K_z and ws.cs_Bu −= Y K_w: the constrained derivatives, with ∂λ/∂(z, w) = −K.
void correct_by_constraints(const Model &model, Workspace &ws, int m);

using RowMatMap = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                             0, Eigen::OuterStride<>>;
/// K of correct_by_constraints: the first m rows and cols columns of ws.contact_K (row-major,
/// stride contact_cols).
RowMatMap constraint_K(Workspace &ws, int m, int cols);

}  // namespace geolin::detail
