// inverse_dynamics_linearize (docs/dynamics.md (D39)) against its independent oracles: geometric
// central finite differences of rnea through x exp(z) (docs/dynamics.md §5), the implicit-function
// identity with linearize's A (D19), and CRBA's mass matrix.
#include <Eigen/Cholesky>
#include <memory>

#include "test_util.hpp"

namespace geolin::test {
namespace {

class InverseDynamicsLinearize : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
    n_ = model_.num_dofs();
    nj_ = model_.num_joints();
    N_ = model_.state_dim();
  }
  /// Random states, base pitch ±90° (Euler angles singular) and large velocities.
  std::vector<State> states() {
    std::vector<State> xs;
    for (int k = 0; k < 4; ++k) xs.push_back(random_state(model_, rng_));
    const Mat3 gimbal[] = {rot_y(M_PI / 2), rot_y(-M_PI / 2), rot_z(0.7) * rot_y(M_PI / 2)};
    for (const Mat3 &R : gimbal) {
      State x = random_state(model_, rng_);
      x.H.R = R;
      xs.push_back(x);
    }
    State fast = random_state(model_, rng_, 10.0);
    fast.H.R = rot_y(-M_PI / 2) * rot_x(-1.1);
    xs.push_back(fast);
    return xs;
  }
  /// τ at x exp(e e_k), z = [z_H; z_s; z_v; z_r] (a fixed base has no z_H, z_v).
  VecX tau_at(const State &x, const VecX &nu_dot, int k, double e) {
    State y = x;
    state_integrate_coordinate(model_, k, e, y);
    VecX tau(n_);
    rnea(model_, *ws_, y.H, y.s, y.v, y.r, nu_dot, tau);
    return tau;
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
  int n_ = 0, nj_ = 0, N_ = 0;
  std::mt19937 rng_{2026};
};

TEST_P(InverseDynamicsLinearize, DerivativesMatchGeometricFiniteDifferences) {
  const double eps = 1e-6;
  double worst_dz = 0.0, worst_M = 0.0;
  for (const State &x : states()) {
    const VecX nu_dot = VecX::Random(n_);
    VecX tau(n_);
    MatX dtau_dz(n_, N_), M(n_, n_);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau, dtau_dz, M);
    MatX fd(n_, N_), fd_M(n_, n_);
    for (int k = 0; k < N_; ++k)
      fd.col(k) = (tau_at(x, nu_dot, k, eps) - tau_at(x, nu_dot, k, -eps)) / (2 * eps);
    VecX plus(n_), minus(n_);
    for (int k = 0; k < n_; ++k) {  // τ is affine in ν̇: the central difference is exact
      VecX a = nu_dot;
      a[k] += 1.0;
      rnea(model_, *ws_, x.H, x.s, x.v, x.r, a, plus);
      a[k] -= 2.0;
      rnea(model_, *ws_, x.H, x.s, x.v, x.r, a, minus);
      fd_M.col(k) = (plus - minus) / 2.0;
    }
    worst_dz = std::max(worst_dz, rel_err(dtau_dz, fd));
    worst_M = std::max(worst_M, rel_err(M, fd_M));
  }
  EXPECT_LT(worst_dz, 1e-7);
  EXPECT_LT(worst_M, 1e-10);
  RecordProperty("worst_dtau_dz", sci(worst_dz));
  RecordProperty("worst_M", sci(worst_M));
}

// ID(x, FD(x, τ)) = S τ for all x, so at ν̇ = FD: ∂FD/∂z = −M⁻¹ ∂τ/∂z, the ν̇ rows of A (D19).
TEST_P(InverseDynamicsLinearize, ImplicitFunctionIdentityWithLinearize) {
  double worst = 0.0;
  for (const State &x : states()) {
    VecX nu_dot(n_), tau(n_);
    aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    MatX dtau_dz(n_, N_), M(n_, n_), A(N_, N_), B(N_, nj_);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau, dtau_dz, M);
    linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A, B);
    const MatX F = -M.ldlt().solve(dtau_dz);
    worst = std::max(worst, rel_err(F, A.bottomRows(n_)));
  }
  EXPECT_LT(worst, 1e-9);
  RecordProperty("worst", sci(worst));
}

