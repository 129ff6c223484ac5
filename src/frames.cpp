// Frames, frame Jacobians and external wrenches (EG notation: ^A H_F, ^F v_{A,F}).
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {

Transform frame_pose(const Model &model, Workspace &ws, const Transform &H, CRefVec s, int frame) {
  forward_kinematics(model, ws, s);
  return (model.fixed_base ? model.H_A_0 : H) * detail::frame_pose0(model, ws, frame);
}

// ^F v_{A,F} = ^F X_0 (v_0 + Σ_{l ∈ path(b)} S_l r_l): J = ^F X_0 [1_6, S_l ...] on the base
// columns and on the joints of the path from the base to the frame's body b.
void frame_jacobian(const Model &model, Workspace &ws, const Transform & /*H*/, CRefVec s,
                    int frame, RefMat J) {
  forward_kinematics(model, ws, s);
  const Transform H0F = detail::frame_pose0(model, ws, frame);
  J.setZero();
  // docs/dynamics.md (D21): J_F = ^F X_0 [1₆, S_l …]
  if (!model.fixed_base) J.leftCols<6>() = motion_transform(H0F.inverse());
  for (int l = model.frames[frame].body; l >= 1; l = model.parent[l])
    J.col(model.dof(l)) = inverse_transform_motion(H0F, ws.S0[l]);
}

namespace detail {

BodyWrenches load_external_wrenches(const Model &model, Workspace &ws, const Transform &H,
                                    const ExternalWrenches *ext) {
  if (ext == nullptr || (ext->count == 0 && ext->extra_frame < 0)) return {};
  const bool mixed = (ext->flags & kWrenchMixed) != 0;
  for (int i = 0; i <= model.n_B; ++i) ws.f_ext[i].setZero();
  if (mixed)  // E is read for Mixed wrenches only (rnea_derivatives_pass)
    for (int i = 0; i <= model.n_B; ++i) ws.E_ext[i].setZero();
  auto add = [&](int frame, const Vec6 &w) {
    const Transform T = wrench_frame0(model, ws, H, frame, ext->flags);
    const int b = model.frames[frame].body;
    const Vec6 phi = transform_force(T, w);
    ws.f_ext[b] += phi;
    if (mixed) {
      // A Mixed wrench keeps its world directions when the body turns: only its point moves.
      // With φ = [f; p × f + n], its non-covariant derivative along a rotation ω of the frame
      // (or of the base attitude) is E ω, E = [f^; p^ f^ + n^] (frame-0 coordinates).
      const Vec3 f = phi.head<3>();
      const Vec3 n = T.R * w.tail<3>();
      const Mat3 F = hat(f);
      ws.E_ext[b].topRows<3>() += F;  // docs/dynamics.md (D23)
      ws.E_ext[b].bottomRows<3>() += hat(T.o) * F + hat(n);
    }
  };
  for (int w = 0; w < ext->count; ++w)
    add(ext->frames[w], Eigen::Map<const Vec6>(ext->wrenches + 6 * w));
  if (ext->extra_frame >= 0) add(ext->extra_frame, ext->extra);
  return {ws.f_ext.data(), mixed ? ws.E_ext.data() : nullptr};
}

}  // namespace detail
}  // namespace geolin
