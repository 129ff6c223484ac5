// The sparse solve of a constraint set (docs/constraints.md §3): the contact solve of
// docs/contacts.md §3 (contact_dynamics.cpp) for any row of J_c that is a sum of terms (K16),
//   J_c rows = Σ_terms G_t J_b(t)  (a frame on body b: a contact, each frame of a loop, a wheel)
//            + Σ_terms coef_t e_j(t)ᵀ  (a joint: the two columns of a coupling),
// so that a loop, a wheel or a coupling costs what a contact of the same rows does: the
// innovations of J_cᵀ along the terms' paths from aba_pass's factorization (RBDA Table 7.1's
// backward pass without velocity terms; a joint term starts as the joint force it is),
//   Λ⁻¹ = Σ_i D_i x_i x_iᵀ + a_0ᵀ I^A_0 a_0                                        (C3)
// paired along the union of each block's paths, the Cholesky factor with the test of
// docs/contacts.md §4, λ = −Λ c(ν̇_free) and ν̇ = ν̇_free + M⁻¹ J_cᵀ λ by one forward pass (C6).
// No J_c, no M⁻¹ J_cᵀ and no n x n matrix is formed (M⁻¹ J_cᵀ only when a linearization asks).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "constrained_solve.hpp"
#include "constraint_rows.hpp"
#include "contacts/contact_solve.hpp"
#include "geolin/status.hpp"
#include "geometry.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin::detail {

using Term = Workspace::ConstraintTerm;

// The innovations of one term's columns of J_cᵀ, added to X (n rows of stride ldm) and, moving
// base, I^A_0 a_0 to W: a frame term's force F = Gᵀ enters at its body; a joint term is a joint
// force coef on joint j, u_j = coef, x_j = D_j⁻¹ coef, and −U_j x_j passes to λ(j). Along the
// path to the base: x_i = D_i⁻¹ S_iᵀ F, F ← F − U_i x_i (RBDA Table 7.1 without velocity
// terms); at the base a_0 = (I^A_0)⁻¹ F (RBDA §9.3). docs/contacts.md (C4); (K16).
// (term, ws.S0, ws.U, ws.D_inv, (I^A_0)⁻¹) => (X, W += the term's part)
void term_innovations(const Model &model, const Workspace &ws, const Term &term,
                      const Mat6 &base_inverse, double *X, double *W, std::ptrdiff_t ldm) {
  Mat6 F;
  int i = term.body;
  if (term.joint) {
    const double x = ws.D_inv[i] * term.coef;
    X[model.dof(i) * ldm + term.row0] += x;
    F.col(0) = -ws.U[i] * x;
    i = model.parent[i];
  } else {
    F = term.G.transpose();  // its first term.rows columns; the whole 6x6 copies faster
  }
  for (; i >= 1; i = model.parent[i]) {
    double *x = X + model.dof(i) * ldm + term.row0;
    for (int r = 0; r < term.rows; ++r) {
      const double xr = ws.D_inv[i] * ws.S0[i].dot(F.col(r));
      x[r] += xr;
      F.col(r) -= ws.U[i] * xr;
    }
  }
  if (model.fixed_base) return;
  for (int r = 0; r < term.rows; ++r) {
    const Vec6 a = base_inverse * F.col(r);
    for (int e = 0; e < 6; ++e) {
      X[e * ldm + term.row0 + r] += a[e];
      W[e * ldm + term.row0 + r] += F(e, r);
    }
  }
}

// The terms [t, block_end(t)) share rows [row0, row0 + rows): one block of J_c (a contact, a
// point or rigid loop, a hinge's point rows or its two angle rows, a wheel, a coupling).
int block_end(const Workspace &ws, int t) {
  const int row0 = ws.cs_terms[t].row0;
  int e = t + 1;
  while (e < ws.cs_term_count && ws.cs_terms[e].row0 == row0) ++e;
  return e;
}

// Whether the innovations of block [t, e) are non-zero on joint i: one of its terms lies in i's
// subtree (its path passes through i).
bool block_reaches(const Model &model, const Workspace &ws, int t, int e, int i) {
  for (; t < e; ++t) {
    const int b = ws.cs_terms[t].body;
    if (b >= i && b < model.subtree_end[i]) return true;
  }
  return false;
}

namespace {

// The joint part of Λ⁻¹ (C3) for block [l, le) against the blocks before it and itself: along
// the union of its terms' paths (a second term's path stops where it meets the first's), each
// joint pairs the block with every block that reaches it.
// (X, ws.D, ws.cs_terms) => (L's rows of the block, lower triangle, +=)
void pair_block(const Model &model, const Workspace &ws, int l, int le, const double *X, double *L,
                std::ptrdiff_t ldm) {
  const Term &tl = ws.cs_terms[l];
  for_each_block_joint(model, ws, l, le, [&](int i) {
    const double d = ws.D[i], *x = X + model.dof(i) * ldm;
    for (int k = 0; k <= l; k = block_end(ws, k)) {
      const int ke = block_end(ws, k);
      if (!block_reaches(model, ws, k, ke, i)) continue;
      const Term &tk = ws.cs_terms[k];
      for (int r = 0; r < tl.rows; ++r) {
        const int p = tl.row0 + r, q_end = k == l ? p + 1 : tk.row0 + tk.rows;
        const double dx = d * x[p];
        for (int q = tk.row0; q < q_end; ++q) L[p * ldm + q] += dx * x[q];
      }
    }
  });
}

// The lower triangle of Λ⁻¹ (C3), (C5): the base term a_0ᵀ (I^A_0 a_0) by one product, then the
// joints block by block. (X, W, ws.D) => (L), ws.contact_G as scratch
void inverse_operational_inertia(const Model &model, Workspace &ws, int m, const double *X,
                                 const double *W, double *L, std::ptrdiff_t ldm) {
  if (!model.fixed_base) {
    double *G = ws.contact_G.data();  // a_0ᵀ, m x 6 row-major
    for (int p = 0; p < m; ++p)
      for (int e = 0; e < 6; ++e) G[p * 6 + e] = X[e * ldm + p];
    product_add(m, static_cast<int>(ldm), 6, G, 6, W, ldm, L, ldm, /*assign=*/true);
  } else {
    for (int p = 0; p < m; ++p) std::fill_n(L + p * ldm, p + 1, 0.0);
  }
  for (int l = 0; l < ws.cs_term_count; l = block_end(ws, l))
    pair_block(model, ws, l, block_end(ws, l), X, L, ldm);
}

}  // namespace

