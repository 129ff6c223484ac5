// Contact-constrained forward dynamics (docs/contacts.md): the feet of a legged robot held on
// the ground. With the contact Jacobian J_c (m x n, the rows of the frames' Jacobians, in the
// axes of λ) the dynamics and the constraint form the KKT system
//   M ν̇ − J_cᵀ λ = S τ − C ν − G,   J_c ν̇ = γ = (prescribed contact acceleration) − J̇_c ν,
// solved through the articulated-body factorization of M (RBDA ch. 7) and the operational-space
// inverse inertia Λ⁻¹ = J_c M⁻¹ J_cᵀ (RBDA §8.3; Carpentier, Budhiraja, Mansard, RSS 2021):
//   ν̇_free = ABA(τ),  Λ⁻¹ = J_c M⁻¹ J_cᵀ,  λ = Λ (γ − J_c ν̇_free),  ν̇ = ν̇_free + M⁻¹ J_cᵀ λ.
// J_c = G_a J_b: J_b = [1_6, S_j (j on the path)] maps ν to the frame-0 twist of the frame's
// body b and G_a = ^F X_0 (in λ's axes; its first 3 rows for a point) takes it to the frame. The
// frame's acceleration at ν̇_free, J_c ν̇_free + J̇_c ν, is G_a (a_b − a_g) with aba_pass's
// accelerations a_b. Λ⁻¹ comes from the backward pass of the articulated solve over the m
// columns of J_cᵀ alone (its innovations; articulated_solve_backward), and M⁻¹ J_cᵀ λ from one
// forward pass of a single column, so that neither J_c nor M⁻¹ J_cᵀ is formed. With a
// regularization contacts.mu > 0 every Λ⁻¹ below is Λ⁻¹ + mu 1 (docs/contacts.md §4, (C14)): the
// factor is of that matrix, and so are the forces and, through the same factor, every derivative.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "contact_solve.hpp"
#include "geolin/status.hpp"
#include "geometry.hpp"
#include "numeric_checks.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace detail {

// Cholesky factor L Lᵀ of the symmetric m x m matrix A (row-major, stride ld, lower triangle
// read and overwritten; dinv receives 1 / L_kk). Each pivot is compared with the diagonal entry it
// comes from: a ratio at or below kContactPivotTolerance means a row of J_c (nearly) repeats the
// others in the M⁻¹ metric. A holds Λ⁻¹ + mu 1 (C14): its pivots are then at least mu in exact
// arithmetic, and a pivot of at least mu / 2 is accepted whatever the ratio (the ridge survived
// the round-off). Returns the first refused row, or -1; *ratio is NaN when that pivot or its
// diagonal entry is not finite (the inputs overflowed: no statement about the rows).
int cholesky_in_place(double *A, int m, std::ptrdiff_t ld, double mu, double *dinv, double *ratio) {
  for (int k = 0; k < m; ++k) {
    double *rk = A + k * ld;
    const double diag = rk[k];
    double d = diag;
    for (int j = 0; j < k; ++j) d -= rk[j] * rk[j];
    if (!(d > kContactPivotTolerance * diag) && !(mu > 0.0 && d >= 0.5 * mu)) {
      if (!std::isfinite(d) || !std::isfinite(diag))
        *ratio = NAN;
      else
        *ratio = diag > 0.0 ? d / diag : 0.0;
      return k;
    }
    const double l = std::sqrt(d), il = 1.0 / l;
    rk[k] = l;
    dinv[k] = il;
    for (int i = k + 1; i < m; ++i) {
      double *ri = A + i * ld;
      double x = ri[k];
      for (int j = 0; j < k; ++j) x -= ri[j] * rk[j];
      ri[k] = x * il;
    }
  }
  return -1;
}

void cholesky_solve(const double *L, const double *dinv, int m, std::ptrdiff_t ld, double *x) {
  for (int k = 0; k < m; ++k) {  // L y = x, by rows
    double t = x[k];
    for (int j = 0; j < k; ++j) t -= L[k * ld + j] * x[j];
    x[k] = t * dinv[k];
  }
  for (int k = m - 1; k >= 0; --k) {  // Lᵀ z = y, by the rows of L (columns of Lᵀ)
    const double z = x[k] * dinv[k];
    x[k] = z;
    const double *lk = L + k * ld;
    for (int j = 0; j < k; ++j) x[j] -= lk[j] * z;
  }
}

Transform contact_reference(const Contacts &contacts, int k) {
  Transform T;
  const double *h = contacts.refs + 16 * k;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) T.R(i, j) = h[i + 4 * j];
    T.o(j) = h[12 + j];
  }
  return T;
}

