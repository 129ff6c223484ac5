// The exact left-trivialized linearization of the contact-constrained dynamics
// (docs/contacts.md; Bos et al. 2022 for the coordinates, Carpentier & Mansard RSS 2018 and
// Carpentier et al. RSS 2021 for the derivatives of constrained dynamics).
//
// At the solution (ν̇, λ) of contact_dynamics, ν̇ = FD_ext(x, τ, λ): the unconstrained dynamics
// with λ applied as external wrenches at the contact frames. Perturbing the state by z and the
// torques by w (F_ext: linearize_ext's F at fixed λ; Y = M⁻¹ J_cᵀ),
//   δν̇ = F_ext z + M⁻¹ S w + Y δλ,
//   J_c δν̇ = −∂c/∂z z          (the constraint c(x, ν̇) = 0 stays satisfied),
// where c is the contact acceleration error at fixed ν̇. Hence, with Λ = (J_c Y)⁻¹,
//   ∂λ/∂z = −Λ (∂c/∂z + J_c F_ext),   ∂λ/∂w = −Λ J_c M⁻¹ S,
//   F = F_ext + Y ∂λ/∂z,              B = [0; M⁻¹ S + Y ∂λ/∂w].
// ∂c/∂z comes from the derivatives of the frame's body twist and acceleration (frame-0
// coordinates, j on the path of the frame's body b, a_j the accelerations without gravity):
//   ∂(^F v_F)/∂s_j = ^F X_0 Ψ̇_j,                 ∂(^F v_F)/∂ν = J_F,
//   ∂(^F a_F)/∂s_j = ^F X_0 (a_j × S_j + Ψ̇_j × (v_b − v_j)),
//   ∂(^F a_F)/∂ṙ_j = ^F X_0 (Ψ̇_j + S_j × (v_b − v_j)),  ∂(^F a_F)/∂v = ^F X_0 ((v_0 − v_b) ×),
// and the frame's own displacement ξ = J_F [z_H; z_s] (its position and attitude, for Kp and for
// the world directions of a point's acceleration). Everything runs on linearize's right-hand
// sides: X = M⁻¹ R is corrected in place, X += Y K with K = Λ (∂c/∂z − J_c X) in X's columns
// (X holds −F), before A and B are written.
#include "internal.hpp"

