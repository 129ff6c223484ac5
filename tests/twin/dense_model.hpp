// A dense, readable twin of geolin: the same quantities as the fast recursive functions of
// include/geolin/algorithms.hpp, formed explicitly with dense Eigen matrices from their
// definitions in docs/dynamics.md and docs/contacts.md, for clarity and not for speed.
//
// Nothing here calls geolin's algorithms: the twin reads only the tree, the joints, the inertias
// and the frames of a geolin::Model (include/geolin/model.hpp) and the Transform type. The
// motion subspaces and the spatial inertias are rebuilt from the joint axes and from
// (m, c, I_c); exp and log of SE(3) are the matrix exponential and logarithm of Eigen's
// MatrixFunctions module. tests/test_twin.cpp compares every fast function with it.
//
// How to read it: §1 spatial algebra, §2 kinematics and Jacobians (with their derivatives by
// Lie brackets of the joint screws), §3 the dynamics M, C ν + G, ID and FD, §4 the derivatives of
// ID and the linearization A, B, §5 contacts and their linearization, §6 the discrete step and
// its linearization. Each line cites the section of the docs it implements.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <Eigen/LU>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "geolin/model.hpp"

namespace geolin::twin {

using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

// =============================================================================================
// §1 Spatial algebra (docs/dynamics.md §1, EG notation). Twists linear first, wrenches force
// first.
// =============================================================================================

/// ω^, the skew matrix with ω^ x = ω × x.
inline Mat3 skew(const Vec3 &w) {
  Mat3 W;
  W << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return W;
}

/// ^C X_D = [[R, o^ R], [0, R]] for ^C H_D = (R, o): twists from D to C (docs/dynamics.md §1,
/// "Changing frames").
inline Mat6 twist_transform(const Transform &T) {
  Mat6 X = Mat6::Zero();
  X.topLeftCorner<3, 3>() = T.R;
  X.topRightCorner<3, 3>() = skew(T.o) * T.R;
  X.bottomRightCorner<3, 3>() = T.R;
  return X;
}

/// v× = [[ω^, v_lin^], [0, ω^]], the Lie bracket ad_v (docs/dynamics.md §1, "Cross products").
inline Mat6 cross_motion(const Vec6 &v) {
  Mat6 X = Mat6::Zero();
  X.topLeftCorner<3, 3>() = skew(v.tail<3>());
  X.topRightCorner<3, 3>() = skew(v.head<3>());
  X.bottomRightCorner<3, 3>() = skew(v.tail<3>());
  return X;
}

/// v×* = −(v×)ᵀ, on wrenches (docs/dynamics.md §1).
inline Mat6 cross_force(const Vec6 &v) {
  return -cross_motion(v).transpose();
}

/// The matrix of the linear map u ↦ u ×* h (h fixed), built column by column.
inline Mat6 cross_force_of(const Vec6 &h) {
  Mat6 X;
  for (int k = 0; k < 6; ++k) X.col(k) = cross_force(Vec6::Unit(k)) * h;
  return X;
}

/// blkdiag(R, R): turns both halves of a twist or wrench (docs/contacts.md §1, MIXED rows).
inline Mat6 both_halves(const Mat3 &R) {
  Mat6 T = Mat6::Zero();
  T.topLeftCorner<3, 3>() = R;
  T.bottomRightCorner<3, 3>() = R;
  return T;
}

/// u^ = [[ω^, v_lin], [0, 0]] ∈ se(3) and its inverse ∨ (docs/dynamics.md §1).
inline Mat4 hat(const Vec6 &u) {
  Mat4 U = Mat4::Zero();
  U.topLeftCorner<3, 3>() = skew(u.tail<3>());
  U.topRightCorner<3, 1>() = u.head<3>();
  return U;
}
inline Vec6 vee(const Mat4 &U) {
  Vec6 u;
  u << U(0, 3), U(1, 3), U(2, 3), U(2, 1), U(0, 2), U(1, 0);
  return u;
}

/// exp(u^) and log as the matrix exponential and logarithm (no closed forms to get wrong).
inline Transform exp_twist(const Vec6 &u) {
  const Mat4 E = hat(u).exp();
  return Transform::from_matrix(E);
}
inline Vec6 log_twist(const Transform &T) {
  const Mat4 L = T.matrix().log();
  return vee(L);
}

/// The right Jacobian of exp, exp(u + δ) = exp(u) exp(J_r(u) δ) to first order
/// (docs/dynamics.md §8): J_r(u) = Σ_k (−u×)^k / (k+1)!, summed until the terms vanish.
inline Mat6 right_jacobian(const Vec6 &u) {
  const Mat6 X = -cross_motion(u);
  Mat6 J = Mat6::Identity(), term = Mat6::Identity();
  for (int k = 1; k < 60 && term.cwiseAbs().maxCoeff() > 1e-18; ++k) {
    term = term * X / double(k + 1);
    J += term;
  }
  return J;
}

/// The motion subspace S_i (frame i): [0; a] revolute and continuous, [a; 0] prismatic
/// (docs/dynamics.md §2, "Frames of a joint").
inline Vec6 joint_screw(const Model &m, int i) {
  Vec6 S = Vec6::Zero();
  if (m.joint_type[i] == JointType::Prismatic)
    S.head<3>() = m.joint_axis[i];
  else
    S.tail<3>() = m.joint_axis[i];
  return S;
}

/// M_i = [[m 1, −m c^], [m c^, I_c − m c^ c^]] (docs/dynamics.md §1, "Inertia").
inline Mat6 spatial_inertia(const Model &m, int i) {
  const Mat3 C = skew(m.com[i]);
  Mat6 I;
  I << m.mass[i] * Mat3::Identity(), -m.mass[i] * C, m.mass[i] * C,
      m.inertia_com[i] - m.mass[i] * C * C;
  return I;
}

// =============================================================================================
// Inputs of the twin: external wrenches (docs/dynamics.md §7) and contacts (docs/contacts.md §1).
// =============================================================================================

struct Wrenches {
  std::vector<int> frames;
  std::vector<Vec6> values;  // [force; torque] at the frame origin
  bool mixed = false;        // axes parallel to A (true) or the frame's own (false)
};

struct Contact {
  int frame = 0;
  int rows = 3;   // 3: point, 6: rigid
  Transform ref;  // H_ref (a point uses its translation)
};

struct Contacts {
  std::vector<Contact> list;
  bool mixed = false;
  double Kp = 0.0, Kd = 0.0;
  int rows() const {
    int m = 0;
    for (const Contact &c : list) m += c.rows;
    return m;
  }
};

struct IdDerivatives {
  MatX ds;      // ∂ID/∂s, n × n_J
  MatX dnu;     // ∂ID/∂ν, n × n
  MatX dtheta;  // ∂ID/∂δθ, n × 3: a rotation δθ of the base in base axes (moving base)
};

struct Linearization {
  MatX A, B;
  VecX nu_dot;
};

struct ContactSolution {
  VecX nu_dot, lambda;
  MatX Jc;      // m × n
  MatX Lambda;  // (J_c M⁻¹ J_cᵀ)⁻¹
};

struct ContactLinearization {
  MatX A, B, dlambda_dz, dlambda_dw;
};

// =============================================================================================
// The model at one state (H, s, ν): kinematics, dynamics, derivatives, contacts.
// =============================================================================================

class DenseModel {
 public:
  /// ν = [v; r] (fixed base: r); g in the inertial frame A.
  DenseModel(const Model &model, const Vec3 &g, const Transform &H, const VecX &s, const VecX &nu)
      : m_(model), g_(g), H_(model.fixed_base ? model.H_A_0 : H), s_(s), nu_(nu) {
    base_frame_poses();
    for (int i = 0; i <= m_.n_B; ++i) J_.push_back(frame_jacobian(i, Transform::identity()));
  }