namespace {

// §3, step 2 for contact k (docs/contacts.md): its frame, the rows G_a of J_c = G_a J_b (J_b
// the Jacobian of the frame's body: base and path in frame 0; G_a = ^F X_0 in λ's axes, its first
// 3 rows for a point), the frame's twist and acceleration at ν̇_free and the constraint error
// γ − J_c ν̇_free = −c(ν̇_free) (§1).
// (ws.v, ws.a of aba_pass, frame poses, c's gains and references) => (ws.contacts[k],
// ws.contact_gamma rows of k)
void contact_rows(const Model &model, Workspace &ws, const Transform &Hb, const Contacts &contacts,
                  int k, int row0, const Vec6 &a_g) {
  const bool mixed = (contacts.flags & kWrenchMixed) != 0;
  Workspace::ContactFrame &f = ws.contacts[k];
  f.frame = contacts.frames[k];
  f.body = model.frames[f.frame].body;
  f.rows = contacts.types[k];
  f.row0 = row0;
  f.H0F = frame_pose0(model, ws, f.frame);
  const Transform HF = Hb * f.H0F;
  f.R_F = HF.R;
  // G_a = ^F X_0 = [[R_0ᵀ, −R_0ᵀ p̂], [0, R_0ᵀ]] for ^0 H_F = (R_0, p); in λ's axes (Mixed:
  // turned by R_F = R_b R_0) the same with the base's attitude R_b in place of R_0ᵀ.
  const Vec3 &p = f.H0F.o;
  const Mat3 Q = mixed ? Mat3(Hb.R) : Mat3(f.H0F.R.transpose());
  f.Ga.topLeftCorner<3, 3>() = Q;
  f.Ga.topRightCorner<3, 3>().noalias() = -Q * hat(p);
  f.Ga.bottomLeftCorner<3, 3>().setZero();
  f.Ga.bottomRightCorner<3, 3>() = Q;
  f.vF = inverse_transform_motion(f.H0F, ws.v[f.body]);
  // ^F a_F = ^F X_0 (a_b − a_g) = J_F ν̇_free + J̇_F ν: aba_pass's a_b holds the base's gravity.
  f.aF = inverse_transform_motion(f.H0F, ws.a[f.body] - a_g);
  Vec6 err = Vec6::Zero();  // the constraint error c at ν̇_free, in F's axes
  if (f.rows == kContactRigid) {
    // d/dt(^F v_F) = −Kd ^F v_F − Kp log(H_ref⁻¹ H_F)
    Vec6 target = -contacts.Kd * f.vF;
    if (contacts.Kp != 0.0) {
      const Vec6 l = log_se3(contact_reference(contacts, k).inverse() * HF);
      target -= contacts.Kp * l;
      f.Jr_inv = right_jacobian_se3(l).inverse();
    }
    err = f.aF - target;
  } else {
    // p̈_F = R_F (^F a_lin + ω × v_lin) = −Kd ṗ_F − Kp (p_F − p_ref), in F's axes: the rows
    // of docs/contacts.md (C1), (C2).
    const Vec3 vl = f.vF.head<3>();
    Vec3 target = -contacts.Kd * (f.R_F * vl);
    if (contacts.Kp != 0.0) target -= contacts.Kp * (HF.o - contact_reference(contacts, k).o);
    err.head<3>() = origin_acceleration(f.vF, f.aF) - f.R_F.transpose() * target;
  }
  if (mixed)
    for (int b = 0; b < f.rows; b += 3) err.segment<3>(b) = f.R_F * err.segment<3>(b);
  ws.contact_gamma.segment(row0, f.rows) = -err.head(f.rows);
}

// §3, step 3: the innovations of the contact's columns of J_cᵀ (articulated_solve_backward's,
// here along the contact's path): the force F = G_aᵀ − P_i that reaches body i gives
// u_i = S_iᵀ F, x_i = D_i⁻¹ u_i, and F ← F − U_i x_i passes to the parent (RBDA Table 7.1's
// backward pass without velocity terms); at the base a_0 = (I^A_0)⁻¹ F_0 (RBDA §9.3). Rows off
// the path stay zero.
// (f.Ga, ws.S0, ws.U, ws.D_inv, (I^A_0)⁻¹) => (X: rows of the path and the base, W = I^A_0 a_0)
void contact_innovations(const Model &model, const Workspace &ws, const Workspace::ContactFrame &f,
                         const Mat6 &base_inverse, double *X, double *W, std::ptrdiff_t ldm) {
  Mat6 F = f.Ga.transpose();  // its first f.rows columns; docs/contacts.md (C4)
  for (int i = f.body; i >= 1; i = model.parent[i]) {
    double *x = X + model.dof(i) * ldm + f.row0;
    for (int r = 0; r < f.rows; ++r) {
      const double xr = ws.D_inv[i] * ws.S0[i].dot(F.col(r));
      x[r] = xr;
      F.col(r) -= ws.U[i] * xr;
    }
  }
  if (model.fixed_base) return;
  for (int r = 0; r < f.rows; ++r) {
    const Vec6 a = base_inverse * F.col(r);
    for (int e = 0; e < 6; ++e) {
      X[e * ldm + f.row0 + r] = a[e];
      W[e * ldm + f.row0 + r] = F(e, r);  // I^A_0 a_0
    }
  }
}

// §3, step 4: the lower triangle of Λ⁻¹ = J_c M⁻¹ J_cᵀ = Σ_i D_i x_iᵀ x_i + a_0ᵀ I^A_0 a_0 from
// the innovations (articulated_solve_backward). Row i of X is non-zero only in the columns of
// contacts held in i's subtree, so each contact pairs, along its path, with the contacts below
// the path's bodies.
// (X, W, ws.D, ws.contacts) => (L = Λ⁻¹, lower triangle, row-major, stride ldm)
void inverse_operational_inertia(const Model &model, Workspace &ws, const Contacts &contacts,
                                 const double *X, const double *W, double *L, int ldm) {
  const int m = contacts.rows();
  if (!model.fixed_base) {
    double *G = ws.contact_G.data();  // a_0ᵀ, m x 6 row-major scratch
    for (int p = 0; p < m; ++p)
      for (int e = 0; e < 6; ++e) G[p * 6 + e] = X[e * ldm + p];
    // a_0ᵀ (I^A_0 a_0): the base term of Λ⁻¹ by docs/contacts.md (C3), (C5)
    product_add(m, ldm, 6, G, 6, W, ldm, L, ldm, /*assign=*/true);
  } else {
    for (int p = 0; p < m; ++p) std::fill_n(L + p * ldm, p + 1, 0.0);
  }
  for (int l = 0; l < contacts.count; ++l) {
    const Workspace::ContactFrame &fl = ws.contacts[l];
    for (int i = fl.body; i >= 1; i = model.parent[i]) {
      const double d = ws.D[i], *x = X + model.dof(i) * ldm;
      for (int k = 0; k <= l; ++k) {
        const Workspace::ContactFrame &fk = ws.contacts[k];
        if (fk.body < i || fk.body >= model.subtree_end[i]) continue;
        for (int r = 0; r < fl.rows; ++r) {
          const int p = fl.row0 + r, q_end = k == l ? p + 1 : fk.row0 + fk.rows;
          const double dx = d * x[p];
          for (int q = fk.row0; q < q_end; ++q) L[p * ldm + q] += dx * x[q];
        }
      }
    }
  }
}

// §3, step 6: λ = Λ (γ − J_c ν̇_free) = −Λ c(ν̇_free) by two triangular solves, and
// ν̇ = ν̇_free + Y λ with Y λ = M⁻¹ (J_cᵀ λ): the forward pass of the one column Σ_p λ_p (column
// p), whose innovations are X λ (RBDA Table 7.1's third pass without velocity terms), non-zero
// only on the base and the contacts' paths.
// (L, dinv, ws.contact_gamma, X, ws.U, ws.D_inv) => (ws.contact_lambda, ws.contact_x,
// ws.contact_a, ws.nu_dot += Y λ)
void forces_and_acceleration(const Model &model, Workspace &ws, const Contacts &contacts,
                             const double *X, int ldm) {
  const int n = model.num_dofs(), m = contacts.rows();
  double *lambda = ws.contact_lambda.data();
  std::copy_n(ws.contact_gamma.data(), m, lambda);
  cholesky_solve(ws.contact_L.data(), ws.contact_dinv.data(), m, ldm, lambda);  // (C6)
  double *u = ws.contact_x.data();
  std::fill(ws.contact_x.begin(), ws.contact_x.end(), 0.0);
  for (int k = 0; k < contacts.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    for (int i = f.body; i >= 1; i = model.parent[i]) {
      const double *x = X + model.dof(i) * ldm + f.row0;
      for (int r = 0; r < f.rows; ++r) u[i] += x[r] * lambda[f.row0 + r];
    }
  }
  Vec6 a0 = Vec6::Zero();
  if (!model.fixed_base)
    for (int e = 0; e < 6; ++e)
      for (int p = 0; p < m; ++p) a0[e] += X[e * ldm + p] * lambda[p];
  ws.nu_dot.head(n - model.n_B) += a0.head(n - model.n_B);
  ws.contact_a[0] = a0;
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 &al = ws.contact_a[model.parent[i]];
    const double x = u[i] - ws.D_inv[i] * ws.U[i].dot(al);  // RBDA Table 7.1, third pass
    ws.nu_dot[model.dof(i)] += x;
    ws.contact_a[i] = al + ws.S0[i] * x;
  }
}

}  // namespace

