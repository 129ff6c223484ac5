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

// The frame on its path: ^F X_0 and the attitude R_F of F in the inertial frame.
struct FrameOnPath {
  int body = 0, count = 0;  // the frame's body, the bodies on the path (ws.path)
  Transform H0F, HF;        // ^0 H_F, ^A H_F
  Mat6 X;                   // ^F X_0
};

// (s, frame) => (ws.path, ws.H0, ws.S0 on the path; the frame)
FrameOnPath frame_on_path(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                          int frame) {
  FrameOnPath f;
  f.body = model.frames[frame].body;
  f.count = detail::path_kinematics(model, ws, s, f.body);
  f.H0F = detail::frame_pose0(model, ws, frame);
  f.HF = (model.fixed_base ? model.H_A_0 : H) * f.H0F;
  f.X = motion_transform(f.H0F.inverse());
  return f;
}

// Twists, accelerations (gravity-free) and Ψ̇ on the path (D6): (v0, a0, r, ν̇) =>
// (ws.v, ws.a, ws.Psi_dot on the path); a is skipped when nu_dot is null.
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
  bool velocity = true;  // whether y depends on ν (else the z_v, z_r columns are zero)
};

// The columns of dy/dz (6 x N), zero off the path (D36), (D38):
//   z_H (e_k):  ξ = e_k;
//   z_s_j:      δa = w_j + Ψ̇_j × v_b (w_j: acceleration_along_joint), δv = Ψ̇_j, ξ = S_j;
//   z_v (e_k):  δa = (v_0 − v_b) × e_k, δv = e_k;
//   z_r_j:      δa = 2 Ψ̇_j − v_b × S_j, δv = S_j.
void write_z_columns(const Model &model, const Workspace &ws, const FrameOnPath &f,
                     const OutputMaps &G, RefMat D) {
  const bool moving = !model.fixed_base;
  const int n = model.num_dofs();
  const Vec6 &vb = ws.v[f.body];
  D.setZero();
  if (moving) D.leftCols<6>() = G.Gx;
  for (int k = 0; k < f.count; ++k) {
    const int j = ws.path[k], c = model.dof(j);
    const Vec6 &S = ws.S0[j], &Pd = ws.Psi_dot[j];
    D.col(c).noalias() = G.Gx * S;
    if (!G.velocity) continue;
    const Vec6 da_s = detail::acceleration_along_joint(ws, j, Vec6::Zero()) + cross_motion(Pd, vb);
    D.col(c).noalias() += G.Ga * da_s + G.Gv * Pd;
    const Vec6 da_r = 2.0 * Pd - cross_motion(vb, S);
    D.col(n + c).noalias() = G.Ga * da_r + G.Gv * S;
  }
  if (moving && G.velocity) {
    D.middleCols<6>(n).noalias() = G.Ga * cross_motion(Vec6(ws.v[0] - vb));
    D.middleCols<6>(n) += G.Gv;
  }
}

// The rotation of a Local 6-vector y_F (in F's axes) to the inertial axes, and its derivative
// along a turn δθ of F (D36): δ(R_F y) = R_F δy − [R_F y_1^; R_F y_2^] δθ, δθ the angular part of
// ^F X_0 ξ. (maps of y_F) => (maps of R_F y_F)
void to_mixed(const Mat3 &R_F, const Mat6 &X, const Vec6 &y_F, OutputMaps &G) {
  for (Mat6 *M : {&G.Ga, &G.Gv, &G.Gx}) {
    M->topRows<3>() = (R_F * M->topRows<3>()).eval();
    M->bottomRows<3>() = (R_F * M->bottomRows<3>()).eval();
  }
  Eigen::Matrix<double, 6, 3> T;
  T.topRows<3>().noalias() = -R_F * hat(y_F.head<3>());
  T.bottomRows<3>().noalias() = -R_F * hat(y_F.tail<3>());
  G.Gx.noalias() += T * X.bottomRows<3>();
}

