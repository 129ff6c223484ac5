// Spatial algebra in EG notation (Traversaro & Saccon, "Multibody dynamics notation", 2019),
// on Eigen fixed-size types. Twists are linear first, v = [v_lin; w]; wrenches are force first,
// f = [force; torque]. Every function here is header-only, inline and allocation-free.
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
inline void so3_coefficients(double t, double &a, double &b, double &c) {
  const double t2 = t * t;
  if (t < 0.1) {
    a = 1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0)));
    b = 0.5 * (1.0 - t2 / 12.0 * (1.0 - t2 / 30.0 * (1.0 - t2 / 56.0 * (1.0 - t2 / 90.0))));
    c = (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0 * (1.0 - t2 / 110.0)))) / 6.0;
  } else {
    const double s = std::sin(t), h = std::sin(0.5 * t);
    a = s / t;
    b = 2.0 * h * h / t2;
    c = (t - s) / (t2 * t);
  }
}

// e = (1 - (t/2) cot(t/2)) / t^2, the coefficient of w^2 in the inverse left Jacobian.
inline double inverse_jacobian_coefficient(double t) {
  const double t2 = t * t;
  if (t < 0.1) return 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0 + t2 * t2 * t2 / 1209600.0;
  const double x = 0.5 * t;
  return (1.0 - x * std::cos(x) / std::sin(x)) / t2;
}
}  // namespace detail

/// exp: so(3) -> SO(3), Rodrigues' formula.
inline Mat3 exp_so3(const Vec3 &w) {
  double a, b, c;
  detail::so3_coefficients(w.norm(), a, b, c);
  const Mat3 W = hat(w);
  return Mat3::Identity() + a * W + b * W * W;
}

/// log: SO(3) -> so(3), the rotation vector with angle in [0, pi]; accurate near 0 and near pi.
inline Vec3 log_so3(const Mat3 &R) {
  const double tr = R.trace();
  const double cos_t = std::min(1.0, std::max(-1.0, 0.5 * (tr - 1.0)));
  const Vec3 axis_sin(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));  // 2 sin(t) n
  const double sin_t = 0.5 * axis_sin.norm();
  const double t = std::atan2(sin_t, cos_t);
  if (cos_t > -0.99) {
    // t / sin t is well conditioned here (Taylor near 0).
    const double f = (t < 1e-4) ? (1.0 + t * t / 6.0 + 7.0 * t * t * t * t / 360.0) : t / sin_t;
    return 0.5 * f * axis_sin;
  }
  // Near pi: R + R^T = 2 cos t I + 2 (1 - cos t) n n^T. Take the largest diagonal column.
  const Mat3 S = 0.5 * (R + R.transpose()) - cos_t * Mat3::Identity();  // (1 - cos t) n n^T
  int k = 0;
  S.diagonal().maxCoeff(&k);
  Vec3 n = S.col(k) / std::sqrt(std::max(S(k, k), 1e-300));
  n.normalize();
  if (n.dot(axis_sin) < 0.0) n = -n;  // sign from the skew part (sin t n)
  return t * n;
}

/// Left Jacobian of SO(3): J(w) = I + b w^ + c w^ w^.
inline Mat3 left_jacobian_so3(const Vec3 &w) {
  double a, b, c;
  detail::so3_coefficients(w.norm(), a, b, c);
  const Mat3 W = hat(w);
  return Mat3::Identity() + b * W + c * W * W;
}

/// exp: se(3) -> SE(3), closed form (EG notation; Murray-Li-Sastry). v = [v_lin; w].
inline Transform exp_se3(const Vec6 &v) {
  const Vec3 w = v.tail<3>();
  double a, b, c;
  detail::so3_coefficients(w.norm(), a, b, c);
  const Mat3 W = hat(w);
  const Mat3 W2 = W * W;
  Transform T;
  T.R = Mat3::Identity() + a * W + b * W2;
  T.o = (Mat3::Identity() + b * W + c * W2) * v.head<3>();
  return T;
}

/// log: SE(3) -> se(3), inverse of exp_se3 for rotation angles in [0, pi).
inline Vec6 log_se3(const Transform &T) {
  const Vec3 w = log_so3(T.R);
  const double t = w.norm();
  const Mat3 W = hat(w);
  // Inverse of the left Jacobian: I - W/2 + e W^2.
  const double e = detail::inverse_jacobian_coefficient(t);
  Vec6 v;
  v.head<3>() = (Mat3::Identity() - 0.5 * W + e * W * W) * T.o;
  v.tail<3>() = w;
  return v;
}

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
inline Mat6 cross_force_matrix_of(const Vec6 &h) {
  Mat6 X;
  X.topLeftCorner<3, 3>().setZero();
  X.topRightCorner<3, 3>() = -hat(h.head<3>());
  X.bottomLeftCorner<3, 3>() = X.topRightCorner<3, 3>();
  X.bottomRightCorner<3, 3>() = -hat(h.tail<3>());
  return X;
}

