// Frames, frame Jacobians, external wrenches as inputs and joint damping, each with its exact
// linearization checked against geometric finite differences.
#include <Eigen/QR>
#include <memory>

#include "test_util.hpp"

namespace geolin::test {
namespace {

/// Wrenches at a few frames (the last frame of each leaf body and an intermediate one).
std::vector<int> some_frames(const Model &m) {
  std::vector<int> frames;
  const int nf = static_cast<int>(m.frames.size());
  for (int f : {nf - 1, nf / 2, 0})
    if (f >= 0 && std::find(frames.begin(), frames.end(), f) == frames.end()) frames.push_back(f);
  return frames;
}

class Frames : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
  std::mt19937 rng_{31};
};

TEST_P(Frames, JacobianMatchesFiniteDifferencesOfThePose) {
  // ^F v_{A,F} = J ν: compare with (log(H_F(x)⁻¹ H_F(x exp(εν))) − log(… exp(−εν))) / 2ε.
  const int n = model_.num_dofs();
  const double eps = 1e-6;
  double worst = 0.0;
  for (int k = 0; k < 5; ++k) {
    State x = random_state(model_, rng_);
    if (k == 4) x.H.R = rot_y(M_PI / 2);
    for (int f = 0; f < static_cast<int>(model_.frames.size()); ++f) {
      MatX J(6, n);
      frame_jacobian(model_, *ws_, x.H, x.s, f, J);
      VecX nu(n);
      if (!model_.fixed_base) nu.head<6>() = x.v;
      nu.tail(model_.num_joints()) = x.r;
      const Transform HF = frame_pose(model_, *ws_, x.H, x.s, f);
      auto moved = [&](double e) {
        const Transform Hp = model_.fixed_base ? x.H : x.H * exp_se3(e * x.v);
        const VecX sp = x.s + e * x.r;
        return log_se3(HF.inverse() * frame_pose(model_, *ws_, Hp, sp, f));
      };
      const Vec6 fd = (moved(eps) - moved(-eps)) / (2 * eps);
      worst = std::max(worst, rel_err(J * nu, fd));
    }
  }
  EXPECT_LT(worst, 1e-8);
}

TEST_P(Frames, NoWrenchesEqualsThePlainFunctions) {
  const int n = model_.num_dofs(), N = model_.state_dim(), nj = model_.num_joints();
  const State x = random_state(model_, rng_);
  VecX a1(n), a2(n);
  MatX A1(N, N), B1(N, nj), A2(N, N), B2(N, nj);
  aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, a1);
  aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ExternalWrenches{}, a2);
  linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A1, B1);
  linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ExternalWrenches{}, A2, B2);
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(A1, A2);
  EXPECT_EQ(B1, B2);
}

TEST_P(Frames, WrenchInputsLinearizationMatchesFiniteDifferences) {
  const int N = model_.state_dim(), nj = model_.num_joints(), n = model_.num_dofs();
  const std::vector<int> frames = some_frames(model_);
  const int nf = static_cast<int>(frames.size());
  for (unsigned flags : {unsigned(kWrenchLocal), unsigned(kWrenchMixed)}) {
    double worst_A = 0.0, worst_B = 0.0, worst_FH = 0.0;
    for (int k = 0; k < 4; ++k) {
      State x = random_state(model_, rng_, k == 3 ? 5.0 : 1.0);
      if (k >= 2) x.H.R = rot_y(k == 2 ? M_PI / 2 : -M_PI / 2) * rot_z(0.4);
      VecX w = 20.0 * VecX::Random(6 * nf);
      const ExternalWrenches ext{nf, frames.data(), w.data(), flags};
      MatX A(N, N), B(N, nj + 6 * nf), Afd(N, N), Bfd(N, nj + 6 * nf);
      linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, A, B);
      linearize_finite_difference(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, kFdEps, Afd, Bfd);
      worst_A = std::max(worst_A, rel_err(A, Afd));
      worst_B = std::max(worst_B, rel_err(B, Bfd));
      if (!model_.fixed_base)
        worst_FH = std::max(worst_FH, rel_err(A.block(n, 0, n, 6), Afd.block(n, 0, n, 6)));
    }
    const char *name = flags == kWrenchMixed ? "mixed" : "local";
    RecordProperty(std::string("A_") + name, sci(worst_A));
    RecordProperty(std::string("B_") + name, sci(worst_B));
    EXPECT_LT(worst_A, 1e-6) << name;
    EXPECT_LT(worst_B, 1e-6) << name;
    EXPECT_LT(worst_FH, 1e-6) << name;
  }
}

