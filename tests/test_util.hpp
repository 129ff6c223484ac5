// Shared helpers for the tests: random states, random hand-built trees, relative errors.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "geolin/algorithms.hpp"
#include "geolin/model.hpp"
#include "geolin/state.hpp"

namespace geolin::test {

inline std::string model_path(const std::string &file) {
  return std::string(GEOLIN_MODELS_DIR) + "/" + file;
}

/// A state x = (H, s, v, r) of the Lie group G = SE(3) x R^nJ x R^6 x R^nJ (geolin::State),
/// plus torques.
struct State : geolin::State {
  VecX tau;
};

// A model with frames held by the ground (frames, types, refs: 16 per contact, rows in all) and
// the core's view of them (docs/contacts.md §1): the contact tests' shared fixture.
struct Held {
  Model m;
  std::vector<int> frames, types;
  std::vector<double> refs;
  int rows = 0;
  Contacts view(unsigned flags, double Kp, double Kd) const {
    Contacts c;
    c.count = static_cast<int>(frames.size());
    c.frames = frames.data();
    c.types = types.data();
    c.flags = flags;
    c.Kp = Kp;
    c.Kd = Kd;
    c.refs = refs.data();
    return c;
  }
};

/// x exp(ε e_k) for k < N (the state module, docs/dynamics.md (D15)), τ + ε e_{k−N} beyond: the
/// perturbation of the geometric central differences.
inline State perturbed(const Model &m, const State &x, int k, double eps) {
  State y = x;
  if (k >= m.state_dim())
    y.tau[k - m.state_dim()] += eps;
  else
    state_integrate_coordinate(m, k, eps, y);
  return y;
}

/// A model of models/ (file, load flags) with the frames of spec held (name, contact type), their
/// references a little away from the frames' poses at x0.
inline Held held(const char *file, unsigned load_flags,
                 const std::vector<std::pair<const char *, int>> &spec, const State &x0) {
  Held h{load_urdf_file(model_path(file), load_flags), {}, {}, {}, 0};
  Workspace ws(h.m);
  for (const auto &[name, type] : spec) {
    const int f = h.m.frame_index(name);
    EXPECT_GE(f, 0) << name;
    h.frames.push_back(f);
    h.types.push_back(type);
    h.rows += type;
    Transform T = frame_pose(h.m, ws, x0.H, x0.s, f);
    T.o += Vec3(0.01, -0.01, 0.005);
    const Mat4 Hm = T.matrix();
    for (int k = 0; k < 16; ++k) h.refs.push_back(Hm(k % 4, k / 4));
  }
  return h;
}

/// The quadruped's four feet as point contacts.
inline const std::vector<std::pair<const char *, int>> kQuadrupedFeet = {
    {"FL_foot", kContactPoint},
    {"FR_foot", kContactPoint},
    {"HL_foot", kContactPoint},
    {"HR_foot", kContactPoint}};

inline Mat3 random_rotation(std::mt19937 &rng) {
  std::normal_distribution<double> nd;
  Eigen::Quaterniond q(nd(rng), nd(rng), nd(rng), nd(rng));
  q.normalize();
  return q.toRotationMatrix();
}

/// A reproducible random state: random attitude, base position in a 2 m box, s in [-pi, pi],
/// v, r, tau uniform in [-scale, scale].
inline State random_state(const Model &model, std::mt19937 &rng, double scale = 1.0) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  State x;
  const int nj = model.num_joints();
  x.H.R = random_rotation(rng);
  x.H.o = Vec3(u(rng), u(rng), u(rng));
  x.s.resize(nj);
  x.r.resize(nj);
  x.tau.resize(nj);
  for (int k = 0; k < nj; ++k) {
    x.s[k] = M_PI * u(rng);
    x.r[k] = scale * u(rng);
    x.tau[k] = scale * u(rng);
  }
  if (!model.fixed_base)
    for (int k = 0; k < 6; ++k) x.v[k] = scale * u(rng);
  return x;
}

