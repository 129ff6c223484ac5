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
// sides R, X = M⁻¹ R (X holds −F), with K = Λ (∂c/∂z − J_c X) in X's columns and X + Y K as
// the result. Neither Y nor J_c X is formed from the solution: in the innovations form of M⁻¹
// (articulated_solve_backward) J_c X = X_Jᵀ D X_R, from the innovations X_J of J_cᵀ (left by
// contact_solve) and X_R of R, and adding X_J K to X_R before the solve's forward pass gives
// X + Y K. X_J is non-zero only on the base and the contacts' paths, so both products are small.
#include <algorithm>

#include "contact_correction.hpp"
#include "contact_solve.hpp"
#include "geometry.hpp"
#include "linearize_solve.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace detail {
namespace {

// The rows of contact f's constraint derivative (its rows, in λ's axes), [g_a, h, g_x] with 18
// entries per row: c changes, to first order, by g_a·δa + g_v·δv + g_x·ξ when the frame-0
// acceleration of its body changes by δa, its twist by δv and the body is displaced by ξ
// (frame 0); h = g_v + v_b ×* g_a gathers the terms that move with the body's twist v_b (the
// joint columns below). g_a is the row of G_a (contact_solve's; J_c = G_a J_b). Stored by
// columns, G[e][r] for entry e of row r, so that the joint columns are products of its column
// blocks (joint_columns).
void constraint_rows(const Workspace::ContactFrame &f, const Contacts &contacts, bool mixed,
                     const Vec6 &vb, const double *lambda, ConstraintColumns &G) {
  Mat6 Gv, Gx;  // their first f.rows rows
  if (f.rows == kContactRigid) {
    // c = ^F a_F + Kd ^F v_F + Kp log(H_ref⁻¹ H_F), with δ log = J_r⁻¹ ξ_F.
    Gv = contacts.Kd * f.Ga;
    if (contacts.Kp != 0.0) {
      // ^F X_0 = [[R_0ᵀ, −R_0ᵀ p̂], [0, R_0ᵀ]]: G_a itself for Local axes.
      Mat6 X_F0 = f.Ga;
      if (mixed) {
        const Mat3 R0t = f.H0F.R.transpose();
        X_F0.topLeftCorner<3, 3>() = R0t;
        X_F0.topRightCorner<3, 3>().noalias() = -R0t * hat(f.H0F.o);
        X_F0.bottomRightCorner<3, 3>() = R0t;
      }
      Gx = contacts.Kp * (f.Jr_inv * X_F0);
      if (mixed) {
        Gx.topRows<3>() = f.R_F * Gx.topRows<3>().eval();
        Gx.bottomRows<3>() = f.R_F * Gx.bottomRows<3>().eval();
      }
    } else {
      Gx.setZero();
    }
  } else {
    // c = R_Fᵀ (p̈_F + Kd ṗ_F + Kp (p_F − p_ref)), differentiated where it vanishes (F's axes):
    // δa_lin − v_lin^ δω + ω^ δv_lin + Kd δv_lin − (c_F + Kd v_lin)^ ξ_ang + Kp ξ_lin, with
    // c_F = a_lin + ω × v_lin the frame origin's acceleration. In λ's axes (R_m = R_F for Mixed,
    // 1 for Local), with G_a = [[Q, Q_p], [0, Q]] (Q_p = −Q p^, p the frame's origin in frame 0):
    //   G_v = (w^ + Kd) [Q, Q_p] − v^ [0, Q],  G_x = Kp [Q, Q_p] − c^ [0, Q],
    // where w, v, c are R_m ω, R_m v_lin and R_m (c_F + Kd v_lin).
    const Vec3 vl = f.vF.head<3>(), w = f.vF.tail<3>();
    const Vec3 cF = origin_acceleration(f.vF, f.aF);
    const Mat3 Rm = mixed ? f.R_F : Mat3::Identity();
    const Mat3 Q = f.Ga.topLeftCorner<3, 3>(), Qp = f.Ga.topRightCorner<3, 3>();
    const Mat3 Wv = hat(Rm * w) + contacts.Kd * Mat3::Identity();
    Gv.topLeftCorner<3, 3>().noalias() = Wv * Q;
    Gv.topRightCorner<3, 3>().noalias() = Wv * Qp;
    Gv.topRightCorner<3, 3>().noalias() -= hat(Rm * vl) * Q;
    Gx.topLeftCorner<3, 3>() = contacts.Kp * Q;
    Gx.topRightCorner<3, 3>() = contacts.Kp * Qp;
    Gx.topRightCorner<3, 3>().noalias() -= hat(Rm * (cF + contacts.Kd * vl)) * Q;
  }
  // (C14): regularized, c = −mu λ at the solution, and the terms that turn c with the frame,
  // dropped above where c vanishes, count: a Local point's c = R_Fᵀ (...) (c^ ξ_F) and a Mixed
  // rigid contact's c = R_F c_F (−c^ R_F ξ_F). Local rigid and Mixed point errors are written in
  // their own axes (§5.2) and need nothing.
  if (contacts.mu > 0.0 && mixed == (f.rows == kContactRigid))
    add_turning_of_error(f, contacts.mu, lambda, mixed ? -1.0 : 1.0, Gx);
  for (int r = 0; r < f.rows; ++r) {
    const Vec6 ga = f.Ga.row(r).transpose();
    const Vec6 h = Gv.row(r).transpose() + cross_force(vb, ga);
    for (int e = 0; e < 6; ++e) {
      G[e][r] = ga[e];
      G[6 + e][r] = h[e];
      G[12 + e][r] = Gx(r, e);
    }
  }
}

// §5.3, step 4, first part: K = −J_c X over all columns. By the innovations form of M⁻¹
// (articulated_solve_backward; docs/contacts.md §3, step 3), J_c X = Σ_i D_i Y_J,iᵀ X_R,i +
// Y_J,0ᵀ I^A_0 X_R,0: the base rows through (I^A_0 Y_J,0)ᵀ, left by contact_solve in
// ws.contact_W, and the joint rows i along each contact's path (Y_J,i is zero for contacts not
// below i). On the z_H columns, J_c X_H is written out.
// (X = X_R, Y_J, ws.contact_W, ws.D, G_a) => (K = −J_c X)
}  // namespace

