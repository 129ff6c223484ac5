// The exact linearization of a constraint set's dynamics (docs/constraints.md §4) along the paths
// of its rows: contact_linearize's (docs/contacts.md §5.3) with J_c's terms (K16) in place of the
// contacts. At fixed λ, δν̇ = F_ext z + M⁻¹ S w + Y δλ and J_c δν̇ + C_z z = −mu δλ (K4), so with
// X = M⁻¹ R (X holds −F_ext) and K = Λ (C_z − J_c X): ∂λ/∂z = −K, F = F_ext + Y ∂λ/∂z.
//  - F_ext: linearize_solve with λ as world wrenches at the frames (K13; Mixed: their derivative
//    at fixed world values is linearize's), plus the turning of those values with the frames
//    (a Local λ turned by R_a, a loop's lever, a wheel's ρ; (K18)) as extra right-hand sides.
//  - C_z: each frame term's rows change by G δa_b + Gv δv_b + Gx ξ_b (K17), which the joint
//    columns of contact_linearize turn into K's columns along the term's path; a coupling's row
//    changes by Kp, Kd on its joints' s, ṙ columns.
//  - J_c X and Y K from the innovations of J_cᵀ left by constraint_factor, along each block's
//    paths, without forming J_c, Y or M⁻¹.
#include "constrained_solve.hpp"
#include "constraint_rows.hpp"
#include "contacts/contact_correction.hpp"
#include "contacts/contact_solve.hpp"
#include "geolin/constraints.hpp"
#include "geolin/status.hpp"
#include "geometry.hpp"
#include "linearize_solve.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace detail {
namespace {

using Term = Workspace::ConstraintTerm;

// (K18): wrench w's world value changes by T ξ_b when body b is displaced by ξ_b, a generalized
// force J_wᵀ T ξ_b, i.e. the frame-0 force G0_wᵀ T ξ_b on the wrench's body. Its innovations
// (RBDA Table 7.1's backward pass without velocity terms, as term_innovations) are subtracted
// from X_R's (X holds −F) on the columns that displace b: z_H (ξ = e_k, frame 0) and s_j for j on
// b's path (ξ = S_j). They are linear in ξ, so one pass carries the six columns of G0_wᵀ T up the
// wrench's path, and each displacing column takes its ξ's combination of them at each row.
// (ws.cs_turns, the wrenches' frames, ws.U, ws.D_inv, ws.S0) => (X_R −=)
void subtract_turning(const Correction &s, const Transform &H) {
  const Model &model = s.model;
  Workspace &ws = s.ws;
  const Transform &Hb = model.fixed_base ? model.H_A_0 : H;
  const Mat6 &base_inverse = model.fixed_base ? ws.IA0_inv : articulated_base_inverse(ws);
  // Row x (the innovations of the six columns at one dof or base row) into X's displacing
  // columns: x_k on z_H's, x · S_j on s_j's.
  const auto subtract_row = [&](double *row, const Eigen::Matrix<double, 1, 6> &x, int body) {
    if (s.moving)
      for (int e = 0; e < 6; ++e) row[s.L.c_H + e] -= x[e];
    for (int j = body; j >= 1; j = model.parent[j]) row[s.L.c_J + 3 * (j - 1)] -= x * ws.S0[j];
  };
  for (int k = 0; k < ws.cs_turn_count; ++k) {
    const Workspace::ConstraintTurn &tr = ws.cs_turns[k];
    if (tr.T.isZero(0.0)) continue;  // a Local wrench that rides with its frame
    const int frame = ws.cs_wrench_frames[tr.wrench], bw = model.frames[frame].body;
    const Vec3 p = frame_pose0(model, ws, frame).o;
    Mat6 G0;  // world [ṗ; ω] at the frame's origin per frame-0 twist of its body
    G0 << Hb.R, -Hb.R * hat(p), Mat3::Zero(), Hb.R;
    Mat6 F = G0.transpose() * tr.T;
    for (int i = bw; i >= 1; i = model.parent[i]) {
      const Eigen::Matrix<double, 1, 6> x = ws.D_inv[i] * (ws.S0[i].transpose() * F);
      subtract_row(s.X + model.dof(i) * s.ldx, x, tr.body);
      F.noalias() -= ws.U[i] * x;
    }
    if (!s.moving) continue;
    const Mat6 a = base_inverse * F;
    for (int e = 0; e < 6; ++e) subtract_row(s.X + e * s.ldx, a.row(e), tr.body);
  }
}

// A Local set's wrenches as Local external wrenches (in their frames' axes, riding with them), as
// a Local contact set's are: no Mixed attitude columns in the solve, and a wrench that turns with
// its own frame (a contact's or loop frame a's R_a λ) turns no more. The value becomes
// [R_Fᵀ f; R_Fᵀ τ]; its generalized force changes by J_Fᵀ (δw − δθ_F × w) in world terms, so each
// wrench gains the turn −[δθ_F × f; δθ_F × τ] on its own body (δθ_F = R_0 ξ_ang, R_0 the base's
// attitude), added to the turn it already has there (which it then cancels exactly for R_a λ).
// (ws.cs_wrenches (world), ws.cs_turns) => (ws.cs_wrenches (frames' axes), ws.cs_turns)
void wrenches_in_frame_axes(const Model &model, Workspace &ws, const Transform &H) {
  const Mat3 &R0 = model.fixed_base ? model.H_A_0.R : H.R;
  for (int w = 0; w < ws.cs_wrench_count; ++w) {
    const int frame = ws.cs_wrench_frames[w], body = model.frames[frame].body;
    auto value = ws.cs_wrenches.segment<6>(6 * w);
    const Vec3 f = value.head<3>(), tau = value.tail<3>();
    Workspace::ConstraintTurn *own = nullptr;
    for (int k = 0; k < ws.cs_turn_count && own == nullptr; ++k)
      if (ws.cs_turns[k].wrench == w && ws.cs_turns[k].body == body) own = &ws.cs_turns[k];
    if (own == nullptr) own = &next_turn(ws, w, body);
    for (int k = 0; k < 3; ++k) {  // the same products as the frame's own turn, subtracted
      const Vec3 th = R0.col(k);
      own->T.col(3 + k).head<3>() -= th.cross(f);
      own->T.col(3 + k).tail<3>() -= th.cross(tau);
    }
    const Mat3 RF = R0 * frame_pose0(model, ws, frame).R;
    value.head<3>() = RF.transpose() * f;
    value.tail<3>() = RF.transpose() * tau;
  }
}

// Calls fn(lo, hi, row0, rows) for each block of J_c's terms (rows [row0, row0 + rows)) and each
// run [lo, hi) of consecutive rows on the union of its paths.
template <class Fn>
void for_each_term_run(const Model &model, const Workspace &ws, Fn &&fn) {
  for (int t = 0; t < ws.cs_term_count; t = block_end(ws, t)) {
    const int row0 = ws.cs_terms[t].row0, rows = ws.cs_terms[t].rows;
    for_each_block_run(model, ws, t, block_end(ws, t),
                       [&](int lo, int hi) { fn(lo, hi, row0, rows); });
  }
}

// §5.3, step 4, first part for the terms: K = −J_c X, J_c X = Σ_i D_i Y_J,iᵀ X_R,i + the base's
// (minus_jc_x_base), joint i along the union of each block's paths; then the z_H columns, whose
// J_c on the base's linear velocity is the sum of the block's frame terms' G.
// (X = X_R, Y_J, ws.contact_W, ws.D, ws.cs_terms) => (K = −J_c X)
void minus_jc_x_of_terms(const Correction &s) {
  const Model &model = s.model;
  const Workspace &ws = s.ws;
  minus_jc_x_base(s);
  for_each_term_run(model, ws, [&](int lo, int hi, int row0, int rows) {
    minus_jc_x_of_run(s, lo, hi, row0, rows);
  });
  if (!s.moving) return;
  for (int t = 0; t < ws.cs_term_count; t = block_end(ws, t)) {
    const int e = block_end(ws, t), row0 = ws.cs_terms[t].row0, rows = ws.cs_terms[t].rows;
    for (int r = 0; r < rows; ++r) {
      double g[3] = {0.0, 0.0, 0.0};
      for (int k = t; k < e; ++k)
        if (!ws.cs_terms[k].joint)
          for (int j = 0; j < 3; ++j) g[j] += ws.cs_terms[k].G(r, j);
      add_pose_columns(s, row0 + r, g);
    }
  }
}

// joint_columns for a term of `rows` rows (1 to 6).
void term_joint_columns(int rows, const ConstraintColumns &G, const Vec6 &w, const Vec6 &Pd,
                        const Vec6 &S, double *K, std::ptrdiff_t ldk, int c) {
  switch (rows) {
    case 1:
      return joint_columns<1>(G, w, Pd, S, K, ldk, c);
    case 2:
      return joint_columns<2>(G, w, Pd, S, K, ldk, c);
    case 3:
      return joint_columns<3>(G, w, Pd, S, K, ldk, c);
    case 4:
      return joint_columns<4>(G, w, Pd, S, K, ldk, c);
    case 5:
      return joint_columns<5>(G, w, Pd, S, K, ldk, c);
    default:
      return joint_columns<6>(G, w, Pd, S, K, ldk, c);
  }
}

// §5.3, step 4, second part for the terms: K += C_z. A frame term's rows [g_a, h, g_x] (K17),
// h = g_v + v_b ×* g_a, on the base velocity and z_H columns and the (s_j, ṙ_j) columns of each
// joint j on its body's path, as contact_linearize's add_constraint_derivatives; a coupling's
// joint term (K11) adds Kp coef and Kd coef on its joint's s and ṙ columns.
// (ws.cs_terms, ws.v, ws.a, ws.S0, ws.Psi_dot, gains) => (K += C_z)
void add_term_derivatives(const Correction &s, double Kp, double Kd) {
  const Model &model = s.model;
  const Workspace &ws = s.ws;
  for (int t = 0; t < ws.cs_term_count; ++t) {
    const Term &term = ws.cs_terms[t];
    double *Kt = s.K + term.row0 * s.ldx;
    if (term.joint) {
      const int c0 = s.L.c_J + 3 * (term.body - 1);
      Kt[c0] += Kp * term.coef;
      Kt[c0 + 1] += Kd * term.coef;
      continue;
    }
    const int b = term.body;
    alignas(64) ConstraintColumns G;
    for (int r = 0; r < term.rows; ++r) {
      const Vec6 ga = term.G.row(r).transpose();
      const Vec6 h = term.Gv.row(r).transpose() + cross_force(ws.v[b], ga);
      for (int e = 0; e < 6; ++e) {
        G[e][r] = ga[e];
        G[6 + e][r] = h[e];
        G[12 + e][r] = term.Gx(r, e);
      }
      if (!s.moving) continue;
      const Vec6 row = h - cross_force(s.v0, ga);  // ∂/∂v and ∂/∂z_H, as for a contact
      double *kr = Kt + r * s.ldx;
      for (int e = 0; e < 6; ++e) {
        kr[e] += row[e];
        kr[s.L.c_H + e] += term.Gx(r, e);
      }
    }
    for (int j = b; j >= 1; j = model.parent[j])
      term_joint_columns(term.rows, G, acceleration_along_joint(ws, j, s.a_g), ws.Psi_dot[j],
                         ws.S0[j], Kt, s.ldx, s.L.c_J + 3 * (j - 1));
  }
}

// §5.3, steps 5 and 6 for the terms: K ← Λ K, X_R += Y_J K (the base by correct_base, joint i
// along the union of each block's paths, with the Mixed z_H attitude columns), then the forward
// pass: X + Y K.
// (K, the factor of Λ⁻¹, Y_J, X = X_R) => (K = Λ K; X = X + Y K)
void apply_correction_of_terms(const Correction &s, int nblk) {
  const Model &model = s.model;
  const Workspace &ws = s.ws;
  correct_base(s);
  for_each_term_run(
      model, ws, [&](int lo, int hi, int row0, int rows) { correct_run(s, lo, hi, row0, rows); });
  finish_correction(s, nblk);
}

}  // namespace
}  // namespace detail

