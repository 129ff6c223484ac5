// URDF loader tests (src/urdf/urdf.cpp): bundled models, fixed-joint merging, file order, every
// error class of model.hpp, silence of urdfdom, and real robots from GEOLIN_EXTRA_MODELS_DIR
// (optional: skipped unless configured).
#include <console_bridge/console.h>
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "geolin/model.hpp"
#include "geolin/status.hpp"

namespace geolin {
namespace {

const std::string kModels = GEOLIN_MODELS_DIR;
const std::string kShared = GEOLIN_EXTRA_MODELS_DIR;  // empty unless configured

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// <link> with a full inertial element.
std::string link(const std::string &name, double m = 1.0, const std::string &xyz = "0 0 0",
                 const std::string &rpy = "0 0 0",
                 const std::string &inertia =
                     "ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"") {
  return "<link name=\"" + name + "\"><inertial><origin xyz=\"" + xyz + "\" rpy=\"" + rpy +
         "\"/><mass value=\"" + std::to_string(m) + "\"/><inertia " + inertia +
         "/></inertial></link>";
}

std::string joint(const std::string &name, const std::string &type, const std::string &parent,
                  const std::string &child, const std::string &extra = "") {
  std::string limit = (type == "revolute" || type == "prismatic")
                          ? "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
                          : "";
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent +
         "\"/><child link=\"" + child + "\"/>" + limit + extra + "</joint>";
}

std::string robot(const std::string &body) {
  return "<robot name=\"r\">" + body + "</robot>";
}

// Loads `xml`, expects an Error with `status` whose message contains every part, and that
// nothing was printed on stdout or stderr meanwhile. Returns the message.
std::string expect_error(const std::string &xml, Status status,
                         const std::vector<std::string> &parts, unsigned flags = 0) {
  std::string message;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  bool thrown = false;
  try {
    load_urdf_string(xml, flags);
  } catch (const Error &e) {
    thrown = true;
    message = e.what();
    EXPECT_EQ(static_cast<int>(e.status()), static_cast<int>(status)) << message;
  }
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(thrown) << "no error for: " << xml.substr(0, 300);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "");
  for (const auto &p : parts)
    EXPECT_TRUE(contains(message, p)) << "'" << p << "' not in: " << message;
  return message;
}

// λ(i) < i, μ consistent with λ, DFS numbering (contiguous subtrees), depth, sizes.
void expect_valid_tree(const Model &m) {
  const int nb = m.num_bodies();
  ASSERT_EQ(static_cast<int>(m.parent.size()), nb);
  ASSERT_EQ(static_cast<int>(m.children.size()), nb);
  ASSERT_EQ(static_cast<int>(m.mass.size()), nb);
  EXPECT_EQ(m.parent[0], -1);
  EXPECT_EQ(m.depth[0], 0);
  EXPECT_EQ(m.subtree_end[0], nb);
  for (int i = 1; i < nb; ++i) {
    EXPECT_GE(m.parent[i], 0);
    EXPECT_LT(m.parent[i], i);
    EXPECT_EQ(m.depth[i], m.depth[m.parent[i]] + 1);
    const auto &sib = m.children[m.parent[i]];
    EXPECT_NE(std::find(sib.begin(), sib.end(), i), sib.end());
    // i lies in its parent's subtree, and its own subtree is inside it.
    EXPECT_GT(m.subtree_end[i], i);
    EXPECT_LE(m.subtree_end[i], m.subtree_end[m.parent[i]]);
    EXPECT_NEAR(m.joint_axis[i].norm(), 1.0, 1e-12);
  }
  int count = 0;
  for (int i = 0; i < nb; ++i) {
    count += static_cast<int>(m.children[i].size());
    // every body in [i, subtree_end[i]) has an ancestor chain reaching i
    for (int k = i + 1; k < m.subtree_end[i]; ++k) {
      int a = k;
      while (a > i) a = m.parent[a];
      EXPECT_EQ(a, i) << "body " << k << " in the range of " << i;
    }
  }
  EXPECT_EQ(count, nb - 1);
  std::set<std::string> names(m.body_name.begin(), m.body_name.end());
  EXPECT_EQ(static_cast<int>(names.size()), nb);
}

// ---------------------------------------------------------------------------------------------
// Bundled models

struct Bundled {
  const char *file;
  unsigned flags;
  int n_J;
  double total_mass;
  int n_frames;
};

TEST(UrdfLoad, EveryBundledModelLoadsWithExpectedSizeAndMass) {
  const Bundled table[] = {
      {"single_link_arm.urdf", 0, 1, 11.0, 2},
      {"single_link_arm.urdf", kFixedBase, 1, 11.0, 2},
      {"cart_pendulum.urdf", kFixedBase, 2, 21.5, 3},
      {"satellite_panel.urdf", 0, 1, 105.0, 2},
      {"free_body.urdf", 0, 0, 2.5, 1},
      {"arm7.urdf", kFixedBase, 7, 22.8, 10},
      {"quadruped.urdf", 0, 12, 17.82, 18},
      {"humanoid.urdf", 0, 32, 65.41, 40},
  };
  for (const auto &b : table) {
    SCOPED_TRACE(b.file);
    const Model m = load_urdf_file(kModels + "/" + b.file, b.flags);
    EXPECT_EQ(m.n_B, b.n_J);
    EXPECT_EQ(m.fixed_base, (b.flags & kFixedBase) != 0);
    EXPECT_NEAR(m.total_mass(), b.total_mass, 1e-9);
    EXPECT_EQ(static_cast<int>(m.frames.size()), b.n_frames);
    expect_valid_tree(m);
    // The bundled inertias are physically consistent (triangle inequality included).
    EXPECT_NO_THROW(load_urdf_file(kModels + "/" + b.file, b.flags | kStrictInertia));
  }
}

TEST(UrdfLoad, TextbookModelsHaveTheirStatedInertias) {
  // The rotational block of M_i (inertia about the frame-i origin) is what the closed forms of
  // models/README.md use: J_pivot = J_c + m |c|^2 about an axis through the origin.
  const Model arm = load_urdf_file(kModels + "/single_link_arm.urdf", kFixedBase);
  EXPECT_NEAR(arm.inertia[1](4, 4), 1.0 / 3.0, 1e-15);  // rod about its end: m L^2 / 3
  EXPECT_TRUE(arm.S[1].tail<3>().isApprox(Vec3::UnitY()));
  const Model cp = load_urdf_file(kModels + "/cart_pendulum.urdf", kFixedBase);
  EXPECT_NEAR(cp.inertia[2](4, 4), 0.02 + 0.5 * 0.8 * 0.8, 1e-15);  // J + m_p l^2 = 0.34
  EXPECT_NEAR(cp.mass[1] + cp.mass[2], 1.5, 1e-15);                 // m_c + m_p
  const Model sat = load_urdf_file(kModels + "/satellite_panel.urdf");
  EXPECT_NEAR(sat.inertia[1](4, 4), 5.0 * 4.0004 / 12.0 + 5.0 * 1.0, 1e-12);
  EXPECT_TRUE(sat.H_parent_joint[1].o.isApprox(Vec3(0.5, 0, 0)));
  const Model fb = load_urdf_file(kModels + "/free_body.urdf");
  Mat3 I;
  I << 0.3, 0.02, -0.01, 0.02, 0.4, 0.03, -0.01, 0.03, 0.5;
  EXPECT_TRUE(fb.inertia_com[0].isApprox(I, 1e-15));
  EXPECT_TRUE(fb.com[0].isApprox(Vec3(0.1, -0.05, 0.2)));
}

TEST(UrdfLoad, HumanoidHasExpectedTree) {
  const Model m = load_urdf_file(kModels + "/humanoid.urdf");
  EXPECT_EQ(m.name, "humanoid");
  EXPECT_FALSE(m.fixed_base);
  ASSERT_EQ(m.n_B, 32);
  EXPECT_EQ(m.body_name[0], "pelvis");
  // Depth-first, children in file order: the left leg comes first.
  EXPECT_EQ(m.joint_name[1], "L_hip_yaw");
  EXPECT_EQ(m.joint_name[2], "L_hip_roll");
  EXPECT_EQ(m.joint_name[6], "L_ankle_roll");
  EXPECT_EQ(m.joint_name[7], "R_hip_yaw");
  EXPECT_EQ(m.children[0], (std::vector<int>{1, 7, 13}));  // L leg, R leg, torso
  EXPECT_EQ(m.subtree_end[1], 7);
  EXPECT_EQ(m.depth[6], 6);
  // Joint data.
  const int knee = m.joint_index("L_knee") + 1;
  ASSERT_GT(knee, 0);
  EXPECT_EQ(m.joint_type[knee], JointType::Revolute);
  EXPECT_DOUBLE_EQ(m.damping[knee], 0.3);
  EXPECT_TRUE(m.joint_axis[knee].isApprox(Vec3::UnitY()));
  EXPECT_TRUE(m.H_parent_joint[knee].o.isApprox(Vec3(0, 0, -0.4)));
  const int finger_b = m.joint_index("L_finger_b_joint") + 1;
  ASSERT_GT(finger_b, 0);
  EXPECT_EQ(m.mimic_of[finger_b], "L_finger_a_joint");
  EXPECT_EQ(m.joint_type[finger_b], JointType::Prismatic);
  EXPECT_EQ(m.mimic_of[knee], "");
  // The finger is attached to the palm, which is fixed to the hand: the finger's parent body is
  // the hand, and its joint origin is composed with the palm offset (0, 0, -0.08).
  EXPECT_EQ(m.body_name[m.parent[finger_b]], "L_hand");
  EXPECT_TRUE(m.H_parent_joint[finger_b].o.isApprox(Vec3(0, -0.03, -0.11)));
  // Fixed links are frames of their body.
  const int sole = m.frame_index("L_sole");
  ASSERT_GE(sole, 0);
  EXPECT_EQ(m.body_name[m.frames[sole].body], "L_foot");
  EXPECT_TRUE(m.frames[sole].H.o.isApprox(Vec3(0.03, 0, -0.075)));
  const int imu = m.frame_index("imu_link");
  ASSERT_GE(imu, 0);
  EXPECT_EQ(m.frames[imu].body, 0);
  EXPECT_GE(m.frame_index("camera_link"), 0);
  EXPECT_EQ(m.frame_index("no_such_link"), -1);
  // Every body is a frame with the identity transform.
  for (int i = 0; i <= m.n_B; ++i) {
    const int f = m.frame_index(m.body_name[i]);
    ASSERT_GE(f, 0);
    EXPECT_EQ(m.frames[f].body, i);
    EXPECT_TRUE(m.frames[f].H.matrix().isIdentity(0.0));
  }
}

TEST(UrdfLoad, QuadrupedFeetAreFramesOfTheShanks) {
  const Model m = load_urdf_file(kModels + "/quadruped.urdf");
  ASSERT_EQ(m.n_B, 12);
  for (const char *leg : {"FL", "FR", "HL", "HR"}) {
    const int foot = m.frame_index(std::string(leg) + "_foot");
    ASSERT_GE(foot, 0) << leg;
    EXPECT_EQ(m.body_name[m.frames[foot].body], std::string(leg) + "_shank");
    EXPECT_TRUE(m.frames[foot].H.o.isApprox(Vec3(0, 0, -0.25)));
    EXPECT_EQ(m.body_index(std::string(leg) + "_foot"), -1);  // not a body
  }
  // trunk 10 kg plus the fixed IMU (20 g): merged into body 0
  EXPECT_NEAR(m.mass[0], 10.02, 1e-12);
}

TEST(UrdfLoad, ChildrenFollowFileOrderNotNameOrder) {
  // urdfdom sorts joints by name; the model must follow the file: "zeta" before "alpha".
  const std::string xml = robot(
      link("base") + link("b") + link("c") + link("d") + joint("zeta", "continuous", "base", "b") +
      joint("alpha", "continuous", "base", "c") + joint("mid", "continuous", "b", "d"));
  const Model m = load_urdf_string(xml);
  ASSERT_EQ(m.n_B, 3);
  EXPECT_EQ(m.joint_name[1], "zeta");
  EXPECT_EQ(m.joint_name[2], "mid");  // depth first: b's child before base's second child
  EXPECT_EQ(m.joint_name[3], "alpha");
  EXPECT_EQ(m.body_name[3], "c");
  EXPECT_EQ(m.joint_index("alpha"), 2);
  EXPECT_EQ(m.joint_index("nope"), -1);
  EXPECT_EQ(m.body_index("d"), 2);
  expect_valid_tree(m);
}

TEST(UrdfLoad, FlagsSetFixedBaseAndJointDamping) {
  const std::string path = kModels + "/arm7.urdf";
  const Model a = load_urdf_file(path);
  EXPECT_FALSE(a.fixed_base);
  EXPECT_FALSE(a.joint_damping);
  EXPECT_EQ(a.num_dofs(), 13);
  const Model b = load_urdf_file(path, kFixedBase | kJointDamping);
  EXPECT_TRUE(b.fixed_base);
  EXPECT_TRUE(b.joint_damping);
  EXPECT_EQ(b.num_dofs(), 7);
  EXPECT_TRUE(b.H_A_0.matrix().isIdentity(0.0));
  EXPECT_DOUBLE_EQ(b.damping[3], 0.1);
}

TEST(UrdfLoad, JointTypesAxesAndMotionSubspaces) {
  const Model m = load_urdf_file(kModels + "/cart_pendulum.urdf", kFixedBase);
  ASSERT_EQ(m.n_B, 2);
  EXPECT_EQ(m.joint_type[1], JointType::Prismatic);
  EXPECT_EQ(m.joint_type[2], JointType::Continuous);
  Vec6 s1, s2;
  s1 << 1, 0, 0, 0, 0, 0;  // prismatic: [a; 0], linear first
  s2 << 0, 0, 0, 0, 1, 0;  // revolute: [0; a]
  EXPECT_TRUE(m.S[1].isApprox(s1));
  EXPECT_TRUE(m.S[2].isApprox(s2));
  EXPECT_NEAR(m.mass[2], 0.5, 1e-15);
  EXPECT_TRUE(m.com[2].isApprox(Vec3(0, 0, -0.8)));
  // A non-unit axis is normalized; a missing axis defaults to x.
  const Model n =
      load_urdf_string(robot(link("a") + link("b") + link("c") +
                             joint("j1", "revolute", "a", "b", "<axis xyz=\"0 2 0\"/>") +
                             joint("j2", "revolute", "b", "c")));
  EXPECT_TRUE(n.joint_axis[1].isApprox(Vec3::UnitY()));
  EXPECT_TRUE(n.joint_axis[2].isApprox(Vec3::UnitX()));
  EXPECT_DOUBLE_EQ(n.damping[1], 0.0);
}

TEST(UrdfLoad, JointOriginRpyIsFixedAxisRollPitchYaw) {
  const double r = 0.3, p = -0.7, y = 1.1;
  const Model m = load_urdf_string(
      robot(link("a") + link("b") +
            joint("j", "continuous", "a", "b", "<origin xyz=\"1 2 3\" rpy=\"0.3 -0.7 1.1\"/>")));
  const Mat3 R = (Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) *
                  Eigen::AngleAxisd(r, Vec3::UnitX()))
                     .toRotationMatrix();
  EXPECT_TRUE(m.H_parent_joint[1].R.isApprox(R, 1e-12));
  EXPECT_TRUE(m.H_parent_joint[1].o.isApprox(Vec3(1, 2, 3)));
}