void minus_jc_x_base(const Correction &s) {
  Workspace &ws = s.ws;
  const int m = s.m, cols = static_cast<int>(s.ldx);
  if (s.moving) {
    double *minus_WT = ws.contact_G.data();  // m x 6: −(I^A_0 Y_J,0)ᵀ
    const double *W = ws.contact_W.data();
    for (int p = 0; p < m; ++p)
      for (int e = 0; e < 6; ++e) minus_WT[p * 6 + e] = -W[e * s.ldm + p];
    product_add(m, cols, 6, minus_WT, 6, s.X, s.ldx, s.K, s.ldx, /*assign=*/true);
  } else {
    std::fill_n(s.K, m * s.ldx, 0.0);
  }
}

void add_pose_columns(const Correction &s, int p, const double *g) {
  double *kr = s.K + p * s.ldx;
  for (int e = 0; e < 3; ++e) {
    double t = 0.0;
    for (int j = 0; j < 3; ++j) t += g[j] * s.Gg(j, e);
    kr[s.L.c_H + 3 + e] += t - (s.L.mixed ? kr[s.L.c_E + e] : 0.0);
  }
}

void minus_jc_x_of_run(const Correction &s, int lo, int hi, int row0, int rows) {
  constexpr int kChunk = 32;
  const int cols = static_cast<int>(s.ldx), dof0 = s.model.dof(0);
  for (int c0 = lo; c0 < hi; c0 += kChunk) {
    const int len = std::min(kChunk, hi - c0);
    double C[6 * kChunk];
    for (int j = 0; j < len; ++j) {
      const double d = -s.ws.D[c0 + j - dof0];  // body of row c0 + j
      const double *y = s.YJ + (c0 + j) * s.ldm + row0;
      for (int r = 0; r < rows; ++r) C[r * len + j] = d * y[r];
    }
    product_add(rows, cols, len, C, len, s.X + c0 * s.ldx, s.ldx, s.K + row0 * s.ldx, s.ldx);
  }
}

void minus_jc_x(const Correction &s) {
  const Model &model = s.model;
  Workspace &ws = s.ws;
  minus_jc_x_base(s);
  // The path's joints come in runs of consecutive rows, each a product K_k −= C X_run with
  // C(r, j) = D_j Y_J(j, r), in chunks of at most 32 joints.
  for (int k = 0; k < s.contacts.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    for_each_path_run(model, f.body,
                      [&](int lo, int hi) { minus_jc_x_of_run(s, lo, hi, f.row0, f.rows); });
  }
  if (!s.moving) return;
  for (int k = 0; k < s.contacts.count; ++k) {  // the z_H columns
    const Workspace::ContactFrame &f = ws.contacts[k];
    for (int r = 0; r < f.rows; ++r) {
      const double g[3] = {f.Ga(r, 0), f.Ga(r, 1), f.Ga(r, 2)};
      add_pose_columns(s, f.row0 + r, g);
    }
  }
}