// §4 (docs/constraints.md): steps 1-3 here, 4-7 in the functions above, as contact_linearize's.
// (H, s, v, r, τ, set) => (A, B, ∂λ/∂z, ∂λ/∂w), or a failed outcome with nothing written
Outcome constrained_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                              const Vec6 &v, CRefVec r, CRefVec tau, const ConstraintSet &set,
                              double mu, RefMat A, RefMat B, RefMat dlambda_dz, RefMat dlambda_dw) {
  if (set.contacts_only())  // the contact functions' own (the empty set's too)
    return contact_linearize(model, ws, H, s, v, r, tau, set.contacts(mu), A, B, dlambda_dz,
                             dlambda_dw);
  const int m = set.rows(), nj = model.n_B;
  const bool moving = !model.fixed_base;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  // 1. ν̇, λ, the innovations of J_cᵀ (ws.contact_Y, ws.contact_W) and the factor of Λ⁻¹.
  if (Outcome o = detail::set_dynamics(model, ws, H, s, v0, r, tau, set, mu, false); !o) return o;
  // 2. The accelerations at ν̇ (with the fictitious gravity, as RNEA's).
  const Vec6 a_g = detail::gravity_base_acceleration(model, ws, H);
  ws.nu_dot = ws.cs_nu2;  // also where contact_linearize leaves it (the steps read it)
  Vec6 a0 = a_g;
  if (moving) a0 += ws.nu_dot.head<6>();
  ws.a[0] = a0;
  for (int i = 1; i <= nj; ++i)
    ws.a[i] = ws.a[model.parent[i]] + ws.c[i] + ws.S0[i] * ws.nu_dot[model.dof(i)];
  // 3. The rows' terms with their derivatives (K17), λ as world wrenches (K13) with their
  // turning (K18); the derivatives at fixed λ up to their innovations.
  const detail::RowPoint at{H,   s, v0, r, ws.cs_nu2, set.Kp, set.Kd, true, ws.cs_lambda.data(),
                            true};
  if (Outcome o = detail::constraint_rows(model, ws, set, at); !o) return o;
  const bool local = (set.flags & kWrenchMixed) == 0;
  if (local) detail::wrenches_in_frame_axes(model, ws, H);
  const ExternalWrenches ext{ws.cs_wrench_count, ws.cs_wrench_frames.data(), ws.cs_wrenches.data(),
                             local ? kWrenchLocal : kWrenchMixed};
  const detail::BodyWrenches fext = detail::load_external_wrenches(model, ws, H, &ext);
  const detail::LinearizeLayout L =
      detail::linearize_layout(model, 0, moving && fext.mixed(), /*base_pose_cols=*/true);
  const int nblk = detail::linearize_solve(model, ws, H, v0, a0, r, fext, nullptr, L,
                                           detail::SolveExtent::to_innovations);
  const Mat3 Gg = moving ? hat(H.R.transpose() * ws.gravity) : Mat3::Zero();
  const Contacts none;
  const detail::Correction corr{model,
                                ws,
                                none,
                                m,
                                ws.cs_lambda.data(),
                                L,
                                ws.rhs.data(),
                                ws.contact_K.data(),
                                ws.contact_Y.data(),
                                detail::solve_stride(m),
                                L.ldx,
                                Gg,
                                v0,
                                a_g,
                                moving,
                                L.mixed};
  detail::subtract_turning(corr, H);
  // 4.-7. The correction by the constraints.
  detail::minus_jc_x_of_terms(corr);                   // 4. K = −J_c X
  detail::add_term_derivatives(corr, set.Kp, set.Kd);  //    K += C_z
  detail::apply_correction_of_terms(corr, nblk);       // 5., 6. K = Λ K; X = X + Y K
  if (!detail::write_results(corr, v, A, B, dlambda_dz, dlambda_dw))  // 7.
    return Outcome::overflowed();
  return Outcome();
}

}  // namespace geolin