Vec6 rotate(const Mat3 &R, const Vec6 &y) {
  Vec6 out;
  out.head<3>().noalias() = R * y.head<3>();
  out.tail<3>().noalias() = R * y.tail<3>();
  return out;
}

}  // namespace

void frame_pose_error(const Model &model, Workspace &ws, const Transform &H, CRefVec s, int frame,
                      const Transform &H_ref, Vec6 &error, RefMat de_dz) {
  const FrameOnPath f = frame_on_path(model, ws, H, s, frame);
  error = log_se3(H_ref.inverse() * f.HF);  // (D35)
  if (de_dz.size() == 0) return;
  OutputMaps G;
  G.velocity = false;
  // (D35): δe = J_r⁻¹(e) ξ_F, ξ_F = ^F X_0 ξ the frame's own displacement
  G.Gx.noalias() = inverse_right_jacobian_se3(error) * f.X;
  write_z_columns(model, ws, f, G, de_dz);
}

void frame_velocity(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                    CRefVec r, int frame, unsigned flags, Vec6 &twist, RefMat dtwist_dz) {
  const FrameOnPath f = frame_on_path(model, ws, H, s, frame);
  path_motion(model, ws, f, model.fixed_base ? Vec6::Zero() : v, r, Vec6::Zero(), nullptr);
  const Vec6 vF = f.X * ws.v[f.body];  // ^F v_F = ^F X_0 v_b  (D21)
  const bool mixed = (flags & kWrenchMixed) != 0;
  twist = mixed ? rotate(f.HF.R, vF) : vF;
  if (dtwist_dz.size() == 0) return;
  OutputMaps G;
  G.Gv = f.X;  // (D36): δ(^F v_F) = ^F X_0 δv
  if (mixed) to_mixed(f.HF.R, f.X, vF, G);
  write_z_columns(model, ws, f, G, dtwist_dz);
}

void frame_acceleration(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                        const Vec6 &v, CRefVec r, CRefVec nu_dot, int frame, unsigned flags,
                        Vec6 &acc, RefMat dacc_dz, RefMat dacc_dnudot) {
  const FrameOnPath f = frame_on_path(model, ws, H, s, frame);
  const bool moving = !model.fixed_base;
  path_motion(model, ws, f, moving ? v : Vec6::Zero(), r,
              moving ? Vec6(nu_dot.head<6>()) : Vec6::Zero(), nu_dot.data());
  const Vec6 vF = f.X * ws.v[f.body], aF = f.X * ws.a[f.body];
  Vec6 cF;  // (D37): [p̈_F; ω̇] in F's axes
  cF.head<3>() = detail::origin_acceleration(vF, aF);
  cF.tail<3>() = aF.tail<3>();
  const bool mixed = (flags & kWrenchMixed) != 0;
  acc = mixed ? rotate(f.HF.R, cF) : cF;
  OutputMaps G;
  G.Ga = f.X;  // (D38): δc = δa_F + [ω^ δv_lin − v_lin^ δω; 0], δ·_F = ^F X_0 δ·
  Mat6 W = Mat6::Zero();
  W.topLeftCorner<3, 3>() = hat(vF.tail<3>());
  W.topRightCorner<3, 3>() = -hat(vF.head<3>());
  G.Gv.noalias() = W * f.X;
  if (mixed) to_mixed(f.HF.R, f.X, cF, G);
  if (dacc_dz.size() > 0) write_z_columns(model, ws, f, G, dacc_dz);
  if (dacc_dnudot.size() == 0) return;
  // ∂c/∂ν̇ = G_a J_b: the frame Jacobian in the output's axes (D38)
  dacc_dnudot.setZero();
  if (moving) dacc_dnudot.leftCols<6>() = G.Ga;
  for (int k = 0; k < f.count; ++k) {
    const int j = ws.path[k];
    dacc_dnudot.col(model.dof(j)).noalias() = G.Ga * ws.S0[j];
  }
}

}  // namespace geolin
