// Contact-constrained forward dynamics (docs/contacts.md): the feet of a legged robot held on
// the ground. With the contact Jacobian J_c (m x n, the rows of the frames' Jacobians, in the
// axes of λ) the dynamics and the constraint form the KKT system
//   M ν̇ − J_cᵀ λ = S τ − C ν − G,   J_c ν̇ = γ = (prescribed contact acceleration) − J̇_c ν,
// solved through the articulated-body factorization of M (RBDA ch. 7) and the operational-space
// inverse inertia Λ⁻¹ = J_c M⁻¹ J_cᵀ (RBDA §8.3; Carpentier, Budhiraja, Mansard, RSS 2021):
//   ν̇_free = ABA(τ),  Y = M⁻¹ J_cᵀ (articulated_solve, m columns),  Λ⁻¹ = J_c Y,
//   λ = Λ (γ − J_c ν̇_free),  ν̇ = ν̇_free + Y λ.
// The contact frame's body acceleration is ^F X_0 a_b (a_b the frame-0 acceleration of its body
// from the RNEA recursion: linearize.cpp's coordinates), so J̇_c ν is ^F X_0 Σ_path Ψ̇_j ṙ_j.
#include <fmt/format.h>

#include <cmath>

#include "geolin/status.hpp"
#include "internal.hpp"

namespace geolin {
namespace detail {
namespace {

// Cholesky factor L Lᵀ of the symmetric m x m matrix A (row-major, stride ld, lower triangle
// read and overwritten). Each pivot is compared with the diagonal entry it comes from: a ratio
// at or below kContactPivotTolerance means a row of J_c (nearly) repeats the others in the M⁻¹
// metric. Returns the first such row, or -1.
int cholesky_in_place(double *A, int m, std::ptrdiff_t ld, double *ratio) {
  for (int k = 0; k < m; ++k) {
    double *rk = A + k * ld;
    const double diag = rk[k];
    double d = diag;
    for (int j = 0; j < k; ++j) d -= rk[j] * rk[j];
    if (!(d > kContactPivotTolerance * diag)) {
      *ratio = diag > 0.0 ? d / diag : 0.0;
      return k;
    }
    const double l = std::sqrt(d);
    rk[k] = l;
    for (int i = k + 1; i < m; ++i) {
      double *ri = A + i * ld;
      double x = ri[k];
      for (int j = 0; j < k; ++j) x -= ri[j] * rk[j];
      ri[k] = x / l;
    }
  }
  return -1;
}

}  // namespace

void cholesky_solve(const double *L, int m, std::ptrdiff_t ld, double *x) {
  for (int k = 0; k < m; ++k) {  // L y = x
    double t = x[k];
    for (int j = 0; j < k; ++j) t -= L[k * ld + j] * x[j];
    x[k] = t / L[k * ld + k];
  }
  for (int k = m - 1; k >= 0; --k) {  // Lᵀ z = y
    double t = x[k];
    for (int j = k + 1; j < m; ++j) t -= L[j * ld + k] * x[j];
    x[k] = t / L[k * ld + k];
  }
}

Transform contact_reference(const Contacts &c, int k) {
  Transform T;
  const double *h = c.refs + 16 * k;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) T.R(i, j) = h[i + 4 * j];
    T.o(j) = h[12 + j];
  }
  return T;
}

