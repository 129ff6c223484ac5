// Forward kinematics in base-frame coordinates: ^0 H_i = ^0 H_λ(i) ^{λ(i)} H_{λ(i)|i} exp(s_i S_i^)
// (Bos et al. 2022, §2.1; EG notation), and S_i, M_i expressed in frame 0.
#include <algorithm>

#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace {
// (ws.H0[λ(i)], s_i) => (ws.H0[i], ws.S0[i])
GEOLIN_ALWAYS_INLINE void body_pose_step(const Model &model, Workspace &ws, CRefVec s, int i) {
  // docs/dynamics.md (D2): ^0 H_i = ^0 H_λ(i) ^{λ(i)} H_{λ(i)|i} exp(s_i S_i^)
  ws.H0[i] =
      ws.H0[model.parent[i]] * model.H_parent_joint[i] * detail::joint_motion(model, i, s[i - 1]);
  ws.S0[i] = transform_motion(ws.H0[i], model.S[i]);
}
}  // namespace

void forward_kinematics(const Model &model, Workspace &ws, CRefVec s) {
  detail::forward_poses(model, ws, s);
  ws.I0[0] = model.inertia[0];
  for (int i = 1; i <= model.n_B; ++i)
    ws.I0[i] = transform_inertia(ws.H0[i], model.mass[i], model.com[i], model.inertia_com[i]);
}

Transform body_pose(const Model &model, const Workspace &ws, const Transform &H, int body) {
  return (model.fixed_base ? model.H_A_0 : H) * ws.H0[body];
}

namespace detail {

void forward_poses(const Model &model, Workspace &ws, CRefVec s) {
  ws.H0[0] = Transform::identity();
  for (int i = 1; i <= model.n_B; ++i) body_pose_step(model, ws, s, i);
}

int path_kinematics(const Model &model, Workspace &ws, CRefVec s, int body) {
  int count = 0;
  for (int i = body; i >= 1; i = model.parent[i]) ws.path[count++] = i;
  std::reverse(ws.path.begin(), ws.path.begin() + count);  // root first
  ws.H0[0] = Transform::identity();
  for (int k = 0; k < count; ++k) body_pose_step(model, ws, s, ws.path[k]);
  return count;
}

}  // namespace detail
}  // namespace geolin
