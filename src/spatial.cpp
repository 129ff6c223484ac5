// The closed forms of SO(3) and SE(3) declared in include/geolin/spatial.hpp that no recursion
// calls per body: exponentials, logarithms and their Jacobians (the state algebra, a step's
// retraction, a rigid contact's Baumgarte term) and inertia_parameters. Out of line, so that the
// files including the header do not compile their fixed-size products each time; the per-body
// operations (transforms, cross products, inertias) stay inline in the header.
#include "geolin/spatial.hpp"

#include <algorithm>
#include <cmath>

namespace geolin {

namespace detail {

void so3_coefficients(double t, double &a, double &b, double &c) {
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

double inverse_jacobian_coefficient(double t) {
  const double t2 = t * t;
  if (t < 0.1) return 1.0 / 12.0 + t2 / 720.0 + t2 * t2 / 30240.0 + t2 * t2 * t2 / 1209600.0;
  const double x = 0.5 * t;
  return (1.0 - x * std::cos(x) / std::sin(x)) / t2;
}

}  // namespace detail

Mat3 exp_so3(const Vec3 &w) {
  double a, b, c;
  detail::so3_coefficients(w.norm(), a, b, c);
  const Mat3 W = hat(w);
  return Mat3::Identity() + a * W + b * W * W;
}

Vec3 log_so3(const Mat3 &R) {
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

Mat3 left_jacobian_so3(const Vec3 &w) {
  double a, b, c;
  detail::so3_coefficients(w.norm(), a, b, c);
  const Mat3 W = hat(w);
  return Mat3::Identity() + b * W + c * W * W;
}

Transform exp_se3(const Vec6 &v) {
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

Vec6 log_se3(const Transform &T) {
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

Mat6 cross_force_matrix_of(const Vec6 &h) {
  Mat6 X;
  X.topLeftCorner<3, 3>().setZero();
  X.topRightCorner<3, 3>() = -hat(h.head<3>());
  X.bottomLeftCorner<3, 3>() = X.topRightCorner<3, 3>();
  X.bottomRightCorner<3, 3>() = -hat(h.tail<3>());
  return X;
}

Mat6 left_jacobian_se3(const Vec6 &u) {
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

Mat6 right_jacobian_se3(const Vec6 &u) {
  return left_jacobian_se3(-u);
}

Mat6 inverse_right_jacobian_se3(const Vec6 &u) {
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

void inertia_parameters(const Mat6 &M, double &m, Vec3 &c, Mat3 &I_c) {
  m = M(0, 0);
  const Mat3 mC = 0.5 * (M.bottomLeftCorner<3, 3>() - M.topRightCorner<3, 3>());
  c = (m > 0.0) ? Vec3(vee(mC) / m) : Vec3::Zero();
  const Mat3 C = hat(c);
  I_c = M.bottomRightCorner<3, 3>() + m * C * C;
}

}  // namespace geolin
