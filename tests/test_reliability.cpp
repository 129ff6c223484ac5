// Reliability at the edges (issue 27): a pivot that is not finite is an overflow, not a singular
// M; contact workspaces are sized by what one call can use.
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
  aba(m, ws, Transform(), s, Vec6::Zero(), r, tau, nu_dot);
  EXPECT_GE(ws.singular, 0);
  EXPECT_TRUE(detail::singular_overflowed(ws)) << "pivot " << ws.singular_pivot;
  MatX Minv(m.num_dofs(), m.num_dofs());
  mass_matrix_inverse(m, ws, s, Minv);
  EXPECT_TRUE(detail::singular_overflowed(ws)) << "pivot " << ws.singular_pivot;
  // A finite, far but representable position is regular.
  s[cart] = 1e3;
  aba(m, ws, Transform(), s, Vec6::Zero(), r, tau, nu_dot);
  EXPECT_LT(ws.singular, 0);
}

TEST(Overflow, BaseInertiaThatOverflowsIsAnOverflowAtTheBase) {
  const Model m = load_urdf_file(model_path("free_body.urdf"));
  Workspace ws(m);
  VecX nu_dot(m.num_dofs());
  const VecX none = VecX::Zero(m.num_joints());
  Vec6 v = Vec6::Zero();
  v[3] = 1e200;  // ω² = Inf in the bias force only: a result overflow, no pivot
                 // involved
  aba(m, ws, Transform(), none, v, none, none, nu_dot);
  EXPECT_LT(ws.singular, 0);
  EXPECT_FALSE(nu_dot.allFinite());
  ws.IA[0](0, 1) = HUGE_VAL;  // an articulated inertia that overflowed: the
                              // base's check says so
  ws.IA[0](1, 0) = HUGE_VAL;
  ws.IA0_llt.compute(ws.IA[0]);
  ws.singular = -1;
  detail::check_base_pivots(ws);
  EXPECT_EQ(ws.singular, 0);
  EXPECT_TRUE(detail::singular_overflowed(ws));
}

// ---------------------------------------------------------------------------------------------
// Contact workspaces sized by what a call can use

TEST(ContactWorkspace, CapacityBeyondWhatACallCanHoldAllocatesNothingMore) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  const int n = m.num_dofs(),
            usable = n / 3;  // 3 rows per contact at least, n rows at most
  // (With kWorkspaceLinearize, linearize's wrench columns grow with the
  // capacity on purpose.)
  for (unsigned features :
       {0u + kWorkspaceContacts, 0u + kWorkspaceContacts + kWorkspaceMassMatrix}) {
    const std::size_t at_cap = workspace_bytes(m, workspace_dims(m, features, usable));
    EXPECT_EQ(workspace_bytes(m, workspace_dims(m, features, 1 << 20)), at_cap);
    EXPECT_LT(workspace_bytes(m, workspace_dims(m, features, usable - 1)), at_cap);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Workspace ws(m, kWorkspaceContacts, 1 << 20);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(static_cast<int>(ws.contacts.size()), usable);
  EXPECT_LT(seconds, 0.5);
}

// A 20-joint chain (n = 20) held at 6 points: 18 rows, the most contacts a call
// can use (n / 3). A link's origin lies on its own joint's axis, and on the
// axis of the joint before when that one turns about z (the links extend along
// z): the points at links 5, 8, …, 20 are each moved by three new joints, one
// of them x or y, and J_c is regular at a bent posture.
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
  ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu_dot, lambda.head(18)))
      << "contact " << ws.contact_failed << " ratio " << ws.contact_failed_ratio;
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