  int n() const { return m_.num_dofs(); }
  int nj() const { return m_.n_B; }
  int N() const { return 2 * n(); }
  bool moving() const { return !m_.fixed_base; }
  const VecX &nu() const { return nu_; }
  VecX r() const { return nu_.tail(nj()); }

  // ------------------------------------------------------------------------------------------
  // §2 Kinematics (docs/dynamics.md §2, §7)
  // ------------------------------------------------------------------------------------------

  /// ^0 H_i = ^0 H_λ(i) ^λ(i) H_λ(i)|i exp(s_i S_i^) (docs/dynamics.md §2).
  void base_frame_poses() {
    pose0_.assign(m_.n_B + 1, Transform::identity());
    for (int i = 1; i <= m_.n_B; ++i)
      pose0_[i] =
          pose0_[m_.parent[i]] * m_.H_parent_joint[i] * exp_twist(s_[i - 1] * joint_screw(m_, i));
  }

  /// ^A H_i = H ^0 H_i (fixed base: H = model.H_A_0) (docs/dynamics.md §7).
  Transform world_pose(int body) const { return H_ * pose0_[body]; }
  Transform frame_world_pose(int frame) const {
    return world_pose(m_.frames[frame].body) * m_.frames[frame].H;
  }

  /// The joints on the path from the base to `body`, body first.
  std::vector<int> path(int body) const {
    std::vector<int> p;
    for (int j = body; j > 0; j = m_.parent[j]) p.push_back(j);
    return p;
  }

  /// J_F = ^F X_0 [1₆, ^0S_l …] (6 × n), ^F v_F = J_F ν, for the frame ^b H_F on body b
  /// (docs/dynamics.md §7): base columns (moving base) and one column per joint on the path.
  MatX frame_jacobian(int body, const Transform &H_b_F) const {
    const Mat6 X_F0 = twist_transform((pose0_[body] * H_b_F).inverse());
    MatX J = MatX::Zero(6, n());
    if (moving()) J.leftCols(6) = X_F0;
    for (int j : path(body))
      J.col(m_.dof(j)) = X_F0 * twist_transform(pose0_[j]) * joint_screw(m_, j);
    return J;
  }
  MatX frame_jacobian(int frame) const {
    return frame_jacobian(m_.frames[frame].body, m_.frames[frame].H);
  }
  /// The body Jacobian J_i: ^i v_i = J_i ν.
  const MatX &body_jacobian(int i) const { return J_[i]; }

  /// Whether joint j is a strict ancestor of joint k.
  bool strictly_before(int j, int k) const {
    for (int a = m_.parent[k]; a > 0; a = m_.parent[a])
      if (a == j) return true;
    return false;
  }

  /// The columns of J that turning joint k moves: the base and the joints strictly before k.
  MatX columns_before(const MatX &J, int k) const {
    MatX P = MatX::Zero(6, n());
    if (moving()) P.leftCols(6) = J.leftCols(6);
    for (int j = 1; j <= nj(); ++j)
      if (strictly_before(j, k)) P.col(m_.dof(j)) = J.col(m_.dof(j));
    return P;
  }

