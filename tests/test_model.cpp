// finalize_model and the Model accessors (src/model.cpp) on hand-built models.
#include <gtest/gtest.h>

#include <string>

#include "geolin/model.hpp"
#include "geolin/status.hpp"

namespace geolin {
namespace {

// A model with bodies 0..n given parents; every body a 1 kg box-ish inertia, revolute joints
// about z with origins 0.3 m along x.
Model make_model(const std::vector<int> &parent) {
  Model m;
  m.n_B = static_cast<int>(parent.size()) - 1;
  m.parent = parent;
  for (size_t i = 0; i < parent.size(); ++i) {
    m.body_name.push_back("b" + std::to_string(i));
    m.joint_name.push_back(i == 0 ? "" : "j" + std::to_string(i));
    m.joint_type.push_back(JointType::Revolute);
    m.joint_axis.push_back(Vec3::UnitZ());
    Transform H;
    H.o = Vec3(0.3, 0, 0);
    m.H_parent_joint.push_back(H);
    m.damping.push_back(0.0);
    m.mimic_of.emplace_back();
    m.mass.push_back(1.0);
    m.com.push_back(Vec3(0.1, 0, 0));
    m.inertia_com.push_back(Vec3(0.01, 0.02, 0.025).asDiagonal());
  }
  return m;
}

Status status_of(Model m) {
  try {
    finalize_model(m);
  } catch (const Error &e) {
    return e.status();
  }
  return Status::Ok;
}

std::string message_of(Model m) {
  try {
    finalize_model(m);
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

TEST(ModelFinalize, ComputesChildrenSubtreeRangesAndDepth) {
  // 0 -> 1 -> 2, 1 -> 3, 0 -> 4 -> 5
  Model m = make_model({-1, 0, 1, 1, 0, 4});
  finalize_model(m);
  EXPECT_EQ(m.children[0], (std::vector<int>{1, 4}));
  EXPECT_EQ(m.children[1], (std::vector<int>{2, 3}));
  EXPECT_TRUE(m.children[2].empty());
  EXPECT_EQ(m.subtree_end, (std::vector<int>{6, 4, 3, 4, 6, 6}));
  EXPECT_EQ(m.depth, (std::vector<int>{0, 1, 2, 2, 1, 2}));
}

TEST(ModelFinalize, MotionSubspacesAreLinearFirstAndAxesNormalized) {
  Model m = make_model({-1, 0, 1});
  m.joint_type[1] = JointType::Prismatic;
  m.joint_axis[1] = Vec3(0, 3, 4);
  m.joint_type[2] = JointType::Continuous;
  m.joint_axis[2] = Vec3(2, 0, 0);
  finalize_model(m);
  Vec6 s1, s2;
  s1 << 0, 0.6, 0.8, 0, 0, 0;
  s2 << 0, 0, 0, 1, 0, 0;
  EXPECT_TRUE(m.S[1].isApprox(s1));
  EXPECT_TRUE(m.S[2].isApprox(s2));
  EXPECT_NEAR(m.joint_axis[1].norm(), 1.0, 1e-15);
}

TEST(ModelFinalize, SpatialInertiasAreBuiltFromMassComAndInertia) {
  Model m = make_model({-1, 0});
  finalize_model(m);
  for (int i = 0; i <= 1; ++i)
    EXPECT_TRUE(m.inertia[i].isApprox(spatial_inertia(m.mass[i], m.com[i], m.inertia_com[i])));
  EXPECT_DOUBLE_EQ(m.total_mass(), 2.0);
}

TEST(ModelFinalize, RejectsParentNotLowerThanChild) {
  Model m = make_model({-1, 2, 0});
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("b1"), std::string::npos) << message_of(m);
}

TEST(ModelFinalize, RejectsNumberingThatIsNotDepthFirst) {
  // 0 -> 1, 0 -> 2, 1 -> 3: λ(i) < i holds but the subtree of 1 = {1, 3} is not contiguous.
  Model m = make_model({-1, 0, 0, 1});
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("depth-first"), std::string::npos) << message_of(m);
}

TEST(ModelFinalize, RejectsInconsistentArraySizes) {
  Model m = make_model({-1, 0});
  m.mass.pop_back();
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("mass"), std::string::npos);
}

TEST(ModelFinalize, RejectsZeroAxisAndNegativeMass) {
  Model a = make_model({-1, 0});
  a.joint_axis[1].setZero();
  EXPECT_EQ(status_of(a), Status::Model);
  EXPECT_NE(message_of(a).find("joint 'j1'"), std::string::npos);
  Model b = make_model({-1, 0});
  b.mass[1] = -1.0;
  EXPECT_EQ(status_of(b), Status::Model);
  EXPECT_NE(message_of(b).find("body 'b1'"), std::string::npos);
}

TEST(ModelFinalize, MovingBaseNeedsBaseMassFixedBaseDoesNot) {
  Model m = make_model({-1, 0});
  m.mass[0] = 0.0;
  m.com[0].setZero();
  m.inertia_com[0].setZero();
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("base link 'b0'"), std::string::npos) << message_of(m);
  m.fixed_base = true;
  EXPECT_EQ(status_of(m), Status::Ok);
}

