// Reliability at the edges (issue 27): the pivot test of the articulated-body factorization
// (src/numeric_checks.hpp, docs/c-api.md "Numeric contract") does not depend on where a body is
// relative to the base origin, so long chains and random trees pass while the singular corpus is
// still refused; a pivot that is not finite is an overflow, not a singular M; contact workspaces
// are sized by what one call can use.
#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <string>

#include "../src/numeric_checks.hpp"
#include "geolin/algorithms.hpp"
#include "geolin/generate.hpp"
#include "geolin/status.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// max |ID(FD(τ)) − τ| relative to the size of the generalized forces at this state (those of
// ν̇ = 0, gravity and velocity products: ~1e9 N m at the base of a 20000-body chain): ABA
// inverted by RNEA (both O(n)), the oracle of a forward dynamics result at any size.
double aba_rnea_residual(const Model &m, Workspace &ws, const State &x, const VecX &nu_dot) {
  const int n = m.num_dofs(), nj = m.num_joints();
  VecX tau_back(n), bias(n);
  rnea(m, ws, x.H, x.s, x.v, x.r, VecX::Zero(n), bias);
  rnea(m, ws, x.H, x.s, x.v, x.r, nu_dot, tau_back);
  const double scale = std::max({1.0, x.tau.cwiseAbs().maxCoeff(), bias.cwiseAbs().maxCoeff()});
  return (tau_back.tail(nj) - x.tau).cwiseAbs().maxCoeff() / scale;
}

// ---------------------------------------------------------------------------------------------
// The pivot's scale at the joint

TEST(PivotScale, CheapBoundIsTheTraceFormOfTheScaleAtTheJoint) {
  std::mt19937 rng(27);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double lever2 = detail::kPivotLever * detail::kPivotLever;
  for (int trial = 0; trial < 50; ++trial) {
    Mat6 G;
    for (int k = 0; k < 36; ++k) G(k) = u(rng);
    const Mat6 IA = G * G.transpose();  // any positive semidefinite matrix, not a rigid body's
    Vec6 S;
    for (int k = 0; k < 6; ++k) S[k] = u(rng);
    const Vec3 p = 100.0 * Vec3(u(rng), u(rng), u(rng));
    Transform T;  // ^p H_0: frame 0's axes, origin at p, by the dense 6x6 transforms
    T.o = -p;
    const Mat6 Ip = transform_inertia(T, IA);
    const Vec6 Sp = transform_motion(T, S);
    const Mat3 A = IA.topLeftCorner<3, 3>();
    const double w2 = S.tail<3>().squaredNorm();
    const double dense = Ip.trace() * Sp.squaredNorm() + lever2 * A.trace() * w2;
    const double bound = detail::joint_scale_bound(IA, S, p);
    EXPECT_NEAR(bound, dense, 1e-12 * dense);
    const double exact = detail::absolute_quadratic(Sp, Ip) +
                         lever2 * detail::absolute_quadratic(Vec3(S.tail<3>()), A);
    EXPECT_GE(bound * (1 + 1e-12), exact);
    // The pivot itself is the same in both frames.
    EXPECT_NEAR(Sp.dot(Ip * Sp), S.dot(IA * S), 1e-9 * dense);
  }
}

