// Identities of the spatial algebra (EG notation; docs/dynamics.md §1).
#include "test_util.hpp"

namespace geolin::test {
namespace {

Transform random_transform(std::mt19937 &rng) {
  Transform T;
  T.R = random_rotation(rng);
  T.o = Vec3::Random();
  return T;
}

Vec6 random_vec6(std::mt19937 &rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Vec6 v;
  for (int k = 0; k < 6; ++k) v[k] = u(rng);
  return v;
}

TEST(Spatial, HatAndVeeAreInverseAndHatIsTheCrossProduct) {
  const Vec3 w(0.3, -1.2, 2.0), x(-0.7, 0.4, 1.1);
  EXPECT_LT((vee(hat(w)) - w).norm(), 1e-15);
  EXPECT_LT((hat(w) * x - w.cross(x)).norm(), 1e-15);
  EXPECT_LT((hat(w) + hat(w).transpose()).norm(), 1e-15);
}

TEST(Spatial, So3ExpIsARotationAndLogInvertsIt) {
  std::mt19937 rng(1);
  // Angles from tiny to just below pi, including the Taylor branch and the near-pi branch.
  for (double angle :
       {0.0, 1e-12, 1e-8, 1e-5, 1e-3, 0.0999, 0.1, 0.5, 2.0, 3.0, M_PI - 1e-4, M_PI - 1e-9}) {
    for (int k = 0; k < 5; ++k) {
      const Vec3 w = angle * Vec3::Random().normalized();
      const Mat3 R = exp_so3(w);
      EXPECT_LT((R.transpose() * R - Mat3::Identity()).norm(), 1e-14);
      EXPECT_NEAR(R.determinant(), 1.0, 1e-14);
      EXPECT_LT((log_so3(R) - w).norm(), (angle > 3.0 ? 1e-7 : 1e-13)) << "angle " << angle;
      EXPECT_LT((exp_so3(log_so3(R)) - R).norm(), 1e-14) << "angle " << angle;
    }
  }
}

TEST(Spatial, So3LogAtExactlyPiGivesAnAxisOfAnglePi) {
  const Vec3 n = Vec3(1, 2, -2).normalized();
  const Mat3 R = exp_so3(M_PI * n);
  const Vec3 w = log_so3(R);
  EXPECT_NEAR(w.norm(), M_PI, 1e-12);
  EXPECT_LT((exp_so3(w) - R).norm(), 1e-12);
}

TEST(Spatial, Se3ExpMatchesTheMatrixExponentialAndLogInvertsIt) {
  std::mt19937 rng(2);
  for (double angle : {0.0, 1e-9, 1e-4, 0.0999, 0.1, 0.3, 2.5, 3.1}) {
    Vec6 v = random_vec6(rng);
    v.tail<3>() = angle * v.tail<3>().normalized();
    // Reference: the series of the 4x4 matrix exponential, summed to convergence.
    Mat4 term = Mat4::Identity(), sum = Mat4::Identity();
    for (int k = 1; k < 60; ++k) {
      term = term * hat6(v) / k;
      sum += term;
    }
    const Transform T = exp_se3(v);
    EXPECT_LT((T.matrix() - sum).norm(), 1e-13) << "angle " << angle;
    EXPECT_LT((log_se3(T) - v).norm(), 1e-12) << "angle " << angle;
  }
}

TEST(Spatial, InverseRightJacobianClosedFormInvertsTheSeries) {
  // The closed form against the inverse of the series of right_jacobian_se3, on both sides of
  // its switch at θ = 0.5 and near θ = 0 and π.
  std::mt19937 rng(3);
  std::normal_distribution<double> nd;
  double worst = 0.0;
  for (double angle : {0.0, 1e-7, 1e-3, 0.1, 0.49, 0.51, 1.0, 2.0, 3.1}) {
    for (int k = 0; k < 5; ++k) {
      Vec6 u;
      for (int i = 0; i < 6; ++i) u[i] = nd(rng);
      u.tail<3>() = angle * u.tail<3>().normalized();
      const Mat6 expect = right_jacobian_se3(u).inverse();
      worst = std::max(worst, (inverse_right_jacobian_se3(u) - expect).cwiseAbs().maxCoeff() /
                                  std::max(1.0, expect.cwiseAbs().maxCoeff()));
    }
  }
  EXPECT_LT(worst, 1e-12);
}

TEST(Spatial, TransformCompositionMatchesMotionTransformProducts) {
  std::mt19937 rng(3);
  const Transform A = random_transform(rng), B = random_transform(rng);
  EXPECT_LT((motion_transform(A * B) - motion_transform(A) * motion_transform(B)).norm(), 1e-14);
  EXPECT_LT((motion_transform(A.inverse()) - motion_transform(A).inverse()).norm(), 1e-13);
  EXPECT_LT(((A * A.inverse()).matrix() - Mat4::Identity()).norm(), 1e-14);
  EXPECT_LT(((A * B).matrix() - A.matrix() * B.matrix()).norm(), 1e-14);
}

TEST(Spatial, MotionTransformIsTheAdjointOfTheGroup) {
  // H exp(v^) H^-1 = exp((X v)^): ^C X_D maps twists as conjugation does.
  std::mt19937 rng(4);
  const Transform H = random_transform(rng);
  const Vec6 v = random_vec6(rng);
  const Mat4 lhs = H.matrix() * hat6(v) * H.inverse().matrix();
  EXPECT_LT((lhs - hat6(motion_transform(H) * v)).norm(), 1e-14);
  EXPECT_LT((transform_motion(H, v) - motion_transform(H) * v).norm(), 1e-14);
  EXPECT_LT((inverse_transform_motion(H, transform_motion(H, v)) - v).norm(), 1e-14);
}

TEST(Spatial, ForceCrossIsMinusTransposeOfMotionCross) {
  std::mt19937 rng(5);
  const Vec6 v = random_vec6(rng), u = random_vec6(rng), f = random_vec6(rng);
  EXPECT_LT((cross_force(v) + cross_motion(v).transpose()).norm(), 1e-15);
  EXPECT_LT((cross_motion(v, u) - cross_motion(v) * u).norm(), 1e-15);
  EXPECT_LT((cross_force(v, f) - cross_force(v) * f).norm(), 1e-15);
  EXPECT_LT((cross_force_matrix_of(f) * u - cross_force(u, f)).norm(), 1e-15);
  // The bracket of se(3): (v×) u = (v^ u^ - u^ v^)^∨.
  EXPECT_LT((vee6(hat6(v) * hat6(u) - hat6(u) * hat6(v)) - cross_motion(v, u)).norm(), 1e-15);
}

TEST(Spatial, PowerIsInvariantUnderChangeOfFrame) {
  std::mt19937 rng(6);
  const Transform H = random_transform(rng);
  const Vec6 v = random_vec6(rng), f = random_vec6(rng);
  EXPECT_NEAR(transform_force(H, f).dot(transform_motion(H, v)), f.dot(v), 1e-14);
  EXPECT_LT((force_transform(H) - motion_transform(H.inverse()).transpose()).norm(), 1e-14);
  EXPECT_LT((inverse_transform_force(H, transform_force(H, f)) - f).norm(), 1e-14);
}

TEST(Spatial, InertiaTransformAgreesWithTransformingTwistsAndWrenches) {
  std::mt19937 rng(7);
  double m;
  Vec3 c;
  Mat3 I_c;
  random_inertia(rng, m, c, I_c);
  const Mat6 M = spatial_inertia(m, c, I_c);
  const Transform H = random_transform(rng);  // ^C H_D, M given in D
  const Mat6 MC = transform_inertia(H, m, c, I_c);
  EXPECT_LT((MC - transform_inertia(H, M)).norm(), 1e-13);
  // h_C = ^C X^D M ^D X_C v_C for any twist v_C.
  const Vec6 vC = random_vec6(rng);
  const Vec6 hC = transform_force(H, M * inverse_transform_motion(H, vC));
  EXPECT_LT((MC * vC - hC).norm(), 1e-13);
  // Kinetic energy is frame independent, M symmetric positive definite.
  EXPECT_NEAR(vC.dot(MC * vC),
              inverse_transform_motion(H, vC).dot(M * inverse_transform_motion(H, vC)), 1e-13);
  EXPECT_LT((MC - MC.transpose()).norm(), 1e-13);
  double m2;
  Vec3 c2;
  Mat3 I2;
  inertia_parameters(MC, m2, c2, I2);
  EXPECT_NEAR(m2, m, 1e-14);
  EXPECT_LT((c2 - H.apply(c)).norm(), 1e-13);
  EXPECT_LT((I2 - H.R * I_c * H.R.transpose()).norm(), 1e-13);
}

TEST(Spatial, NewtonEulerMomentumRateIsCovariant) {
  // f = M a + v ×* M v transforms as a wrench when v, a transform as twists and M as inertia.
  std::mt19937 rng(8);
  double m;
  Vec3 c;
  Mat3 I_c;
  random_inertia(rng, m, c, I_c);
  const Mat6 M = spatial_inertia(m, c, I_c);
  const Transform H = random_transform(rng);
  const Vec6 v = random_vec6(rng), a = random_vec6(rng);
  const Vec6 f = M * a + cross_force(v, M * v);
  const Mat6 MC = transform_inertia(H, M);
  const Vec6 vC = transform_motion(H, v), aC = transform_motion(H, a);
  EXPECT_LT((MC * aC + cross_force(vC, MC * vC) - transform_force(H, f)).norm(), 1e-13);
}

TEST(Spatial, Se3JacobiansMatchTheSeriesAndFiniteDifferences) {
  std::mt19937 rng(9);
  for (double angle : {0.0, 1e-6, 0.3, 0.4999, 0.5, 1.0, 2.5, 3.1}) {
    Vec6 u = 2.0 * random_vec6(rng);
    u.tail<3>() = angle * u.tail<3>().normalized();
    // Series reference Σ (u×)^k / (k+1)!, summed far.
    Mat6 S = Mat6::Zero(), P = Mat6::Identity();
    double fact = 1.0;
    for (int k = 0; k < 80; ++k) {
      fact *= (k + 1);
      S += P / fact;
      P = P * cross_motion(u);
    }
    EXPECT_LT((left_jacobian_se3(u) - S).norm(), 1e-12) << "angle " << angle;
    // exp(u + ε δ) = exp(u) exp(ε J_r(u) δ): compare with a central difference.
    const double eps = 1e-6;
    for (int k = 0; k < 6; ++k) {
      Vec6 d = Vec6::Zero();
      d[k] = eps;
      const Vec6 fd = (log_se3(exp_se3(u).inverse() * exp_se3(u + d)) -
                       log_se3(exp_se3(u).inverse() * exp_se3(u - d))) /
                      (2 * eps);
      EXPECT_LT((fd - right_jacobian_se3(u).col(k)).norm(), 1e-8) << "angle " << angle;
    }
  }
}

}  // namespace
}  // namespace geolin::test
