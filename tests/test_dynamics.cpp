// The oracle of docs/dynamics.md §6, items 1-4 and 6, on every bundled model (moving and fixed
// base) and on random trees, at many random states.
#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <memory>

#include "test_util.hpp"

namespace geolin::test {
namespace {

constexpr int kSamples = 20;

class Dynamics : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
    n_ = model_.num_dofs();
    nj_ = model_.num_joints();
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
  int n_ = 0, nj_ = 0;
  std::mt19937 rng_{12345};
};

TEST_P(Dynamics, AbaInvertsRnea) {
  // ABA(H, s, ν, RNEA(H, s, ν, ν̇)) = ν̇   (docs/dynamics.md §6 item 1)
  double worst = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    const State x = random_state(model_, rng_);
    const VecX nu_dot = VecX::Random(n_);
    VecX gen(n_), back(n_);
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, gen);
    const Vec6 f0 = model_.fixed_base ? Vec6::Zero() : Vec6(gen.head<6>());
    aba_with_base_wrench(model_, *ws_, x.H, x.s, x.v, x.r, gen.tail(nj_), f0, back);
    worst = std::max(worst, rel_err(back, nu_dot));
  }
  EXPECT_LT(worst, 1e-10);
}

TEST_P(Dynamics, AbaOfRneaTorquesWithZeroBaseWrenchIsExact) {
  // RNEA(ν̇) for the ν̇ returned by ABA(τ) gives back [0; τ]: base wrench zero, joint torques τ.
  double worst = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    const State x = random_state(model_, rng_);
    VecX nu_dot(n_), gen(n_);
    aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, gen);
    VecX expected = VecX::Zero(n_);
    expected.tail(nj_) = x.tau;
    worst = std::max(worst, rel_err(gen, expected));
  }
  EXPECT_LT(worst, 1e-10);
}

TEST_P(Dynamics, MassMatrixIsSymmetricPositiveDefiniteAndInverted) {
  double worst_inv = 0.0, worst_sym = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    const State x = random_state(model_, rng_);
    MatX M(n_, n_), Minv(n_, n_);
    crba(model_, *ws_, x.s, M);
    mass_matrix_inverse(model_, *ws_, x.s, Minv);
    worst_sym = std::max(worst_sym, rel_err(M, M.transpose()));
    Eigen::SelfAdjointEigenSolver<MatX> eig(M);
    EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0);
    const double cond = eig.eigenvalues().maxCoeff() / eig.eigenvalues().minCoeff();
    worst_inv = std::max(worst_inv, rel_err(M * Minv, MatX::Identity(n_, n_)) / cond);
    worst_sym = std::max(worst_sym, rel_err(Minv, Minv.transpose()) / cond);
  }
  EXPECT_LT(worst_sym, 1e-13);
  EXPECT_LT(worst_inv, 1e-13);  // |M M^-1 - 1| relative to cond(M) (round-off bound)
}

TEST_P(Dynamics, MassMatrixSplitsRnea) {
  // M ν̇ + RNEA(ν̇ = 0) = RNEA(ν̇)   (docs/dynamics.md §6 item 2)
  double worst = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    const State x = random_state(model_, rng_);
    const VecX nu_dot = VecX::Random(n_);
    VecX bias(n_), full(n_);
    MatX M(n_, n_);
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, VecX::Zero(n_), bias);
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, full);
    crba(model_, *ws_, x.s, M);
    worst = std::max(worst, rel_err(M * nu_dot + bias, full));
  }
  EXPECT_LT(worst, 1e-10);
}

TEST_P(Dynamics, AbaEqualsMassMatrixSolve) {
  double worst = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    const State x = random_state(model_, rng_);
    VecX bias(n_), nu_dot(n_);
    MatX M(n_, n_);
    rnea(model_, *ws_, x.H, x.s, x.v, x.r, VecX::Zero(n_), bias);
    crba(model_, *ws_, x.s, M);
    VecX rhs = -bias;
    rhs.tail(nj_) += x.tau;
    const VecX expected = M.llt().solve(rhs);
    aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    worst = std::max(worst, rel_err(nu_dot, expected));
  }
  EXPECT_LT(worst, 1e-9);
}

// The properties of a base pose: moving-base models only.
class MovingBaseDynamics : public Dynamics {};

TEST_P(MovingBaseDynamics, JointAccelerationsIgnoreBasePose) {
  double worst_joint = 0.0, worst_base = 0.0;
  for (int k = 0; k < kSamples; ++k) {
    State x = random_state(model_, rng_);
    VecX a1(n_), a2(n_);
    aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, a1);
    const Transform H1 = x.H;
    x.H.R = random_rotation(rng_);
    x.H.o = Vec3::Random() * 10.0;
    aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, a2);
    worst_joint = std::max(worst_joint, rel_err(a2.tail(nj_), a1.tail(nj_)));
    // The base linear acceleration shifts by R^T g, the angular one not at all.
    Vec6 shift = Vec6::Zero();
    shift.head<3>() = (x.H.R.transpose() - H1.R.transpose()) * ws_->gravity;
    worst_base = std::max(worst_base, rel_err(a2.head<6>() - a1.head<6>(), shift));
  }
  EXPECT_LT(worst_joint, 1e-12);
  EXPECT_LT(worst_base, 1e-12);
}

TEST_P(MovingBaseDynamics, ZeroGravityRemovesTheBaseShift) {
  State x = random_state(model_, rng_);
  VecX a_g(n_), a_0(n_);
  aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, a_g);
  ws_->gravity.setZero();
  aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, a_0);
  Vec6 shift = Vec6::Zero();
  shift.head<3>() = x.H.R.transpose() * Vec3(0, 0, -9.81);
  EXPECT_LT(rel_err(a_g.head<6>() - a_0.head<6>(), shift), 1e-12);
  EXPECT_LT(rel_err(a_g.tail(nj_), a_0.tail(nj_)), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(AllModels, Dynamics, testing::ValuesIn(all_model_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(MovingBaseModels, MovingBaseDynamics,
                         testing::ValuesIn(moving_base_model_cases()), case_name);

}  // namespace
}  // namespace geolin::test
