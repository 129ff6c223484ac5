// A frame's pose error, velocity and classical acceleration with their derivatives in z
// (docs/dynamics.md §11, (D35)-(D38); the kinematic derivatives of Carpentier & Mansard RSS 2018
// in frame 0, in the left-trivialized coordinates of Bos et al. 2022). Only the path from the
// base to the frame's body is visited.
//
// The change of each output y is a linear map of three frame-0 changes of the frame's body b, δy =
// G_a δa + G_v δv + G_x ξ, with δa, δv the changes of its acceleration and twist seen from the body
// (frame 0, the body's own displacement removed) and ξ the body's displacement; each column of z
// (and of ν̇) gives (δa, δv, ξ) in closed form (D36), (D38).
#include "geometry.hpp"
#include "passes.hpp"

namespace geolin {
namespace {

// The frame on its path, and the motion transform X from frame 0 to the output's axes: ^F X_0
// (Local), or for Mixed blockdiag(R_F, R_F) ^F X_0 = [[R, −R o^], [0, R]], R = R_F ^0R_Fᵀ the
// attitude of frame 0 and o the frame's origin in frame 0 (F's origin with the inertial axes).
struct FrameOnPath {
  int body = 0, count = 0;  // the frame's body, the bodies on the path (ws.path)
  Transform H0F, HF;        // ^0 H_F, ^A H_F
  Mat3 R_A0;                // the attitude of frame 0
  Mat6 X;                   // frame 0 => the output's axes
};

// (s, frame) => (ws.path, ws.H0, ws.S0 on the path; the frame)
FrameOnPath frame_on_path(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          int frame, bool mixed) {
  FrameOnPath f;
  f.body = model.frames[frame].body;
  f.count = detail::path_kinematics(model, ws, s, f.body);
  f.H0F = detail::frame_pose0(model, ws, frame);
  const Transform &H_A0 = model.fixed_base ? model.H_A_0 : H;
  f.HF = H_A0 * f.H0F;
  f.R_A0 = H_A0.R;
  f.X = mixed ? motion_transform(Transform{f.R_A0, -(f.R_A0 * f.H0F.o)})
              : motion_transform(f.H0F.inverse());
  return f;
}

// Twists, accelerations (gravity-free) and Ψ̇ on the path (D6): (v0, a0, r, ν̇) =>
// (ws.v, ws.Psi_dot on the path, ws.a[0]; ws.a on the path only when nu_dot is given: without
// it ws.a holds what an earlier call left, and the caller's OutputMaps says no acceleration).
void path_motion(const Model &model, Workspace &ws, const FrameOnPath &f, const Vec6 &v0, CRefVec r,
                 const Vec6 &a0, const double *nu_dot) {
  ws.v[0] = v0;
  ws.a[0] = a0;
  for (int k = 0; k < f.count; ++k) {
    const int i = ws.path[k], lam = model.parent[i];
    const Vec6 &S = ws.S0[i];
    ws.Psi_dot[i] = cross_motion(ws.v[lam], S);
    ws.v[i] = ws.v[lam] + S * r[i - 1];
    if (nu_dot) ws.a[i] = ws.a[lam] + S * nu_dot[model.dof(i)] + ws.Psi_dot[i] * r[i - 1];
  }
}

// The three maps of an output (6 rows): δy = Ga δa + Gv δv + Gx ξ (frame-0 arguments).
struct OutputMaps {
  Mat6 Ga = Mat6::Zero(), Gv = Mat6::Zero(), Gx = Mat6::Zero();
  bool velocity = true;       // whether y depends on ν (else the z_v, z_r columns are zero)
  bool acceleration = false;  // whether Ga is not zero: only then are the path's ws.a read
  bool displacement = false;  // whether Gx is not zero
};

// Zeroes the joint columns first + dof(j) of D for the joints j off the path, the columns the
// path's joints do not write (a path is numbered root first, so its dofs increase).
void zero_off_path(const Model &model, const FrameOnPath &f, const Workspace &ws, RefMat D,
                   int first) {
  int next = model.dof(1);
  for (int k = 0; k < f.count; ++k) {
    const int c = model.dof(ws.path[k]);
    D.middleCols(first + next, c - next).setZero();
    next = c + 1;
  }
  D.middleCols(first + next, model.dof(model.n_B) + 1 - next).setZero();
}

// The columns of dy/dz (6 x N), zero off the path (D36), (D38):
//   z_H (e_k):  ξ = e_k;
//   z_s_j:      δa = w_j + Ψ̇_j × v_b (w_j: acceleration_along_joint), δv = Ψ̇_j, ξ = S_j;
//   z_v (e_k):  δa = (v_0 − v_b) × e_k, δv = e_k;
//   z_r_j:      δa = 2 Ψ̇_j − v_b × S_j, δv = S_j.
// Reads ws.path, ws.S0; with G.velocity ws.v and ws.Psi_dot on the path; with G.acceleration
// also ws.a on the path. The δa terms are skipped, not multiplied by a zero Ga, without
// G.acceleration: ws.a is then not this call's (a velocity's), and 0 · Inf would be NaN.
// (ws: the path's kinematics, G) => (D, every entry)
void write_z_columns(const Model &model, const Workspace &ws, const FrameOnPath &f,
                     const OutputMaps &G, RefMat D) {
  const bool moving = !model.fixed_base;
  const int n = model.num_dofs();
  const Vec6 &vb = ws.v[f.body];
  zero_off_path(model, f, ws, D, 0);
  if (G.velocity)
    zero_off_path(model, f, ws, D, n);
  else
    D.rightCols(n).setZero();
  if (moving) {
    if (G.displacement)
      D.leftCols<6>() = G.Gx;
    else
      D.leftCols<6>().setZero();
  }
  for (int k = 0; k < f.count; ++k) {
    const int j = ws.path[k], c = model.dof(j);
    const Vec6 &S = ws.S0[j], &Pd = ws.Psi_dot[j];
    if (G.displacement)
      D.col(c).noalias() = G.Gx * S;
    else
      D.col(c).setZero();
    if (!G.velocity) continue;
    D.col(c).noalias() += G.Gv * Pd;
    D.col(n + c).noalias() = G.Gv * S;
    if (!G.acceleration) continue;
    const Vec6 da_s = detail::acceleration_along_joint(ws, j, Vec6::Zero()) + cross_motion(Pd, vb);
    D.col(c).noalias() += G.Ga * da_s;
    const Vec6 da_r = 2.0 * Pd - cross_motion(vb, S);
    D.col(n + c).noalias() += G.Ga * da_r;
  }
  if (moving && G.velocity) {
    D.middleCols<6>(n) = G.Gv;
    if (G.acceleration) D.middleCols<6>(n).noalias() += G.Ga * cross_motion(Vec6(ws.v[0] - vb));
  }
}

// The turn of Mixed axes with the frame (D36): δ(R_F y_F) = R_F δy_F − [y_lin^; y_ang^] R_F δθ_F
// for the output y = R_F y_F, with R_F δθ_F = R_A0 δθ_0, δθ_0 the angular part of ξ (frame 0).
void add_axes_turn(const Mat3 &R_A0, const Vec6 &y, OutputMaps &G) {
  G.Gx.topRightCorner<3, 3>().noalias() -= hat(y.head<3>()) * R_A0;
  G.Gx.bottomRightCorner<3, 3>().noalias() -= hat(y.tail<3>()) * R_A0;
  G.displacement = true;
}

}  // namespace

void frame_pose_error(const Model &model, Workspace &ws, const Transform &H, CRefVec s, int frame,
                      const Transform &H_ref, Vec6 &error, RefMat de_dz) {
  const FrameOnPath f = frame_on_path(model, ws, H, s, frame, false);
  error = log_se3(H_ref.inverse() * f.HF);  // (D35)
  if (de_dz.size() == 0) return;
  OutputMaps G;
  G.velocity = false;
  G.displacement = true;
  // (D35): δe = J_r⁻¹(e) ξ_F, ξ_F = ^F X_0 ξ the frame's own displacement
  G.Gx.noalias() = inverse_right_jacobian_se3(error) * f.X;
  write_z_columns(model, ws, f, G, de_dz);
}

void frame_velocity(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, int frame, unsigned flags, Vec6 &twist, RefMat dtwist_dz) {
  const bool mixed = (flags & kWrenchMixed) != 0;
  const FrameOnPath f = frame_on_path(model, ws, H, s, frame, mixed);
  path_motion(model, ws, f, model.fixed_base ? Vec6::Zero() : v, r, Vec6::Zero(), nullptr);
  twist = f.X * ws.v[f.body];  // ^F v_F = ^F X_0 v_b (D21), Mixed: rotated by R_F
  if (dtwist_dz.size() == 0) return;
  OutputMaps G;
  G.Gv = f.X;  // (D36): δ(^F v_F) = ^F X_0 δv
  if (mixed) add_axes_turn(f.R_A0, twist, G);
  write_z_columns(model, ws, f, G, dtwist_dz);
}

void frame_acceleration(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                        const Vec6 &v, CRefVec r, CRefVec nu_dot, int frame, unsigned flags,
                        Vec6 &acc, RefMat dacc_dz, RefMat dacc_dnudot) {
  const bool moving = !model.fixed_base, mixed = (flags & kWrenchMixed) != 0;
  const FrameOnPath f = frame_on_path(model, ws, H, s, frame, mixed);
  path_motion(model, ws, f, moving ? v : Vec6::Zero(), r,
              moving ? Vec6(nu_dot.head<6>()) : Vec6::Zero(), nu_dot.data());
  // The twist and its derivative in the output's axes (F's, or rotated by R_F for Mixed: the
  // cross product below turns with them).
  const Vec6 vF = f.X * ws.v[f.body], aF = f.X * ws.a[f.body];
  acc.head<3>() = detail::origin_acceleration(vF, aF);  // (D37): [p̈_F; ω̇]
  acc.tail<3>() = aF.tail<3>();
  OutputMaps G;
  G.Ga = f.X;  // (D38): δc = δa_F + [ω^ δv_lin − v_lin^ δω; 0], δ·_F = X δ·
  G.acceleration = true;
  G.Gv.topRows<3>().noalias() = hat(vF.tail<3>()) * f.X.topRows<3>();
  G.Gv.topRows<3>().noalias() -= hat(vF.head<3>()) * f.X.bottomRows<3>();
  if (mixed) add_axes_turn(f.R_A0, acc, G);
  if (dacc_dz.size() > 0) write_z_columns(model, ws, f, G, dacc_dz);
  if (dacc_dnudot.size() == 0) return;
  // ∂c/∂ν̇ = G_a J_b: the frame Jacobian in the output's axes (D38)
  zero_off_path(model, f, ws, dacc_dnudot, 0);
  if (moving) dacc_dnudot.leftCols<6>() = G.Ga;
  for (int k = 0; k < f.count; ++k) {
    const int j = ws.path[k];
    dacc_dnudot.col(model.dof(j)).noalias() = G.Ga * ws.S0[j];
  }
}

}  // namespace geolin