  /// ∂J_F/∂s_k = −(J_F e_k)× J_F P_{≺k}. Column l of J_F is ^F X_l S_l; turning joint k (on the
  /// path) turns ^F X_l by −(^F S_k)× for every l before k, and leaves the others: the Lie
  /// bracket of the joint screws (docs/contacts.md §5.2, "∂(^F v_F)/∂z_{s,j} = ^F X_0 Ψ̇_j").
  MatX dJ_ds(const MatX &J, int k) const {
    return -cross_motion(J.col(m_.dof(k))) * columns_before(J, k);
  }

  /// ∂²J_F/∂s_l ∂s_k: the product rule on the bracket above, with dJ_l = ∂J_F/∂s_l.
  MatX d2J_ds2(const MatX &J, const MatX &dJ_l, int k) const {
    return -cross_motion(dJ_l.col(m_.dof(k))) * columns_before(J, k) -
           cross_motion(J.col(m_.dof(k))) * columns_before(dJ_l, k);
  }

  /// J̇_F = Σ_k ṡ_k ∂J_F/∂s_k: J depends on s only (docs/contacts.md §2, J̇_F ν).
  MatX J_dot(const MatX &J, int body) const {
    MatX Jd = MatX::Zero(6, n());
    for (int k : path(body)) Jd += r()[k - 1] * dJ_ds(J, k);
    return Jd;
  }

  /// ∂(J̇_F ν)/∂ν = J̇_F + Σ_k (∂J_F/∂s_k ν) e_kᵀ (J̇_F is linear in r = ṡ, and J̇_F ν in ν).
  MatX dJdot_nu_dnu(const MatX &J, int body) const {
    MatX D = J_dot(J, body);
    for (int k : path(body)) D.col(m_.dof(k)) += dJ_ds(J, k) * nu_;
    return D;
  }

  /// ∂(J_F ν̇ + J̇_F ν)/∂s_k, at fixed ν̇ and ν: the frame's acceleration along z_s,k.
  Vec6 dacc_ds(const MatX &J, int body, int k, const VecX &nu_dot) const {
    Vec6 d = dJ_ds(J, k) * nu_dot;
    for (int l : path(body)) d += r()[l - 1] * d2J_ds2(J, dJ_ds(J, l), k) * nu_;
    return d;
  }

  // ------------------------------------------------------------------------------------------
  // §3 Dynamics (docs/dynamics.md §3, §7)
  // ------------------------------------------------------------------------------------------

  /// The bodies that move: 0 … n_B for a moving base, 1 … n_B for a fixed base.
  int first_moving_body() const { return moving() ? 0 : 1; }

  /// M = Σ_i J_iᵀ M_i J_i: ½ νᵀ M ν is the kinetic energy (docs/dynamics.md §3; what CRBA,
  /// RBDA ch. 6, computes recursively).
  /// Plus the rotors' diag(0_6, armature) (fixed base: diag(armature)): ½ Σ_j armature_j r_j² is
  /// their kinetic energy (docs/dynamics.md (D50)).
  MatX mass_matrix() const {
    MatX M = MatX::Zero(n(), n());
    for (int i = first_moving_body(); i <= nj(); ++i)
      M += J_[i].transpose() * spatial_inertia(m_, i) * J_[i];
    M.bottomRightCorner(nj(), nj()).diagonal() += m_.armature;
    return M;
  }

  /// g_i = [R_{A,i}ᵀ g; 0]: gravity as an acceleration of body i, in its axes (docs/dynamics.md
  /// §3: gravity enters as a fictitious acceleration).
  Vec6 gravity_in(int body) const {
    Vec6 gi = Vec6::Zero();
    gi.head<3>() = world_pose(body).R.transpose() * g_;
    return gi;
  }

  /// The Newton–Euler wrench of body i, φ_i = M_i a_i + v_i ×* (M_i v_i) (docs/dynamics.md §1),
  /// with v_i = J_i ν and a_i = J_i ν̇ + J̇_i ν − g_i.
  Vec6 body_wrench(int i, const VecX &nu_dot) const {
    const Mat6 Mi = spatial_inertia(m_, i);
    const Vec6 v = J_[i] * nu_;
    const Vec6 a = J_[i] * nu_dot + J_dot(J_[i], i) * nu_ - gravity_in(i);
    return Mi * a + cross_force(v) * (Mi * v);
  }

  /// The bias h = C(s, ν) ν + G(H, s) = Σ_i J_iᵀ φ_i(ν̇ = 0) (docs/dynamics.md §3).
  VecX bias() const {
    VecX h = VecX::Zero(n());
    for (int i = first_moving_body(); i <= nj(); ++i)
      h += J_[i].transpose() * body_wrench(i, VecX::Zero(n()));
    return h;
  }

  /// S D r: URDF joint damping, τ → τ − D r (docs/dynamics.md §3).
  VecX damping_force() const {
    VecX d = VecX::Zero(n());
    if (m_.joint_damping)
      for (int i = 1; i <= nj(); ++i) d[m_.dof(i)] = m_.damping[i] * r()[i - 1];
    return d;
  }