// M = ∂τ/∂ν̇ is CRBA's mass matrix and τ is rnea's, bit for bit up to round-off; the optional
// outputs change nothing.
TEST_P(InverseDynamicsLinearize, MatchesCrbaAndRneaWithAnyOutputsOmitted) {
  for (const State &x : states()) {
    const VecX nu_dot = VecX::Random(n_);
    VecX tau(n_), tau_rnea(n_), tau_m(n_), tau_none(n_), tau_dz(n_);
    MatX dtau_dz(n_, N_), dtau_dz2(n_, N_), M(n_, n_), M2(n_, n_), M_crba(n_, n_), none(0, 0);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau, dtau_dz, M);
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau_rnea);
    crba(model_, *ws_, x.s, M_crba);
    EXPECT_LT(rel_err(tau, tau_rnea), 1e-12);
    EXPECT_LT(rel_err(M, M_crba), 1e-12);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau_m, none, M2);
    EXPECT_LT(rel_err(tau_m, tau_rnea), 1e-12);
    EXPECT_LT(rel_err(M2, M_crba), 1e-12);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau_dz, dtau_dz2, none);
    EXPECT_LT(rel_err(tau_dz, tau_rnea), 1e-12);
    EXPECT_LT(rel_err(dtau_dz2, dtau_dz), 1e-15);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau_none, none, none);
    EXPECT_LT(rel_err(tau_none, tau_rnea), 1e-12);
  }
}

// The forms that write straight into the caller's arrays (the C API's) write what the plain ones
// do, bit for bit, when every term is within kTermBound; when a term is beyond it they write
// nothing, although the plain results are finite there (rates of 1e60: Ψ̈ and F ~ 1e120).
TEST_P(InverseDynamicsLinearize, BoundedFormsWriteTheSameOrNothing) {
  for (const State &x : states()) {
    const VecX nu_dot = VecX::Random(n_);
    VecX tau(n_), tau_b(n_);
    MatX dtau_dz(n_, N_), dtau_dz_b(n_, N_), M(n_, n_), M_b(n_, n_), M_crba(n_, n_),
        M_crba_b(n_, n_);
    inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau, dtau_dz, M);
    ASSERT_TRUE(inverse_dynamics_linearize_if_bounded(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot,
                                                      tau_b, dtau_dz_b, M_b));
    EXPECT_EQ(tau_b, tau);
    EXPECT_EQ(dtau_dz_b, dtau_dz);
    EXPECT_EQ(M_b, M);
    crba(model_, *ws_, x.s, M_crba);
    ASSERT_TRUE(crba_if_bounded(model_, *ws_, x.s, M_crba_b));
    EXPECT_EQ(M_crba_b, M_crba);
  }
  State x = random_state(model_, rng_);
  x.r.setConstant(1e60);
  x.v.setConstant(1e60);  // the free body's only velocity (ignored on a fixed base)
  const VecX nu_dot = VecX::Random(n_);
  VecX tau(n_), tau_b = VecX::Constant(n_, -7.25);
  MatX dtau_dz(n_, N_), M(n_, n_), dtau_dz_b = MatX::Constant(n_, N_, -7.25),
                                   M_b = MatX::Constant(n_, n_, -7.25), none(0, 0);
  inverse_dynamics_linearize(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, tau, dtau_dz, M);
  ASSERT_TRUE(tau.allFinite() && dtau_dz.allFinite() && M.allFinite());
  EXPECT_FALSE(inverse_dynamics_linearize_if_bounded(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot,
                                                     tau_b, dtau_dz_b, M_b));
  EXPECT_TRUE((tau_b.array() == -7.25).all() && (dtau_dz_b.array() == -7.25).all() &&
              (M_b.array() == -7.25).all());
  // Nothing to bound without dtau_dz: the C API stages τ and M then.
  EXPECT_FALSE(inverse_dynamics_linearize_if_bounded(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot,
                                                     tau_b, none, M_b));
}

std::vector<ModelCase> cases() {
  std::vector<ModelCase> c = all_model_cases();
  c.push_back({"arm7_damped_fixed", "arm7.urdf", kFixedBase | kJointDamping});
  c.push_back({"humanoid_damped_moving", "humanoid.urdf", kJointDamping});
  return c;
}

INSTANTIATE_TEST_SUITE_P(AllModels, InverseDynamicsLinearize, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<ModelCase> &info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace geolin::test
