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

namespace {

// The joint columns of J_com and the joints' part of ṗ_c after subtree_moments (D31): column i
// is (R/m) (m^C_i S_i,lin + S_i,ang × (m c)^C_i), R/m formed once; returns Σ_i (column i) r_i
// (inertial axes). J_com empty: the velocity only.
Vec3 joint_columns(const Model &model, const Workspace &ws, const Mat3 &R, double inv_m, CRefVec r,
                   RefMat J_com) {
  const bool jacobian = J_com.size() > 0;
  const Mat3 Rm = inv_m * R;
  Vec3 mv = Vec3::Zero();  // m ṗ_c's joint part, frame 0
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 &S = ws.S0[i];
    const Vec3 col = ws.m_sub[i] * S.head<3>() + S.tail<3>().cross(ws.mc_sub[i]);
    mv += col * r[i - 1];
    if (jacobian) J_com.block<3, 1>(0, model.dof(i)).noalias() = Rm * col;  // fixed size
  }
  return Rm * mv;
}

}  // namespace

void center_of_mass(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, Vec3 &com, Vec3 &com_velocity, RefMat J_com) {
  detail::forward_poses(model, ws, s);
  detail::subtree_moments(model, ws);
  const Transform &Hb = model.fixed_base ? model.H_A_0 : H;
  const double inv_m = 1.0 / ws.m_sub[0];
  const Vec3 c0 = inv_m * ws.mc_sub[0];  // p_c in frame 0 (D30)
  com = Hb.apply(c0);
  com_velocity = joint_columns(model, ws, Hb.R, inv_m, r, J_com);
  if (!model.fixed_base) {
    // base columns R [1, −c^] (D31)
    com_velocity.noalias() += Hb.R * (v.head<3>() + v.tail<3>().cross(c0));
    if (J_com.size() > 0) {
      J_com.leftCols<3>() = Hb.R;
      J_com.middleCols<3>(3).noalias() = -Hb.R * hat(c0);
    }
  }
}

}  // namespace geolin
