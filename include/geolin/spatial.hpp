// Spatial algebra in EG notation (Traversaro & Saccon, "Multibody dynamics notation", 2019),
// on Eigen fixed-size types. Twists are linear first, v = [v_lin; w]; wrenches are force first,
// f = [force; torque]. Every function here is allocation-free; the per-body operations are inline,
// the exponentials, logarithms and their Jacobians (called once per evaluation, not per body) are
// in src/spatial.cpp, so that the files including this header do not compile them each time.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

// For the few operations in every inner loop: a call would return its Vec6 through memory, to be
// read back as packed pairs right after the scalar stores (a store-forwarding stall each time).
#if defined(__GNUC__) || defined(__clang__)
#define GEOLIN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define GEOLIN_ALWAYS_INLINE inline
#endif

namespace geolin {

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using RowVec6 = Eigen::Matrix<double, 1, 6>;

/// A rigid transform ^A H_B = (R, o): ^A p = R ^B p + o.
struct Transform {
  Mat3 R = Mat3::Identity();
  Vec3 o = Vec3::Zero();

  static Transform identity() { return Transform{}; }
  Mat4 matrix() const {
    Mat4 H = Mat4::Identity();
    H.topLeftCorner<3, 3>() = R;
    H.topRightCorner<3, 1>() = o;
    return H;
  }
  static Transform from_matrix(const Mat4 &H) {
    Transform T;
    T.R = H.topLeftCorner<3, 3>();
    T.o = H.topRightCorner<3, 1>();
    return T;
  }
  /// ^A H_B * ^B H_C = ^A H_C
  Transform operator*(const Transform &other) const {
    Transform T;
    T.R.noalias() = R * other.R;
    T.o.noalias() = R * other.o;
    T.o += o;
    return T;
  }
  /// (^A H_B)^{-1} = ^B H_A
  Transform inverse() const {
    Transform T;
    T.R = R.transpose();
    T.o.noalias() = -(T.R * o);
    return T;
  }
  Vec3 apply(const Vec3 &p) const { return R * p + o; }
};

/// w^ : the 3x3 skew matrix with hat(w) x = w x x.
inline Mat3 hat(const Vec3 &w) {
  Mat3 W;
  W << 0.0, -w.z(), w.y(), w.z(), 0.0, -w.x(), -w.y(), w.x(), 0.0;
  return W;
}

/// The inverse of hat (takes the skew-symmetric part).
inline Vec3 vee(const Mat3 &W) {
  return 0.5 * Vec3(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1));
}

/// v^ (4x4) for a twist v = [v_lin; w]: [[w^, v_lin], [0, 0]]. EG notation §2.
inline Mat4 hat6(const Vec6 &v) {
  Mat4 V = Mat4::Zero();
  V.topLeftCorner<3, 3>() = hat(v.tail<3>());
  V.topRightCorner<3, 1>() = v.head<3>();
  return V;
}

inline Vec6 vee6(const Mat4 &V) {
  Vec6 v;
  v.head<3>() = V.topRightCorner<3, 1>();
  v.tail<3>() = vee(V.topLeftCorner<3, 3>());
  return v;
}

namespace detail {
// Coefficients of the SO(3)/SE(3) closed forms: a = sin t / t, b = (1 - cos t) / t^2,
// c = (t - sin t) / t^3. Below t = 0.1 their Taylor series (truncation < 1e-17) avoid the
// cancellation of the closed forms; above, b uses 1 - cos t = 2 sin^2(t/2).
void so3_coefficients(double t, double &a, double &b, double &c);

// e = (1 - (t/2) cot(t/2)) / t^2, the coefficient of w^2 in the inverse left Jacobian.
double inverse_jacobian_coefficient(double t);
}  // namespace detail

/// exp: so(3) -> SO(3), Rodrigues' formula.
Mat3 exp_so3(const Vec3 &w);

/// log: SO(3) -> so(3), the rotation vector with angle in [0, pi]; accurate near 0 and near pi.
Vec3 log_so3(const Mat3 &R);

/// Left Jacobian of SO(3): J(w) = I + b w^ + c w^ w^.
Mat3 left_jacobian_so3(const Vec3 &w);

/// exp: se(3) -> SE(3), closed form (EG notation; Murray-Li-Sastry). v = [v_lin; w].
Transform exp_se3(const Vec6 &v);

/// log: SE(3) -> se(3), inverse of exp_se3 for rotation angles in [0, pi).
Vec6 log_se3(const Transform &T);

/// The 6x6 motion transform ^C X_D = [[R, o^ R], [0, R]] for ^C H_D = (R, o).
inline Mat6 motion_transform(const Transform &T) {
  Mat6 X;
  X.topLeftCorner<3, 3>() = T.R;
  X.topRightCorner<3, 3>().noalias() = hat(T.o) * T.R;
  X.bottomLeftCorner<3, 3>().setZero();
  X.bottomRightCorner<3, 3>() = T.R;
  return X;
}