TEST_P(Frames, OneWorkspaceFollowsChangingWrenchLayouts) {
  // The solver keeps its column ranges for the last layout of right-hand sides in the workspace:
  // switching between wrench sets on one workspace must give what a fresh workspace gives.
  const int N = model_.state_dim(), nj = model_.num_joints();
  const std::vector<int> frames = some_frames(model_);
  const State x = random_state(model_, rng_);
  const VecX w = 20.0 * VecX::Random(6 * frames.size());
  for (int round = 0; round < 2; ++round) {
    for (int nf = static_cast<int>(frames.size()); nf >= 0; --nf) {
      for (unsigned flags : {unsigned(kWrenchLocal), unsigned(kWrenchMixed)}) {
        const ExternalWrenches ext{nf, frames.data() + (frames.size() - nf), w.data(), flags};
        MatX A(N, N), B(N, nj + 6 * nf), A_fresh(N, N), B_fresh(N, nj + 6 * nf);
        linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, A, B);
        Workspace fresh(model_);
        linearize(model_, fresh, x.H, x.s, x.v, x.r, x.tau, ext, A_fresh, B_fresh);
        EXPECT_EQ(A, A_fresh) << nf << " wrenches, round " << round;
        EXPECT_EQ(B, B_fresh) << nf << " wrenches, round " << round;
      }
    }
  }
}

TEST_P(Frames, ChainLinksSolvedInOneStepMatchSeparateSteps) {
  // The solver runs a body and its only child as one step where their column ranges coincide
  // (Workspace::SolvePlan::link); turning that off must not change a bit of A and B, with wrenches
  // at frames along the chains (they make neighbouring ranges differ).
  const int N = model_.state_dim(), nj = model_.num_joints();
  const State x = random_state(model_, rng_);
  const std::vector<int> frames = some_frames(model_);
  const VecX w = 20.0 * VecX::Random(6 * frames.size());
  for (int count = 0; count <= static_cast<int>(frames.size()); ++count) {
    const ExternalWrenches ext{count, frames.data(), w.data(), kWrenchLocal};
    MatX A(N, N), B(N, nj + 6 * count), A1(N, N), B1(N, nj + 6 * count);
    linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, A, B);
    for (auto &plan : ws_->plans)  // same layout: the plan is kept
      std::fill(plan.link.begin(), plan.link.end(), 0);
    linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, A1, B1);
    EXPECT_EQ(A, A1) << count << " wrenches";
    EXPECT_EQ(B, B1) << count << " wrenches";
  }
}