TEST(UrdfLoad, InertialRpyRotatesTheTensor) {
  // I_c = R I_urdf R^T with R = Rz(y) Ry(p) Rx(r) (docs/dynamics.md §1).
  const std::string I = "ixx=\"0.1\" ixy=\"0.01\" ixz=\"0\" iyy=\"0.2\" iyz=\"-0.02\" izz=\"0.25\"";
  const Model m = load_urdf_string(robot(link("a", 2.0, "0.1 0.2 0.3", "0.4 0.5 -0.6", I)));
  Mat3 Iu;
  Iu << 0.1, 0.01, 0, 0.01, 0.2, -0.02, 0, -0.02, 0.25;
  const Mat3 R = (Eigen::AngleAxisd(-0.6, Vec3::UnitZ()) * Eigen::AngleAxisd(0.5, Vec3::UnitY()) *
                  Eigen::AngleAxisd(0.4, Vec3::UnitX()))
                     .toRotationMatrix();
  EXPECT_TRUE(m.inertia_com[0].isApprox(R * Iu * R.transpose(), 1e-12));
  EXPECT_TRUE(m.com[0].isApprox(Vec3(0.1, 0.2, 0.3)));
  EXPECT_TRUE(m.inertia[0].isApprox(spatial_inertia(2.0, m.com[0], m.inertia_com[0])));
}