/// The 6x6 wrench transform ^C X^D = (^D X_C)^T = [[R, 0], [o^ R, R]].
inline Mat6 force_transform(const Transform &T) {
  Mat6 X;
  X.topLeftCorner<3, 3>() = T.R;
  X.topRightCorner<3, 3>().setZero();
  X.bottomLeftCorner<3, 3>().noalias() = hat(T.o) * T.R;
  X.bottomRightCorner<3, 3>() = T.R;
  return X;
}

/// ^C v = ^C X_D ^D v, without forming X.
inline Vec6 transform_motion(const Transform &T, const Vec6 &v) {
  Vec6 out;
  out.tail<3>().noalias() = T.R * v.tail<3>();
  out.head<3>().noalias() = T.R * v.head<3>();
  out.head<3>() += T.o.cross(out.tail<3>());
  return out;
}

/// ^D v = (^C X_D)^{-1} ^C v.
inline Vec6 inverse_transform_motion(const Transform &T, const Vec6 &v) {
  Vec6 out;
  out.tail<3>().noalias() = T.R.transpose() * v.tail<3>();
  out.head<3>().noalias() = T.R.transpose() * (v.head<3>() - T.o.cross(v.tail<3>()));
  return out;
}

/// ^C f = ^C X^D ^D f.
inline Vec6 transform_force(const Transform &T, const Vec6 &f) {
  Vec6 out;
  out.head<3>().noalias() = T.R * f.head<3>();
  out.tail<3>().noalias() = T.R * f.tail<3>();
  out.tail<3>() += T.o.cross(out.head<3>());
  return out;
}

/// ^D f = (^C X^D)^{-1} ^C f.
inline Vec6 inverse_transform_force(const Transform &T, const Vec6 &f) {
  Vec6 out;
  out.head<3>().noalias() = T.R.transpose() * f.head<3>();
  out.tail<3>().noalias() = T.R.transpose() * (f.tail<3>() - T.o.cross(f.head<3>()));
  return out;
}

/// v x (the adjoint ad_v, Lie bracket of se(3)): [[w^, v_lin^], [0, w^]].
inline Mat6 cross_motion(const Vec6 &v) {
  Mat6 X;
  X.topLeftCorner<3, 3>() = hat(v.tail<3>());
  X.topRightCorner<3, 3>() = hat(v.head<3>());
  X.bottomLeftCorner<3, 3>().setZero();
  X.bottomRightCorner<3, 3>() = X.topLeftCorner<3, 3>();
  return X;
}

/// v x* = -(v x)^T: [[w^, 0], [v_lin^, w^]].
inline Mat6 cross_force(const Vec6 &v) {
  Mat6 X;
  X.topLeftCorner<3, 3>() = hat(v.tail<3>());
  X.topRightCorner<3, 3>().setZero();
  X.bottomLeftCorner<3, 3>() = hat(v.head<3>());
  X.bottomRightCorner<3, 3>() = X.topLeftCorner<3, 3>();
  return X;
}

/// out = (v x) u (or out += (v x) u with kAdd) without forming the matrix:
/// [w × u_l + l × u_w; w × u_w] for v = [l; w]. Written in scalars: it sits in every inner loop.
/// The accumulating form lets a caller add it to a vector just computed with packed
/// instructions without a Vec6 temporary in between. out: any 6-vector expression (a Vec6, a
/// row of a matrix).
template <bool kAdd = false, class Out>
GEOLIN_ALWAYS_INLINE void cross_motion_to(const Vec6 &v, const Vec6 &u, Out &&out) {
  const double l0 = v[0], l1 = v[1], l2 = v[2], w0 = v[3], w1 = v[4], w2 = v[5];
  const double t0 = w1 * u[2] - w2 * u[1] + l1 * u[5] - l2 * u[4];
  const double t1 = w2 * u[0] - w0 * u[2] + l2 * u[3] - l0 * u[5];
  const double t2 = w0 * u[1] - w1 * u[0] + l0 * u[4] - l1 * u[3];
  const double t3 = w1 * u[5] - w2 * u[4];
  const double t4 = w2 * u[3] - w0 * u[5];
  const double t5 = w0 * u[4] - w1 * u[3];
  if (kAdd) {
    out[0] += t0, out[1] += t1, out[2] += t2, out[3] += t3, out[4] += t4, out[5] += t5;
  } else {
    out[0] = t0, out[1] = t1, out[2] = t2, out[3] = t3, out[4] = t4, out[5] = t5;
  }
}