/// The left Jacobian of the SE(3) exponential, J_l(u) = Σ_k (u×)^k / (k+1)!, so that
/// exp(u + δ) = exp(J_l(u) δ) exp(u) to first order. Closed form in powers of ad_u = u×, whose
/// minimal polynomial is x (x² + θ²)², θ = |w| (J. M. Selig, "Lie groups and Lie algebras in
/// robotics", 2005; F. C. Park, "Distance metrics on the rigid-body motions", 1995); the series
/// below θ = 0.5, where the closed-form coefficients cancel.
inline Mat6 left_jacobian_se3(const Vec6 &u) {
  const Mat6 X = cross_motion(u);
  const double t = u.tail<3>().norm();
  Mat6 J = Mat6::Identity();
  if (t < 0.5) {
    Mat6 P = Mat6::Identity();
    double fact = 1.0;
    for (int k = 1; k <= 20; ++k) {
      P = P * X;
      fact *= (k + 1);
      J += P / fact;
    }
    return J;
  }
  const double s = std::sin(t), co = std::cos(t), t2 = t * t;
  const double a1 = (4.0 - t * s - 4.0 * co) / (2.0 * t2);
  const double a2 = (4.0 * t - 5.0 * s + t * co) / (2.0 * t2 * t);
  const double a3 = (2.0 - t * s - 2.0 * co) / (2.0 * t2 * t2);
  const double a4 = (2.0 * t - 3.0 * s + t * co) / (2.0 * t2 * t2 * t);
  const Mat6 X2 = X * X;
  J += a1 * X + a2 * X2 + a3 * X2 * X + a4 * X2 * X2;
  return J;
}

/// The right Jacobian J_r(u) = J_l(−u): exp(u + δ) = exp(u) exp(J_r(u) δ) to first order
/// (docs/dynamics.md (D40)).
inline Mat6 right_jacobian_se3(const Vec6 &u) {
  return left_jacobian_se3(-u);
}

/// J_r(u)⁻¹ in closed form, without the series and the 6x6 inverse of right_jacobian_se3: with
/// J_l(ρ, φ) = [[J, Q], [0, J]] (u = [ρ; φ], J the SO(3) left Jacobian, Q Barfoot's off-diagonal
/// block: T. D. Barfoot, "State estimation for robotics", 2017, eq. 7.86), J_l⁻¹ = [[J⁻¹,
/// −J⁻¹ Q J⁻¹], [0, J⁻¹]] and J_r(u)⁻¹ = J_l(−u)⁻¹. Taylor series of the coefficients below
/// θ = 0.5, where the closed forms cancel. docs/dynamics.md (D41).
inline Mat6 inverse_right_jacobian_se3(const Vec6 &u) {
  const Vec3 rho = -u.head<3>(), phi = -u.tail<3>();
  const double t = phi.norm(), t2 = t * t, t4 = t2 * t2;
  double c1, c2, c3;  // (t − sin t)/t³, (t²/2 + cos t − 1)/t⁴, (t − sin t − t³/6)/t⁵
  if (t < 0.5) {
    c1 = 1.0 / 6 - t2 / 120 + t4 / 5040 - t4 * t2 / 362880 + t4 * t4 / 39916800;
    c2 = 1.0 / 24 - t2 / 720 + t4 / 40320 - t4 * t2 / 3628800 + t4 * t4 / 479001600;
    c3 = -1.0 / 120 + t2 / 5040 - t4 / 362880 + t4 * t2 / 39916800 - t4 * t4 / 6227020800.0;
  } else {
    const double s = std::sin(t), c = std::cos(t);
    c1 = (t - s) / (t2 * t);
    c2 = (0.5 * t2 + c - 1.0) / t4;
    c3 = (t - s - t2 * t / 6.0) / (t4 * t);
  }
  const Mat3 P = hat(phi), R = hat(rho);
  const Mat3 PR = P * R, RP = R * P, PRP = PR * P, PP = P * P;
  const Mat3 Q = 0.5 * R + c1 * (PR + RP + PRP) + c2 * (PP * R + RP * P - 3.0 * PRP) +
                 0.5 * (c2 + 3.0 * c3) * (PRP * P + P * PRP);
  const Mat3 Ji =
      Mat3::Identity() - 0.5 * P + detail::inverse_jacobian_coefficient(t) * PP;  // J(φ)⁻¹
  Mat6 out;
  out.topLeftCorner<3, 3>() = Ji;
  out.topRightCorner<3, 3>().noalias() = -Ji * Q * Ji;
  out.bottomLeftCorner<3, 3>().setZero();
  out.bottomRightCorner<3, 3>() = Ji;
  return out;
}

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
inline void inertia_parameters(const Mat6 &M, double &m, Vec3 &c, Mat3 &I_c) {
  m = M(0, 0);
  const Mat3 mC = 0.5 * (M.bottomLeftCorner<3, 3>() - M.topRightCorner<3, 3>());
  c = (m > 0.0) ? Vec3(vee(mC) / m) : Vec3::Zero();
  const Mat3 C = hat(c);
  I_c = M.bottomRightCorner<3, 3>() + m * C * C;
}

}  // namespace geolin