// §3, steps 2-5 after aba_pass (step 1).
// (aba_pass's factorization and accelerations, contacts) => (ws.contacts, ws.contact_Y = X_J,
// ws.contact_W, ws.contact_L, ws.contact_dinv, ws.contact_gamma), or the dependent row (an
// overflow when Λ⁻¹ is not finite)
Outcome contact_factor(const Model &model, Workspace &ws, const Transform &H,
                       const Contacts &contacts) {
  const int n = model.num_dofs(), m = contacts.rows();
  const bool moving = !model.fixed_base;
  const Transform &Hb = moving ? H : model.H_A_0;
  // The workspace holds at most n rows (more are always dependent) and its contact capacity.
  if (contacts.count > static_cast<int>(ws.contacts.size()) || m > ws.contact_gamma.size())
    throw Error(Status::InvalidArgument,
                fmt::format("contacts: {} contacts with {} rows exceed the workspace's {} contacts "
                            "and {} rows (at most n = {})",
                            contacts.count, m, ws.contacts.size(), ws.contact_gamma.size(), n));
  const int ldm = solve_stride(m);
  double *X = ws.contact_Y.data();  // n x m, row-major, stride ldm: the innovations of J_cᵀ
  std::fill_n(X, static_cast<std::ptrdiff_t>(n) * ldm, 0.0);
  const Vec6 a_g = gravity_base_acceleration(model, ws, H);
  double *W = ws.contact_W.data();  // 6 x m: I^A_0 times the base rows of the innovations
  const Mat6 &base_inverse = moving ? articulated_base_inverse(ws) : ws.IA0_inv;
  int row0 = 0;
  for (int k = 0; k < contacts.count; ++k) {
    contact_rows(model, ws, Hb, contacts, k, row0, a_g);                      // step 2
    contact_innovations(model, ws, ws.contacts[k], base_inverse, X, W, ldm);  // step 3
    row0 += ws.contacts[k].rows;
  }
  // W's columns [0, m) are the contacts'; its padding up to the stride ldm is read by the
  // whole-row product of step 4 (and held another call's layout): zeroed, not left.
  if (moving)
    for (int e = 0; e < 6; ++e) std::fill(W + e * ldm + m, W + (e + 1) * ldm, 0.0);
  double *L = ws.contact_L.data();
  inverse_operational_inertia(model, ws, contacts, X, W, L, ldm);  // step 4
  if (contacts.mu > 0.0)  // the ridge of the regularized problem (C14)
    for (int p = 0; p < m; ++p) L[p * ldm + p] += contacts.mu;
  double ratio = 0.0;  // step 5, with §4's pivot test
  const int bad = cholesky_in_place(L, m, ldm, contacts.mu, ws.contact_dinv.data(), &ratio);
  if (bad >= 0) {
    // Overflow is not dependence: a pivot computed from Inf or NaN entries of Λ⁻¹ (frames or
    // states beyond ~1e150, a step's stage that overflowed) says nothing about the rows.
    if (std::isnan(ratio)) return Outcome::overflowed();
    int k = 0;
    while (k + 1 < contacts.count && ws.contacts[k + 1].row0 <= bad) ++k;
    return Outcome::dependent_contact(k, bad - ws.contacts[k].row0, ratio);
  }
  return Outcome();
}

void contact_forces(const Model &model, Workspace &ws, const Contacts &contacts) {
  forces_and_acceleration(model, ws, contacts, ws.contact_Y.data(),
                          solve_stride(contacts.rows()));  // step 6
}

Outcome contact_solve(const Model &model, Workspace &ws, const Transform &H,
                      const Contacts &contacts) {
  const Outcome factored = contact_factor(model, ws, H, contacts);
  if (factored) contact_forces(model, ws, contacts);
  return factored;
}

}  // namespace detail

Outcome contact_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                         const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts,
                         RefVec nu_dot, RefVec lambda) {
  forward_kinematics(model, ws, s);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  Outcome outcome = detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H),
                                     r, tau, {}, ws.nu_dot);
  if (outcome && contacts.count > 0) outcome = detail::contact_solve(model, ws, H, contacts);
  nu_dot = ws.nu_dot;
  const int m = contacts.rows();
  if (m > 0) lambda.head(m) = ws.contact_lambda.head(m);
  return outcome;
}

}  // namespace geolin