  /// A wrench in the frame's own axes: Mixed ones are turned by blkdiag(R_Fᵀ, R_Fᵀ)
  /// (docs/dynamics.md §7).
  Vec6 local_wrench(const Wrenches &W, int w) const {
    if (!W.mixed) return W.values[w];
    return both_halves(frame_world_pose(W.frames[w]).R.transpose()) * W.values[w];
  }

  /// Σ_F J_Fᵀ f_F, the generalized force of the external wrenches (docs/dynamics.md §7).
  VecX wrench_force(const Wrenches &W) const {
    VecX f = VecX::Zero(n());
    for (size_t w = 0; w < W.frames.size(); ++w)
      f += frame_jacobian(W.frames[w]).transpose() * local_wrench(W, int(w));
    return f;
  }

  /// S: joint torques as generalized forces, [0_{6×n_J}; 1] (fixed base: 1) (docs/dynamics.md §3).
  MatX S() const {
    MatX Sm = MatX::Zero(n(), nj());
    Sm.bottomRows(nj()).setIdentity();
    return Sm;
  }

  /// ID(ν̇) = M ν̇ + C ν + G + S D r − Σ J_Fᵀ f_F, what RNEA returns ([f_0; τ]), M with the armature
  /// (docs/dynamics.md §3, §7).
  VecX inverse_dynamics(const VecX &nu_dot, const Wrenches &W = {}) const {
    VecX id = damping_force() - wrench_force(W);
    for (int i = first_moving_body(); i <= nj(); ++i)
      id += J_[i].transpose() * body_wrench(i, nu_dot);
    id.tail(nj()) += m_.armature.cwiseProduct(nu_dot.tail(nj()));  // the rotors' torques (D50)
    return id;
  }

  /// FD = M⁻¹ (S τ − S D r − C ν − G + Σ J_Fᵀ f_F) (docs/dynamics.md §3, §7), by a dense
  /// Cholesky factorization of M.
  VecX forward_dynamics(const VecX &tau, const Wrenches &W = {}) const {
    const VecX rhs = S() * tau - damping_force() - bias() + wrench_force(W);
    return mass_matrix().llt().solve(rhs);
  }

  // ------------------------------------------------------------------------------------------
  // §4 Derivatives of ID and the linearization (docs/dynamics.md §4, §7)
  // ------------------------------------------------------------------------------------------

  /// ∂ID/∂s, ∂ID/∂ν and ∂ID/∂δθ of ID = Σ_i J_iᵀ φ_i + S D r − Σ_F J_Fᵀ f_F, differentiated
  /// term by term (the dense counterpart of Carpentier & Mansard 2018, docs/dynamics.md §4).
  IdDerivatives id_derivatives(const VecX &nu_dot, const Wrenches &W = {}) const {
    IdDerivatives D{MatX::Zero(n(), nj()), MatX::Zero(n(), n()), MatX::Zero(n(), 3)};
    for (int i = first_moving_body(); i <= nj(); ++i) add_body_derivatives(i, nu_dot, D);
    for (int i = 1; i <= nj(); ++i)
      if (m_.joint_damping) D.dnu(m_.dof(i), m_.dof(i)) += m_.damping[i];
    for (size_t w = 0; w < W.frames.size(); ++w) add_wrench_derivatives(W, int(w), D);
    return D;
  }

  /// Body i's share: ∂(J_iᵀ φ_i) with φ_i = M_i (J_i ν̇ + J̇_i ν − g_i) + v_i ×* M_i v_i.
  /// ∂(v ×* M v)/∂v = v×* M + (· ×* M v); ∂g_i/∂s_k = −(J_i e_k)× g_i (g_i is ^iX_0 g_0);
  /// a base rotation δθ turns body i by ^iR_0 δθ, so ∂g_i/∂δθ = [g_lin^ ^iR_0; 0].
  void add_body_derivatives(int i, const VecX &nu_dot, IdDerivatives &D) const {
    const MatX &J = J_[i];
    const Mat6 Mi = spatial_inertia(m_, i);
    const Vec6 v = J * nu_, gi = gravity_in(i), phi = body_wrench(i, nu_dot);
    const Mat6 dvfv = cross_force(v) * Mi + cross_force_of(Mi * v);  // ∂(v ×* M v)/∂v
    D.dnu += J.transpose() * (Mi * dJdot_nu_dnu(J, i) + dvfv * J);
    for (int k : path(i)) {
      const MatX dJ = dJ_ds(J, k);
      const Vec6 da = dacc_ds(J, i, k, nu_dot) + cross_motion(J.col(m_.dof(k))) * gi;
      const Vec6 dphi = Mi * da + dvfv * (dJ * nu_);
      D.ds.col(k - 1) += dJ.transpose() * phi + J.transpose() * dphi;
    }
    if (moving()) {
      Eigen::Matrix<double, 6, 3> dg = Eigen::Matrix<double, 6, 3>::Zero();
      dg.topRows<3>() = skew(gi.head<3>()) * pose0_[i].R.transpose();
      D.dtheta -= J.transpose() * Mi * dg;  // a_i contains −g_i
    }
  }

