// The state algebra (include/geolin/state.hpp; docs/dynamics.md (D15), (D40)–(D44)): x exp(z) and
// log(x0⁻¹ x1) invert each other, and their Jacobians match geometric central differences on
// every bundled model (moving and fixed base), at rotation angles from 0 to just below π.
#include <algorithm>

#include "geolin/state.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// The rotation angles of z_H: zero, the Taylor branches (< 0.1, < 0.5), the closed forms, and
// close to π, where the log changes branch.
const double kAngles[] = {0.0, 1e-9, 1e-4, 0.05, 0.45, 0.7, 1.5, 2.5, 3.1, M_PI - 1e-3};

// A random z whose pose part rotates by `angle` (fixed base: no pose part).
VecX random_z(const Model &m, std::mt19937 &rng, double angle) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX z(m.state_dim());
  for (int k = 0; k < z.size(); ++k) z[k] = u(rng);
  if (!m.fixed_base) {
    const Vec3 axis = z.segment<3>(3).normalized();
    z.segment<3>(3) = angle * axis;
  }
  return z;
}

class StateAlgebra : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override { model_ = GetParam().load(); }
  State random() { return random_state(model_, rng_); }
  Model model_;
  std::mt19937 rng_{35};
};

TEST_P(StateAlgebra, DifferenceInvertsIntegrate) {
  double worst = 0.0;
  for (double angle : kAngles) {
    const State x = random();
    const VecX z = random_z(model_, rng_, angle);
    const geolin::State y = state_integrate(model_, x, z);
    worst = std::max(worst, (state_difference(model_, x, y) - z).cwiseAbs().maxCoeff());
    // And the other way round: x exp(log(x⁻¹ y)) = y.
    const geolin::State y2 = state_integrate(model_, x, state_difference(model_, x, y));
    EXPECT_LT(state_difference(model_, y, y2).norm(), 1e-12) << "angle " << angle;
  }
  EXPECT_LT(worst, 1e-9);
  RecordProperty("worst_log_exp_error", sci(worst));
}