TEST(PivotScale, TwentyThousandBodyChainIsRegularStraightAndBent) {
  const Model m = load_urdf_string(make_chain_urdf(20000), kFixedBase);
  Workspace ws(m, kWorkspaceDynamics | kWorkspaceContacts, 1);
  std::mt19937 rng(20000);
  VecX nu_dot(m.num_dofs()), lambda(3);
  for (int trial = 0; trial < 3; ++trial) {
    State x = random_state(m, rng);
    if (trial == 0) x.s.setZero();  // stretched straight: the tip 4000 m from the base origin
    const Outcome o = aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    ASSERT_TRUE(o) << "trial " << trial << ": joint " << o.index << " ratio " << o.ratio;
    ASSERT_TRUE(nu_dot.allFinite());
    EXPECT_LT(aba_rnea_residual(m, ws, x, nu_dot), 1e-6) << "trial " << trial;
    // contact_dynamics factorizes the same M: the tip held at a point (not on the straight
    // chain, where no joint moves the tip along the chain: dependent rows, rightly refused).
    if (trial == 0) continue;
    const int frame = m.frame_index("link20000"), type = kContactPoint;
    Contacts c;
    c.count = 1;
    c.frames = &frame;
    c.types = &type;
    const Outcome held = contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu_dot, lambda);
    EXPECT_TRUE(held) << "trial " << trial << ": body or contact " << held.index;
    EXPECT_TRUE(nu_dot.allFinite() && lambda.allFinite());
  }
}

TEST(PivotScale, RandomTreesAreRegularAtRandomStates) {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const Model m =
        load_urdf_string(make_random_tree_urdf(400, seed), seed % 2 ? unsigned(kFixedBase) : 0u);
    Workspace ws(m, kWorkspaceDynamics | kWorkspaceMassMatrix, 0);
    std::mt19937 rng(seed);
    VecX nu_dot(m.num_dofs());
    MatX Minv(m.num_dofs(), m.num_dofs());
    for (int trial = 0; trial < 5; ++trial) {
      const State x = random_state(m, rng);
      const Outcome o = aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);
      ASSERT_TRUE(o) << "seed " << seed << " joint " << o.index;
      EXPECT_LT(aba_rnea_residual(m, ws, x, nu_dot), 1e-8) << "seed " << seed;
      EXPECT_TRUE(mass_matrix_inverse(m, ws, x.s, Minv)) << "seed " << seed;
    }
  }
}

// The gimbal of tests/capi/test_capi_numeric.c (joints z, y, x through massless rings: singular
// at pitch = π/2 only), mounted `offset` metres from the base origin by a fixed joint.
std::string gimbal_at(double offset) {
  return "<robot name='gimbal'>"
         " <link name='base'><inertial><mass value='2'/>"
         "  <inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
         " <link name='mount'/><link name='ring_outer'/><link name='ring_inner'/>"
         " <link name='rotor'><inertial><mass value='1'/>"
         "  <inertia ixx='0.1' iyy='0.2' izz='0.3' ixy='0' ixz='0' iyz='0'/></inertial></link>"
         " <joint name='mount_fixed' type='fixed'><parent link='base'/><child link='mount'/>"
         "  <origin xyz='" +
         std::to_string(offset) +
         " 0 0'/></joint>"
         " <joint name='yaw' type='continuous'><parent link='mount'/><child link='ring_outer'/>"
         "  <axis xyz='0 0 1'/></joint>"
         " <joint name='pitch' type='continuous'><parent link='ring_outer'/>"
         "  <child link='ring_inner'/><axis xyz='0 1 0'/></joint>"
         " <joint name='roll' type='continuous'><parent link='ring_inner'/><child link='rotor'/>"
         "  <axis xyz='1 0 0'/></joint>"
         "</robot>";
}

TEST(PivotScale, SingularGimbalIsRefusedAndRegularOneAcceptedWhereverItIs) {
  Vec3 reference = Vec3::Zero();  // forward dynamics of the regular state at offset 0
  for (double offset : {0.0, 10.0, 1e3, 1e5}) {
    SCOPED_TRACE(offset);
    const Model m = load_urdf_string(gimbal_at(offset), kFixedBase);
    Workspace ws(m, kWorkspaceDynamics, 0);
    VecX nu_dot(3), s(3), r(3), tau(3);
    r << 0.3, -0.2, 0.5;
    tau << 0.1, 0.2, -0.3;
    s << 0.4, M_PI / 2, 0.2;  // the x axis along −z: yaw and roll turn the rotor alike
    const Outcome aligned = aba(m, ws, Transform(), s, Vec6::Zero(), r, tau, nu_dot);
    EXPECT_EQ(aligned.kind, Outcome::Kind::singular_joint) << "ratio " << aligned.ratio;
    EXPECT_GE(aligned.index, 1);
    s[1] = 0.3;
    const Outcome o = aba(m, ws, Transform(), s, Vec6::Zero(), r, tau, nu_dot);
    ASSERT_TRUE(o) << "joint " << o.index << " ratio " << o.ratio;
    // The same robot, translated (gravity along z): the same accelerations, to the round-off of
    // terms 1e10 times larger in frame 0 at the largest offset.
    if (offset == 0.0) reference = nu_dot;
    EXPECT_LT((Vec3(nu_dot) - reference).cwiseAbs().maxCoeff(),
              1e-4 * reference.cwiseAbs().maxCoeff());
  }
}