/// The step of the geometric central differences used as an oracle: 1e-5 balances truncation
/// (O(ε²)) against round-off amplified by cond(M) (O(1/ε)); measured optimal on the bundled
/// models (1e-6 loses a factor 10 on the arm with a free base).
constexpr double kFdEps = 1e-5;

/// max |a - b| / max(1, max |b|): the relative error used throughout the tests.
inline double rel_err(const MatX &a, const MatX &b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.size() == 0 || a.rows() != b.rows() || a.cols() != b.cols()) return 0.0;
  const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
  return (a - b).cwiseAbs().maxCoeff() / scale;
}

/// A number in scientific notation, for RecordProperty (worst errors show in the XML report).
inline std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", x);
  return buf;
}

inline Mat3 rot_x(double t) {
  return exp_so3(Vec3(t, 0, 0));
}
inline Mat3 rot_y(double t) {
  return exp_so3(Vec3(0, t, 0));
}
inline Mat3 rot_z(double t) {
  return exp_so3(Vec3(0, 0, t));
}

/// A random valid rigid-body inertia: mass in [0.5, 3], com within 0.2 m, rotational inertia
/// from random principal moments that satisfy the triangle inequality, randomly rotated.
inline void random_inertia(std::mt19937 &rng, double &m, Vec3 &c, Mat3 &I_c) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  m = 0.5 + 2.5 * u(rng);
  c = 0.2 * Vec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
  const double a = 0.01 + 0.05 * u(rng), b = 0.01 + 0.05 * u(rng), d = 0.01 + 0.05 * u(rng);
  const Mat3 R = random_rotation(rng);
  I_c = R * Vec3(a + b, b + d, a + d).asDiagonal() * R.transpose();  // sums: triangle holds
}

/// A random kinematic tree of nb moving bodies built by hand (independent of the URDF loader),
/// completed by finalize_model.
inline Model random_tree_model(int nb, unsigned seed, bool fixed_base) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Model m;
  m.name = "random_tree";
  m.n_B = nb;
  m.fixed_base = fixed_base;
  m.parent.assign(nb + 1, -1);
  m.body_name.resize(nb + 1);
  m.joint_name.resize(nb + 1);
  m.joint_type.assign(nb + 1, JointType::Revolute);
  m.joint_axis.assign(nb + 1, Vec3::UnitZ());
  m.H_parent_joint.resize(nb + 1);
  m.damping.assign(nb + 1, 0.0);
  m.mimic_of.resize(nb + 1);
  m.mass.resize(nb + 1);
  m.com.resize(nb + 1);
  m.inertia_com.resize(nb + 1);
  for (int i = 0; i <= nb; ++i) {
    m.body_name[i] = "b" + std::to_string(i);
    random_inertia(rng, m.mass[i], m.com[i], m.inertia_com[i]);
    if (i == 0) continue;
    // DFS-compatible parent choice: the previous body or one of its ancestors.
    int p = i - 1;
    while (p > 0 && u(rng) > 0.3) p = m.parent[p];
    m.parent[i] = p;
    m.joint_name[i] = "j" + std::to_string(i);
    const int kind = static_cast<int>(3.0 * (0.5 + 0.5 * u(rng))) % 3;
    m.joint_type[i] = kind == 2 ? JointType::Prismatic
                                : (kind == 1 ? JointType::Continuous : JointType::Revolute);
    m.joint_axis[i] = Vec3(u(rng), u(rng), u(rng)).normalized();
    m.H_parent_joint[i].R = random_rotation(rng);
    m.H_parent_joint[i].o = 0.3 * Vec3(u(rng), u(rng), u(rng));
  }
  // Renumber depth-first with children in order of creation, so that subtrees are contiguous.
  std::vector<std::vector<int>> kids(nb + 1);
  for (int i = 1; i <= nb; ++i) kids[m.parent[i]].push_back(i);
  std::vector<int> order, stack{0};
  while (!stack.empty()) {
    const int b = stack.back();
    stack.pop_back();
    order.push_back(b);
    for (auto it = kids[b].rbegin(); it != kids[b].rend(); ++it) stack.push_back(*it);
  }
  std::vector<int> new_index(nb + 1);
  for (int k = 0; k <= nb; ++k) new_index[order[k]] = k;
  Model out = m;
  for (int k = 0; k <= nb; ++k) {
    const int o = order[k];
    out.parent[k] = o == 0 ? -1 : new_index[m.parent[o]];
    out.body_name[k] = m.body_name[o];
    out.joint_name[k] = m.joint_name[o];
    out.joint_type[k] = m.joint_type[o];
    out.joint_axis[k] = m.joint_axis[o];
    out.H_parent_joint[k] = m.H_parent_joint[o];
    out.mass[k] = m.mass[o];
    out.com[k] = m.com[o];
    out.inertia_com[k] = m.inertia_com[o];
  }
  for (int i = 0; i <= nb; ++i) out.frames.push_back(Frame{out.body_name[i], i, Transform{}});
  finalize_model(out);
  return out;
}

}  // namespace geolin::test

