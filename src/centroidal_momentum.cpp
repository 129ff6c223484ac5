// The centroidal momentum h_G, the centroidal momentum matrix A_G (D. E. Orin, A. Goswami,
// S.-H. Lee, "Centroidal dynamics of a humanoid robot", Autonomous Robots 2013) and the
// derivative of h_G in z (docs/dynamics.md §11, (D32)-(D34)). Only what the requested outputs
// need is formed: h_G alone from the poses and the twists, without any inertia in frame 0,
// summed in frame 0 and moved to the centre of mass and the inertial axes at the end; A_G from
// the composite inertias of CRBA (RBDA Table 6.2) as 10 numbers each (m, m c, Ī), the 6x6
// matrices never formed, with the poses in the inertial axes; dh_dz adds the subtree momenta
// from A_G's columns, in the same axes.
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace {

using CompactInertia = Workspace::CompactInertia;

// The frame-0 momentum about frame 0's origin, h_0 = Σ_k M_k v_k (D32), body by body from the
// poses and the twists: body k's momentum is [m_k ṗ_k; p_k × m_k ṗ_k + R_k I_k R_kᵀ ω_k] with p_k
// its centre of mass and ṗ_k = v_k,lin + ω_k × p_k, so no inertia is turned into frame 0 (3x3
// products instead of R I Rᵀ). (s, v0, r) => (ws.H0, ws.S0, ws.v); m and mc: the robot's mass and
// first moment (frame 0).
Vec6 momentum_from_twists(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v0, CRefVec r,
                          double &m, Vec3 &mc) {
  detail::forward_poses(model, ws, s);
  ws.v[0] = v0;
  Vec3 lin = Vec3::Zero(), ang = Vec3::Zero();
  m = 0.0;
  mc.setZero();
  for (int k = 0; k <= model.n_B; ++k) {
    if (k > 0) ws.v[k] = ws.v[model.parent[k]] + ws.S0[k] * r[k - 1];  // (D6)
    const Transform &X = ws.H0[k];
    const Vec3 w = ws.v[k].tail<3>(), p = X.apply(model.com[k]);
    const Vec3 mpd = model.mass[k] * (ws.v[k].head<3>() + w.cross(p));  // m_k ṗ_k
    const Vec3 wk = X.R.transpose() * w;                                // ω_k in body axes
    lin += mpd;
    ang += p.cross(mpd);
    ang.noalias() += X.R * (model.inertia_com[k] * wk);
    m += model.mass[k];
    mc += model.mass[k] * p;
  }
  Vec6 h;
  h << lin, ang;
  return h;
}

// CRBA's composite inertias in 10 numbers and the columns I^C_i S_i (D8), in the axes of the
// poses: (ws.H0, ws.S0) => (ws.IC_compact = I^C_i, ws.SI_row = I^C_i S_i)
void composite_columns(const Model &model, Workspace &ws) {
  auto &IC = ws.IC_compact;
  for (int i = 0; i <= model.n_B; ++i) IC[i] = detail::body_inertia0(model, ws.H0[i], i);
  for (int i = model.n_B; i >= 1; --i) {  // I^C_λ(i) += I^C_i  (D8)
    CompactInertia &P = IC[model.parent[i]];
    P.m += IC[i].m;
    P.h += IC[i].h;
    P.I += IC[i].I;
  }
  for (int i = 1; i <= model.n_B; ++i) ws.SI_row[i] = detail::inertia_times(IC[i], ws.S0[i]);
}

// [f; n − c × f]: a momentum about frame 0's origin taken about the point c (same axes).
GEOLIN_ALWAYS_INLINE Vec6 about(const Vec3 &c, const Vec6 &h) {
  Vec6 out;
  out.head<3>() = h.head<3>();
  out.tail<3>() = h.tail<3>() - c.cross(h.head<3>());
  return out;
}

// A_G (D32) with the poses in the inertial axes (forward_poses_in_axes): the composites and the
// columns I^C_j S_j are then already in the axes of h_G, and each column is only moved to the
// centre of mass, [f; n − c × f], instead of also turned by R (6 products per column, not 24).
// The base's columns take the base twist in frame-0 axes: X_G I^C_0 diag(R, R). The z_v, z_r
// columns of dh_dz are A_G (h_G is linear in ν). Returns h_0 = I^C_0 v_0 + Σ_j I^C_j S_j r_j
// about frame 0's origin, inertial axes. (s, R, vA = the base twist in those axes, r) =>
// (ws.H0, ws.S0, ws.IC_compact, ws.SI_row, in the inertial axes; A_G and dh_dz's z_v, z_r
// columns where not empty)
Vec6 momentum_matrix_in_axes(const Model &model, Workspace &ws, CRefVec s, const Mat3 &R,
                             const Vec6 &vA, CRefVec r, RefMat A_G, RefMat dh_dz) {
  detail::forward_poses_in_axes(model, ws, s, R);
  composite_columns(model, ws);
  const CompactInertia &I0 = ws.IC_compact[0];
  const Vec3 c = I0.h / I0.m;  // p_c − o_0 in the inertial axes
  const int n = model.num_dofs();
  const bool a = A_G.size() > 0, dz = dh_dz.size() > 0;
  auto write_A = [&](int col, const Vec6 &column) {
    if (a) A_G.block<6, 1>(0, col) = column;  // fixed-size stores
    if (dz) dh_dz.block<6, 1>(0, n + col) = column;
  };
  Vec6 h0 = detail::inertia_times(I0, vA);
  if (!model.fixed_base && (a || dz)) {
    for (int e = 0; e < 6; ++e) {
      Vec6 x = Vec6::Zero();
      x.segment<3>(e < 3 ? 0 : 3) = R.col(e % 3);
      write_A(e, about(c, detail::inertia_times(I0, x)));
    }
  }
  for (int j = 1; j <= model.n_B; ++j) {
    h0 += ws.SI_row[j] * r[j - 1];
    if (a || dz) write_A(model.dof(j), about(c, ws.SI_row[j]));
  }
  return h0;
}

// The subtree momenta for dh_dz from the composites: h^C_j = I^C_j v_λ(j) + Σ_{i ∈ subtree(j)}
// I^C_i S_i r_i (every body of the subtree moves with v_λ(j) plus the rates of the joints on its
// way from j), in the axes of the poses, v0 the base twist in them. (ws.IC_compact, ws.SI_row,
// ws.S0, v0, r) => (ws.v, ws.Psi_dot, ws.h_sub, ws.m_sub, ws.mc_sub)
void subtree_momenta(const Model &model, Workspace &ws, const Vec6 &v0, CRefVec r) {
  ws.v[0] = v0;
  ws.h_sub[0].setZero();
  for (int k = 1; k <= model.n_B; ++k) {
    const int lam = model.parent[k];
    ws.Psi_dot[k] = cross_motion(ws.v[lam], ws.S0[k]);  // Ψ̇_k = v_λ(k) × S_k
    ws.v[k] = ws.v[lam] + ws.S0[k] * r[k - 1];          // (D6)
    ws.h_sub[k] = ws.SI_row[k] * r[k - 1];
  }
  for (int k = model.n_B; k >= 1; --k) ws.h_sub[model.parent[k]] += ws.h_sub[k];
  ws.h_sub[0] += detail::inertia_times(ws.IC_compact[0], v0);
  for (int k = 0; k <= model.n_B; ++k) {
    const CompactInertia &I = ws.IC_compact[k];
    if (k > 0) ws.h_sub[k] += detail::inertia_times(I, ws.v[model.parent[k]]);
    ws.m_sub[k] = I.m;
    ws.mc_sub[k] = I.h;
  }
}

// A frame-0 momentum (about frame 0's origin) as a centroidal one: about c0, then in inertial
// axes (D32): [R f; R (n − c0 × f)].
GEOLIN_ALWAYS_INLINE Vec6 to_centroidal(const Mat3 &R, const Vec3 &c0, const Vec6 &h) {
  Vec6 out;
  out.head<3>().noalias() = R * h.head<3>();
  out.tail<3>().noalias() = R * (h.tail<3>() - c0.cross(h.head<3>()));
  return out;
}

// dh_dz's z_s column of joint j (D33): the subtree of j turns by S_j, its momentum by
// δh = S_j ×* h^C_j + I^C_j Ψ̇_j, and the centre of mass moves by δc (D31), so
// δk = [δh_f; δh_n − δc × h_f − c × δh_f] about the moving centre of mass (inertial axes).
Vec6 momentum_position_column(const Workspace &ws, int j, const Vec3 &c, double inv_m,
                              const Vec6 &h0) {
  Vec6 dh = cross_force(ws.S0[j], ws.h_sub[j]);
  dh += detail::inertia_times(ws.IC_compact[j], ws.Psi_dot[j]);
  const Vec3 dc = inv_m * detail::com_joint_column(ws, j);
  Vec6 out = about(c, dh);
  out.tail<3>() -= dc.cross(h0.head<3>());
  return out;
}

// dh_dz's z_H and z_s columns (D33), (D34), after subtree_momenta in the inertial axes; its z_v,
// z_r columns are A_G.
void momentum_position_columns(const Model &model, const Workspace &ws, const Mat3 &R,
                               const Vec3 &c, const Vec6 &h0, RefMat dh_dz) {
  const double inv_m = 1.0 / ws.m_sub[0];
  const int nv = model.fixed_base ? 0 : 6;
  if (!model.fixed_base) {
    // z_H (D34): only the attitude turns h_G: δh_G = −[R k_f^; R k_n^] δθ with k in frame-0
    // axes, = −[k_f^ R; k_n^ R] δθ with k = h_G in the inertial axes
    const Vec6 k = about(c, h0);
    dh_dz.leftCols<3>().setZero();
    dh_dz.block<3, 3>(0, 3).noalias() = -hat(k.head<3>()) * R;
    dh_dz.block<3, 3>(3, 3).noalias() = -hat(k.tail<3>()) * R;
  }
  for (int j = 1; j <= model.n_B; ++j)
    dh_dz.block<6, 1>(0, nv + j - 1) = momentum_position_column(ws, j, c, inv_m, h0);
}

}  // namespace