TEST_P(Frames, WrenchEntersAsJacobianTranspose) {
  // M ν̇_f − M ν̇_0 = J_Fᵀ f for a Local wrench f at frame F (the definition of the input).
  const int n = model_.num_dofs();
  const State x = random_state(model_, rng_);
  const int f = static_cast<int>(model_.frames.size()) - 1;
  const Vec6 w = Vec6::Random() * 10.0;
  const ExternalWrenches ext{1, &f, w.data(), kWrenchLocal};
  VecX a0(n), a1(n);
  MatX M(n, n), J(6, n);
  aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, a0);
  aba(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, ext, a1);
  crba(model_, *ws_, x.s, M);
  frame_jacobian(model_, *ws_, x.H, x.s, f, J);
  EXPECT_LT(rel_err(M * (a1 - a0), J.transpose() * w), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(AllModels, Frames, testing::ValuesIn(all_model_cases()), case_name);

TEST(Damping, ActsAsViscousFrictionInEveryFunctionAndItsLinearization) {
  const Model plain = load_urdf_file(model_path("humanoid.urdf"));
  const Model damped = load_urdf_file(model_path("humanoid.urdf"), kJointDamping);
  ASSERT_TRUE(damped.joint_damping);
  VecX D(damped.num_joints());
  for (int k = 0; k < damped.num_joints(); ++k) D[k] = damped.damping[k + 1];
  ASSERT_GT(D.maxCoeff(), 0.0) << "the default humanoid declares <dynamics damping>";
  Workspace wp(plain), wd(damped);
  std::mt19937 rng(3);
  const State x = random_state(damped, rng);
  const int n = damped.num_dofs(), N = damped.state_dim(), nj = damped.num_joints();
  VecX a_plain(n), a_damped(n), gen(n);
  const VecX tau_net = x.tau - D.cwiseProduct(x.r);
  aba(plain, wp, x.H, x.s, x.v, x.r, tau_net, a_plain);
  aba(damped, wd, x.H, x.s, x.v, x.r, x.tau, a_damped);
  EXPECT_LT(rel_err(a_damped, a_plain), 1e-12);
  rnea(damped, wd, x.H, x.s, x.v, x.r, a_damped, gen);
  EXPECT_LT(rel_err(gen.tail(nj), x.tau), 1e-10);
  MatX A(N, N), B(N, nj), Afd(N, N), Bfd(N, nj);
  linearize(damped, wd, x.H, x.s, x.v, x.r, x.tau, A, B);
  linearize_finite_difference(damped, wd, x.H, x.s, x.v, x.r, x.tau, kFdEps, Afd, Bfd);
  EXPECT_LT(rel_err(A, Afd), 1e-6);
  EXPECT_LT(rel_err(B, Bfd), 1e-6);
  // ∂FD/∂r differs from the undamped one by −M⁻¹ S D.
  MatX Ap(N, N), Bp(N, nj);
  linearize(plain, wp, x.H, x.s, x.v, x.r, tau_net, Ap, Bp);
  const MatX expected = Ap.block(n, n + 6, n, nj) - Bp.bottomRows(n) * D.asDiagonal();
  EXPECT_LT(rel_err(A.block(n, n + 6, n, nj), expected), 1e-10);
}

TEST(Quadruped, StandingOnFourFeetWithBalancingForcesIsAnEquilibrium) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  Workspace ws(m);
  const int n = m.num_dofs(), nj = m.num_joints(), N = m.state_dim();
  std::vector<int> feet;
  for (const char *name : {"FL_foot", "FR_foot", "HL_foot", "HR_foot"}) {
    feet.push_back(m.frame_index(name));
    ASSERT_GE(feet.back(), 0) << name;
  }
  // A crouched stance, base level and at rest.
  State x;
  x.s = VecX::Zero(nj);
  for (int leg = 0; leg < 4; ++leg) {
    x.s[3 * leg + 1] = 0.6;
    x.s[3 * leg + 2] = -1.2;
  }
  x.r = VecX::Zero(nj);
  x.tau = VecX::Zero(nj);
  x.H.o = Vec3(0.2, -0.1, 0.4);
  x.H.R = rot_z(0.3);
  // Gravity load G = RNEA(ν̇ = 0); contact forces (Mixed, force only) with min-norm balance of
  // the base rows; joint torques take the rest: S τ + Σ J_Fᵀ f = G.
  VecX G(n);
  rnea(m, ws, x.H, x.s, x.v, x.r, VecX::Zero(n), G);
  MatX Jf(n, 12);  // generalized force per unit contact force component
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 3; ++k) {
      Vec6 w = Vec6::Zero();
      w[k] = 1.0;
      MatX A(N, N), Bc(N, nj + 6);
      const ExternalWrenches ext{1, &feet[c], w.data(), kWrenchMixed};
      linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, ext, A, Bc);
      MatX M(n, n);
      crba(m, ws, x.s, M);
      Jf.col(3 * c + k) = M * Bc.block(n, nj + k, n, 1);  // J_Fᵀ e_k (Mixed)
    }
  }
  const VecX f = Jf.topRows(6).completeOrthogonalDecomposition().solve(G.head<6>());
  x.tau = (G - Jf * f).tail(nj);
  VecX wrenches = VecX::Zero(24);
  for (int c = 0; c < 4; ++c) wrenches.segment<3>(6 * c) = f.segment<3>(3 * c);
  // Vertical forces carry the weight.
  EXPECT_NEAR(f[2] + f[5] + f[8] + f[11], m.total_mass() * 9.81, 1e-9 * m.total_mass());
  const ExternalWrenches ext{4, feet.data(), wrenches.data(), kWrenchMixed};
  VecX nu_dot(n);
  aba(m, ws, x.H, x.s, x.v, x.r, x.tau, ext, nu_dot);
  EXPECT_LT(nu_dot.norm(), 1e-10) << nu_dot.transpose();
  // Rank of B: the joint torques alone reach n_J directions (the base is unactuated); with the
  // four contact wrenches every generalized acceleration is reachable: rank n.
  MatX A(N, N), B(N, nj + 24), B0(N, nj);
  linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, ext, A, B);
  linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, A, B0);
  EXPECT_EQ(B0.fullPivLu().rank(), nj);
  EXPECT_EQ(B.fullPivLu().rank(), n);
}