Outcome constraint_factor(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v0, CRefVec r, const ConstraintSet &set, double mu) {
  const int n = model.num_dofs(), m = set.rows();
  if (m > ws.contact_gamma.size())
    throw Error(Status::InvalidArgument,
                fmt::format("constraints: {} rows exceed the workspace's {} contact rows (at most "
                            "n = {})",
                            m, ws.contact_gamma.size(), n));
  const std::ptrdiff_t ldm = solve_stride(m);
  // The rows at ν̇_free and J_c's terms (K16).
  const RowPoint at{H, s, v0, r, ws.cs_nu, set.Kp, set.Kd, false, nullptr, true};
  if (Outcome o = constraint_rows(model, ws, set, at); !o) return o;
  // The innovations of J_cᵀ (C4): X and W are sums over the terms, zeroed first (their padding
  // columns up to ldm too: the base product reads whole rows).
  double *X = ws.contact_Y.data(), *W = ws.contact_W.data();
  std::fill_n(X, static_cast<std::ptrdiff_t>(n) * ldm, 0.0);
  std::fill_n(W, 6 * ldm, 0.0);
  const Mat6 &base_inverse = model.fixed_base ? ws.IA0_inv : articulated_base_inverse(ws);
  for (int t = 0; t < ws.cs_term_count; ++t)
    term_innovations(model, ws, ws.cs_terms[t], base_inverse, X, W, ldm);
  double *L = ws.contact_L.data();
  inverse_operational_inertia(model, ws, m, X, W, L, ldm);  // (C3), (C5)
  for (int p = 0; p < m; ++p) L[p * ldm + p] += mu;         // (C14)
  double ratio = 0.0;  // the factor of Λ⁻¹ + mu 1 (K2), with contacts.md §4's pivot test
  const int bad = cholesky_in_place(L, m, ldm, mu, ws.contact_dinv.data(), &ratio);
  if (bad < 0) return Outcome();
  if (std::isnan(ratio)) return Outcome::overflowed();
  int k, row;
  constraint_of_row(set, bad, k, row);
  return Outcome::dependent_constraint(k, row, ratio);
}

namespace {

// M⁻¹ times the column whose innovations are u(i) on joint i and a_0 on the base (C6): RBDA
// Table 7.1's third pass without velocity terms, x_i = u_i − D_i⁻¹ U_iᵀ a_λ(i), added to out.
// (ws.U, ws.D_inv, ws.S0) => (out +=), ws.contact_a as scratch
template <class Innovation, class Out>
void add_forward_pass(const Model &model, Workspace &ws, const Vec6 &a0, Innovation &&u,
                      Out &&out) {
  out.head(model.joint_offset()) += a0.head(model.joint_offset());
  ws.contact_a[0] = a0;
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 &al = ws.contact_a[model.parent[i]];
    const double xi = u(i) - ws.D_inv[i] * ws.U[i].dot(al);
    out[model.dof(i)] += xi;
    ws.contact_a[i] = al + ws.S0[i] * xi;
  }
}

}  // namespace

void constraint_forces(const Model &model, Workspace &ws, int m) {
  const std::ptrdiff_t ldm = solve_stride(m);
  const double *X = ws.contact_Y.data();
  auto lambda = ws.cs_lambda.head(m);
  lambda = -ws.cs_c.head(m);  // λ = −Λ c(ν̇_free)  (K3)
  constraint_solve(ws, m, lambda.data());
  // ν̇ = ν̇_free + M⁻¹ J_cᵀ λ: the one column J_cᵀ λ, whose innovations are X λ.
  Vec6 a0 = Vec6::Zero();
  if (!model.fixed_base)
    for (int e = 0; e < 6; ++e)
      for (int p = 0; p < m; ++p) a0[e] += X[e * ldm + p] * lambda[p];
  const auto u = [&](int i) {
    const double *x = X + model.dof(i) * ldm;
    double sum = 0.0;
    for (int p = 0; p < m; ++p) sum += x[p] * lambda[p];
    return sum;
  };
  ws.cs_nu2 = ws.cs_nu;
  add_forward_pass(model, ws, a0, u, ws.cs_nu2);
}

void inverse_mass_columns_from_innovations(const Model &model, Workspace &ws, int m) {
  const std::ptrdiff_t ldm = solve_stride(m);
  const double *X = ws.contact_Y.data();
  for (int p = 0; p < m; ++p) {  // column p: J_cᵀ e_p, whose innovations are X's column p
    Vec6 a0 = Vec6::Zero();
    if (!model.fixed_base)
      for (int e = 0; e < 6; ++e) a0[e] = X[e * ldm + p];
    auto Yp = ws.cs_Y.col(p);
    Yp.setZero();
    add_forward_pass(
        model, ws, a0, [&](int i) { return X[model.dof(i) * ldm + p]; }, Yp);
  }
}

}  // namespace geolin::detail