TEST(UrdfLoad, LinkWithoutInertialHasZeroMass) {
  const Model m =
      load_urdf_string(robot(link("a") + "<link name=\"b\"/>" + link("c") +
                             joint("f", "fixed", "a", "b") + joint("j", "continuous", "b", "c")));
  EXPECT_EQ(m.n_B, 1);
  EXPECT_DOUBLE_EQ(m.mass[0], 1.0);
  EXPECT_EQ(m.frames[m.frame_index("b")].body, 0);
}

// ---------------------------------------------------------------------------------------------
// Fixed-joint merging (RBDA §2.13, parallel-axis theorem)

Mat3 rot_rpy(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vec3::UnitZ()) * Eigen::AngleAxisd(p, Vec3::UnitY()) *
          Eigen::AngleAxisd(r, Vec3::UnitX()))
      .toRotationMatrix();
}

TEST(UrdfMerge, FixedJointPreservesMassComAndInertia) {
  // A (2 kg, com (0.1,0,0), diag(0.1,0.2,0.3)) --fixed, origin (0.5,0,0.2) rpy (0,0,pi/2)--> B
  // (1 kg, com (0,0.1,0) in B, inertial rpy (0.3,0,0), diag(0.01,0.02,0.03)).
  // Then C on a revolute joint from B with origin (0,0,0.4).
  const std::string xml = robot(
      link("A", 2.0, "0.1 0 0", "0 0 0",
           "ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" izz=\"0.3\"") +
      link("B", 1.0, "0 0.1 0", "0.3 0 0",
           "ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.02\" iyz=\"0\" izz=\"0.03\"") +
      link("C") +
      joint("AB", "fixed", "A", "B", "<origin xyz=\"0.5 0 0.2\" rpy=\"0 0 1.5707963267948966\"/>") +
      joint("BC", "revolute", "B", "C", "<origin xyz=\"0 0 0.4\"/><axis xyz=\"0 0 1\"/>"));
  const Model m = load_urdf_string(xml);
  ASSERT_EQ(m.n_B, 1);

  // Hand computation in A's frame.
  const Mat3 R_AB = rot_rpy(0, 0, M_PI / 2);
  const Vec3 o_AB(0.5, 0, 0.2);
  const double mA = 2.0, mB = 1.0;
  const Vec3 cA(0.1, 0, 0);
  const Vec3 cB = R_AB * Vec3(0, 0.1, 0) + o_AB;  // = (0.4, 0, 0.2)
  const Mat3 IA = Vec3(0.1, 0.2, 0.3).asDiagonal();
  const Mat3 IB = R_AB * rot_rpy(0.3, 0, 0) * Mat3(Vec3(0.01, 0.02, 0.03).asDiagonal()) *
                  rot_rpy(0.3, 0, 0).transpose() * R_AB.transpose();
  const double mt = mA + mB;
  const Vec3 c = (mA * cA + mB * cB) / mt;
  auto shift = [](double mk, const Vec3 &d) {  // m (|d|^2 1 - d d^T)
    return Mat3(mk * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
  };
  const Mat3 Ic = IA + shift(mA, cA - c) + IB + shift(mB, cB - c);

  EXPECT_NEAR(m.mass[0], 3.0, 1e-14);
  EXPECT_TRUE(m.com[0].isApprox(c, 1e-12)) << m.com[0].transpose();
  EXPECT_TRUE(m.inertia_com[0].isApprox(Ic, 1e-12)) << m.inertia_com[0];
  // The spatial inertia of the merged body equals the sum of the two, each moved to frame A.
  const Mat6 sum = spatial_inertia(mA, cA, IA) + spatial_inertia(mB, cB, IB);
  EXPECT_TRUE(m.inertia[0].isApprox(sum, 1e-12));
  // C's joint origin is composed through the fixed joint; B is a frame of body 0.
  EXPECT_TRUE(m.H_parent_joint[1].o.isApprox(o_AB + R_AB * Vec3(0, 0, 0.4), 1e-12));
  EXPECT_TRUE(m.H_parent_joint[1].R.isApprox(R_AB, 1e-12));
  const int fB = m.frame_index("B");
  ASSERT_GE(fB, 0);
  EXPECT_EQ(m.frames[fB].body, 0);
  EXPECT_TRUE(m.frames[fB].H.o.isApprox(o_AB));
}

TEST(UrdfMerge, FixedLinksBelowAMovingBodyMergeIntoIt) {
  // base -rev-> L1 -fixed-> F1 -fixed-> F2 (each 1 kg at its origin); L1 body gets 3 kg with
  // com at the mean position (0, 0.1, 0.2), and F2's child continues from body 1 with the composed
  // origin.
  const std::string xml = robot(link("base") + link("L1") + link("F1") + link("F2") + link("L2") +
                                joint("j1", "revolute", "base", "L1") +
                                joint("f1", "fixed", "L1", "F1", "<origin xyz=\"0 0 0.3\"/>") +
                                joint("f2", "fixed", "F1", "F2", "<origin xyz=\"0 0.3 0\"/>") +
                                joint("j2", "revolute", "F2", "L2", "<origin xyz=\"0.1 0 0\"/>"));
  const Model m = load_urdf_string(xml);
  ASSERT_EQ(m.n_B, 2);
  EXPECT_NEAR(m.mass[1], 3.0, 1e-14);
  EXPECT_TRUE(m.com[1].isApprox(Vec3(0, 0.1, 0.2), 1e-12));
  EXPECT_EQ(m.parent[2], 1);
  EXPECT_TRUE(m.H_parent_joint[2].o.isApprox(Vec3(0.1, 0.3, 0.3), 1e-12));
  EXPECT_NEAR(m.total_mass(), 5.0, 1e-14);
  EXPECT_EQ(m.frames[m.frame_index("F2")].body, 1);
}

// ---------------------------------------------------------------------------------------------
// Errors: status, element named, nothing printed

TEST(UrdfErrors, MissingFileIsIoErrorNamingThePath) {
  const std::string path = "/nonexistent/dir/robot.urdf";
  try {
    load_urdf_file(path);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Io);
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
  }
}

TEST(UrdfErrors, DirectoryIsIoError) {
  try {
    load_urdf_file(kModels);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Io);
    EXPECT_TRUE(contains(e.what(), kModels)) << e.what();
  }
}

TEST(UrdfErrors, FileErrorsNameThePathAndTheElement) {
  const std::string path = std::string(GEOLIN_TEST_DATA_DIR) + "/negative_mass.urdf";
  try {
    load_urdf_file(path);
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Model);
    EXPECT_TRUE(contains(e.what(), path)) << e.what();
    EXPECT_TRUE(contains(e.what(), "link 'shin'")) << e.what();
  }
}

// geolin's XML reader (xml.hpp) says what it saw and where (issue: a non-empty garbage file was
// reported as "Error document empty").
TEST(UrdfErrors, MalformedXmlIsParseErrorSayingWhatAndWhere) {
  expect_error("<robot name=\"r\">\n<link name=\"a\"></robot>", Status::Parse,
               {"URDF parse error", "</robot> does not match the start tag <link>", "line 2"});
  expect_error("", Status::Parse, {"empty"});
  expect_error(" \n\t", Status::Parse, {"empty"});
  expect_error("<!-- only a comment -->", Status::Parse, {"no element"});
  expect_error("this is not xml", Status::Parse,
               {"not XML", "starts with 'this is not xml'", "line 1, column 1"});
  expect_error(std::string("\x89PNG\r\n", 6), Status::Parse, {"not XML", "\\x89PNG"});
  expect_error("<robot name=\"r\"><link name=\"a\"/>", Status::Parse,
               {"element <robot> is not closed", "line 1, column 1"});
}

TEST(UrdfErrors, NotAUrdfIsParseError) {
  expect_error("<sdf><model name=\"x\"/></sdf>", Status::Parse, {"robot"});
  expect_error("<robot name=\"r\"></robot>", Status::Parse, {"link"});
}

TEST(UrdfErrors, UnknownJointTypeIsParseErrorNamingTheJoint) {
  expect_error(robot(link("a") + link("b") + joint("ball", "spherical", "a", "b")), Status::Parse,
               {"ball", "spherical"});
}

