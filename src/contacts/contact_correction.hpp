// The correction of linearize's solution by the contacts (docs/contacts.md §5.3, steps 4-7),
// shared by contact_linearize and impulse_linearize: both differentiate a system
//   M δy − J_cᵀ δλ = (the derivatives of an inverse dynamics at fixed λ),  J_c δy = −C_z z,
// and differ only in C_z, the constraint's own derivative along z.
#pragma once

#include "geolin/algorithms.hpp"
#include "geometry.hpp"
#include "linearize_solve.hpp"
#include "passes.hpp"

namespace geolin::detail {

// The rows of one contact's constraint derivative, [g_a, h, g_x] with 18 entries per row, stored
// by columns (G[e][r]: entry e of row r) so that joint columns are products of column blocks.
using ConstraintColumns = double[18][8];

// Joint j's two columns of the contact's kRows rows of K (§5.3, step 4; §5.2): K[r][c] +=
// g_a·w + h·Ψ̇_j + g_x·S_j and K[r][c + 1] += g_a·2Ψ̇_j + h·S_j, from G's [g_a, h, g_x] blocks
// (rows e, 6 + e, 12 + e of G hold their column e, lane r the contact's row r).
// (G, w, Ψ̇_j, S_j) => (K's columns c, c + 1 of the contact's rows)
template <int kRows>
inline void joint_columns(const ConstraintColumns &G, const Vec6 &w, const Vec6 &Pd, const Vec6 &S,
                          double *K, std::ptrdiff_t ldk, int c) {
  double ks[kRows] = {}, kr[kRows] = {};
  for (int e = 0; e < 6; ++e) {
    const double *ga = G[e], *h = G[6 + e], *gx = G[12 + e];
    for (int r = 0; r < kRows; ++r) {
      ks[r] += ga[r] * w[e] + h[r] * Pd[e] + gx[r] * S[e];
      kr[r] += ga[r] * (2.0 * Pd[e]) + h[r] * S[e];
    }
  }
  for (int r = 0; r < kRows; ++r) {
    K[r * ldk + c] += ks[r];
    K[r * ldk + c + 1] += kr[r];
  }
}

// (C14): with a regularization mu > 0 the constraint error at the solution is c = −mu λ, not 0.
// Where c is c_F turned by the frame's attitude (c = R_Fᵀ c_F: sign +1, c = R_F c_F: sign −1),
// the frame's turn ξ_F adds sign · c_b^ ξ_F to each 3-block b of c. In the g_x columns of a
// constraint derivative (ξ the body's displacement in frame 0) ξ_F is [0, Q] ξ in λ's axes
// (G_a = [[Q, Q_p], [0, Q]]).
// (f.Ga, mu, the contact's λ) => (Gx's first f.rows rows += sign c_b^ [0, Q])
inline void add_turning_of_error(const Workspace::ContactFrame &f, double mu, const double *lambda,
                                 double sign, Mat6 &Gx) {
  const Mat3 Q = f.Ga.bottomRightCorner<3, 3>();
  for (int b = 0; b < f.rows; b += 3) {
    const Vec3 c = -mu * Vec3(lambda[b], lambda[b + 1], lambda[b + 2]);
    Gx.block<3, 3>(b, 3).noalias() += sign * hat(c) * Q;
  }
}

// What steps 4-7 of §5.3 share: the solve's right-hand sides X (n x L.cols, stride ldx) and K
// (m x L.cols), the innovations Y_J of J_cᵀ (n x m, stride ldm) and the gravity block.
struct Correction {
  const Model &model;
  Workspace &ws;
  const Contacts &contacts;  // none for a constraint set (constrained_linearize.cpp)
  int m;                     // the rows of K
  const double *lambda;      // λ (m): ws.contact_lambda, or a set's ws.cs_lambda
  const LinearizeLayout &L;
  double *X, *K;
  const double *YJ;
  std::ptrdiff_t ldm, ldx;
  Mat3 Gg;  // (Rᵀ g)^, the z_H attitude block of −F_ext's base linear rows (moving base)
  Vec6 v0, a_g;
  bool moving, mixed;
};

/// §5.3, step 4, first part: K = −J_c X over all columns (contact_linearize.cpp).
void minus_jc_x(const Correction &s);

/// Its parts shared with a constraint set's: K = −(I^A_0 Y_J,0)ᵀ X_R,0 on a moving base (else
/// K = 0), before the joints' rows; and, once those are in, row p's z_H columns: −J_c X_H with
/// X_H = −(Rᵀg)^ on the base's linear rows minus the Mixed attitude columns X_E, i.e. g (the
/// row's J_c on the base's linear velocity, 3) times (Rᵀg)^, plus (J_c X)_E = −K_E.
void minus_jc_x_base(const Correction &s);
void add_pose_columns(const Correction &s, int p, const double *g);
/// The joint rows [lo, hi) (a run of consecutive dofs on the paths of rows [row0, row0 + rows)):
/// K's rows −= Σ_i D_i Y_J,iᵀ X_R,i, by products of at most 32 rows.
void minus_jc_x_of_run(const Correction &s, int lo, int hi, int row0, int rows);

/// §5.3, steps 5 and 6: K ← Λ K; X ← X + Y K, and the forward pass of the solve
/// (contact_linearize.cpp).
void apply_correction(const Correction &s, int nblk);

/// Its parts shared with a constraint set's: K ← Λ K and the base rows' X += Y_J,0 K (with the
/// Mixed z_H attitude columns), before the joints' rows; then the forward pass of the solve and
/// X_H's gravity and Mixed terms.
void correct_base(const Correction &s);
void finish_correction(const Correction &s, int nblk);
/// The joint rows [lo, hi) of rows [row0, row0 + rows)' paths: X_R,i += Y_J,i K (with the Mixed
/// z_H attitude columns).
void correct_run(const Correction &s, int lo, int hi, int row0, int rows);

/// §5.3, step 7: ∂λ/∂z = −K, ∂λ/∂w, A and B (linearize_write with v), nothing written unless
/// finite (contact_linearize.cpp).
bool write_results(const Correction &s, const Vec6 &v, RefMat A, RefMat B, RefMat dlambda_dz,
                   RefMat dlambda_dw);

/// λ (ws.contact_lambda, after contact_solve) as external wrenches at the contact frames, for
/// the inverse-dynamics derivatives at fixed λ (contact_linearize.cpp).
/// (ws.contacts, ws.contact_lambda) => (ws.contact_frames, ws.contact_wrenches, body wrenches)
BodyWrenches contact_force_wrenches(const Model &model, Workspace &ws, const Transform &H,
                                    const Contacts &contacts);

}  // namespace geolin::detail
