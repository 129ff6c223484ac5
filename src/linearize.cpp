// The exact left-trivialized linearization ż = A z + B w of ẋ = x λ(x, τ) on
// G = SE(3) × R^nJ × R^6 × R^nJ (Bos et al. 2022, §3; Saccon et al. 2013; dynamics.md §4):
//   A = D_x λ · T_e L_x − ad_λ,  B = D_τ λ, with
//   A = [[−v×, 0, 1_6, 0], [0, 0, 0, 1], [F_H, F_s, F_v, F_r]],  B = [0; 0; M⁻¹ S],
//   F_H = [[0, (Rᵀg)^], [0, 0]] (first 6 rows, zero below),
//   [F_s, F_v, F_r] = −M⁻¹ [∂ID/∂s, ∂ID/∂ν] at ν̇ = FD.
#include "internal.hpp"

namespace geolin {
namespace {

void linearize_impl(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, CRefVec tau, const ExternalWrenches *ext, RefMat A, RefMat B) {
  const int nj = model.n_B;
  const int n = model.num_dofs();
  const bool moving = !model.fixed_base;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  const Vec6 a_g = detail::gravity_base_acceleration(model, ws, H);

  forward_kinematics(model, ws, s);
  detail::load_external_wrenches(model, ws, H, ext);
  detail::aba_pass(model, ws, v0, a_g, r, tau, ws.nu_dot);
  Vec6 a0 = a_g;
  if (moving) a0 += ws.nu_dot.head<6>();
  detail::rnea_derivatives_pass(model, ws, v0, a0, r, ws.nu_dot.segment(model.joint_offset(), nj),
                                ws.dID_ds, ws.dID_dnu);
  detail::minv_pass(model, ws, ws.Minv);

  A.setZero();
  // Rows n..2n-1: [F_H, F_s, F_v, F_r]; F_y = −M⁻¹ ∂ID/∂y.
  const int s_col = moving ? 6 : 0;  // first column of z_s
  A.block(n, s_col, n, nj).noalias() = -ws.Minv * ws.dID_ds;
  A.block(n, n, n, n).noalias() = -ws.Minv * ws.dID_dnu;
  if (moving) {
    // F_H: d/dε of [(H exp(ε z^))ᵀ-rotated gravity] = [0, (Rᵀg)^] on the base linear rows.
    const Vec3 g_base = H.R.transpose() * ws.gravity;
    A.block<3, 3>(n, 3) = hat(g_base);
    if (ws.ext_active && ws.ext_mixed) {
      // Mixed wrenches keep their world directions: ∂FD/∂ω_H = M⁻¹ [EC_0; S_iᵀ EC_i].
      auto G = ws.G_w.leftCols<3>();
      G.topRows<6>() = ws.EC_ext[0];
      for (int i = 1; i <= nj; ++i) G.row(model.dof(i)) = ws.SE_row[i].transpose();
      A.block(n, 3, n, 3).noalias() += ws.Minv * G;
    }
    A.topLeftCorner<6, 6>() = -cross_motion(v);  // −ad_v
    A.block<6, 6>(0, n).setIdentity();           // ż_H ← z_v
    A.block(6, n + 6, nj, nj).setIdentity();     // ż_s ← z_r
  } else {
    A.block(0, n, nj, nj).setIdentity();
  }
  B.topRows(n).setZero();
  B.block(n, 0, n, nj) = ws.Minv.rightCols(nj);  // M⁻¹ S
  if (ext == nullptr) return;
  // Wrench columns: M⁻¹ J_Fᵀ with J_Fᵀ = [X; S_iᵀ X (i on the path to the frame's body)].
  for (int w = 0; w < ext->count; ++w) {
    const Mat6 X = force_transform(detail::wrench_frame0(model, ws, H, ext->frames[w], ext->flags));
    ws.G_w.setZero();
    if (moving) ws.G_w.topRows<6>() = X;
    for (int i = model.frames[ext->frames[w]].body; i >= 1; i = model.parent[i])
      ws.G_w.row(model.dof(i)) = ws.S0[i].transpose() * X;
    B.block(n, nj + 6 * w, n, 6).noalias() = ws.Minv * ws.G_w;
  }
  ws.ext_active = false;
}

}  // namespace

void linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
               CRefVec r, CRefVec tau, RefMat A, RefMat B) {
  linearize_impl(model, ws, H, s, v, r, tau, nullptr, A, B);
}

void linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
               CRefVec r, CRefVec tau, const ExternalWrenches &ext, RefMat A, RefMat B) {
  linearize_impl(model, ws, H, s, v, r, tau, &ext, A, B);
}

}  // namespace geolin
