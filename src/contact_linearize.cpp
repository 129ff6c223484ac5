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

// The constraint error c of contact f (its rows, in λ's axes) changes, to first order, by
// G_a δa + G_v δv + G_x ξ when the frame-0 acceleration of its body changes by δa, its twist by
// δv and the body is displaced by ξ (frame 0); fills f.Gv and f.Gx (f.Ga is contact_solve's).
void constraint_maps(Workspace::ContactFrame &f, const Contacts &c, bool mixed) {
  if (f.rows == kContactRigid) {
    // c = ^F a_F + Kd ^F v_F + Kp log(H_ref⁻¹ H_F), with δ log = J_r⁻¹ ξ_F.
    f.Gv = c.Kd * f.Ga;
    if (c.Kp != 0.0) {
      Mat6 Gx = c.Kp * (f.Jr_inv * f.X_F0);
      if (mixed) {
        Gx.topRows<3>() = f.R_F * Gx.topRows<3>().eval();
        Gx.bottomRows<3>() = f.R_F * Gx.bottomRows<3>().eval();
      }
      f.Gx = Gx;
    } else {
      f.Gx.setZero();
    }
    return;
  }
  // c = R_Fᵀ (p̈_F + Kd ṗ_F + Kp (p_F − p_ref)), differentiated where it vanishes (F's axes):
  // δa_lin − v_lin^ δω + ω^ δv_lin + Kd δv_lin − (c_F + Kd v_lin)^ ξ_ang + Kp ξ_lin, with
  // c_F = a_lin + ω × v_lin the frame origin's acceleration. In λ's axes (R_m = R_F for Mixed,
  // 1 for Local), with G_a's rows [g_lin; g_ang] = R_m ^F X_0 [δ; ·] per column δ:
  //   G_v = ŵ g_lin + Kd g_lin − v̂ g_ang,  G_x = Kp g_lin − ĉ g_ang,
  // where w, v, c are R_m ω, R_m v_lin and R_m (c_F + Kd v_lin).
  const Vec3 vl = f.vF.head<3>(), w = f.vF.tail<3>();
  const Vec3 cF = f.aF.head<3>() + w.cross(vl);
  const Mat3 Rm = mixed ? f.R_F : Mat3::Identity();
  const Vec3 wm = Rm * w, vm = Rm * vl, cm = Rm * (cF + c.Kd * vl);
  f.Gv.bottomRows<3>().setZero();
  f.Gx.bottomRows<3>().setZero();
  for (int e = 0; e < 6; ++e) {
    const Vec3 gl = f.Ga.block<3, 1>(0, e), ga = f.Ga.block<3, 1>(3, e);
    f.Gv.block<3, 1>(0, e) = wm.cross(gl) + c.Kd * gl - vm.cross(ga);
    f.Gx.block<3, 1>(0, e) = c.Kp * gl - cm.cross(ga);
  }
}

}  // namespace
}  // namespace detail