TEST(PivotScale, RealRobotIcubIsRefusedAtItsZeroPoseOnlyNotAtRandomStates) {
  const std::string dir = GEOLIN_EXTRA_MODELS_DIR;
  if (dir.empty()) GTEST_SKIP() << "no extra model folder (-DGEOLIN_EXTRA_MODELS_DIR=...)";
  const Model m = load_urdf_file(dir + "/icub.urdf");
  Workspace ws(m, kWorkspaceDynamics, 0);
  VecX nu_dot(m.num_dofs());
  State x;
  x.s = x.r = x.tau = VecX::Zero(m.num_joints());
  const Outcome zero = aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);  // the wrist's axes coincide
  EXPECT_EQ(zero.kind, Outcome::Kind::singular_joint);
  EXPECT_GE(zero.index, 1);
  EXPECT_LT(zero.ratio, 1e-11);
  std::mt19937 rng(32);
  for (int trial = 0; trial < 500; ++trial) {
    x = random_state(m, rng);
    const Outcome o = aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    ASSERT_TRUE(o) << "trial " << trial << " ratio " << o.ratio;
  }
}

// ---------------------------------------------------------------------------------------------
// Overflow is not singularity

TEST(Overflow, PrismaticPositionBeyondTheFiniteRangeIsAnOverflowNotASingularity) {
  const Model m = load_urdf_file(model_path("cart_pendulum.urdf"), kFixedBase);
  Workspace ws(m);
  const int nj = m.num_joints(), cart = m.joint_index("cart_slide");
  ASSERT_GE(cart, 0);
  VecX s = VecX::Constant(nj, 0.2), r = VecX::Constant(nj, 0.1), tau = VecX::Zero(nj);
  s[cart] = 1e160;  // the pendulum's inertia about frame 0 is ~1e320: Inf
  VecX nu_dot(m.num_dofs());
  const Outcome o = aba(m, ws, Transform(), s, Vec6::Zero(), r, tau, nu_dot);
  EXPECT_GE(o.index, 0);
  EXPECT_EQ(o.kind, Outcome::Kind::pivot_overflow) << "pivot " << o.pivot;
  MatX Minv(m.num_dofs(), m.num_dofs());
  const Outcome inverse = mass_matrix_inverse(m, ws, s, Minv);
  EXPECT_EQ(inverse.kind, Outcome::Kind::pivot_overflow) << "pivot " << inverse.pivot;
  // A finite, far but representable position is regular.
  s[cart] = 1e3;
  EXPECT_TRUE(aba(m, ws, Transform(), s, Vec6::Zero(), r, tau, nu_dot));
}

