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
    ws.mc_sub[i] = model.mass[i] * ws.H0[i].apply(model.com[i]);  // m_i c_i (D30), H0's axes
  }
  for (int i = model.n_B; i >= 1; --i) {
    ws.m_sub[model.parent[i]] += ws.m_sub[i];
    ws.mc_sub[model.parent[i]] += ws.mc_sub[i];
  }
}

Vec3 com_joint_column(const Workspace &ws, int i) {
  // (D31): m^C_i S_i,lin + S_i,ang × (m c)^C_i, the velocity of the subtree's centre of mass
  // times its mass, per unit r_i (in the axes of ws.H0: frame 0, or the inertial axes).
  const Vec6 &S = ws.S0[i];
  return ws.m_sub[i] * S.head<3>() + S.tail<3>().cross(ws.mc_sub[i]);
}

}  // namespace detail

namespace {

// The joint columns of J_com and the joints' part of ṗ_c after subtree_moments on the poses in the
// inertial axes (D31): column i is (m^C_i S_i,lin + S_i,ang × (m c)^C_i) / m; returns Σ_i
// (column i) r_i. J_com empty: the velocity only.
Vec3 joint_columns(const Model &model, const Workspace &ws, double inv_m, CRefVec r, RefMat J_com) {
  const bool jacobian = J_com.size() > 0;
  Vec3 mv = Vec3::Zero();  // m ṗ_c's joint part
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec3 col = detail::com_joint_column(ws, i);
    mv += col * r[i - 1];
    if (jacobian) J_com.block<3, 1>(0, model.dof(i)).noalias() = inv_m * col;  // fixed size
  }
  return inv_m * mv;
}

}  // namespace

// Everything in the inertial axes about frame 0's origin (forward_poses_in_axes): the rotation
// of the base is paid once per body in the poses, not once per column of J_com.
void center_of_mass(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, Vec3 &com, Vec3 &com_velocity, RefMat J_com) {
  const Transform &Hb = model.fixed_base ? model.H_A_0 : H;
  detail::forward_poses_in_axes(model, ws, s, Hb.R);
  detail::subtree_moments(model, ws);
  const double inv_m = 1.0 / ws.m_sub[0];
  const Vec3 c = inv_m * ws.mc_sub[0];  // p_c − o_0 = R c_0 in the inertial axes (D30)
  com = Hb.o + c;
  com_velocity = joint_columns(model, ws, inv_m, r, J_com);
  if (!model.fixed_base) {
    // base columns R [1, −c_0^] = [R, −(R c_0)^ R] (D31)
    const Vec3 w = Hb.R * v.tail<3>();
    com_velocity.noalias() += Hb.R * v.head<3>();
    com_velocity += w.cross(c);
    if (J_com.size() > 0) {  // fixed-size stores, column by column
      for (int k = 0; k < 3; ++k) {
        J_com.block<3, 1>(0, k) = Hb.R.col(k);
        J_com.block<3, 1>(0, 3 + k) = Hb.R.col(k).cross(c);  // −c × R e_k
      }
    }
  }
}

}  // namespace geolin
