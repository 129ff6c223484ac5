// The centre of mass of the whole robot, its velocity and its Jacobian (docs/dynamics.md §11,
// (D30), (D31)): subtree masses and first moments by one backward pass over the poses, as the
// composite-rigid-body quantities of RBDA §6.2 reduced to their mass and first moment.
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace detail {

void subtree_moments(const Model &model, Workspace &ws) {
  for (int i = 0; i <= model.n_B; ++i) {
    ws.m_sub[i] = model.mass[i];
    ws.mc_sub[i] = model.mass[i] * ws.H0[i].apply(model.com[i]);  // m_i c_i in frame 0 (D30)
  }
  for (int i = model.n_B; i >= 1; --i) {
    ws.m_sub[model.parent[i]] += ws.m_sub[i];
    ws.mc_sub[model.parent[i]] += ws.mc_sub[i];
  }
}

Vec3 com_joint_column(const Workspace &ws, int i) {
  // (D31): m^C_i S_i,lin + S_i,ang × (m c)^C_i, the velocity of the subtree's centre of mass
  // times its mass, per unit r_i (frame 0).
  const Vec6 &S = ws.S0[i];
  return ws.m_sub[i] * S.head<3>() + S.tail<3>().cross(ws.mc_sub[i]);
}

}  // namespace detail

void center_of_mass(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, Vec3 &com, Vec3 &com_velocity, RefMat J_com) {
  detail::forward_poses(model, ws, s);
  detail::subtree_moments(model, ws);
  const Transform &Hb = model.fixed_base ? model.H_A_0 : H;
  const double inv_m = 1.0 / ws.m_sub[0];
  const Vec3 c0 = inv_m * ws.mc_sub[0];  // p_c in frame 0 (D30)
  com = Hb.apply(c0);
  const bool jacobian = J_com.size() > 0;
  Vec3 vel = Vec3::Zero();  // ṗ_c in frame-0 axes
  if (!model.fixed_base) {
    vel = v.head<3>() + v.tail<3>().cross(c0);  // base columns R [1, −c^]  (D31)
    if (jacobian) {
      J_com.leftCols<3>() = Hb.R;
      J_com.middleCols<3>(3).noalias() = -Hb.R * hat(c0);
    }
  }
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec3 col = inv_m * detail::com_joint_column(ws, i);
    vel += col * r[i - 1];
    if (jacobian) J_com.col(model.dof(i)).noalias() = Hb.R * col;
  }
  com_velocity.noalias() = Hb.R * vel;
}

}  // namespace geolin