  /// Wrench w's share of ∂(−J_Fᵀ f_F). A Mixed wrench keeps its world direction, so in the
  /// frame's axes it turns by −δφ × f when the frame turns by δφ: along s_k δφ is the angular
  /// part of J_F e_k, along the base rotation it is ^FR_0 δθ (docs/dynamics.md §7, the term E).
  void add_wrench_derivatives(const Wrenches &W, int w, IdDerivatives &D) const {
    const int frame = W.frames[w];
    const MatX JF = frame_jacobian(frame);
    const Vec6 f = local_wrench(W, w);
    auto turned = [&](const Mat3 &dphi) {  // ∂f_local / ∂(rotation), a 6 × cols map
      Eigen::Matrix<double, 6, 3> d;
      d << skew(f.head<3>()) * dphi, skew(f.tail<3>()) * dphi;
      return d;
    };
    for (int k : path(m_.frames[frame].body)) {
      Vec6 dfk = Vec6::Zero();
      if (W.mixed) dfk = turned(Mat3::Identity()) * JF.col(m_.dof(k)).tail<3>();
      D.ds.col(k - 1) -= dJ_ds(JF, k).transpose() * f + JF.transpose() * dfk;
    }
    if (W.mixed && moving()) {
      const Mat3 R_F0 = (pose0_[m_.frames[frame].body] * m_.frames[frame].H).R.transpose();
      D.dtheta -= JF.transpose() * turned(R_F0);
    }
  }

  /// The dynamic rows of A: F = [F_H, F_s, F_ν] with F_y = −M⁻¹ ∂ID/∂y at ν̇ = FD
  /// (docs/dynamics.md §4). F_H: translating the base changes nothing (uniform gravity, wrench
  /// directions independent of position), rotating it changes g_i and Mixed wrenches: −M⁻¹ ∂ID/∂δθ
  /// (which is [[0, (Rᵀg)^], [0, 0]] without wrenches, and gains M⁻¹ E with Mixed ones, §7).
  MatX dynamic_rows(const VecX &nu_dot, const Wrenches &W) const {
    const IdDerivatives D = id_derivatives(nu_dot, W);
    const auto llt = mass_matrix().llt();
    MatX F = MatX::Zero(n(), N());
    const int o = m_.joint_offset();
    if (moving()) F.middleCols(3, 3) = -llt.solve(D.dtheta);
    F.middleCols(o, nj()) = -llt.solve(D.ds);
    F.rightCols(n()) = -llt.solve(D.dnu);
    return F;
  }

  /// The kinematic rows of A (docs/dynamics.md §4): ż_H = −v× z_H + z_v, ż_s = z_r
  /// (fixed base: ż_s = z_r only).
  MatX kinematic_rows_of_A() const {
    MatX A = MatX::Zero(N(), N());
    A.topRightCorner(n(), n()).setIdentity();
    if (moving()) A.topLeftCorner<6, 6>() = -cross_motion(nu_.head<6>());
    return A;
  }

  /// A, B of docs/dynamics.md §4 (with wrenches §7: B = [0; M⁻¹ S, M⁻¹ J_Fᵀ T_F …], T_F the
  /// turn of a Mixed wrench into the frame's axes).
  Linearization linearize(const VecX &tau, const Wrenches &W = {}) const {
    Linearization L;
    L.nu_dot = forward_dynamics(tau, W);
    L.A = kinematic_rows_of_A();
    L.A.bottomRows(n()) = dynamic_rows(L.nu_dot, W);
    const int nw = int(W.frames.size());
    MatX inputs(n(), nj() + 6 * nw);  // generalized forces of the inputs w = [τ; f_1; …]
    inputs.leftCols(nj()) = S();
    for (int w = 0; w < nw; ++w) {
      const Mat3 R_F = frame_world_pose(W.frames[w]).R;
      const Mat6 T = W.mixed ? both_halves(R_F.transpose()) : Mat6::Identity();
      inputs.middleCols(nj() + 6 * w, 6) = frame_jacobian(W.frames[w]).transpose() * T;
    }
    L.B = MatX::Zero(N(), inputs.cols());
    L.B.bottomRows(n()) = mass_matrix().llt().solve(inputs);
    return L;
  }

  // ------------------------------------------------------------------------------------------
  // §5 Contacts (docs/contacts.md)
  // ------------------------------------------------------------------------------------------

  /// The turn of contact c's rows into the axes of λ: R_F (point) or blkdiag(R_F, R_F) (rigid)
  /// for MIXED, the identity for LOCAL (docs/contacts.md §1, "The contact Jacobian").
  MatX lambda_axes(const Contacts &C, const Contact &c) const {
    const Mat3 R_F = frame_world_pose(c.frame).R;
    if (!C.mixed) return MatX::Identity(c.rows, c.rows);
    return c.rows == 3 ? MatX(R_F) : MatX(both_halves(R_F));
  }

  /// J_k = T P_k J_F, stacked into J_c (m × n) (docs/contacts.md §1).
  MatX contact_jacobian(const Contacts &C) const {
    MatX Jc(C.rows(), n());
    int row = 0;
    for (const Contact &c : C.list) {
      Jc.middleRows(row, c.rows) = lambda_axes(C, c) * frame_jacobian(c.frame).topRows(c.rows);
      row += c.rows;
    }
    return Jc;
  }