namespace {

// §5.3, step 4, second part: K += C_z, the sparse terms of §5.2 per contact: on the base velocity
// and z_H columns, and the two columns (s_j, ṙ_j) of each joint j on the contact's path.
// (ws.v, ws.a, ws.S0, ws.Psi_dot, the contacts' G_a, vF, gains) => (K += C_z; f.aF)
void add_constraint_derivatives(const Correction &s) {
  Workspace &ws = s.ws;
  for (int k = 0; k < s.contacts.count; ++k) {
    Workspace::ContactFrame &f = ws.contacts[k];
    const int b = f.body;
    f.aF = inverse_transform_motion(f.H0F, ws.a[b] - s.a_g);
    alignas(64) ConstraintColumns G;  // rows [g_a, h, g_x], by columns
    constraint_rows(f, s.contacts, s.mixed, ws.v[b], ws.contact_lambda.data() + f.row0, G);
    double *Kk = s.K + f.row0 * s.ldx;
    if (s.moving)
      // ∂/∂v: δa_b = (v_0 − v_b) × δv, δv_b = δv: g_a ((v_0 − v_b)×) + g_v = h − v_0 ×* g_a
      // (row vectors; (u×)ᵀ = −(u×*)); ∂/∂z_H: ξ = δ, so g_x (§5.2).
      for (int r = 0; r < f.rows; ++r) {
        double *kr = Kk + r * s.ldx;
        Vec6 ga, h;
        for (int e = 0; e < 6; ++e) ga[e] = G[e][r], h[e] = G[6 + e][r];
        const Vec6 row = h - cross_force(s.v0, ga);
        for (int e = 0; e < 6; ++e) {
          kr[e] += row[e];
          kr[s.L.c_H + e] += G[12 + e][r];
        }
      }
    for (int j = b; j >= 1; j = s.model.parent[j]) {
      // §5.2: ∂/∂s_j: δa_b = a_j × S_j + Ψ̇_j × (v_b − v_j), δv_b = Ψ̇_j, ξ = S_j;
      // ∂/∂ṙ_j: δa_b = Ψ̇_j + S_j × (v_b − v_j), δv_b = S_j (a_j without gravity). With h and
      // S_j × v_j = S_j × v_λ(j) = −Ψ̇_j the columns are
      //   g_a·(a_j × S_j − Ψ̇_j × v_j) + h·Ψ̇_j + g_x·S_j  and  2 g_a·Ψ̇_j + h·S_j.
      const Vec6 &S = ws.S0[j], &Pd = ws.Psi_dot[j];
      const Vec6 w = acceleration_along_joint(ws, j, s.a_g);
      const int c0 = s.L.c_J + 3 * (j - 1);
      if (f.rows == kContactRigid)
        joint_columns<6>(G, w, Pd, S, Kk, s.ldx, c0);
      else
        joint_columns<3>(G, w, Pd, S, Kk, s.ldx, c0);
    }
  }
}

}  // namespace

// §5.3, steps 5 and 6: K ← Λ K = (L Lᵀ)⁻¹ K, then the innovations X_R += Y_J K, whose forward
// pass gives the constrained −F (z_H columns included) and M⁻¹ S: X + Y K with Y = M⁻¹ J_cᵀ, by
// linearity (§5.1). The z_H attitude columns also take Y K_E: X_H = −(Rᵀg)^ − X_E before the
// correction, so after it X_H + Y K_H = −(Rᵀg)^ − (X_E + Y K_E) + Y (K_H + K_E).
// (K, ws.contact_L, ws.contact_dinv, Y_J, X = X_R) => (K = Λ K; X = X + Y K)
void correct_base(const Correction &s) {
  Workspace &ws = s.ws;
  const int m = s.m, cols = static_cast<int>(s.ldx);
  const int cE = s.L.c_E, cH3 = s.L.c_H + 3;
  // ∂λ = −Λ (C_z + J_c F_ext) and F = F_ext + Y ∂λ: docs/contacts.md (C7), (C8)
  cholesky_apply(m, cols, ws.contact_L.data(), s.ldm, ws.contact_dinv.data(), s.K, s.ldx);
  if (!s.moving) return;
  product_add(6, cols, m, s.YJ, s.ldm, s.K, s.ldx, s.X, s.ldx);
  if (s.L.mixed)
    for (int e0 = 0; e0 < 6; ++e0)
      for (int p = 0; p < m; ++p)
        for (int e = 0; e < 3; ++e)
          s.X[e0 * s.ldx + cH3 + e] += s.YJ[e0 * s.ldm + p] * s.K[p * s.ldx + cE + e];
}

