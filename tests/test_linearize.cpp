// The exact linearization (docs/dynamics.md §4) against its independent oracle, the geometric
// central finite difference of §5, and the RNEA derivatives against finite differences of RNEA.
#include <memory>

#include "isa_util.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

class Linearize : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
    n_ = model_.num_dofs();
    nj_ = model_.num_joints();
    N_ = model_.state_dim();
  }
  /// Random states plus the attitudes where Euler angles are singular (pitch ±90°, composed
  /// with other rotations) and large velocities.
  std::vector<State> states() {
    std::vector<State> xs;
    for (int k = 0; k < 6; ++k) xs.push_back(random_state(model_, rng_));
    const Mat3 gimbal[] = {rot_y(M_PI / 2), rot_y(-M_PI / 2), rot_z(0.7) * rot_y(M_PI / 2),
                           rot_y(-M_PI / 2) * rot_x(-1.1)};
    for (const Mat3 &R : gimbal) {
      State x = random_state(model_, rng_);
      x.H.R = R;
      xs.push_back(x);
    }
    for (int k = 0; k < 2; ++k) {
      State x = random_state(model_, rng_, 10.0);  // |v| and |r| up to 10
      x.H.R = rot_y(M_PI / 2);
      xs.push_back(x);
    }
    return xs;
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
  int n_ = 0, nj_ = 0, N_ = 0;
  std::mt19937 rng_{2022};
};

TEST_P(Linearize, RneaDerivativesMatchFiniteDifferences) {
  const double eps = 1e-6;
  double worst_s = 0.0, worst_nu = 0.0;
  for (const State &x : states()) {
    const VecX nu_dot = VecX::Random(n_);
    MatX dID_ds(n_, nj_), dID_dnu(n_, n_);
    rnea_derivatives(model_, *ws_, x.H, x.s, x.v, x.r, nu_dot, dID_ds, dID_dnu);
    MatX fd_s(n_, nj_), fd_nu(n_, n_);
    VecX plus(n_), minus(n_);
    for (int j = 0; j < nj_; ++j) {
      VecX s = x.s;
      s[j] += eps;
      rnea(model_, *ws_, x.H, s, x.v, x.r, nu_dot, plus);
      s[j] -= 2 * eps;
      rnea(model_, *ws_, x.H, s, x.v, x.r, nu_dot, minus);
      fd_s.col(j) = (plus - minus) / (2 * eps);
    }
    for (int k = 0; k < n_; ++k) {
      Vec6 v = x.v;
      VecX r = x.r;
      const bool base = !model_.fixed_base && k < 6;
      const int jk = k - model_.joint_offset();
      base ? v[k] += eps : r[jk] += eps;
      rnea(model_, *ws_, x.H, x.s, v, r, nu_dot, plus);
      base ? v[k] -= 2 * eps : r[jk] -= 2 * eps;
      rnea(model_, *ws_, x.H, x.s, v, r, nu_dot, minus);
      fd_nu.col(k) = (plus - minus) / (2 * eps);
    }
    if (nj_ > 0) worst_s = std::max(worst_s, rel_err(dID_ds, fd_s));
    worst_nu = std::max(worst_nu, rel_err(dID_dnu, fd_nu));
  }
  EXPECT_LT(worst_s, 1e-7);
  EXPECT_LT(worst_nu, 1e-7);
  RecordProperty("worst_ds", sci(worst_s));
  RecordProperty("worst_dnu", sci(worst_nu));
}