bool contact_solve(const Model &model, Workspace &ws, const Transform &H, const Contacts &c) {
  const int n = model.num_dofs(), m = c.rows();
  const bool moving = !model.fixed_base, mixed = (c.flags & kWrenchMixed) != 0;
  const Transform &Hb = moving ? H : model.H_A_0;
  // The workspace holds at most n rows (more are always dependent) and its contact capacity.
  if (c.count > static_cast<int>(ws.contacts.size()) || m > ws.contact_gamma.size())
    throw Error(Status::InvalidArgument,
                fmt::format("contacts: {} contacts with {} rows exceed the workspace's {} contacts "
                            "and {} rows (at most n = {})",
                            c.count, m, ws.contacts.size(), ws.contact_gamma.size(), n));
  double *J = ws.contact_J.data();  // m x n, row-major, stride n
  std::fill_n(J, static_cast<std::ptrdiff_t>(m) * n, 0.0);
  const int ldm = solve_stride(m);
  double *X = ws.rhs.data();  // n x m, row-major, stride ldm: J_cᵀ, then Y
  std::fill_n(X, static_cast<std::ptrdiff_t>(n) * ldm, 0.0);
  ws.contact_failed = -1;

  // Frames, rows of J_c and γ, contact after contact (in the axes of λ).
  int row0 = 0;
  for (int k = 0; k < c.count; ++k) {
    Workspace::ContactFrame &f = ws.contacts[k];
    f.frame = c.frames[k];
    f.body = model.frames[f.frame].body;
    f.rows = c.types[k];
    f.row0 = row0;
    f.H0F = frame_pose0(model, ws, f.frame);
    const Transform HF = Hb * f.H0F;
    f.R_F = HF.R;
    f.X_F0 = motion_transform(f.H0F.inverse());
    f.vF = f.X_F0 * ws.v[f.body];
    Vec6 beta = Vec6::Zero();  // J̇_b ν in frame 0: Σ Ψ̇_j ṙ_j over the path (aba_pass's c_j)
    for (int i = f.body; i >= 1; i = model.parent[i]) beta += ws.c[i];
    const Vec6 a_bias = f.X_F0 * beta;
    Vec6 gamma = Vec6::Zero();
    if (f.rows == kContactRigid) {
      // d/dt(^F v_F) = −Kd ^F v_F − Kp log(H_ref⁻¹ H_F)
      Vec6 target = -c.Kd * f.vF;
      if (c.Kp != 0.0) {
        const Vec6 l = log_se3(contact_reference(c, k).inverse() * HF);
        target -= c.Kp * l;
        f.Jr_inv = right_jacobian_se3(l).inverse();
      }
      gamma = target - a_bias;
    } else {
      // p̈_F = R_F (^F a_lin + ω × v_lin) = −Kd ṗ_F − Kp (p_F − p_ref), in F's axes.
      const Vec3 vl = f.vF.head<3>(), w = f.vF.tail<3>();
      Vec3 target = -c.Kd * (f.R_F * vl);
      if (c.Kp != 0.0) target -= c.Kp * (HF.o - contact_reference(c, k).o);
      gamma.head<3>() = f.R_F.transpose() * target - a_bias.head<3>() - w.cross(vl);
    }
    // Rows: J_F = ^F X_0 [1_6 (moving base), S_j (j on the path)], the first 3 for a point, in
    // λ's axes (Mixed: turned by R_F, 3 at a time). Each goes to J_c (row-major) and to the
    // right-hand sides of Y = M⁻¹ J_cᵀ (its transpose).
    Mat6 T = f.X_F0;
    if (mixed) {
      T.topRows<3>() = f.R_F * f.X_F0.topRows<3>();
      T.bottomRows<3>() = f.R_F * f.X_F0.bottomRows<3>();
      for (int b = 0; b < f.rows; b += 3) gamma.segment<3>(b) = f.R_F * gamma.segment<3>(b);
    }
    auto put = [&](int col, const Vec6 &Jcol) {
      double *x = X + col * ldm + row0;
      for (int r = 0; r < f.rows; ++r) J[(row0 + r) * n + col] = x[r] = Jcol[r];
    };
    if (moving)
      for (int e = 0; e < 6; ++e) put(e, T.col(e));
    for (int i = f.body; i >= 1; i = model.parent[i]) put(model.dof(i), T * ws.S0[i]);
    ws.contact_gamma.segment(row0, f.rows) = gamma.head(f.rows);
    row0 += f.rows;
  }

  // Y = M⁻¹ J_cᵀ: one column per row of J_c, non-zero on the base and the contact's path.
  RhsBlock *blocks = ws.rhs_blocks.data();
  for (int k = 0; k < c.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    blocks[k] = {RhsBlock::kAtBody, f.row0, f.rows, 1, f.body};
  }
  articulated_solve(model, ws, blocks, c.count, m);
  double *Y = ws.contact_Y.data();
  std::copy_n(X, static_cast<std::ptrdiff_t>(n) * ldm, Y);

  // Λ⁻¹ = J_c Y (lower triangle), J_c's rows visiting only the base and their path.
  double *L = ws.contact_L.data();
  for (int k = 0; k < c.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    for (int p = f.row0; p < f.row0 + f.rows; ++p) {
      double *lp = L + p * ldm;
      std::fill_n(lp, p + 1, 0.0);
      auto add = [&](int lo, int hi) {
        combine_rows(0, p + 1, hi - lo, J + p * n + lo, Y + lo * ldm, ldm, lp);
      };
      if (moving) add(0, 6);
      for_each_path_run(model, f.body, add);
    }
  }
  double ratio = 0.0;
  const int bad = cholesky_in_place(L, m, ldm, &ratio);
  if (bad >= 0) {
    int k = 0;
    while (k + 1 < c.count && ws.contacts[k + 1].row0 <= bad) ++k;
    ws.contact_failed = k;
    ws.contact_failed_row = bad - ws.contacts[k].row0;
    ws.contact_failed_ratio = ratio;
    return false;
  }

  // λ = Λ (γ − J_c ν̇_free), ν̇ = ν̇_free + Y λ.
  double *lambda = ws.contact_lambda.data();
  for (int k = 0; k < c.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    for (int p = f.row0; p < f.row0 + f.rows; ++p) {
      double t = ws.contact_gamma[p];
      if (moving)
        for (int e = 0; e < 6; ++e) t -= J[p * n + e] * ws.nu_dot[e];
      for (int i = f.body; i >= 1; i = model.parent[i])
        t -= J[p * n + model.dof(i)] * ws.nu_dot[model.dof(i)];
      lambda[p] = t;
    }
  }
  cholesky_solve(L, m, ldm, lambda);
  for (int i = 0; i < n; ++i) {
    double t = 0.0;
    for (int p = 0; p < m; ++p) t += Y[i * ldm + p] * lambda[p];
    ws.nu_dot[i] += t;
  }
  return true;
}

}  // namespace detail

bool contact_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts,
                      RefVec nu_dot, RefVec lambda) {
  forward_kinematics(model, ws, s);
  ws.ext_active = false;
  ws.contact_failed = -1;
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  detail::aba_pass(model, ws, v0, detail::gravity_base_acceleration(model, ws, H), r, tau,
                   ws.nu_dot);
  bool ok = ws.singular < 0;
  if (ok && contacts.count > 0) ok = detail::contact_solve(model, ws, H, contacts);
  nu_dot = ws.nu_dot;
  const int m = contacts.rows();
  if (m > 0) lambda.head(m) = ws.contact_lambda.head(m);
  return ok;
}

}  // namespace geolin