TEST_P(StateAlgebra, IntegrateOfZeroAndDifferenceOfEqualStatesAreTrivial) {
  const State x = random();
  const geolin::State y = state_integrate(model_, x, VecX::Zero(model_.state_dim()));
  // Zero, up to the round-off of log(Rᵀ R) in the pose part (Rᵀ R = 1 + O(1e-16)).
  EXPECT_LT(state_difference(model_, x, x).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LT((y.H.matrix() - x.H.matrix()).norm(), 1e-15);
  EXPECT_EQ(y.s, x.s);
  EXPECT_EQ(y.r, x.r);
}

// Column k of a Jacobian D (z' = z0 + D dx) by central differences of a map g(±ε e_k) ∈ G,
// read in the coordinates of its value at 0: (log(g(0)⁻¹ g(ε e_k)) − log(g(0)⁻¹ g(−ε e_k))) / 2ε.
template <class Map>
MatX group_differences(const Model &m, Map &&g) {
  const int N = m.state_dim();
  const geolin::State g0 = g(VecX::Zero(N));
  MatX D(N, N);
  for (int k = 0; k < N; ++k) {
    const VecX e = kFdEps * VecX::Unit(N, k);
    D.col(k) = (state_difference(m, g0, g(e)) - state_difference(m, g0, g(-e))) / (2 * kFdEps);
  }
  return D;
}

// The same for a map into R^N (the difference z).
template <class Map>
MatX vector_differences(const Model &m, Map &&f) {
  const int N = m.state_dim();
  MatX D(N, N);
  for (int k = 0; k < N; ++k) {
    const VecX e = kFdEps * VecX::Unit(N, k);
    D.col(k) = (f(e) - f(-e)) / (2 * kFdEps);
  }
  return D;
}

TEST_P(StateAlgebra, IntegrateDerivativesMatchGeometricFiniteDifferences) {
  const int N = model_.state_dim();
  double worst_dx = 0.0, worst_dz = 0.0;
  for (double angle : kAngles) {
    const State x = random();
    const VecX z = random_z(model_, rng_, angle);
    MatX d_dx(N, N), d_dz(N, N);
    state_integrate_derivatives(model_, z, d_dx, d_dz);
    // (x exp(dx)) exp(z) and x exp(z + dz), read at x exp(z).
    const MatX fd_dx = group_differences(model_, [&](const VecX &dx) {
      return state_integrate(model_, state_integrate(model_, x, dx), z);
    });
    const MatX fd_dz = group_differences(
        model_, [&](const VecX &dz) { return state_integrate(model_, x, VecX(z + dz)); });
    const double ex = rel_err(d_dx, fd_dx), ez = rel_err(d_dz, fd_dz);
    EXPECT_LT(ex, 1e-8) << "angle " << angle;
    EXPECT_LT(ez, 1e-8) << "angle " << angle;
    worst_dx = std::max(worst_dx, ex);
    worst_dz = std::max(worst_dz, ez);
  }
  RecordProperty("worst_d_dx", sci(worst_dx));
  RecordProperty("worst_d_dz", sci(worst_dz));
}

TEST_P(StateAlgebra, DifferenceDerivativesMatchGeometricFiniteDifferences) {
  const int N = model_.state_dim();
  double worst0 = 0.0, worst1 = 0.0;
  for (double angle : kAngles) {
    const State x0 = random();
    const geolin::State x1 = state_integrate(model_, x0, random_z(model_, rng_, angle));
    MatX dz_dx0(N, N), dz_dx1(N, N);
    state_difference_derivatives(model_, x0.H, x1.H, dz_dx0, dz_dx1);
    const MatX fd0 = vector_differences(model_, [&](const VecX &dx) {
      return state_difference(model_, state_integrate(model_, x0, dx), x1);
    });
    const MatX fd1 = vector_differences(model_, [&](const VecX &dx) {
      return state_difference(model_, x0, state_integrate(model_, x1, dx));
    });
    const double e0 = rel_err(dz_dx0, fd0), e1 = rel_err(dz_dx1, fd1);
    EXPECT_LT(e0, 1e-8) << "angle " << angle;
    EXPECT_LT(e1, 1e-8) << "angle " << angle;
    worst0 = std::max(worst0, e0);
    worst1 = std::max(worst1, e1);
  }
  RecordProperty("worst_dz_dx0", sci(worst0));
  RecordProperty("worst_dz_dx1", sci(worst1));
}

// Identities between the four Jacobians at y = x exp(z): the difference undoes the integration,
// so dz_dx1(x, y) d_dz(z) = 1 and dz_dx0(x, y) + dz_dx1(x, y) d_dx(z) = 0 (the chain rule on
// log(x⁻¹ x exp(z)) = z); and J_l(z_H) = Ad_{exp(z_H)} J_r(z_H) = J_r(−z_H) on the pose block.
TEST_P(StateAlgebra, JacobiansSatisfyTheCompositionIdentities) {
  const int N = model_.state_dim();
  const MatX I = MatX::Identity(N, N);
  for (double angle : kAngles) {
    const State x = random();
    const VecX z = random_z(model_, rng_, angle);
    const geolin::State y = state_integrate(model_, x, z);
    MatX d_dx(N, N), d_dz(N, N), dz_dx0(N, N), dz_dx1(N, N), d_dz_minus(N, N), none(0, 0);
    state_integrate_derivatives(model_, z, d_dx, d_dz);
    state_integrate_derivatives(model_, -z, none, d_dz_minus);
    state_difference_derivatives(model_, x.H, y.H, dz_dx0, dz_dx1);
    EXPECT_LT((dz_dx1 * d_dz - I).cwiseAbs().maxCoeff(), 1e-9) << "angle " << angle;
    EXPECT_LT((dz_dx0 + dz_dx1 * d_dx).cwiseAbs().maxCoeff(), 1e-9) << "angle " << angle;
    EXPECT_LT((d_dx.inverse() * d_dz - d_dz_minus).cwiseAbs().maxCoeff(), 1e-11)
        << "angle " << angle;
  }
}

TEST_P(StateAlgebra, CoordinateMoveIsIntegrateOfAUnitVector) {
  const int N = model_.state_dim();
  const State x = random();
  for (int k = 0; k < N; ++k) {
    State y = x;
    state_integrate_coordinate(model_, k, 0.3, y);
    const geolin::State w = state_integrate(model_, x, VecX(0.3 * VecX::Unit(N, k)));
    EXPECT_EQ(y.H.matrix(), w.H.matrix()) << k;
    EXPECT_EQ(y.s, w.s) << k;
    EXPECT_EQ(y.v, w.v) << k;
    EXPECT_EQ(y.r, w.r) << k;
    EXPECT_EQ(y.tau, x.tau);
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, StateAlgebra, testing::ValuesIn(all_model_cases()), case_name);

// A fixed base has no pose: H and v are neither read nor written, and the Jacobians are ±1.
TEST(StateAlgebraFixedBase, PoseIsIgnoredAndJacobiansAreIdentities) {
  const Model m = load_urdf_file(model_path("arm7.urdf"), kFixedBase);
  const int nj = m.num_joints(), N = m.state_dim();
  ASSERT_EQ(N, 2 * nj);
  std::mt19937 rng(3);
  State x = random_state(m, rng);
  const VecX z = VecX::LinSpaced(N, -1.0, 1.0);
  geolin::State y;
  y.H.o = Vec3(7, 8, 9);
  y.v.setConstant(5.0);
  state_integrate(m, x, z, y);
  EXPECT_EQ(y.H.o, Vec3(7, 8, 9));
  EXPECT_EQ(y.v, Vec6::Constant(5.0));
  EXPECT_EQ(y.s, VecX(x.s + z.head(nj)));
  EXPECT_EQ(y.r, VecX(x.r + z.tail(nj)));
  x.H.o = Vec3(1, 2, 3);  // a different (ignored) pose changes nothing
  EXPECT_LT((state_difference(m, x, y) - z).cwiseAbs().maxCoeff(), 1e-15);
  MatX a(N, N), b(N, N), c(N, N), d(N, N);
  state_integrate_derivatives(m, z, a, b);
  state_difference_derivatives(m, x.H, y.H, c, d);
  EXPECT_EQ(a, MatX::Identity(N, N));
  EXPECT_EQ(b, MatX::Identity(N, N));
  EXPECT_EQ(c, -MatX::Identity(N, N));
  EXPECT_EQ(d, MatX::Identity(N, N));
}

// At a rotation angle of exactly π both ±π n are logs; the one returned has the first of the
// largest components of n positive (log_so3's rule), whichever sign built the rotation.
TEST(StateAlgebraAtPi, LogAtExactlyPiFollowsTheDocumentedSign) {
  const Vec3 axes[] = {Vec3(1, 0, 0),
                       Vec3(0, -1, 0),
                       Vec3(0, 0, -1),
                       Vec3(1, -1, 0) / std::sqrt(2.0),
                       Vec3(0, 1, -1) / std::sqrt(2.0),
                       Vec3(-1, -1, 0) / std::sqrt(2.0)};
  for (const Vec3 &n : axes) {
    Transform H0, H1;
    H0.o = Vec3(0.5, -0.2, 1.0);
    // R = 2 n nᵀ − 1, exactly symmetric: rotation by π about ±n.
    H1.R = 2.0 * n * n.transpose() - Mat3::Identity();
    H1.o = Vec3(-0.3, 0.4, 0.9);
    const Vec6 z = pose_difference(H0, H1);
    const Vec3 w = z.tail<3>();
    EXPECT_NEAR(w.norm(), M_PI, 1e-12);
    int k = 0;
    w.cwiseAbs().maxCoeff(&k);
    EXPECT_GT(w[k], 0.0) << n.transpose();
    for (int i = 0; i < k; ++i) EXPECT_LT(std::abs(w[i]), std::abs(w[k]) - 1e-9);
    const Vec3 expect = M_PI * (n[k] > 0 ? n : Vec3(-n));
    EXPECT_LT((w - expect).norm(), 1e-12) << n.transpose();
    // It is a log: H0 exp(z) = H1; and the same input always gives the same z.
    const Transform back = pose_integrate(H0, z);
    EXPECT_LT((back.matrix() - H1.matrix()).norm(), 1e-12);
    EXPECT_EQ(pose_difference(H0, H1), z);
  }
}

}  // namespace
}  // namespace geolin::test
