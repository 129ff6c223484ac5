// Forward kinematics in base-frame coordinates: ^0 H_i = ^0 H_λ(i) ^{λ(i)} H_{λ(i)|i} exp(s_i S_i^)
// (Bos et al. 2022, §2.1; EG notation), and S_i, M_i expressed in frame 0.
#include <algorithm>

#include "geometry.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {
namespace {
// ^0 H_i = T exp(q a^) for a revolute joint about a = σ e_k: a turn by σ q about e_k, which
// mixes two columns of T's rotation and leaves the third and the origin (docs/dynamics.md (D2),
// joint_motion's Rodrigues formula with a = σ e_k): 12 products instead of a 3x3 product.
// c = cos σq, s = sin σq.
GEOLIN_ALWAYS_INLINE void turn_about_coordinate_axis(const Transform &T, int k, double c, double s,
                                                     Transform &H) {
  const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
  H.o = T.o;
  H.R.col(k) = T.R.col(k);
  H.R.col(k1) = c * T.R.col(k1) + s * T.R.col(k2);
  H.R.col(k2) = c * T.R.col(k2) - s * T.R.col(k1);
}

// (ws.H0[λ(i)], s_i, ws.joint_cos[i], ws.joint_sin[i]) => (ws.H0[i], ws.S0[i])
GEOLIN_ALWAYS_INLINE void body_pose_step(const Model &model, Workspace &ws, CRefVec s, int i) {
  // docs/dynamics.md (D2): ^0 H_i = ^0 H_λ(i) ^{λ(i)} H_{λ(i)|i} exp(s_i S_i^), the joint
  // origin's rotation skipped where it is the identity (most URDF origins).
  const Transform &P = ws.H0[model.parent[i]], &O = model.H_parent_joint[i];
  Transform T;
  if (model.joint_origin_turns[i]) {
    T = P * O;
  } else {
    T.R = P.R;
    T.o = P.apply(O.o);
  }
  const int k = model.joint_axis_index[i];
  const double c = ws.joint_cos[i], sn = ws.joint_sin[i];
  Transform &H = ws.H0[i];
  if (k >= 0 && model.joint_type[i] != JointType::Prismatic) {
    const double sigma = model.joint_axis[i][k];  // a = σ e_k, σ = ±1
    turn_about_coordinate_axis(T, k, c, sigma * sn, H);
    // S_i = [0; a] in frame 0: [o × R a; R a], R a = ±R e_k
    const Vec3 w = sigma * H.R.col(k);
    ws.S0[i].tail<3>() = w;
    ws.S0[i].head<3>() = H.o.cross(w);
  } else {
    H = T * detail::joint_motion(model, i, s[i - 1], c, sn);
    ws.S0[i] = transform_motion(H, model.S[i]);
  }
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

namespace {
// The poses from ws.H0[0] = H00: every joint's cosine and sine at once (the solver's vector loop),
// then the bodies in order (λ(i) < i).
void poses_from(const Model &model, Workspace &ws, CRefVec s, const Transform &H00) {
  sincos_all(s.data(), model.n_B, ws.joint_cos.data() + 1, ws.joint_sin.data() + 1);
  ws.H0[0] = H00;
  for (int i = 1; i <= model.n_B; ++i) body_pose_step(model, ws, s, i);
}
}  // namespace

void forward_poses(const Model &model, Workspace &ws, CRefVec s) {
  poses_from(model, ws, s, Transform::identity());
}

void forward_poses_in_axes(const Model &model, Workspace &ws, CRefVec s, const Mat3 &R) {
  Transform H00;
  H00.R = R;
  poses_from(model, ws, s, H00);
}

int path_kinematics(const Model &model, Workspace &ws, CRefVec s, int body) {
  int count = 0;
  for (int i = body; i >= 1; i = model.parent[i]) ws.path[count++] = i;
  std::reverse(ws.path.begin(), ws.path.begin() + count);  // root first
  ws.H0[0] = Transform::identity();
  for (int k = 0; k < count; ++k) {
    const int i = ws.path[k];
    const double q = s[i - 1];  // one sincos call (a store between would reload s)
    const double c = std::cos(q), sn = std::sin(q);
    ws.joint_cos[i] = c;
    ws.joint_sin[i] = sn;
    body_pose_step(model, ws, s, i);
  }
  return count;
}

}  // namespace detail
}  // namespace geolin
