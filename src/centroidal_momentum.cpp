// The centroidal momentum h_G, the centroidal momentum matrix A_G (D. E. Orin, A. Goswami,
// S.-H. Lee, "Centroidal dynamics of a humanoid robot", Autonomous Robots 2013) and the
// derivative of h_G in z (docs/dynamics.md §11, (D32)-(D34)). Everything is summed in frame 0
// (the composite inertias of CRBA, RBDA Table 6.2, and the subtree momenta) and moved to the
// centre of mass and the inertial axes at the end.
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace {

// Kinematics, twists and the subtree sums: (s, v0, r) => (ws.H0, ws.S0, ws.I0, ws.v,
// ws.Psi_dot, ws.IC = I^C_i, ws.h_sub = h^C_i, ws.m_sub, ws.mc_sub from I^C_i)
void momentum_pass(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v0, CRefVec r) {
  forward_kinematics(model, ws, s);
  ws.v[0] = v0;
  ws.IC[0] = ws.I0[0];
  ws.h_sub[0].noalias() = ws.I0[0] * v0;
  for (int k = 1; k <= model.n_B; ++k) {
    const int lam = model.parent[k];
    ws.Psi_dot[k] = cross_motion(ws.v[lam], ws.S0[k]);  // Ψ̇_k = v_λ(k) × S_k
    ws.v[k] = ws.v[lam] + ws.S0[k] * r[k - 1];          // (D6)
    ws.IC[k] = ws.I0[k];
    ws.h_sub[k].noalias() = ws.I0[k] * ws.v[k];  // h_k = M_k v_k
  }
  for (int k = model.n_B; k >= 1; --k) {
    ws.IC[model.parent[k]] += ws.IC[k];  // (D8)
    ws.h_sub[model.parent[k]] += ws.h_sub[k];
  }
  for (int k = 0; k <= model.n_B; ++k) {  // I^C = [[m 1, −(mc)^], [(mc)^, ·]]
    ws.m_sub[k] = ws.IC[k](0, 0);
    ws.mc_sub[k] = Vec3(ws.IC[k](5, 1), ws.IC[k](3, 2), ws.IC[k](4, 0));
  }
}

// A frame-0 momentum (about frame 0's origin) as a centroidal one: about c0, then in inertial
// axes (D32): [R f; R (n − c0 × f)].
Vec6 to_centroidal(const Mat3 &R, const Vec3 &c0, const Vec6 &h) {
  Vec6 out;
  out.head<3>().noalias() = R * h.head<3>();
  out.tail<3>().noalias() = R * (h.tail<3>() - c0.cross(h.head<3>()));
  return out;
}

// dh_dz's z_s column of joint j (D33): the subtree of j turns by S_j, its momentum by
// δh = S_j ×* h^C_j + I^C_j Ψ̇_j, and the centre of mass moves by δc0 (D31), so
// δk = [δh_f; δh_n − δc0 × h_f − c0 × δh_f] about the moving centre of mass.
Vec6 momentum_position_column(const Workspace &ws, int j, const Mat3 &R, const Vec3 &c0,
                              double inv_m, const Vec6 &h0) {
  Vec6 dh = cross_force(ws.S0[j], ws.h_sub[j]);
  dh.noalias() += ws.IC[j] * ws.Psi_dot[j];
  const Vec3 dc = inv_m * detail::com_joint_column(ws, j);
  Vec6 out = to_centroidal(R, c0, dh);
  out.tail<3>().noalias() -= R * dc.cross(h0.head<3>());
  return out;
}

}  // namespace

void centroidal_momentum(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                         const Vec6 &v, CRefVec r, Vec6 &h_G, RefMat A_G, RefMat dh_dz) {
  const bool moving = !model.fixed_base;
  momentum_pass(model, ws, s, moving ? v : Vec6::Zero(), r);
  const Mat3 &R = moving ? H.R : model.H_A_0.R;
  const double inv_m = 1.0 / ws.m_sub[0];
  const Vec3 c0 = inv_m * ws.mc_sub[0];
  const Vec6 &h0 = ws.h_sub[0];
  h_G = to_centroidal(R, c0, h0);  // h_G = A_G ν  (D32)
  const bool dz = dh_dz.size() > 0, ag = A_G.size() > 0 || dz;
  if (!ag) return;
  const int n = model.num_dofs(), nv = moving ? 6 : 0;
  // A_G's columns: the base's X_G I^C_0, joint j's X_G I^C_j S_j (D32); the z_v, z_r columns of
  // dh_dz are A_G (h_G is linear in ν).
  auto write_A = [&](int col, const Vec6 &a) {
    if (A_G.size() > 0) A_G.col(col) = a;
    if (dz) dh_dz.col(n + col) = a;
  };
  if (moving)
    for (int e = 0; e < 6; ++e) write_A(e, to_centroidal(R, c0, ws.IC[0].col(e)));
  for (int j = 1; j <= model.n_B; ++j) {
    const Vec6 F = ws.IC[j] * ws.S0[j];
    write_A(model.dof(j), to_centroidal(R, c0, F));
  }
  if (!dz) return;
  if (moving) {  // z_H (D34): only the attitude turns h_G: δh_G = −[R k_f^; R k_n^] δθ
    const Vec6 k = to_centroidal(Mat3::Identity(), c0, h0);
    dh_dz.leftCols<3>().setZero();
    dh_dz.block<3, 3>(0, 3).noalias() = -R * hat(k.head<3>());
    dh_dz.block<3, 3>(3, 3).noalias() = -R * hat(k.tail<3>());
  }
  for (int j = 1; j <= model.n_B; ++j)
    dh_dz.col(nv + j - 1) = momentum_position_column(ws, j, R, c0, inv_m, h0);
}

}  // namespace geolin