TEST(UrdfErrors, MissingLimitIsParseErrorNamingTheJoint) {
  expect_error(robot(link("a") + link("b") +
                     "<joint name=\"nolimit\" type=\"revolute\"><parent link=\"a\"/><child "
                     "link=\"b\"/></joint>"),
               Status::Parse, {"nolimit"});
}

TEST(UrdfErrors, SeveralRootsIsModelErrorNamingThem) {
  expect_error(robot(link("a") + link("b") + link("c") + joint("j", "continuous", "a", "b")),
               Status::Model, {"root", "'a'", "'c'"});
}

TEST(UrdfErrors, LinkWithTwoParentsIsModelError) {
  // a -> b -> c -> b : urdfdom accepts this (a is the unique root) and would loop.
  expect_error(robot(link("a") + link("b") + link("c") + joint("j1", "continuous", "a", "b") +
                     joint("j2", "continuous", "b", "c") + joint("j3", "continuous", "c", "b")),
               Status::Model, {"link 'b'", "'j1'", "'j3'"});
}

TEST(UrdfErrors, CycleWithoutRootIsModelError) {
  expect_error(robot(link("a") + link("b") + joint("j1", "continuous", "a", "b") +
                     joint("j2", "continuous", "b", "a")),
               Status::Model, {"cycle"});
}

TEST(UrdfErrors, CycleDisconnectedFromRootIsModelError) {
  expect_error(robot(link("a") + link("b") + link("c") + joint("j1", "continuous", "b", "c") +
                     joint("j2", "continuous", "c", "b")),
               Status::Model, {"'b'", "'c'", "root link 'a'"});
}

TEST(UrdfErrors, JointNamingUnknownLinkIsModelError) {
  expect_error(robot(link("a") + link("b") + joint("elbow", "continuous", "a", "ghost")),
               Status::Model, {"joint 'elbow'", "'ghost'"});
  expect_error(robot(link("a") + link("b") + joint("elbow", "continuous", "phantom", "b")),
               Status::Model, {"joint 'elbow'", "'phantom'"});
}

TEST(UrdfErrors, DuplicateNamesAreModelErrors) {
  expect_error(robot(link("a") + link("a")), Status::Model, {"link 'a'", "more than once"});
  expect_error(robot(link("a") + link("b") + link("c") + joint("j", "continuous", "a", "b") +
                     joint("j", "continuous", "a", "c")),
               Status::Model, {"joint 'j'", "more than once"});
}

TEST(UrdfErrors, NegativeOrNonFiniteMassIsModelError) {
  expect_error(robot(link("a", -1.0)), Status::Model, {"link 'a'", "mass", "negative"});
  expect_error(robot("<link name=\"a\"><inertial><mass value=\"nan\"/><inertia ixx=\"1\" "
                     "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>"),
               Status::Model, {"link 'a'", "mass", "not finite"});
  expect_error(robot("<link name=\"a\"><inertial><mass value=\"inf\"/><inertia ixx=\"1\" "
                     "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>"),
               Status::Model, {"link 'a'", "mass"});
}

