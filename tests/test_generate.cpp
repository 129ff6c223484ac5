// Synthetic models (src/urdf/generate.cpp): they load with the requested size, and the loader is
// iterative (a 100 000-body chain).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "geolin/generate.hpp"
#include "geolin/model.hpp"
#include "geolin/status.hpp"

namespace geolin {
namespace {

TEST(GenerateChain, LoadsWithRequestedBodiesAndCyclingAxes) {
  for (int n : {0, 1, 2, 7, 50}) {
    SCOPED_TRACE(n);
    const Model m = load_urdf_string(make_chain_urdf(n));
    ASSERT_EQ(m.n_B, n);
    for (int i = 1; i <= n; ++i) {
      EXPECT_EQ(m.parent[i], i - 1);
      EXPECT_EQ(m.joint_type[i], JointType::Revolute);
      EXPECT_TRUE(m.joint_axis[i].isApprox(Vec3::Unit((i - 1) % 3)));
      EXPECT_GT(m.mass[i], 0.0);
      const double len = m.H_parent_joint[i].o.norm();
      EXPECT_GE(len, 0.1 - 1e-12);
      EXPECT_LE(len, 0.3 + 1e-12);
    }
  }
}

TEST(GenerateChain, HundredThousandBodiesLoadWithoutStackOverflow) {
  const int n = 100000;
  const Model m = load_urdf_string(make_chain_urdf(n));
  ASSERT_EQ(m.n_B, n);
  EXPECT_EQ(m.depth[n], n);
  EXPECT_EQ(m.subtree_end[0], n + 1);
  EXPECT_EQ(m.subtree_end[n / 2], n + 1);
  EXPECT_EQ(m.parent[n], n - 1);
  EXPECT_EQ(m.body_name[n], "link" + std::to_string(n));
  EXPECT_EQ(static_cast<int>(m.frames.size()), n + 1);
}

TEST(GenerateRandomTree, LoadsWithRequestedBodiesForManySeeds) {
  std::set<int> types;
  for (unsigned seed = 0; seed < 25; ++seed) {
    SCOPED_TRACE(seed);
    const int n = 1 + static_cast<int>(seed) * 4;
    const Model m = load_urdf_string(make_random_tree_urdf(n, seed));
    ASSERT_EQ(m.n_B, n);
    for (int i = 1; i <= n; ++i) {
      EXPECT_LT(m.parent[i], i);
      EXPECT_GT(m.mass[i], 0.0);
      types.insert(static_cast<int>(m.joint_type[i]));
    }
  }
  EXPECT_EQ(types.size(), 3u);  // revolute, continuous and prismatic all occur
}

TEST(GenerateRandomTree, IsDeterministicPerSeedAndBranches) {
  EXPECT_EQ(make_random_tree_urdf(30, 7), make_random_tree_urdf(30, 7));
  EXPECT_NE(make_random_tree_urdf(30, 7), make_random_tree_urdf(30, 8));
  const Model m = load_urdf_string(make_random_tree_urdf(200, 3));
  int max_children = 0;
  for (const auto &c : m.children) max_children = std::max<int>(max_children, c.size());
  EXPECT_GT(max_children, 1);  // a tree, not a chain
  EXPECT_LT(*std::max_element(m.depth.begin(), m.depth.end()), 200);
}

TEST(Generate, NegativeBodyCountIsInvalidArgument) {
  try {
    make_chain_urdf(-1);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
  }
  EXPECT_THROW(make_random_tree_urdf(-5, 1), Error);
}

}  // namespace
}  // namespace geolin