// forward_kinematics turns joints about ±e_k by mixing two columns and skips identity origin
// rotations (kinematics.cpp); the same model with both marked general must give the same poses
// and axes through the Rodrigues formula and the full products.
TEST(Kinematics, CoordinateAxisJointsAndPlainOriginsMatchTheGeneralFormula) {
  Model m = random_tree_model(24, 5, false);
  std::mt19937 rng(17);
  for (int i = 1; i <= m.n_B; ++i) {
    const int k = static_cast<int>(rng() % 3);
    if (i % 4 != 3) m.joint_axis[i] = (rng() % 2 ? 1.0 : -1.0) * Vec3::Unit(k);  // ±e_k
    if (i % 2 == 0) m.H_parent_joint[i].R = Mat3::Identity();
  }
  finalize_model(m);
  int aligned = 0, plain = 0;
  for (int i = 1; i <= m.n_B; ++i) {
    const int k = m.joint_axis_index[i];
    EXPECT_EQ(k >= 0, i % 4 != 3) << i;
    if (k >= 0) {
      EXPECT_EQ(std::abs(m.joint_axis[i][k]), 1.0) << i;
    }
    aligned += k >= 0 && m.joint_type[i] != JointType::Prismatic;
    EXPECT_EQ(m.joint_origin_turns[i], i % 2 != 0) << i;
    plain += !m.joint_origin_turns[i];
  }
  ASSERT_GT(aligned, 5);
  ASSERT_GT(plain, 5);
  Model general = m;
  general.joint_axis_index.assign(general.joint_axis_index.size(), -1);
  general.joint_origin_turns.assign(general.joint_origin_turns.size(), true);
  Workspace ws(m), ws_general(general);
  for (int trial = 0; trial < 5; ++trial) {
    const State x = random_state(m, rng, 3.0);
    forward_kinematics(m, ws, x.s);
    forward_kinematics(general, ws_general, x.s);
    for (int i = 1; i <= m.n_B; ++i) {
      EXPECT_LT((ws.H0[i].R - ws_general.H0[i].R).norm(), 1e-14) << i;
      EXPECT_LT((ws.H0[i].o - ws_general.H0[i].o).norm(), 1e-14) << i;
      EXPECT_LT((ws.S0[i] - ws_general.S0[i]).norm(), 1e-14) << i;
    }
  }
}

}  // namespace
}  // namespace geolin::test