bool contact_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts, RefMat A,
                       RefMat B, RefMat dlambda_dz, RefMat dlambda_dw) {
  const int nj = model.n_B, n = model.num_dofs(), m = contacts.rows();
  const bool moving = !model.fixed_base, mixed = (contacts.flags & kWrenchMixed) != 0;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  ws.contact_failed = -1;
  if (contacts.count == 0)  // nothing held: the unconstrained linearization, exactly
    return linearize_if_finite(model, ws, H, s, v, r, tau, A, B);
  const Vec6 a_g = detail::gravity_base_acceleration(model, ws, H);

  // 1. The constrained dynamics: ν̇ and λ (Y, the factor of Λ⁻¹ and G_a are kept).
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
  // Mixed wrenches' attitude term. The taps give J_b X for every contact body.
  const std::ptrdiff_t ldx = L.ldx, ldm = detail::solve_stride(m);
  SolveTap *taps = ws.contact_taps.data();
  for (int k = 0; k < contacts.count; ++k)
    taps[k] = {ws.contacts[k].body, ws.contact_tap.data() + 6 * k * ldx};
  detail::linearize_solve(model, ws, H, v0, a0, r, nullptr, L, taps, contacts.count);
  ws.ext_active = false;
  double *X = ws.rhs.data();
  if (moving) {
    const Mat3 G = hat(H.R.transpose() * ws.gravity);
    for (int i = 0; i < n; ++i) {
      double *x = X + i * ldx + L.c_H;
      for (int e = 0; e < 3; ++e) x[e] = 0.0;
      for (int e = 0; e < 3; ++e)
        x[3 + e] = (i < 3 ? -G(i, e) : 0.0) - (L.mixed ? X[i * ldx + L.c_E + e] : 0.0);
    }
    // The same columns of J_b X: J_b's base block is 1_6.
    for (int k = 0; k < contacts.count; ++k)
      for (int row = 0; row < 6; ++row) {
        double *t = taps[k].out + row * ldx + L.c_H;
        for (int e = 0; e < 3; ++e) t[e] = 0.0;
        for (int e = 0; e < 3; ++e)
          t[3 + e] = (row < 3 ? -G(row, e) : 0.0) - (L.mixed ? t[L.c_E - L.c_H + e] : 0.0);
      }
  }

  // 4. K = ∂c/∂z − J_c X in X's columns (the S columns: −J_c X only), J_c X = G_a (J_b X).
  double *K = ws.contact_K.data();
  for (int k = 0; k < contacts.count; ++k) {
    Workspace::ContactFrame &f = ws.contacts[k];
    const int b = f.body;
    f.aF = inverse_transform_motion(f.H0F, ws.a[b] - a_g);
    detail::constraint_maps(f, contacts, mixed);
    double minus_Ga[36];
    for (int r = 0; r < f.rows; ++r)
      for (int e = 0; e < 6; ++e) minus_Ga[r * 6 + e] = -f.Ga(r, e);
    double *Kk = K + f.row0 * ldx;
    detail::product_add(f.rows, static_cast<int>(ldx), 6, minus_Ga, 6, taps[k].out, ldx, Kk, ldx,
                        /*assign=*/true);
    // The rows of [G_a G_v G_x], each contiguous (18 doubles), for the dot products below.
    Eigen::Matrix<double, 18, 6> GT;
    GT.topRows<6>() = f.Ga.transpose();
    GT.middleRows<6>(6) = f.Gv.transpose();
    GT.bottomRows<6>() = f.Gx.transpose();
    if (moving) {
      // ∂/∂v: δa_b = (v_0 − v_b) × δv, δv_b = δv, so row r is g_a (rel×) + g_v with
      // g_a (rel×) = −(rel ×* g_aᵀ)ᵀ; ∂/∂z_H: ξ = δ, row r is g_x.
      const Vec6 rel = v0 - ws.v[b];
      for (int r = 0; r < f.rows; ++r) {
        double *kr = Kk + r * ldx;
        const Vec6 row = GT.block<6, 1>(6, r) - cross_force(rel, GT.block<6, 1>(0, r));
        for (int e = 0; e < 6; ++e) {
          kr[e] += row[e];
          kr[L.c_H + e] += GT(12 + e, r);
        }
      }
    }
    for (int j = b; j >= 1; j = model.parent[j]) {
      // ∂/∂s_j: δa_b = a_j × S_j + Ψ̇_j × (v_b − v_j), δv_b = Ψ̇_j, ξ = S_j;
      // ∂/∂ṙ_j: δa_b = Ψ̇_j + S_j × (v_b − v_j), δv_b = S_j.
      const Vec6 &S = ws.S0[j], &Pd = ws.Psi_dot[j];
      const Vec6 dvb = ws.v[b] - ws.v[j];
      Eigen::Matrix<double, 18, 1> ds, dr;
      ds.head<6>() = cross_motion(ws.a[j] - a_g, S) + cross_motion(Pd, dvb);
      ds.segment<6>(6) = Pd;
      ds.tail<6>() = S;
      dr.head<6>() = Pd + cross_motion(S, dvb);
      dr.segment<6>(6) = S;
      dr.tail<6>().setZero();
      const int c0 = L.c_J + 3 * (j - 1);
      for (int r = 0; r < f.rows; ++r) {
        Kk[r * ldx + c0] += GT.col(r).dot(ds);
        Kk[r * ldx + c0 + 1] += GT.col(r).head<12>().dot(dr.head<12>());
      }
    }
  }

  // 5. K ← Λ K = (L Lᵀ)⁻¹ K, then 6. X += Y K: the constrained −F (z_H columns included) and
  // M⁻¹ S.
  detail::cholesky_apply(m, static_cast<int>(ldx), ws.contact_L.data(), ldm, ws.contact_dinv.data(),
                         K, ldx);
  detail::product_add(n, static_cast<int>(ldx), m, ws.contact_Y.data(), ldm, K, ldx, X, ldx);

  // 7. Nothing is written unless everything is finite.
  if (!detail::all_finite(X, n * ldx) || !detail::all_finite(K, m * ldx) ||
      !ws.contact_lambda.head(m).allFinite())
    return false;
  // ∂λ/∂z = −K in X's columns (X held −F) and ∂λ/∂w = K on the S columns, taken row by row of K
  // (each row is contiguous; the columns of ∂λ are m apart).
  if (dlambda_dz.size() > 0 || dlambda_dw.size() > 0) {
    const int s_col = moving ? 6 : 0, r_col = n + L.nv;
    const bool dz = dlambda_dz.size() > 0, dw = dlambda_dw.size() > 0;
    const std::ptrdiff_t lz = dlambda_dz.outerStride(), lw = dlambda_dw.outerStride();
    for (int p = 0; p < m; ++p) {
      const double *kp = K + p * ldx;
      double *z = dz ? dlambda_dz.data() + p : nullptr;  // either may be empty (NULL in C)
      double *w = dw ? dlambda_dw.data() + p : nullptr;
      if (dz) {
        if (moving)
          for (int e = 0; e < 6; ++e) z[e * lz] = -kp[L.c_H + e];
        for (int e = 0; e < L.nv; ++e) z[(n + e) * lz] = -kp[e];
      }
      for (int j = 0; j < nj; ++j) {
        const double *t = kp + L.c_J + 3 * j;
        if (dz) {
          z[(s_col + j) * lz] = -t[0];
          z[(r_col + j) * lz] = -t[1];
        }
        if (dw) w[j * lw] = t[2];
      }
    }
  }
  double *FH = ws.contact_FH.data();  // n x 6, column-major
  if (moving)
    for (int e = 0; e < 6; ++e)
      for (int i = 0; i < n; ++i) FH[e * n + i] = -X[i * ldx + L.c_H + e];
  detail::linearize_write(model, ws, L, v, moving ? FH : nullptr, n, A, B);
  return true;
}

}  // namespace geolin