/// out = (v x*) f (or out += with kAdd) without forming the matrix:
/// [w × f_f; w × f_n + l × f_f] for v = [l; w].
template <bool kAdd = false, class Out>
GEOLIN_ALWAYS_INLINE void cross_force_to(const Vec6 &v, const Vec6 &f, Out &&out) {
  const double l0 = v[0], l1 = v[1], l2 = v[2], w0 = v[3], w1 = v[4], w2 = v[5];
  const double t0 = w1 * f[2] - w2 * f[1];
  const double t1 = w2 * f[0] - w0 * f[2];
  const double t2 = w0 * f[1] - w1 * f[0];
  const double t3 = w1 * f[5] - w2 * f[4] + l1 * f[2] - l2 * f[1];
  const double t4 = w2 * f[3] - w0 * f[5] + l2 * f[0] - l0 * f[2];
  const double t5 = w0 * f[4] - w1 * f[3] + l0 * f[1] - l1 * f[0];
  if (kAdd) {
    out[0] += t0, out[1] += t1, out[2] += t2, out[3] += t3, out[4] += t4, out[5] += t5;
  } else {
    out[0] = t0, out[1] = t1, out[2] = t2, out[3] = t3, out[4] = t4, out[5] = t5;
  }
}

/// (v x) u without forming the matrix (cross_motion_to).
GEOLIN_ALWAYS_INLINE Vec6 cross_motion(const Vec6 &v, const Vec6 &u) {
  Vec6 out;
  cross_motion_to(v, u, out);
  return out;
}

/// (v x*) f without forming the matrix (cross_force_to).
GEOLIN_ALWAYS_INLINE Vec6 cross_force(const Vec6 &v, const Vec6 &f) {
  Vec6 out;
  cross_force_to(v, f, out);
  return out;
}

/// The matrix Xi(h) with Xi(h) u = u x* h, i.e. the derivative of u x* h with respect to u:
/// -[[0, f^], [f^, n^]] for h = [f; n].
Mat6 cross_force_matrix_of(const Vec6 &h);

/// The left Jacobian of the SE(3) exponential, J_l(u) = Σ_k (u×)^k / (k+1)!, so that
/// exp(u + δ) = exp(J_l(u) δ) exp(u) to first order. Closed form in powers of ad_u = u×, whose
/// minimal polynomial is x (x² + θ²)², θ = |w| (J. M. Selig, "Lie groups and Lie algebras in
/// robotics", 2005; F. C. Park, "Distance metrics on the rigid-body motions", 1995); the series
/// below θ = 0.5, where the closed-form coefficients cancel.
Mat6 left_jacobian_se3(const Vec6 &u);

/// The right Jacobian J_r(u) = J_l(−u): exp(u + δ) = exp(u) exp(J_r(u) δ) to first order
/// (docs/dynamics.md (D40)).
Mat6 right_jacobian_se3(const Vec6 &u);

/// J_r(u)⁻¹ in closed form, without the series and the 6x6 inverse of right_jacobian_se3: with
/// J_l(ρ, φ) = [[J, Q], [0, J]] (u = [ρ; φ], J the SO(3) left Jacobian, Q Barfoot's off-diagonal
/// block: T. D. Barfoot, "State estimation for robotics", 2017, eq. 7.86), J_l⁻¹ = [[J⁻¹,
/// −J⁻¹ Q J⁻¹], [0, J⁻¹]] and J_r(u)⁻¹ = J_l(−u)⁻¹. Taylor series of the coefficients below
/// θ = 0.5, where the closed forms cancel. docs/dynamics.md (D41).
Mat6 inverse_right_jacobian_se3(const Vec6 &u);

/// Spatial inertia M = [[m 1, -m c^], [m c^, I_c - m c^ c^]] (EG notation; docs/dynamics.md §1),
/// from the mass m, the centre of mass c and the rotational inertia I_c about c, all in the
/// frame in which M is expressed.
inline Mat6 spatial_inertia(double m, const Vec3 &c, const Mat3 &I_c) {
  const Mat3 C = hat(c);
  Mat6 M;
  M.topLeftCorner<3, 3>() = m * Mat3::Identity();
  M.topRightCorner<3, 3>() = -m * C;
  M.bottomLeftCorner<3, 3>() = m * C;
  M.bottomRightCorner<3, 3>() = I_c - m * C * C;
  return M;
}

/// Inertia of a body given in frame D, expressed in frame C: ^C X^D M ^D X_C, for T = ^C H_D.
/// Computed from (m, c, I_c) rather than by 6x6 products.
inline Mat6 transform_inertia(const Transform &T, double m, const Vec3 &c, const Mat3 &I_c) {
  return spatial_inertia(m, T.apply(c), T.R * I_c * T.R.transpose());
}

/// The same for a general spatial inertia (any sum of rigid-body inertias).
inline Mat6 transform_inertia(const Transform &T, const Mat6 &M) {
  const Mat6 Xf = force_transform(T);
  return Xf * M * Xf.transpose();
}

/// Recover (m, c, I_c) from a spatial inertia (m > 0).
void inertia_parameters(const Mat6 &M, double &m, Vec3 &c, Mat3 &I_c);

}  // namespace geolin