TEST_P(Linearize, AnalyticalMatchesGeometricFiniteDifferencesPerBlock) {
  const bool moving = !model_.fixed_base;
  const int o = model_.joint_offset();
  // Column blocks of the F rows (rows n..2n-1): F_H, F_s, F_v, F_r.
  struct Block {
    const char *name;
    int col, cols;
  };
  std::vector<Block> blocks;
  if (moving) blocks.push_back({"F_H", 0, 6});
  blocks.push_back({"F_s", o, nj_});
  if (moving) blocks.push_back({"F_v", n_, 6});
  blocks.push_back({"F_r", n_ + o, nj_});
  std::vector<double> worst(blocks.size(), 0.0);
  double worst_B = 0.0, worst_top = 0.0;
  for (const State &x : states()) {
    MatX A(N_, N_), B(N_, nj_), Afd(N_, N_), Bfd(N_, nj_);
    linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A, B);
    linearize_finite_difference(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, kFdEps, Afd, Bfd);
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (blocks[b].cols == 0) continue;
      worst[b] = std::max(worst[b], rel_err(A.block(n_, blocks[b].col, n_, blocks[b].cols),
                                            Afd.block(n_, blocks[b].col, n_, blocks[b].cols)));
    }
    worst_top = std::max(worst_top, rel_err(A.topRows(n_), Afd.topRows(n_)));
    if (nj_ > 0) worst_B = std::max(worst_B, rel_err(B, Bfd));
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_LT(worst[b], 1e-6) << blocks[b].name;
    RecordProperty(blocks[b].name, sci(worst[b]));
  }
  EXPECT_LT(worst_top, 1e-9);
  EXPECT_LT(worst_B, 1e-6);
  RecordProperty("B", sci(worst_B));
}

TEST_P(Linearize, StructuralBlocksAreExact) {
  // −v× on the SE(3) block, identities for ż_H ← z_v and ż_s ← z_r, B = [0; M⁻¹ S],
  // F_H = [[0, (Rᵀg)^], [0, 0]] with zero joint rows.
  const bool moving = !model_.fixed_base;
  for (const State &x : states()) {
    MatX A(N_, N_), B(N_, nj_), Minv(n_, n_);
    linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A, B);
    mass_matrix_inverse(model_, *ws_, x.s, Minv);
    EXPECT_EQ(B.topRows(n_), MatX::Zero(n_, nj_));
    EXPECT_LT(rel_err(B.bottomRows(n_), Minv.rightCols(nj_)), 1e-14);
    if (moving) {
      EXPECT_EQ(MatX(A.topLeftCorner(6, 6)), MatX(-cross_motion(x.v)));
      EXPECT_EQ(MatX(A.block(0, n_, 6, 6)), MatX::Identity(6, 6));
      EXPECT_EQ(MatX(A.block(6, n_ + 6, nj_, nj_)), MatX::Identity(nj_, nj_));
      EXPECT_EQ(MatX(A.block(0, 6, 6, nj_)), MatX::Zero(6, nj_));
      MatX F_H = MatX::Zero(n_, 6);
      F_H.block(0, 3, 3, 3) = hat(x.H.R.transpose() * ws_->gravity);
      EXPECT_EQ(MatX(A.block(n_, 0, n_, 6)), F_H);
      EXPECT_EQ(MatX(A.block(n_ + 6, 0, nj_, 6)), MatX::Zero(nj_, 6));  // joint rows of F_H
    } else {
      EXPECT_EQ(MatX(A.topLeftCorner(nj_, nj_)), MatX::Zero(nj_, nj_));
      EXPECT_EQ(MatX(A.topRightCorner(nj_, nj_)), MatX::Identity(nj_, nj_));
    }
  }
}

TEST_P(Linearize, VectorAndBaselineSolverLoopsAgree) {
  // The solver's column loops exist per instruction set (baseline, AVX2+FMA, AVX-512; the
  // widest is chosen at run time); all must give A and B to round-off (FMA rounds once where
  // the baseline rounds twice).
  const std::vector<const char *> isas = wider_isas();
  if (isas.empty()) GTEST_SKIP() << "this processor has only the baseline instruction set";
  const RestoreAutomaticIsa restore;
  for (const char *isa : isas) {
    for (const State &x : states()) {
      MatX A1(N_, N_), B1(N_, nj_), A2(N_, N_), B2(N_, nj_);
      ASSERT_TRUE(detail::force_solve_isa("baseline"));
      EXPECT_STREQ(detail::solve_isa(), "baseline");
      linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A1, B1);
      ASSERT_TRUE(detail::force_solve_isa(isa));
      EXPECT_STREQ(detail::solve_isa(), isa);
      linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A2, B2);
      EXPECT_LT(rel_err(A2, A1), 1e-12) << isa;
      EXPECT_LT(rel_err(B2, B1), 1e-12) << isa;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, Linearize, testing::ValuesIn(all_model_cases()), case_name);

}  // namespace
}  // namespace geolin::test