  /// γ_k = a_ref − J̇_k ν in λ's axes (docs/contacts.md §1 and §2). Rigid: d/dt ^F v_F =
  /// −Kd ^F v_F − Kp log(H_ref⁻¹ H_F). Point: P J_F ν̇ = R_Fᵀ(−Kd ṗ − Kp (p − p_ref)) −
  /// (J̇_F ν)_lin − ω × v_l, with ṗ = R_F v_l (docs/contacts.md §2, "Point contacts").
  VecX contact_gamma(const Contacts &C, const Contact &c) const {
    const int body = m_.frames[c.frame].body;
    const MatX JF = frame_jacobian(c.frame);
    const Transform H_F = frame_world_pose(c.frame);
    const Vec6 vF = JF * nu_, JdotF_nu = J_dot(JF, body) * nu_;
    if (c.rows == 6) {
      const Vec6 a_ref = -C.Kd * vF - C.Kp * log_twist(c.ref.inverse() * H_F);
      return lambda_axes(C, c) * (a_ref - JdotF_nu);
    }
    const Vec3 v_l = vF.head<3>(), w = vF.tail<3>();
    const Vec3 p_dot = H_F.R * v_l;
    const Vec3 a_ref = H_F.R.transpose() * (-C.Kd * p_dot - C.Kp * (H_F.o - c.ref.o));
    return lambda_axes(C, c) * (a_ref - JdotF_nu.head<3>() - w.cross(v_l));
  }

  /// M ν̇ = S τ − h + J_cᵀ λ, J_c ν̇ = γ, solved as λ = Λ (γ − J_c ν̇_free),
  /// Λ = (J_c M⁻¹ J_cᵀ)⁻¹, ν̇ = ν̇_free + M⁻¹ J_cᵀ λ (docs/contacts.md §2, §3).
  ContactSolution contact_dynamics(const VecX &tau, const Contacts &C) const {
    ContactSolution sol;
    const MatX Minv = mass_matrix().inverse();
    sol.Jc = contact_jacobian(C);
    VecX gamma(C.rows());
    int row = 0;
    for (const Contact &c : C.list) {
      gamma.segment(row, c.rows) = contact_gamma(C, c);
      row += c.rows;
    }
    const VecX nu_dot_free = forward_dynamics(tau);
    sol.Lambda = (sol.Jc * Minv * sol.Jc.transpose()).inverse();
    sol.lambda = sol.Lambda * (gamma - sol.Jc * nu_dot_free);
    sol.nu_dot = nu_dot_free + Minv * sol.Jc.transpose() * sol.lambda;
    return sol;
  }

  /// λ as external wrenches at the contact frames (points: zero torque), in λ's axes
  /// (docs/contacts.md §5.1: ν̇ = FD_ext(x, τ, λ)).
  Wrenches contact_wrenches(const Contacts &C, const VecX &lambda) const {
    Wrenches W;
    W.mixed = C.mixed;
    int row = 0;
    for (const Contact &c : C.list) {
      Vec6 f = Vec6::Zero();
      f.head(c.rows) = lambda.segment(row, c.rows);
      W.frames.push_back(c.frame);
      W.values.push_back(f);
      row += c.rows;
    }
    return W;
  }

  /// How the frame F moves along z (6 × N each, docs/contacts.md §5.2): its displacement ξ
  /// (J_F on [z_H; z_s]), its twist δv and its acceleration δa at fixed ν̇.
  struct FrameVariations {
    MatX xi, dv, da;
  };
  FrameVariations frame_variations(int frame, const VecX &nu_dot) const {
    const int body = m_.frames[frame].body;
    const MatX JF = frame_jacobian(frame);
    FrameVariations V{MatX::Zero(6, N()), MatX::Zero(6, N()), MatX::Zero(6, N())};
    V.xi.leftCols(n()) = JF;  // ξ = J_F [z_H; z_s]
    V.dv.rightCols(n()) = JF;
    V.da.rightCols(n()) = dJdot_nu_dnu(JF, body);
    for (int k : path(body)) {
      V.dv.col(m_.dof(k)) = dJ_ds(JF, k) * nu_;  // ∂(J_F ν)/∂s_k
      V.da.col(m_.dof(k)) = dacc_ds(JF, body, k, nu_dot);
    }
    return V;
  }

  /// C_z = ∂c/∂z at fixed ν̇ for contact c, in λ's axes (docs/contacts.md §5.2).
  /// Rigid, c = a_F + Kd v_F + Kp log(H_ref⁻¹ H_F): δc = δa + Kd δv + Kp J_r(ℓ)⁻¹ ξ.
  /// Point, c = a_l + ω × v_l + Kd v_l + Kp R_Fᵀ (p_F − p_ref) (c_F = a_l + ω × v_l):
  /// δc = δa_l + δω × v_l + ω × δv_l + Kd δv_l + Kp (ξ_l + e × ξ_ω), e = R_Fᵀ (p_F − p_ref);
  /// since c = 0 at the solution, Kp e = −(c_F + Kd v_l): the docs' term −(c_F + Kd v_l) × ξ_ω.
  /// MIXED: turned by R_F (c = 0, so the turn of R_F itself does not count).
  MatX constraint_error_derivative(const Contacts &C, const Contact &c, const VecX &nu_dot) const {
    const FrameVariations V = frame_variations(c.frame, nu_dot);
    const Transform H_F = frame_world_pose(c.frame);
    if (c.rows == 6) {
      const Vec6 ell = log_twist(c.ref.inverse() * H_F);
      const MatX dc = V.da + C.Kd * V.dv + C.Kp * right_jacobian(ell).inverse() * V.xi;
      return lambda_axes(C, c) * dc;
    }
    const Vec6 vF = frame_jacobian(c.frame) * nu_;
    const Vec3 v_l = vF.head<3>(), w = vF.tail<3>();
    const Vec3 e = H_F.R.transpose() * (H_F.o - c.ref.o);
    const MatX dc = V.da.topRows(3) - skew(v_l) * V.dv.bottomRows(3) + skew(w) * V.dv.topRows(3) +
                    C.Kd * V.dv.topRows(3) +
                    C.Kp * (V.xi.topRows(3) + skew(e) * V.xi.bottomRows(3));
    return lambda_axes(C, c) * dc;
  }