TEST(Overflow, BaseInertiaThatOverflowsIsAnOverflowAtTheBase) {
  const Model m = load_urdf_file(model_path("free_body.urdf"));
  Workspace ws(m);
  VecX nu_dot(m.num_dofs());
  const VecX none = VecX::Zero(m.num_joints());
  Vec6 v = Vec6::Zero();
  v[3] = 1e200;  // ω² = Inf in the bias force only: a result overflow, no pivot involved
  EXPECT_TRUE(aba(m, ws, Transform(), none, v, none, none, nu_dot));
  EXPECT_FALSE(nu_dot.allFinite());
  ws.IA[0](0, 1) = HUGE_VAL;  // an articulated inertia that overflowed: the base's check says so
  ws.IA[0](1, 0) = HUGE_VAL;
  ws.IA0_llt.compute(ws.IA[0]);
  Outcome base;
  detail::check_base_pivots(base, ws);
  EXPECT_EQ(base.index, 0);
  EXPECT_EQ(base.kind, Outcome::Kind::pivot_overflow);
}

// ---------------------------------------------------------------------------------------------
// Contact workspaces sized by what a call can use

TEST(ContactWorkspace, CapacityBeyondWhatACallCanHoldAllocatesNothingMore) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  const int n = m.num_dofs(), usable = n / 3;  // 3 rows per contact at least, n rows at most
  // A constraint set's loops take two wrenches per three rows: 2 (n / 3) of them at most.
  // (With kWorkspaceLinearize, linearize's wrench columns grow with the capacity on purpose.)
  for (unsigned features :
       {0u + kWorkspaceContacts, 0u + kWorkspaceContacts + kWorkspaceMassMatrix}) {
    const std::size_t at_cap = workspace_bytes(m, workspace_dims(m, features, 2 * usable));
    EXPECT_EQ(workspace_bytes(m, workspace_dims(m, features, 1 << 20)), at_cap);
    EXPECT_LT(workspace_bytes(m, workspace_dims(m, features, 2 * usable - 1)), at_cap);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Workspace ws(m, kWorkspaceContacts, 1 << 20);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(static_cast<int>(ws.contacts.size()), usable);
  EXPECT_LT(seconds, 0.5);
}

// A 20-joint chain (n = 20) held at 6 points: 18 rows, the most contacts a call can use
// (n / 3). A link's origin lies on its own joint's axis, and on the axis of the joint before when
// that one turns about z (the links extend along z): the points at links 5, 8, …, 20 are each
// moved by three new joints, one of them x or y, and J_c is regular at a bent posture.
TEST(ContactWorkspace, MostContactsACallCanHoldStillWork) {
  const Model m = load_urdf_string(make_chain_urdf(20), kFixedBase);
  ASSERT_EQ(m.num_dofs() / 3, 6);
  Workspace ws(m, kWorkspaceContacts, 1 << 20);
  std::vector<int> frames, types(7, kContactPoint);
  for (int body : {5, 8, 11, 14, 17, 20, 19})
    frames.push_back(m.frame_index("link" + std::to_string(body)));
  std::mt19937 rng(20);
  const State x = random_state(m, rng);
  Contacts c;
  c.count = 6;
  c.frames = frames.data();
  c.types = types.data();
  VecX nu_dot(m.num_dofs()), lambda(21);
  const Outcome held =
      contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu_dot, lambda.head(18));
  ASSERT_TRUE(held) << "contact " << held.index << " ratio " << held.ratio;
  // λ applied as external wrenches (Local: forces at the frames) reproduces ν̇.
  std::vector<double> wrenches(6 * 6, 0.0);
  for (int k = 0; k < 6; ++k)
    for (int j = 0; j < 3; ++j) wrenches[6 * k + j] = lambda[3 * k + j];
  ExternalWrenches ext;
  ext.count = 6;
  ext.frames = frames.data();
  ext.wrenches = wrenches.data();
  Workspace plain(m, kWorkspaceDynamics, 6);
  VecX free_nu_dot(m.num_dofs());
  aba(m, plain, x.H, x.s, x.v, x.r, x.tau, ext, free_nu_dot);
  EXPECT_LT(rel_err(nu_dot, free_nu_dot), 1e-8);
  // A seventh contact is 21 rows > n: refused, naming the rows and n.
  c.count = 7;
  try {
    contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu_dot, lambda);
    ADD_FAILURE() << "7 contacts accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("21 rows"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("n = 20"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geolin::test