TEST(UrdfErrors, InertiaNotPositiveSemidefiniteIsModelError) {
  expect_error(robot(link("base") +
                     link("foot", 1.0, "0 0 0", "0 0 0",
                          "ixx=\"0.1\" ixy=\"0.5\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" "
                          "izz=\"0.1\"") +
                     joint("ankle", "continuous", "base", "foot")),
               Status::Model, {"link 'foot'", "not positive semidefinite"});
  expect_error(robot(link("foot", 1.0, "0 0 0", "0 0 0",
                          "ixx=\"-0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"")),
               Status::Model, {"link 'foot'", "not positive semidefinite"});
  expect_error(robot(link("foot", 1.0, "0 0 0", "0 0 0",
                          "ixx=\"inf\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"")),
               Status::Model, {"link 'foot'", "inertia", "not finite"});
}

TEST(UrdfErrors, TriangleInequalityViolationIsModelErrorUnlessNegligibleAtModelScale) {
  // Principal moments 0.1, 0.1, 0.5: 0.1 + 0.1 < 0.5 is impossible for a rigid body.
  const std::string bad = "ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.5\"";
  const std::string xml = robot(link("base") + link("paddle", 1.0, "0 0 0", "0 0 0", bad) +
                                joint("j", "continuous", "base", "paddle"));
  expect_error(xml, Status::Model, {"link 'paddle'", "triangle inequality"});
  expect_error(xml, Status::Model, {"link 'paddle'", "triangle inequality"}, kStrictInertia);
  // The same small violation on a link of a model 100x heavier (as CAD exports have them on
  // sensor links) is tolerated by default and refused when strict.
  const std::string big = "ixx=\"50\" ixy=\"0\" ixz=\"0\" iyy=\"50\" iyz=\"0\" izz=\"50\"";
  const std::string sensor =
      "ixx=\"0.001\" ixy=\"0\" ixz=\"0\" iyy=\"0.001\" iyz=\"0\" izz=\"0.005\"";
  const std::string heavy =
      robot(link("trunk", 100.0, "0 0 0", "0 0 0", big) +
            link("camera", 0.1, "0 0 0", "0 0 0", sensor) + joint("j", "fixed", "trunk", "camera"));
  EXPECT_NO_THROW(load_urdf_string(heavy));
  expect_error(heavy, Status::Model, {"link 'camera'", "triangle inequality"}, kStrictInertia);
  // Within the relative tolerance (1e-4) it is accepted even when strict.
  const std::string edge = robot(link("rod", 1.0, "0 0 0", "0 0 0",
                                      "ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" "
                                      "izz=\"0.20001\""));
  EXPECT_NO_THROW(load_urdf_string(edge, kStrictInertia));
}

TEST(UrdfErrors, ZeroOrNonFiniteAxisIsModelError) {
  expect_error(
      robot(link("a") + link("b") + joint("knee", "revolute", "a", "b", "<axis xyz=\"0 0 0\"/>")),
      Status::Model, {"joint 'knee'", "axis is zero"});
  expect_error(
      robot(link("a") + link("b") + joint("knee", "revolute", "a", "b", "<axis xyz=\"0 nan 1\"/>")),
      Status::Model, {"joint 'knee'", "axis", "not finite"});
}

TEST(UrdfErrors, NonFiniteOriginIsModelError) {
  expect_error(robot(link("a") + link("b") +
                     joint("hip", "continuous", "a", "b", "<origin xyz=\"0 NaN 0\"/>")),
               Status::Model, {"joint 'hip'", "origin xyz", "not finite"});
  expect_error(
      robot(link("a") + link("b") + joint("hip", "fixed", "a", "b", "<origin rpy=\"0 0 -inf\"/>")),
      Status::Model, {"joint 'hip'", "origin rpy", "not finite"});
  expect_error(robot(link("a", 1.0, "1e999 0 0")), Status::Model,
               {"link 'a'", "inertial origin xyz", "not finite"});
}

TEST(UrdfErrors, PlanarAndFloatingJointsAreUnsupported) {
  expect_error(robot(link("a") + link("b") + joint("slider2d", "planar", "a", "b")),
               Status::Unsupported, {"joint 'slider2d'", "planar"});
  expect_error(robot(link("a") + link("b") + link("c") + joint("j", "continuous", "a", "b") +
                     joint("free", "floating", "b", "c")),
               Status::Unsupported, {"joint 'free'", "floating"});
}

TEST(UrdfErrors, MovingBaseWithoutMassIsModelErrorButFixedBaseIsNot) {
  const std::string xml =
      robot("<link name=\"world\"/>" + link("arm") + joint("j", "continuous", "world", "arm"));
  expect_error(xml, Status::Model, {"'world'", "mass"});
  const Model m = load_urdf_string(xml, kFixedBase);
  EXPECT_EQ(m.n_B, 1);
  EXPECT_EQ(m.mass[0], 0.0);
}

TEST(UrdfErrors, MasslessSubtreeIsModelErrorNamingTheJoint) {
  // Two massless finger links below a massive hand: the finger joint is singular.
  const std::string xml =
      robot(link("hand") + "<link name=\"finger1\"/><link name=\"finger2\"/>" +
            joint("finger_base", "revolute", "hand", "finger1") +
            joint("finger_tip", "revolute", "finger1", "finger2", "<origin xyz=\"0.03 0 0\"/>"));
  expect_error(xml, Status::Model, {"joint 'finger_base'", "massless subtree", "singular"});
  // A point mass on the joint axis has no inertia about it either.
  const std::string on_axis =
      robot(link("base") +
            "<link name=\"p\"><inertial><origin xyz=\"0 0 0.5\"/><mass value=\"1\"/>"
            "<inertia ixx=\"0\" ixy=\"0\" ixz=\"0\" iyy=\"0\" iyz=\"0\" izz=\"0\"/>"
            "</inertial></link>" +
            joint("spin", "continuous", "base", "p", "<axis xyz=\"0 0 1\"/>"));
  expect_error(on_axis, Status::Model, {"joint 'spin'"});
}

TEST(UrdfErrors, UrdfdomOutputIsCapturedAndHandlerRestored) {
  struct Recorder : console_bridge::OutputHandler {
    int calls = 0;
    void log(const std::string &, console_bridge::LogLevel, const char *, int) override { ++calls; }
  } recorder;
  console_bridge::OutputHandler *before = console_bridge::getOutputHandler();
  console_bridge::useOutputHandler(&recorder);
  const console_bridge::LogLevel level = console_bridge::getLogLevel();
  expect_error(robot(link("a") + link("a")), Status::Model, {"link 'a'"});
  // An error only urdfdom finds (it reads the joint types): its message is in the error.
  expect_error(robot(link("a") + link("b") + joint("ball", "spherical", "a", "b")), Status::Parse,
               {"ball"});
  EXPECT_EQ(console_bridge::getOutputHandler(), &recorder);
  EXPECT_EQ(console_bridge::getLogLevel(), level);
  EXPECT_EQ(recorder.calls, 0);  // urdfdom's messages went to the error, not to the host
  console_bridge::useOutputHandler(before);
}

TEST(UrdfErrors, SuccessfulLoadPrintsNothing) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const Model m = load_urdf_file(kModels + "/humanoid.urdf");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(m.n_B, 32);
}

TEST(UrdfLoad, TransmissionAndGazeboJointElementsAreIgnored) {
  // <joint> inside <transmission> and comments/CDATA must not be taken as joints.
  const std::string xml = robot(
      "<!-- <joint name=\"commented\"/> -->" + link("a") + link("b") +
      joint("j", "continuous", "a", "b") +
      "<transmission name=\"t\"><type>x</type><joint name=\"j\"><hardwareInterface>h"
      "</hardwareInterface></joint></transmission><gazebo><![CDATA[<joint name=\"x\">]]></gazebo>");
  const Model m = load_urdf_string(xml);
  EXPECT_EQ(m.n_B, 1);
  EXPECT_EQ(m.joint_name[1], "j");
}

// ---------------------------------------------------------------------------------------------
// One reader: what the XML says is what urdfdom reads (names decoded once, for both)

TEST(UrdfLoad, CharacterReferencesAndEntitiesInNamesReachTheModelDecoded) {
  const Model m =
      load_urdf_string(robot(link("&#x263A;&amp;&lt;&quot;") + link("b&#9;c") +
                             joint("j&#233;", "continuous", "&#x263A;&amp;&lt;&quot;", "b&#9;c")));
  EXPECT_EQ(m.body_name[0], "\xE2\x98\xBA&<\"");
  EXPECT_EQ(m.body_name[1], "b\tc");
  EXPECT_EQ(m.joint_name[1], "j\xC3\xA9");
}

TEST(UrdfLoad, AttributeValuesAreNormalizedAsXmlSays) {
  // A literal tab or line break in an attribute value is a space (XML 1.0 §3.3.3); a character
  // reference keeps its character.
  const Model m =
      load_urdf_string(robot(link("a\tb") + link("c\r\nd") +
                             joint("j", "continuous", "a b", "c d", "<origin xyz=\"0\n0\t1\"/>")));
  EXPECT_EQ(m.body_name[0], "a b");
  EXPECT_EQ(m.body_name[1], "c d");
  EXPECT_TRUE(m.H_parent_joint[1].o.isApprox(Vec3(0, 0, 1)));
}

TEST(UrdfLoad, DeclarationDoctypeCommentsAndProcessingInstructionsAreSkipped) {
  const std::string xml =
      "\xEF\xBB\xBF<?xml version='1.0' encoding=\"UTF-8\" standalone='yes'?>\n"
      "<?xml-stylesheet href=\"a>b\"?>\n"
      "<!DOCTYPE robot SYSTEM \"urdf.dtd\" [ <!ELEMENT robot ANY> <!-- ]> --> ]>\n"
      "<!-- \" -->\n" +
      robot(link("a") + "<?pi \"?>" + link("b") + "<!-- ' -->" +
            joint("j", "continuous", "a", "b") +
            "<gazebo><![CDATA[ <link name=\"c\"/> ]]></gazebo>") +
      "<!-- after -->\n";
  const Model m = load_urdf_string(xml);
  EXPECT_EQ(m.frames.size(), 2u);
  EXPECT_EQ(m.n_B, 1);
}

// ---------------------------------------------------------------------------------------------
// Load checks of the URDF itself

TEST(UrdfErrors, SecondOrNestedRobotIsParseError) {
  expect_error(robot(link("a")) + robot(link("b")), Status::Parse,
               {"second top-level element <robot>", "line 1"});
  expect_error(robot(link("a") + "<gazebo>" + robot(link("b")) + "</gazebo>"), Status::Parse,
               {"second <robot> element inside <gazebo>"});
}

TEST(UrdfErrors, UnexpandedXacroIsParseErrorNamingTheElement) {
  const std::string ns = "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">";
  expect_error(ns + link("a") + "<xacro:include filename=\"leg.xacro\"/></robot>", Status::Parse,
               {"unexpanded xacro", "<xacro:include>", "run xacro"});
  expect_error(robot(link("a") + "<link name=\"b\" xacro:if=\"1\"/>"), Status::Parse,
               {"unexpanded xacro", "attribute 'xacro:if' of <link>"});
  expect_error(robot(link("a") + link("b") +
                     joint("knee", "continuous", "a", "b", "<origin xyz=\"0 0 ${l/2}\"/>")),
               Status::Parse, {"unexpanded xacro expression '${l/2}'", "'xyz' of <origin>"});
  expect_error(robot("<link name=\"$(arg prefix)base\"/>"), Status::Parse,
               {"unexpanded xacro expression '$(arg prefix)base'", "'name' of <link>"});
  expect_error("<robot name=\"r\" xmlns:x=\"http://ros.org/wiki/xacro\">" + link("a") +
                   "<x:macro name=\"m\"/></robot>",
               Status::Parse, {"unexpanded xacro", "<x:macro>"});
  // xacro keeps the namespace declaration in its output: alone it is no fault.
  EXPECT_EQ(
      load_urdf_string(ns + link("a") + link("b") + joint("j", "continuous", "a", "b") + "</robot>")
          .n_B,
      1);
  // Outside what urdfdom reads (a <gazebo> plugin's parameters), "${" is left alone.
  EXPECT_EQ(load_urdf_string(robot(link("a") + "<gazebo><plugin name=\"${x}\"/></gazebo>")).n_B, 0);
}

TEST(UrdfErrors, LimitLowerAboveUpperIsModelErrorNamingTheJoint) {
  const std::string limits = "<limit lower=\"0.5\" upper=\"-0.5\" effort=\"1\" velocity=\"1\"/>";
  expect_error(robot(link("a") + link("b") +
                     "<joint name=\"elbow\" type=\"revolute\"><parent link=\"a\"/><child "
                     "link=\"b\"/>" +
                     limits + "</joint>"),
               Status::Model, {"joint 'elbow'", "limit lower (0.5) is greater than limit upper"});
  // Equal limits are a valid (if immobile) range.
  EXPECT_NO_THROW(load_urdf_string(
      robot(link("a") + link("b") +
            "<joint name=\"elbow\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>"
            "<limit lower=\"0.5\" upper=\"0.5\" effort=\"1\" velocity=\"1\"/></joint>")));
}

TEST(UrdfErrors, NegativeEffortOrVelocityIsModelErrorNamingTheJoint) {
  for (const std::string key : {"effort", "velocity"}) {
    SCOPED_TRACE(key);
    std::string limits = "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>";
    limits.replace(limits.find(key + "=\"1\"") + key.size() + 2, 1, "-3");
    expect_error(robot(link("a") + link("b") +
                       "<joint name=\"slide\" type=\"prismatic\"><parent link=\"a\"/><child "
                       "link=\"b\"/>" +
                       limits + "</joint>"),
                 Status::Model, {"joint 'slide'", "limit " + key + " is negative (-3"});
  }
}

TEST(UrdfErrors, HexadecimalNumberIsParseErrorSayingItIsNotDecimal) {
  expect_error(robot("<link name=\"a\"><inertial><mass value=\"0x10\"/><inertia ixx=\"1\" "
                     "ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>"),
               Status::Parse,
               {"link 'a': mass is not a decimal number", "'0x10' is hexadecimal", "line 1"});
  expect_error(
      robot(link("a") + link("b") + joint("j", "continuous", "a", "b", "<axis xyz=\"0 0 1,0\"/>")),
      Status::Parse, {"joint 'j': axis is not a decimal number ('1,0'"});
}

TEST(UrdfErrors, InvalidUtf8NamesAreRefusedAtLoad) {
  // Names reach every --format json: they must be UTF-8.
  expect_error(robot(link("caf\xE9")), Status::Parse,
               {"attribute 'name' of <link> is not valid UTF-8", "byte 0xE9"});
  expect_error(robot(link("a\xED\xA0\x80")), Status::Parse, {"not valid UTF-8", "0xED"});
  expect_error(robot(link("a\x1F")), Status::Parse, {"control character 0x1F"});
  expect_error(robot(link("a&#xD800;")), Status::Parse,
               {"not a character reference to an XML character"});
  expect_error("<robot name=\"r\"><l\xE9nk name=\"a\"/></robot>", Status::Parse,
               {"not valid UTF-8"});
}

// Mimic joints load as independent joints (docs/conventions.md); the <mimic> element must
// still name a joint they can follow.
TEST(UrdfMimic, ValidMimicsLoadAsIndependentJointsAndAreReported) {
  const Model m = load_urdf_string(
      robot(link("palm") + link("f1") + link("f2") + link("f3") + link("tip") +
            joint("a", "prismatic", "palm", "f1") +
            joint("b", "prismatic", "palm", "f2", "<mimic joint=\"a\" multiplier=\"-1\"/>") +
            joint("c", "continuous", "palm", "f3", "<mimic joint=\"b\"/>") +  // a chain
            joint("cover", "fixed", "f3", "tip", "<mimic joint=\"a\"/>")));   // ignored
  ASSERT_EQ(m.n_B, 3);
  EXPECT_EQ(m.mimic_of[1], "");
  EXPECT_EQ(m.mimic_of[2], "a");
  EXPECT_EQ(m.mimic_of[3], "b");
  EXPECT_EQ(m.num_dofs(), 9);  // every mimic joint keeps its own coordinate
}

TEST(UrdfMimic, SelfUnknownAndFixedTargetsAreRefusedNamingTheJoints) {
  const std::string base = link("a") + link("b") + link("c");
  expect_error(robot(base + joint("j", "continuous", "a", "b", "<mimic joint=\"j\"/>") +
                     joint("k", "continuous", "a", "c")),
               Status::Model, {"joint 'j' mimics itself"});
  expect_error(robot(base + joint("j", "continuous", "a", "b", "<mimic joint=\"ghost\"/>") +
                     joint("k", "continuous", "a", "c")),
               Status::Model, {"joint 'j' mimics joint 'ghost', which does not exist"});
  expect_error(robot(base + joint("weld", "fixed", "a", "b") +
                     joint("k", "continuous", "a", "c", "<mimic joint=\"weld\"/>")),
               Status::Model, {"joint 'k' mimics joint 'weld', which is fixed"});
  expect_error(robot(base + joint("j", "continuous", "a", "b", "<mimic multiplier=\"2\"/>") +
                     joint("k", "continuous", "a", "c")),
               Status::Parse, {"joint 'j': <mimic> has no joint attribute"});
}

TEST(UrdfMimic, MimicCycleIsRefusedNamingItsJoints) {
  expect_error(robot(link("a") + link("b") + link("c") +
                     joint("p", "continuous", "a", "b", "<mimic joint=\"q\"/>") +
                     joint("q", "continuous", "a", "c", "<mimic joint=\"p\"/>")),
               Status::Model, {"cycle", "'p' -> 'q' -> 'p'"});
  // A cycle entered from a chain: only the cycle is named.
  expect_error(robot(link("a") + link("b") + link("c") + link("d") +
                     joint("in", "continuous", "a", "b", "<mimic joint=\"x\"/>") +
                     joint("x", "continuous", "a", "c", "<mimic joint=\"y\"/>") +
                     joint("y", "continuous", "a", "d", "<mimic joint=\"x\"/>")),
               Status::Model, {"cycle ('x' -> 'y' -> 'x')"});
}

// ---------------------------------------------------------------------------------------------
// Real robots (optional, read-only collection beside the checkout)

TEST(UrdfRealRobots, RealRobotsLoadWithTheDocumentedJointCount) {
  if (kShared.empty() || !std::filesystem::is_directory(kShared))
    GTEST_SKIP() << "no extra model folder (configure with -DGEOLIN_EXTRA_MODELS_DIR=...): '"
                 << kShared << "'";
  struct Row {
    const char *file;
    int n_J;
    unsigned flags;
  };
  const Row rows[] = {{"talos_reduced.urdf", 32, 0},
                      {"talos_full_v2.urdf", 44, 0},
                      {"icub.urdf", 32, 0},
                      {"anymal.urdf", 12, 0},
                      {"hyq_no_sensors.urdf", 12, 0},
                      {"solo12.urdf", 12, 0},
                      {"go2.urdf", 12, 0},
                      {"panda.urdf", 9, kFixedBase},
                      {"ur5_robot.urdf", 6, kFixedBase}};
  for (const Row &r : rows) {
    SCOPED_TRACE(r.file);
    testing::internal::CaptureStderr();
    Model m;
    EXPECT_NO_THROW(m = load_urdf_file(kShared + "/" + r.file, r.flags));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(m.n_B, r.n_J);
    EXPECT_GT(m.total_mass(), 1.0);
    expect_valid_tree(m);
  }
  // Every other URDF of the folder loads too (except romeo, tested below).
  for (const auto &entry : std::filesystem::directory_iterator(kShared)) {
    if (entry.path().extension() != ".urdf" || entry.path().filename() == "romeo.urdf") continue;
    const bool fixed = contains(entry.path().filename().string(), "panda") ||
                       contains(entry.path().filename().string(), "ur5");
    EXPECT_NO_THROW(load_urdf_file(entry.path().string(), fixed ? kFixedBase : 0u)) << entry.path();
  }
}

// panda's second finger and talos_full's gripper joints are valid mimics (a moving target in
// the model, not themselves): they load, reported and independent. talos_reduced has <mimic>
// on fixed joints, which is allowed (nothing follows from it).
TEST(UrdfRealRobots, PandaAndTalosMimicJointsAreValidReportedAndIndependent) {
  if (kShared.empty() || !std::filesystem::is_directory(kShared))
    GTEST_SKIP() << "no extra model folder (configure with -DGEOLIN_EXTRA_MODELS_DIR=...): '"
                 << kShared << "'";
  const struct {
    const char *file;
    unsigned flags;
    int mimics;
  } rows[] = {{"panda.urdf", kFixedBase, 1}, {"talos_full_v2.urdf", 0, 12}};
  for (const auto &row : rows) {
    SCOPED_TRACE(row.file);
    const Model m = load_urdf_file(kShared + "/" + row.file, row.flags);
    int mimics = 0;
    for (int i = 1; i <= m.n_B; ++i)
      if (!m.mimic_of[i].empty()) {
        ++mimics;
        EXPECT_GE(m.joint_index(m.mimic_of[i]), 0) << m.mimic_of[i];
        EXPECT_NE(m.mimic_of[i], m.joint_name[i]);
      }
    EXPECT_EQ(mimics, row.mimics);
  }
  const Model reduced = load_urdf_file(kShared + "/talos_reduced.urdf");
  for (int i = 1; i <= reduced.n_B; ++i) EXPECT_EQ(reduced.mimic_of[i], "");
}

TEST(UrdfRealRobots, RomeoIsRefusedNamingAMasslessFingerJoint) {
  if (kShared.empty() || !std::filesystem::is_directory(kShared))
    GTEST_SKIP() << "no extra model folder (configure with -DGEOLIN_EXTRA_MODELS_DIR=...): '"
                 << kShared << "'";
  testing::internal::CaptureStderr();
  try {
    load_urdf_file(kShared + "/romeo.urdf");
    ADD_FAILURE() << "romeo.urdf loaded";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::Model);
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "massless subtree")) << msg;
    // The named joint is a hand/finger joint (LHand drives LFinger11Link in romeo.urdf).
    const size_t a = msg.find("joint '");
    ASSERT_NE(a, std::string::npos) << msg;
    const std::string name = msg.substr(a + 7, msg.find('\'', a + 7) - a - 7);
    EXPECT_TRUE(contains(name, "Hand") || contains(name, "Finger") || contains(name, "Thumb"))
        << name;
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

// ---------------------------------------------------------------------------------------------
// Numbers with surrounding whitespace (xs:double allows it) and numbers that are garbage

// A robot that writes a number in every attribute urdfdom reads numbers from, each through
// `pad` (which surrounds it, or the numbers of a list, with whitespace). Values of the
// attribute `garbage_key` of element `garbage_element` are replaced by `garbage` if given.
std::string every_number_robot(const std::function<std::string(const std::string &)> &pad,
                               const std::string &garbage_element = "",
                               const std::string &garbage_key = "",
                               const std::string &garbage = "") {
  const auto num = [&](const char *element, const char *key, std::vector<std::string> values) {
    if (element == garbage_element && key == garbage_key)
      return std::string(key) + "=\"" + garbage + "\"";
    std::string v;
    for (size_t k = 0; k < values.size(); ++k) v += (k ? pad(" ") : "") + values[k];
    return std::string(key) + "=\"" + pad("") + v + pad("") + "\"";
  };
  const auto inertial = [&](const std::string &m, const std::string &d) {
    return "<inertial><origin " + num("origin", "xyz", {"0.01", "-0.02", "0.1"}) + " " +
           num("origin", "rpy", {"0.1", "0.2", "-0.3"}) + "/><mass " + num("mass", "value", {m}) +
           "/><inertia " + num("inertia", "ixx", {d}) + " " + num("inertia", "ixy", {"0.001"}) +
           " " + num("inertia", "ixz", {"-2e-3"}) + " " + num("inertia", "iyy", {d}) + " " +
           num("inertia", "iyz", {"0"}) + " " + num("inertia", "izz", {"0.15"}) + "/></inertial>";
  };
  const auto visual = [&](const std::string &shape) {
    return "<visual><origin " + num("origin", "xyz", {"0", "0", "0.2"}) + " " +
           num("origin", "rpy", {"0", "1.5", "0"}) + "/><geometry>" + shape +
           "</geometry><material name=\"red\"><color " +
           num("color", "rgba", {"1", "0", "0", "1"}) + "/></material></visual>";
  };
  const std::string limit = "<limit " + num("limit", "lower", {"-1.5"}) + " " +
                            num("limit", "upper", {"2"}) + " " + num("limit", "effort", {"30"}) +
                            " " + num("limit", "velocity", {"4.5"}) + "/>";
  return "<robot name=\"padded\"><material name=\"blue\"><color " +
         num("color", "rgba", {"0", "0", "1", "1"}) + "/></material><link name=\"base\">" +
         inertial("2", "0.1") + visual("<box " + num("box", "size", {"0.1", "0.2", "0.3"}) + "/>") +
         "<collision><origin " + num("origin", "xyz", {"0", "0", "0"}) + "/><geometry><cylinder " +
         num("cylinder", "radius", {"0.05"}) + " " + num("cylinder", "length", {"0.4"}) +
         "/></geometry></collision></link><link name=\"arm\">" + inertial("1.25", "0.12") +
         visual("<sphere " + num("sphere", "radius", {"0.1"}) + "/>") +
         visual("<mesh filename=\"arm.stl\" " + num("mesh", "scale", {"1", "1", "0.5"}) + "/>") +
         "</link><link name=\"hand\">" + inertial("0.5", "0.1") +
         "</link><joint name=\"shoulder\" type=\"revolute\"><parent link=\"base\"/><child "
         "link=\"arm\"/><origin " +
         num("origin", "xyz", {"0", "0.1", "0.3"}) + " " + num("origin", "rpy", {"0.5", "0", "0"}) +
         "/><axis " + num("axis", "xyz", {"0", "0.6", "0.8"}) + "/>" + limit + "<dynamics " +
         num("dynamics", "damping", {"0.7"}) + " " + num("dynamics", "friction", {"0.1"}) +
         "/><safety_controller " + num("safety_controller", "soft_lower_limit", {"-1.4"}) + " " +
         num("safety_controller", "soft_upper_limit", {"1.9"}) + " " +
         num("safety_controller", "k_position", {"10"}) + " " +
         num("safety_controller", "k_velocity", {"5"}) + "/><calibration " +
         num("calibration", "rising", {"0.2"}) + " " + num("calibration", "falling", {"0.3"}) +
         "/></joint><joint name=\"wrist\" type=\"prismatic\"><parent link=\"arm\"/><child "
         "link=\"hand\"/><axis xyz=\"1 0 0\"/>" +
         limit + "<mimic joint=\"shoulder\" " + num("mimic", "multiplier", {"2"}) + " " +
         num("mimic", "offset", {"0.1"}) + "/></joint></robot>";
}

// Every field of the two models is equal (==, not approximately: the same numbers must reach
// the same computation).
void expect_same_model(const Model &a, const Model &b) {
  ASSERT_EQ(a.n_B, b.n_B);
  EXPECT_EQ(a.body_name, b.body_name);
  EXPECT_EQ(a.joint_name, b.joint_name);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.joint_type, b.joint_type);
  EXPECT_EQ(a.damping, b.damping);
  EXPECT_EQ(a.mimic_of, b.mimic_of);
  EXPECT_EQ(a.mass, b.mass);
  for (int i = 0; i <= a.n_B; ++i) {
    EXPECT_EQ(a.joint_axis[i], b.joint_axis[i]) << i;
    EXPECT_EQ(a.H_parent_joint[i].R, b.H_parent_joint[i].R) << i;
    EXPECT_EQ(a.H_parent_joint[i].o, b.H_parent_joint[i].o) << i;
    EXPECT_EQ(a.com[i], b.com[i]) << i;
    EXPECT_EQ(a.inertia_com[i], b.inertia_com[i]) << i;
    EXPECT_EQ(a.inertia[i], b.inertia[i]) << i;
  }
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (size_t f = 0; f < a.frames.size(); ++f) {
    EXPECT_EQ(a.frames[f].name, b.frames[f].name);
    EXPECT_EQ(a.frames[f].H.R, b.frames[f].H.R);
    EXPECT_EQ(a.frames[f].H.o, b.frames[f].H.o);
  }
}

TEST(UrdfNumbers, NumbersSurroundedByXmlWhitespaceLoadToTheSameModelAsUnpadded) {
  const Model plain = load_urdf_string(every_number_robot([](const std::string &s) { return s; }));
  ASSERT_EQ(plain.n_B, 2);
  EXPECT_EQ(plain.mass[1], 1.25);
  EXPECT_EQ(plain.damping[1], 0.7);
  EXPECT_EQ(plain.mimic_of[2], "shoulder");
  // Literal whitespace (a tab, CR or LF in a value is normalized to a space), character
  // references (they keep their character: a real tab, CR or LF reaches the number) and mixes.
  const std::vector<std::string> pads = {" ",          "   ",      "\t",      "\n",
                                         "\r\n",       "&#9;",     "&#10;",   "&#13;",
                                         "&#13;&#10;", " \t&#9; ", "\n&#32; "};
  for (const std::string &p : pads) {
    SCOPED_TRACE("padding '" + p + "'");
    const std::string xml =
        every_number_robot([&](const std::string &between) { return between + p; });
    Model padded;
    testing::internal::CaptureStderr();
    EXPECT_NO_THROW(padded = load_urdf_string(xml));
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    expect_same_model(padded, plain);
  }
}

TEST(UrdfNumbers, GarbageNumbersAreRefusedNamingTheLinkOrJointElementAndAttribute) {
  struct Target {
    const char *element, *key, *owner;
  };
  const Target targets[] = {{"mass", "value", "link 'base'"},
                            {"inertia", "ixy", "link 'base'"},
                            {"origin", "xyz", "link 'base'"},
                            {"box", "size", "link 'base'"},
                            {"mesh", "scale", "link 'arm'"},
                            {"color", "rgba", "link 'base'"},
                            {"axis", "xyz", "joint 'shoulder'"},
                            {"limit", "effort", "joint 'shoulder'"},
                            {"dynamics", "damping", "joint 'shoulder'"},
                            {"mimic", "multiplier", "joint 'wrist'"}};
  // Not decimal (Status::Parse), not finite (Status::Model), or no number at all (Parse);
  // whitespace around garbage does not make it a number.
  const struct {
    const char *text;
    Status status;
    const char *says;
  } garbage[] = {{"1,5", Status::Parse, "is not a decimal number"},
                 {"0x10", Status::Parse, "is hexadecimal"},
                 {"1e", Status::Parse, "is not a decimal number"},
                 {" 2.5.1 ", Status::Parse, "is not a decimal number"},
                 {"&#9;1,5&#10;", Status::Parse, "is not a decimal number"},
                 {"nan", Status::Model, "is not finite"},
                 {" inf ", Status::Model, "is not finite"},
                 {"-infinity", Status::Model, "is not finite"},
                 {"", Status::Parse, "has no number"},
                 {" \t&#10;", Status::Parse, "has no number"}};
  const auto unpadded = [](const std::string &s) { return s; };
  for (const Target &t : targets) {
    for (const auto &g : garbage) {
      SCOPED_TRACE(std::string(t.element) + " " + t.key + "=\"" + g.text + "\"");
      expect_error(every_number_robot(unpadded, t.element, t.key, g.text), g.status,
                   {t.owner, g.says, std::string("<") + t.element + " " + t.key + "=\""});
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Positive semidefiniteness of link inertias at every scale

// A link "body" of mass m whose inertia has principal moments `l`, in axes rotated by rpy
// (0.3, -0.2, 0.5) when `rotated` (the eigenvalue path), printed with 17 digits, welded to a
// base of the same mass with moments J_base (so that the robot is valid whatever body's
// moments are; each link's tensor is checked on its own).
std::string body_on_base_robot(double m, const Vec3 &l, bool rotated, double J_base) {
  const Mat3 R =
      rotated ? Mat3(Eigen::AngleAxisd(0.5, Vec3::UnitZ()) *
                     Eigen::AngleAxisd(-0.2, Vec3::UnitY()) * Eigen::AngleAxisd(0.3, Vec3::UnitX()))
              : Mat3::Identity();
  const Mat3 I = R * l.asDiagonal() * R.transpose();
  const auto g = [](double x) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", x);
    return std::string(buffer);
  };
  const auto inertial = [&](const Mat3 &J) {
    return "<inertial><mass value=\"" + g(m) + "\"/><inertia ixx=\"" + g(J(0, 0)) + "\" ixy=\"" +
           g(J(0, 1)) + "\" ixz=\"" + g(J(0, 2)) + "\" iyy=\"" + g(J(1, 1)) + "\" iyz=\"" +
           g(J(1, 2)) + "\" izz=\"" + g(J(2, 2)) + "\"/></inertial>";
  };
  return robot("<link name=\"base\">" + inertial(J_base * Mat3::Identity()) +
               "</link><link name=\"body\">" + inertial(I) + "</link>" +
               joint("weld", "fixed", "base", "body"));
}

// The same body at every scale, from an insect's few mg to a ton: a principal moment that is
// negative by a sizeable fraction of the others is refused, and the same body with that moment
// positive loads. Scaling mass by s^3 and lengths by s scales moments by s^5.
TEST(UrdfInertia, NegativePrincipalMomentIsRefusedAtEveryScale) {
  for (double s : {1e-3, 1e-2, 0.1, 1.0, 10.0}) {
    const double m = 1.0 * s * s * s;          // 1 kg at s = 1, 1 mg at s = 1e-2
    const double J = 0.01 * std::pow(s, 5.0);  // 1e-12 kg m^2 at s = 1e-2 (the issue's link)
    for (bool rotated : {false, true}) {
      SCOPED_TRACE("mass " + std::to_string(m) + " kg, rotated " + std::to_string(rotated));
      EXPECT_NO_THROW(load_urdf_string(body_on_base_robot(m, Vec3(J, J, 0.6 * J), rotated, J)));
      for (double negative : {-0.6, -1e-2, -1e-3})
        expect_error(body_on_base_robot(m, Vec3(J, J, negative * J), rotated, J), Status::Model,
                     {"link 'body'", "not positive semidefinite"});
    }
  }
}

// Round-off is accepted: a moment that is zero for the body (a thin rod about its axis, a
// point mass) written as a tiny positive or negative number relative to the others, or as
// round-off of the order of the link's mass times (1 um)^2 -- such as icub.urdf's point-mass
// links with entries of 1e-20 -- at every scale. Beyond m (1 um)^2 a zero tensor's negative
// moment is refused.
TEST(UrdfInertia, RoundOffInZeroMomentsIsAcceptedRelativeToTheLinksOwnScale) {
  for (double s : {1e-3, 1e-2, 0.1, 1.0, 10.0}) {
    const double m = 1.0 * s * s * s, J = 0.01 * std::pow(s, 5.0);
    for (bool rotated : {false, true}) {
      SCOPED_TRACE("mass " + std::to_string(m) + " kg, rotated " + std::to_string(rotated));
      for (double zero : {0.0, 1e-20, -1e-18, -5e-5})  // thin rod: relative to the moments
        EXPECT_NO_THROW(load_urdf_string(body_on_base_robot(m, Vec3(J, J, zero * J), rotated, J)));
      const double floor = m * 1e-12;  // point mass: relative to m (1 um)^2
      if (!rotated) {
        EXPECT_NO_THROW(
            load_urdf_string(body_on_base_robot(m, Vec3(-0.5 * floor, 0, 0), false, J)));
        expect_error(body_on_base_robot(m, Vec3(-2.0 * floor, 0, 0), false, J), Status::Model,
                     {"link 'body'", "not positive semidefinite"});
      }
    }
  }
  // icub.urdf's l_ankle_2 (0.2675 kg): a zero tensor but for ixz = 1.35525e-20 (principal
  // moments -1.4e-20, 0, 1.4e-20).
  EXPECT_NO_THROW(load_urdf_string(
      robot("<link name=\"l_ankle_2\"><inertial><mass value=\"0.2675\"/><origin xyz=\"0.008 0 "
            "0.0553\"/><inertia ixx=\"0\" ixy=\"0\" ixz=\"1.35525e-20\" iyy=\"0\" iyz=\"0\" "
            "izz=\"0\"/></inertial></link>" +
            link("foot") + joint("ankle", "continuous", "l_ankle_2", "foot"))));
}

// The issue's case (an insect-scale link of a few mg with moments ~1e-12 kg m^2 and one of
// -6e-13) loaded with the earlier absolute floor of 1e-12 kg m^2; an ordinary link with a
// tiny negative moment (above the 1e-4 relative tolerance) is refused as before, and a
// massless link has only the relative tolerance.
TEST(UrdfInertia, TinyNegativeMomentsOfInsectAndOrdinaryLinksAreRefused) {
  expect_error(body_on_base_robot(5e-6, Vec3(1e-12, 1.2e-12, -6e-13), false, 1e-12), Status::Model,
               {"link 'body'", "not positive semidefinite", "-6e-13"});
  expect_error(body_on_base_robot(5e-6, Vec3(1e-12, 1.2e-12, -6e-13), true, 1e-12), Status::Model,
               {"link 'body'", "not positive semidefinite"});
  expect_error(body_on_base_robot(2.0, Vec3(0.1, 0.1, -1e-4), false, 0.1), Status::Model,
               {"link 'body'", "not positive semidefinite"});
  expect_error(robot(link("base") +
                     "<link name=\"tip\"><inertial><mass value=\"0\"/><inertia "
                     "ixx=\"1e-20\" ixy=\"0\" ixz=\"0\" iyy=\"1e-20\" iyz=\"0\" "
                     "izz=\"-1e-20\"/></inertial></link>" +
                     joint("j", "fixed", "base", "tip")),
               Status::Model, {"link 'tip'", "not positive semidefinite"});
}

}  // namespace
}  // namespace geolin