  /// docs/contacts.md §5.1: with F_ext the linearization at fixed λ (λ as wrenches) and
  /// Y = M⁻¹ J_cᵀ: ∂λ/∂z = −Λ (C_z + J_c F_ext), ∂λ/∂w = −Λ J_c M⁻¹ S, F = F_ext + Y ∂λ/∂z,
  /// ∂ν̇/∂w = M⁻¹ S + Y ∂λ/∂w; the kinematic rows of A are those of docs/dynamics.md §4.
  ContactLinearization contact_linearize(const VecX &tau, const Contacts &C) const {
    const ContactSolution sol = contact_dynamics(tau, C);
    const Linearization ext = linearize(tau, contact_wrenches(C, sol.lambda));
    const MatX F_ext = ext.A.bottomRows(n());
    const MatX MinvS = ext.B.bottomLeftCorner(n(), nj());
    const MatX Y = mass_matrix().inverse() * sol.Jc.transpose();
    MatX Cz(C.rows(), N());
    int row = 0;
    for (const Contact &c : C.list) {
      Cz.middleRows(row, c.rows) = constraint_error_derivative(C, c, sol.nu_dot);
      row += c.rows;
    }
    ContactLinearization L;
    L.dlambda_dz = -sol.Lambda * (Cz + sol.Jc * F_ext);
    L.dlambda_dw = -sol.Lambda * sol.Jc * MinvS;
    L.A = kinematic_rows_of_A();
    L.A.bottomRows(n()) = F_ext + Y * L.dlambda_dz;
    L.B = MatX::Zero(N(), nj());
    L.B.bottomRows(n()) = MinvS + Y * L.dlambda_dw;
    return L;
  }

 private:
  const Model &m_;
  Vec3 g_;
  Transform H_;  // ^A H_0 (fixed base: model.H_A_0)
  VecX s_, nu_;
  std::vector<Transform> pose0_;  // ^0 H_i
  std::vector<MatX> J_;           // body Jacobians J_i
};

// =============================================================================================
// §6 The discrete step and its linearization (docs/dynamics.md §8)
// =============================================================================================

/// A point of the group G = SE(3) × R^{n_J} × R⁶ × R^{n_J} (docs/dynamics.md §4).
struct GroupState {
  Transform H;
  VecX s, r;
  Vec6 v = Vec6::Zero();
};

inline VecX nu_of(const Model &m, const GroupState &x) {
  VecX nu(m.num_dofs());
  if (!m.fixed_base) nu.head<6>() = x.v;
  nu.tail(m.n_B) = x.r;
  return nu;
}

/// x exp(u), u = [u_H; u_s; u_v; u_r] (fixed base [u_s; u_r]) (docs/dynamics.md §4).
inline GroupState retract(const Model &m, const GroupState &x, const VecX &u) {
  const int n = m.num_dofs(), o = m.joint_offset(), nj = m.n_B;
  GroupState y = x;
  if (!m.fixed_base) {
    y.H = x.H * exp_twist(u.head<6>());
    y.v = x.v + u.segment<6>(n);
  }
  y.s = x.s + u.segment(o, nj);
  y.r = x.r + u.segment(n + o, nj);
  return y;
}

/// λ(x, τ) = (v, r, FD) (docs/dynamics.md §4), and its linearization at x.
inline VecX field(const DenseModel &d, const Linearization &L) {
  VecX lam(d.N());
  lam.head(d.n()) = d.nu();
  lam.tail(d.n()) = L.nu_dot;
  return lam;
}

/// A perturbed retraction x exp(z) exp(θ + δθ) = x exp(θ) exp(ζ) with ζ = Ad_{exp(−θ)} z +
/// J_r(θ) δθ on the SE(3) block and ζ = z + δθ elsewhere (docs/dynamics.md §8). Returns
/// ∂ζ/∂(z, w) = P(θ) [1 0] + J(θ) Dθ for Dθ = ∂θ/∂(z, w).
inline MatX retraction_jacobian(const Model &m, const VecX &theta, const MatX &D_theta) {
  const int N = m.state_dim();
  MatX Z = D_theta;
  Z.leftCols(N) += MatX::Identity(N, N);
  if (m.fixed_base) return Z;
  const Vec6 th = theta.head<6>();
  Z.topRows(6) = right_jacobian(th) * D_theta.topRows(6);
  Z.topLeftCorner(6, 6) += twist_transform(exp_twist(-th));
  return Z;
}

/// Semi-implicit Euler (docs/dynamics.md §8): ν⁺ = ν + h FD, H⁺ = H exp(h v⁺), s⁺ = s + h r⁺;
/// that is x⁺ = x exp(Θ) with Θ = h (v⁺, r⁺, FD).
inline VecX euler_increment(const Model &m, const Vec3 &g, const GroupState &x, const VecX &tau,
                            double h) {
  const DenseModel d(m, g, x.H, x.s, nu_of(m, x));
  const VecX nu_plus = d.nu() + h * d.forward_dynamics(tau);
  VecX Theta(d.N());
  Theta.head(d.n()) = h * nu_plus;
  Theta.tail(d.n()) = nu_plus - d.nu();
  return Theta;
}

/// Runge–Kutta–Munthe-Kaas 4 (docs/dynamics.md §8): k_1 = h λ(x), θ_i = c_i k̃_{i−1},
/// k_i = h λ(x exp θ_i), k̃_i = dexp⁻¹_{−θ_i} k_i = k_i + ½ [θ_i, k_i] + 1/12 [θ_i, [θ_i, k_i]]
/// (SE(3) block only), Θ = (k̃_1 + 2 k̃_2 + 2 k̃_3 + k̃_4)/6; x⁺ = x exp Θ. With `D`, also
/// DΘ = ∂Θ/∂(z, w), each line differentiated: Dθ_i = c_i Dk̃_{i−1}; at the stage the state is
/// x exp(θ_i) exp(ζ_i), ζ_i = Z_i (z, w) (retraction_jacobian), and Dλ = A_i with its −v×
/// block removed (= A + ad_λ), ∂λ/∂τ = B_i, so Dk_i = h (Ā_i Z_i + [0 B_i]).
inline VecX rk4_increment(const Model &m, const Vec3 &g, const GroupState &x, const VecX &tau,
                          double h, MatX *D = nullptr) {
  const int N = m.state_dim(), nj = m.n_B;
  const double c[4] = {0.0, 0.5, 0.5, 1.0}, b[4] = {1 / 6.0, 1 / 3.0, 1 / 3.0, 1 / 6.0};
  VecX theta = VecX::Zero(N), Theta = VecX::Zero(N), k_prev;
  MatX D_theta = MatX::Zero(N, N + nj), D_Theta = MatX::Zero(N, N + nj), Dk_prev;
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      theta = c[i] * k_prev;
      D_theta = c[i] * Dk_prev;
    }
    const GroupState xi = retract(m, x, theta);
    const DenseModel d(m, g, xi.H, xi.s, nu_of(m, xi));
    Linearization L = d.linearize(tau);
    VecX k = h * field(d, L);
    MatX A_bar = L.A;
    if (!m.fixed_base) A_bar.topLeftCorner(6, 6).setZero();
    MatX Dk = h * A_bar * retraction_jacobian(m, theta, D_theta);
    Dk.rightCols(nj) += h * L.B;
    if (!m.fixed_base) {  // k̃ = k + ½ θ×k + 1/12 θ×(θ×k) and its derivative in k and θ
      const Vec6 th = theta.head<6>(), kH = k.head<6>();
      const Mat6 T = cross_motion(th);
      const Mat6 by_k = Mat6::Identity() + 0.5 * T + T * T / 12.0;
      const Mat6 by_theta =
          -0.5 * cross_motion(kH) - (T * cross_motion(kH) + cross_motion(T * kH)) / 12.0;
      Dk.topRows(6) = (by_k * Dk.topRows(6) + by_theta * D_theta.topRows(6)).eval();
      k.head<6>() = by_k * kH;
    }
    Theta += b[i] * k;
    D_Theta += b[i] * Dk;
    k_prev = k;
    Dk_prev = Dk;
  }
  if (D) *D = D_Theta;
  return Theta;
}