void centroidal_momentum(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                         const Vec6 &v, CRefVec r, Vec6 &h_G, RefMat A_G, RefMat dh_dz) {
  const bool moving = !model.fixed_base;
  const Vec6 v0 = moving ? v : Vec6::Zero();
  const Mat3 &R = moving ? H.R : model.H_A_0.R;
  const bool dz = dh_dz.size() > 0, ag = A_G.size() > 0 || dz;
  if (!ag) {  // h_G alone: no composite inertia
    double m;
    Vec3 mc;
    const Vec6 h0 = momentum_from_twists(model, ws, s, v0, r, m, mc);
    h_G = to_centroidal(R, mc / m, h0);  // (D32)
    return;
  }
  Vec6 vA;  // the base twist in the inertial axes
  vA << R * v0.head<3>(), R * v0.tail<3>();
  const Vec6 h0 = momentum_matrix_in_axes(model, ws, s, R, vA, r, A_G, dh_dz);
  const CompactInertia &I0 = ws.IC_compact[0];
  const Vec3 c = I0.h / I0.m;
  h_G = about(c, h0);  // h_G = A_G ν (D32)
  if (!dz) return;
  subtree_momenta(model, ws, vA, r);
  momentum_position_columns(model, ws, R, c, h0, dh_dz);
}

}  // namespace geolin