namespace geolin::test {

/// The models every dynamics test runs on: the bundled models (moving and fixed base) and
/// hand-built random trees.
struct ModelCase {
  std::string name;
  std::string file;  // empty: a random tree
  unsigned flags = 0;
  int random_bodies = 0;
  unsigned seed = 0;
  double armature = 0.0;  // > 0: joint k gets armature · (k mod 3) (with_armature), zero on some
  Model load() const {
    Model m = file.empty() ? random_tree_model(random_bodies, seed, flags & kFixedBase)
                           : load_urdf_file(model_path(file), flags);
    if (armature > 0.0) m = with_armature(m, geared_armature(m.num_joints(), armature));
    return m;
  }
  /// The armature of the *_armature cases: a · (k mod 3) on joint k, so that zero and two
  /// different non-zero entries alternate (an index mix-up shows).
  static VecX geared_armature(int nj, double a) {
    VecX arm(nj);
    for (int k = 0; k < nj; ++k) arm[k] = a * (k % 3);
    return arm;
  }
};

inline void PrintTo(const ModelCase &c, std::ostream *os) {
  *os << c.name;
}

inline std::vector<ModelCase> all_model_cases() {
  std::vector<ModelCase> cases;
  for (const char *f : {"single_link_arm.urdf", "cart_pendulum.urdf", "satellite_panel.urdf",
                        "free_body.urdf", "arm7.urdf", "quadruped.urdf", "humanoid.urdf"}) {
    std::string name(f);
    name = name.substr(0, name.find('.'));
    cases.push_back({name + "_moving", f, 0u});
    // A welded free body has no degree of freedom: nothing to integrate or linearize.
    if (name != "free_body") cases.push_back({name + "_fixed", f, kFixedBase});
  }
  cases.push_back({"random_tree_12_moving", "", 0u, 12, 7u});
  cases.push_back({"random_tree_12_fixed", "", kFixedBase, 12, 8u});
  cases.push_back({"random_tree_40_moving", "", 0u, 40, 9u});
  // Geared joints (reflected rotor inertias, Model::armature): a quadruped with Go2's 0.01 kg m²
  // order, a fixed-base arm and a random tree.
  cases.push_back({"quadruped_moving_armature", "quadruped.urdf", 0u, 0, 0u, 0.01});
  cases.push_back({"arm7_fixed_armature", "arm7.urdf", kFixedBase, 0, 0u, 0.05});
  cases.push_back({"random_tree_12_moving_armature", "", 0u, 12, 7u, 0.02});
  return cases;
}

/// The moving-base cases of all_model_cases: for properties of the base pose and momentum.
inline std::vector<ModelCase> moving_base_model_cases() {
  std::vector<ModelCase> cases;
  for (const ModelCase &c : all_model_cases())
    if ((c.flags & kFixedBase) == 0) cases.push_back(c);
  return cases;
}

inline std::string case_name(const testing::TestParamInfo<ModelCase> &info) {
  return info.param.name;
}

}  // namespace geolin::test