/// The derivative of the semi-implicit Euler increment Θ = h (ν + h FD, FD):
/// Dν⁺ = [0 1] + h [F, M⁻¹ S] (the dynamic rows of A and B, docs/dynamics.md §4).
inline MatX euler_increment_derivative(const Model &m, const Vec3 &g, const GroupState &x,
                                       const VecX &tau, double h) {
  const DenseModel d(m, g, x.H, x.s, nu_of(m, x));
  const Linearization L = d.linearize(tau);
  const int n = d.n(), N = d.N(), nj = d.nj();
  MatX DFD(n, N + nj);  // ∂FD/∂(z, w) = [F, M⁻¹ S]
  DFD.leftCols(N) = L.A.bottomRows(n);
  DFD.rightCols(nj) = L.B.bottomRows(n);
  MatX Dnu_plus = h * DFD;
  Dnu_plus.middleCols(n, n) += MatX::Identity(n, n);
  MatX DTheta(N, N + nj);
  DTheta.topRows(n) = h * Dnu_plus;
  DTheta.bottomRows(n) = h * DFD;
  return DTheta;
}

enum class Method { SemiImplicitEuler, Rk4 };

/// One step x⁺ = x exp(Θ) (docs/dynamics.md §8).
inline GroupState step(const Model &m, const Vec3 &g, Method method, double h, const GroupState &x,
                       const VecX &tau) {
  const VecX Theta =
      method == Method::Rk4 ? rk4_increment(m, g, x, tau, h) : euler_increment(m, g, x, tau, h);
  return retract(m, x, Theta);
}

/// z⁺ = A_d z + B_d w: [A_d, B_d] = P(Θ) [1 0] + J(Θ) DΘ (docs/dynamics.md §8).
inline MatX step_linearize(const Model &m, const Vec3 &g, Method method, double h,
                           const GroupState &x, const VecX &tau) {
  MatX D_Theta;
  VecX Theta;
  if (method == Method::Rk4) {
    Theta = rk4_increment(m, g, x, tau, h, &D_Theta);
  } else {
    Theta = euler_increment(m, g, x, tau, h);
    D_Theta = euler_increment_derivative(m, g, x, tau, h);
  }
  return retraction_jacobian(m, Theta, D_Theta);
}

}  // namespace geolin::twin