void finish_correction(const Correction &s, int nblk) {
  const int n = s.model.num_dofs(), cE = s.L.c_E;
  articulated_solve_forward(s.model, s.ws, s.ws.rhs_blocks.data(), nblk, s.L.cols);
  if (s.moving)
    for (int i = 0; i < n; ++i) {
      double *x = s.X + i * s.ldx + s.L.c_H;
      for (int e = 0; e < 3; ++e)
        x[3 + e] += (i < 3 ? -s.Gg(i, e) : 0.0) - (s.L.mixed ? s.X[i * s.ldx + cE + e] : 0.0);
    }
}

void correct_run(const Correction &s, int lo, int hi, int row0, int rows) {
  const int cE = s.L.c_E, cH3 = s.L.c_H + 3;
  product_add(hi - lo, static_cast<int>(s.ldx), rows, s.YJ + lo * s.ldm + row0, s.ldm,
              s.K + row0 * s.ldx, s.ldx, s.X + lo * s.ldx, s.ldx);
  if (s.L.mixed)
    for (int i = lo; i < hi; ++i)
      for (int r = 0; r < rows; ++r)
        for (int e = 0; e < 3; ++e)
          s.X[i * s.ldx + cH3 + e] += s.YJ[i * s.ldm + row0 + r] * s.K[(row0 + r) * s.ldx + cE + e];
}

void apply_correction(const Correction &s, int nblk) {
  correct_base(s);
  for (int k = 0; k < s.contacts.count; ++k) {
    const Workspace::ContactFrame &f = s.ws.contacts[k];
    for_each_path_run(s.model, f.body,
                      [&](int lo, int hi) { correct_run(s, lo, hi, f.row0, f.rows); });
  }
  finish_correction(s, nblk);
}

// §5.3, step 7: nothing is written unless X, K and λ are finite. ∂λ/∂z = −K in X's columns (X
// held −F) and ∂λ/∂w = K on the S columns, each output column from a column of K (either output
// may be empty: NULL in C); A and B from X as linearize writes them.
// (X, K, λ) => (A, B, dlambda_dz, dlambda_dw)
bool write_results(const Correction &s, const Vec6 &v, RefMat A, RefMat B, RefMat dlambda_dz,
                   RefMat dlambda_dw) {
  const int m = s.m, n = s.model.num_dofs(), nj = s.model.n_B;
  if (!all_finite(s.X, n * s.ldx) || !all_finite(s.K, m * s.ldx) || !all_finite(s.lambda, m))
    return false;
  const int s_col = s.moving ? 6 : 0, r_col = n + s.L.nv;
  const bool dz = dlambda_dz.size() > 0, dw = dlambda_dw.size() > 0;
  double *z = dlambda_dz.data();
  const Eigen::Index lz = dlambda_dz.outerStride();
  if (dz) {
    if (s.moving) write_columns(s.K + s.L.c_H, s.ldx, m, 6, {z, lz, -1.0}, 0);
    write_columns(s.K, s.ldx, m, s.L.nv, {z + n * lz, lz, -1.0}, 0);
  }
  if (dz || dw) {  // the triples: ∂λ/∂s, ∂λ/∂r and ∂λ/∂w
    const ColumnDest triple[3] = {
        {dz ? z + s_col * lz : nullptr, lz, -1.0},
        {dz ? z + r_col * lz : nullptr, lz, -1.0},
        {dw ? dlambda_dw.data() : nullptr, dlambda_dw.outerStride(), 1.0}};
    write_columns(s.K + s.L.c_J, s.ldx, m, nj, 3, triple, 0);
  }
  linearize_write(s.model, s.ws, s.L, v, s.moving, A, B);
  return true;
}