TEST(ModelFinalize, MasslessBaseWithARegularTreeLoads) {
  // The base link has no mass, but two limbs on non-parallel axes give the whole tree a regular
  // mass matrix: what matters is the base's articulated inertia, not its own.
  Model m = make_model({-1, 0, 0});
  m.mass[0] = 0.0;
  m.com[0].setZero();
  m.inertia_com[0].setZero();
  m.joint_axis[2] = Vec3::UnitX();
  EXPECT_EQ(status_of(m), Status::Ok) << message_of(m);
  // With both limbs turning about parallel axes the base's articulated inertia about them is
  // zero at every configuration: refused, naming the base.
  m.joint_axis[2] = Vec3::UnitZ();
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("every configuration"), std::string::npos) << message_of(m);
}

TEST(ModelFinalize, CoincidentAxesJoinedByAMasslessLinkAreRefusedNamingTheJoints) {
  // j1 and j2 turn about the same line (z through the same point) with a massless body 1
  // between them: M is singular at every s; the structural test at s = 0 does not see it
  // (each subtree has inertia about its axis), the articulated pivots do.
  Model m = make_model({-1, 0, 1});
  m.mass[1] = 0.0;
  m.com[1].setZero();
  m.inertia_com[1].setZero();
  m.H_parent_joint[2].o.setZero();
  const std::string msg = message_of(m);
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(msg.find("joint 'j1'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'j2'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("every configuration"), std::string::npos) << msg;
  // Offset the second axis by 5 cm: the two joints move the mass differently, accepted.
  m.H_parent_joint[2].o = Vec3(0.05, 0, 0);
  EXPECT_EQ(status_of(m), Status::Ok) << message_of(m);
}

TEST(ModelFinalize, AxesThatAlignAtOneAngleOnlyLoad) {
  // A gimbal z, y, x through massless rings: singular at s_2 = π/2 only (the runtime pivot test
  // reports that state), regular elsewhere: the model loads.
  Model m = make_model({-1, 0, 1, 2});
  for (int i : {1, 2}) {
    m.mass[i] = 0.0;
    m.com[i].setZero();
    m.inertia_com[i].setZero();
  }
  m.joint_axis[2] = Vec3::UnitY();
  m.joint_axis[3] = Vec3::UnitX();
  for (int i : {2, 3}) m.H_parent_joint[i].o.setZero();
  m.com[3].setZero();
  EXPECT_EQ(status_of(m), Status::Ok) << message_of(m);
}

TEST(ModelFinalize, DenormalMassesAreRefused) {
  Model m = make_model({-1, 0, 1});
  for (int i = 0; i <= 2; ++i) {
    m.mass[i] = 4e-310;  // positive, subnormal
    m.inertia_com[i] *= 1e-308;
  }
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("kg"), std::string::npos) << message_of(m);
}

TEST(ModelFinalize, PointMassOnTheAxisIsStructurallySingular) {
  // Body 1: a point mass with its centre of mass on the z joint axis: d_1 = 0.
  Model m = make_model({-1, 0});
  m.inertia_com[1].setZero();
  m.com[1] = Vec3(0, 0, 0.2);
  EXPECT_EQ(status_of(m), Status::Model);
  EXPECT_NE(message_of(m).find("joint 'j1'"), std::string::npos) << message_of(m);
  // Off the axis by 1 mm: d_1 = 1e-6 kg m^2 > 1e-9 * scale -> accepted.
  m.com[1] = Vec3(0.001, 0, 0.2);
  EXPECT_EQ(status_of(m), Status::Ok);
  // The same point mass about an axis that misses it (x) is fine as well.
  m.com[1] = Vec3(0, 0, 0.2);
  m.joint_axis[1] = Vec3::UnitX();
  EXPECT_EQ(status_of(m), Status::Ok);
}

TEST(ModelFinalize, StructuralTestUsesTheWholeSubtree) {
  // Body 1 is massless but carries body 2 away from joint 1's axis: M_11 > 0, accepted.
  Model m = make_model({-1, 0, 1});
  m.mass[1] = 0.0;
  m.com[1].setZero();
  m.inertia_com[1].setZero();
  EXPECT_EQ(status_of(m), Status::Ok);
  // Make body 2 massless too: joint 1's and joint 2's subtrees have nothing; joint 1 is named.
  m.mass[2] = 0.0;
  m.com[2].setZero();
  m.inertia_com[2].setZero();
  EXPECT_NE(message_of(m).find("joint 'j1'"), std::string::npos) << message_of(m);
}

TEST(ModelFinalize, MasslessPrismaticSubtreeIsSingular) {
  Model m = make_model({-1, 0});
  m.joint_type[1] = JointType::Prismatic;
  m.mass[1] = 0.0;
  m.com[1].setZero();
  // Rotational inertia alone does not help a prismatic joint.
  const std::string msg = message_of(m);
  EXPECT_NE(msg.find("joint 'j1'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no mass"), std::string::npos) << msg;
  m.mass[1] = 1e-3;
  EXPECT_EQ(status_of(m), Status::Ok);
}

TEST(ModelFinalize, ThresholdIsRelativeToTheModelScale) {
  // Scale J = max_i ½ tr(I_O,i). A joint whose subtree inertia about its axis is 1e-12 J is
  // refused, 1e-6 J is accepted, whatever the unit system (scale the whole model by 1e6).
  for (double unit : {1.0, 1e6}) {
    Model m = make_model({-1, 0});
    for (int i = 0; i <= 1; ++i) m.inertia_com[i] *= unit;
    for (int i = 0; i <= 1; ++i) m.mass[i] *= unit;
    m.com[1] = Vec3(0, 0, 0.1);
    m.inertia_com[1] = Vec3(1.0, 1.0, 1e-12).asDiagonal() * (0.025 * unit);
    EXPECT_EQ(status_of(m), Status::Model) << unit;
    m.inertia_com[1](2, 2) = 1e-6 * 0.025 * unit;
    EXPECT_EQ(status_of(m), Status::Ok) << unit;
  }
}

TEST(ModelFinalize, FreeBodyNeedsFullRotationalInertia) {
  Model m = make_model({-1});
  EXPECT_EQ(status_of(m), Status::Ok);
  m.inertia_com[0] = Vec3(0.1, 0.1, 0.0).asDiagonal();  // a rod: no inertia about its axis
  EXPECT_EQ(status_of(m), Status::Model);
  m.fixed_base = true;  // irrelevant when welded
  EXPECT_EQ(status_of(m), Status::Ok);
}

TEST(ModelAccessors, NamesIndicesAndJointTypeNames) {
  Model m = make_model({-1, 0, 1});
  finalize_model(m);
  m.frames = {Frame{"b0", 0, Transform::identity()}, Frame{"tool", 2, Transform::identity()}};
  EXPECT_EQ(m.joint_index("j1"), 0);
  EXPECT_EQ(m.joint_index("j2"), 1);
  EXPECT_EQ(m.joint_index(""), -1);  // body 0 has no joint
  EXPECT_EQ(m.joint_index("x"), -1);
  EXPECT_EQ(m.body_index("b2"), 2);
  EXPECT_EQ(m.body_index("tool"), -1);
  EXPECT_EQ(m.frame_index("tool"), 1);
  EXPECT_EQ(m.frame_index("b1"), -1);
  EXPECT_STREQ(joint_type_name(JointType::Revolute), "revolute");
  EXPECT_STREQ(joint_type_name(JointType::Continuous), "continuous");
  EXPECT_STREQ(joint_type_name(JointType::Prismatic), "prismatic");
  EXPECT_EQ(m.num_dofs(), 8);
  m.fixed_base = true;
  EXPECT_EQ(m.num_dofs(), 2);
}

}  // namespace
}  // namespace geolin