namespace geolin {
namespace detail {
namespace {

// The derivative of contact f's constraint error c (its rows, in λ's axes) along a direction
// that changes the frame's body acceleration by da, its body twist by dv and displaces the frame
// by xi (all in F's axes).
Vec6 constraint_derivative(const Workspace::ContactFrame &f, const Contacts &c, bool mixed,
                           const Vec6 &da, const Vec6 &dv, const Vec6 &xi) {
  Vec6 d = Vec6::Zero();
  if (f.rows == kContactRigid) {
    // c = ^F a_F + Kd ^F v_F + Kp log(H_ref⁻¹ H_F)
    d = da + c.Kd * dv;
    if (c.Kp != 0.0) d.noalias() += c.Kp * (f.Jr_inv * xi);
  } else {
    // c = R_Fᵀ (p̈_F + Kd ṗ_F + Kp (p_F − p_ref)), differentiated where it vanishes:
    // da_lin − v_lin^ δω + ω^ δv_lin + Kd δv_lin − (c_F + Kd v_lin)^ ξ_ang + Kp ξ_lin, with
    // c_F = a_lin + ω × v_lin the frame origin's acceleration in F's axes.
    const Vec3 vl = f.vF.head<3>(), w = f.vF.tail<3>();
    const Vec3 cF = f.aF.head<3>() + w.cross(vl);
    d.head<3>() = da.head<3>() - vl.cross(dv.tail<3>()) + w.cross(dv.head<3>()) +
                  c.Kd * dv.head<3>() - (cF + c.Kd * vl).cross(xi.tail<3>()) + c.Kp * xi.head<3>();
  }
  if (mixed)
    for (int b = 0; b < f.rows; b += 3) d.segment<3>(b) = f.R_F * d.segment<3>(b);
  return d;
}

}  // namespace
}  // namespace detail

bool contact_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts, RefMat A,
                       RefMat B, RefMat dlambda_dz, RefMat dlambda_dw) {
  using detail::combine_rows;
  using detail::combine_rows_scaled;
  const int nj = model.n_B, n = model.num_dofs(), m = contacts.rows();
  const bool moving = !model.fixed_base, mixed = (contacts.flags & kWrenchMixed) != 0;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  ws.contact_failed = -1;
  if (contacts.count == 0)  // nothing held: the unconstrained linearization, exactly
    return linearize_if_finite(model, ws, H, s, v, r, tau, A, B);
  const Vec6 a_g = detail::gravity_base_acceleration(model, ws, H);

  // 1. The constrained dynamics: ν̇ and λ (Y, the factor of Λ⁻¹, J_c are kept).
  forward_kinematics(model, ws, s);
  ws.ext_active = false;
  detail::aba_pass(model, ws, v0, a_g, r, tau, ws.nu_dot);
  if (ws.singular >= 0 || !detail::contact_solve(model, ws, H, contacts)) return false;

  // 2. Accelerations at the constrained ν̇ (with the fictitious gravity, as RNEA's), and λ as
  // external wrenches for the RNEA derivatives at fixed λ (Local ones shift the body forces,
  // Mixed ones also keep their world directions).
  Vec6 a0 = a_g;
  if (moving) a0 += ws.nu_dot.head<6>();
  ws.a[0] = a0;
  for (int i = 1; i <= nj; ++i)
    ws.a[i] = ws.a[model.parent[i]] + ws.c[i] + ws.S0[i] * ws.nu_dot[model.dof(i)];
  for (int k = 0; k < contacts.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    ws.contact_frames[k] = f.frame;
    auto w = ws.contact_wrenches.segment<6>(6 * k);
    w.setZero();
    w.head(f.rows) = ws.contact_lambda.segment(f.row0, f.rows);
  }
  const ExternalWrenches ext{contacts.count, ws.contact_frames.data(), ws.contact_wrenches.data(),
                             contacts.flags};
  detail::load_external_wrenches(model, ws, H, &ext);
  const detail::LinearizeLayout L =
      detail::linearize_layout(model, 0, moving && mixed, /*base_pose_cols=*/true);

  // 3. The unconstrained derivatives at fixed λ: X = M⁻¹ R (X holds −F_ext, and M⁻¹ S). The z_H
  // columns are carried along as 6 more columns of X holding −F_H: the gravity block and the
  // Mixed wrenches' attitude term.
  detail::linearize_solve(model, ws, H, v0, a0, r, nullptr, L);
  ws.ext_active = false;
  double *X = ws.rhs.data();
  const std::ptrdiff_t ldx = L.ldx, ldm = detail::solve_stride(m);
  const int cols = L.cols;
  if (moving) {
    const Mat3 G = hat(H.R.transpose() * ws.gravity);
    for (int i = 0; i < n; ++i) {
      double *x = X + i * ldx + L.c_H;
      for (int e = 0; e < 3; ++e) x[e] = 0.0;
      for (int e = 0; e < 3; ++e)
        x[3 + e] = (i < 3 ? -G(i, e) : 0.0) - (L.mixed ? X[i * ldx + L.c_E + e] : 0.0);
    }
  }

  // 4. K = ∂c/∂z − J_c X in X's columns (the S columns: −J_c X only).
  const double *J = ws.contact_J.data();
  const double *Y = ws.contact_Y.data();
  const double *Lf = ws.contact_L.data();
  double *K = ws.contact_K.data();
  double *coef = ws.contact_coef.data();  // n scratch coefficients
  for (int k = 0; k < contacts.count; ++k) {
    Workspace::ContactFrame &f = ws.contacts[k];
    const int b = f.body;
    f.aF = f.X_F0 * (ws.a[b] - a_g);
    for (int p = f.row0; p < f.row0 + f.rows; ++p) std::fill_n(K + p * ldx, ldx, 0.0);
    // −J_p X over the non-zero columns of J_c's rows: the base, then the path to b in runs of
    // consecutive degrees of freedom (a limb is numbered consecutively), one call per run.
    auto run = [&](int lo, int hi) {
      for (int p = f.row0; p < f.row0 + f.rows; ++p) {
        const double *jp = J + p * n;
        for (int d = lo; d < hi; ++d) coef[d - lo] = -jp[d];
        combine_rows(0, cols, hi - lo, coef, X + lo * ldx, ldx, K + p * ldx);
      }
    };
    if (moving) run(0, 6);
    detail::for_each_path_run(model, b, run);
    auto add = [&](int col, const Vec6 &d) {
      for (int r = 0; r < f.rows; ++r) K[(f.row0 + r) * ldx + col] += d[r];
    };
    const Vec6 zero = Vec6::Zero();
    if (moving) {
      const Vec6 rel = v0 - ws.v[b];
      for (int e = 0; e < 6; ++e) {
        const Vec6 xi = f.X_F0.col(e);
        add(L.c_H + e, detail::constraint_derivative(f, contacts, mixed, zero, zero, xi));
        Vec6 unit = Vec6::Zero();
        unit[e] = 1.0;
        add(e, detail::constraint_derivative(f, contacts, mixed, f.X_F0 * cross_motion(rel, unit),
                                             xi, zero));
      }
    }
    for (int j = b; j >= 1; j = model.parent[j]) {
      const Vec6 &S = ws.S0[j], &Pd = ws.Psi_dot[j];
      const Vec6 dvb = ws.v[b] - ws.v[j];
      const Vec6 FS = f.X_F0 * S;
      const Vec6 da_s =
          f.X_F0 * (cross_motion(ws.a[j] - a_g, S) + cross_motion(Pd, dvb));  // ∂a/∂s_j
      const Vec6 da_r = f.X_F0 * (Pd + cross_motion(S, dvb));                 // ∂a/∂ṙ_j
      const int c0 = L.c_J + 3 * (j - 1);
      add(c0, detail::constraint_derivative(f, contacts, mixed, da_s, f.X_F0 * Pd, FS));
      add(c0 + 1, detail::constraint_derivative(f, contacts, mixed, da_r, FS, zero));
    }
  }

  // 5. K ← Λ K: forward then backward substitution with the Cholesky factor, row by row.
  for (int p = 0; p < m; ++p) {
    for (int q = 0; q < p; ++q) coef[q] = -Lf[p * ldm + q];
    combine_rows_scaled(0, cols, p, coef, K, ldx, K + p * ldx, 1.0 / Lf[p * ldm + p]);
  }
  for (int p = m - 1; p >= 0; --p) {
    for (int q = p + 1; q < m; ++q) coef[q - p - 1] = -Lf[q * ldm + p];
    combine_rows_scaled(0, cols, m - 1 - p, coef, K + (p + 1) * ldx, ldx, K + p * ldx,
                        1.0 / Lf[p * ldm + p]);
  }

  // 6. X += Y K: the constrained −F (z_H columns included) and M⁻¹ S.
  for (int i = 0; i < n; ++i) combine_rows(0, cols, m, Y + i * ldm, K, ldx, X + i * ldx);

  // 7. Nothing is written unless everything is finite.
  if (!detail::all_finite(X, n * ldx) || !detail::all_finite(K, m * ldx) ||
      !ws.contact_lambda.head(m).allFinite())
    return false;
  double *FH = ws.contact_FH.data();  // n x 6, column-major
  if (moving)
    for (int e = 0; e < 6; ++e)
      for (int i = 0; i < n; ++i) FH[e * n + i] = -X[i * ldx + L.c_H + e];
  detail::linearize_write(model, ws, L, v, moving ? FH : nullptr, n, A, B);
  if (dlambda_dz.size() > 0) {
    // ∂λ/∂z = −K in X's columns (X held −F); ∂λ/∂w is K on the S columns.
    const int s_col = moving ? 6 : 0, r_col = n + L.nv;
    for (int p = 0; p < m; ++p) {
      const double *kp = K + p * ldx;
      if (moving)
        for (int e = 0; e < 6; ++e) dlambda_dz(p, e) = -kp[L.c_H + e];
      for (int e = 0; e < L.nv; ++e) dlambda_dz(p, n + e) = -kp[e];
      for (int j = 0; j < nj; ++j) {
        dlambda_dz(p, s_col + j) = -kp[L.c_J + 3 * j];
        dlambda_dz(p, r_col + j) = -kp[L.c_J + 3 * j + 1];
      }
    }
  }
  if (dlambda_dw.size() > 0)
    for (int j = 0; j < nj; ++j)
      for (int p = 0; p < m; ++p) dlambda_dw(p, j) = K[p * ldx + L.c_J + 3 * j + 2];
  return true;
}

}  // namespace geolin