BodyWrenches contact_force_wrenches(const Model &model, Workspace &ws, const Transform &H,
                                    const Contacts &contacts) {
  for (int k = 0; k < contacts.count; ++k) {
    const Workspace::ContactFrame &f = ws.contacts[k];
    ws.contact_frames[k] = f.frame;
    auto w = ws.contact_wrenches.segment<6>(6 * k);
    w.setZero();
    w.head(f.rows) = ws.contact_lambda.segment(f.row0, f.rows);
  }
  const ExternalWrenches ext{contacts.count, ws.contact_frames.data(), ws.contact_wrenches.data(),
                             contacts.flags};
  return load_external_wrenches(model, ws, H, &ext);
}

}  // namespace detail

// §5.3 (docs/contacts.md), steps 1-3 here, 4-7 in the functions above.
// (H, s, v, r, τ, contacts) => (A, B, ∂λ/∂z, ∂λ/∂w), or a failed outcome with nothing written
Outcome contact_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          const Vec6 &v, CRefVec r, CRefVec tau, const Contacts &contacts, RefMat A,
                          RefMat B, RefMat dlambda_dz, RefMat dlambda_dw) {
  const int nj = model.n_B, m = contacts.rows();
  const bool moving = !model.fixed_base, mixed = (contacts.flags & kWrenchMixed) != 0;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  if (contacts.count == 0)  // nothing held: the unconstrained linearization, exactly
    return linearize_if_finite(model, ws, H, s, v, r, tau, A, B);
  const Vec6 a_g = detail::gravity_base_acceleration(model, ws, H);

  // 1. The constrained dynamics: ν̇ and λ (the factor of Λ⁻¹ and G_a are kept), and the
  // innovations Y_J of J_cᵀ (articulated_solve_backward), kept in ws.contact_Y.
  forward_kinematics(model, ws, s);
  if (Outcome o = detail::aba_pass(model, ws, v0, a_g, r, tau, {}, ws.nu_dot); !o) return o;
  if (Outcome o = detail::contact_solve(model, ws, H, contacts); !o) return o;
  const std::ptrdiff_t ldm = detail::solve_stride(m);
  const double *YJ = ws.contact_Y.data();

  // 2. Accelerations at the constrained ν̇ (with the fictitious gravity, as RNEA's), and λ as
  // external wrenches for the RNEA derivatives at fixed λ (Local ones shift the body forces,
  // Mixed ones also keep their world directions).
  Vec6 a0 = a_g;
  if (moving) a0 += ws.nu_dot.head<6>();
  ws.a[0] = a0;
  for (int i = 1; i <= nj; ++i)
    ws.a[i] = ws.a[model.parent[i]] + ws.c[i] + ws.S0[i] * ws.nu_dot[model.dof(i)];
  const detail::BodyWrenches fext = detail::contact_force_wrenches(model, ws, H, contacts);
  const detail::LinearizeLayout L =
      detail::linearize_layout(model, 0, moving && mixed, /*base_pose_cols=*/true);

  // 3. The unconstrained derivatives at fixed λ, X = M⁻¹ R (X holds −F_ext, and M⁻¹ S), up to
  // their innovations X_R: the correction Y K is added to those before the forward pass. The z_H
  // columns are 6 more columns with a zero right-hand side, which carry that correction; −F_H
  // (the gravity block and the Mixed wrenches' attitude term) is added after the solve.
  const std::ptrdiff_t ldx = L.ldx;
  const int nblk = detail::linearize_solve(model, ws, H, v0, a0, r, fext, nullptr, L,
                                           detail::SolveExtent::to_innovations);
  double *X = ws.rhs.data();
  const Mat3 Gg = moving ? hat(H.R.transpose() * ws.gravity) : Mat3::Zero();

  // 4.-7. The correction by the contacts (§5.1), in place.
  const detail::Correction corr{model,
                                ws,
                                contacts,
                                m,
                                ws.contact_lambda.data(),
                                L,
                                X,
                                ws.contact_K.data(),
                                YJ,
                                ldm,
                                ldx,
                                Gg,
                                v0,
                                a_g,
                                moving,
                                mixed};
  detail::minus_jc_x(corr);                  // 4. K = −J_c X
  detail::add_constraint_derivatives(corr);  //    K += C_z
  detail::apply_correction(corr, nblk);      // 5., 6. K = Λ K; X = X + Y K
  if (!detail::write_results(corr, v, A, B, dlambda_dz, dlambda_dw))  // 7.
    return Outcome::overflowed();
  return Outcome();
}

}  // namespace geolin
