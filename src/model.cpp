// The tree model: derived data and validation (docs/dynamics.md §2; Bos et al. 2022, §2.1).
#include "geolin/model.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "geolin/algorithms.hpp"
#include "geolin/status.hpp"
#include "geolin/workspace.hpp"
#include "passes.hpp"

namespace geolin {

const char *joint_type_name(JointType type) {
  switch (type) {
    case JointType::Revolute:
      return "revolute";
    case JointType::Continuous:
      return "continuous";
    case JointType::Prismatic:
      return "prismatic";
  }
  return "unknown";
}

double Model::total_mass() const {
  double m = 0.0;
  for (double mi : mass) m += mi;
  return m;
}

int Model::joint_index(const std::string &name) const {
  for (size_t i = 1; i < joint_name.size(); ++i)
    if (joint_name[i] == name) return static_cast<int>(i) - 1;
  return -1;
}

int Model::body_index(const std::string &name) const {
  for (size_t i = 0; i < body_name.size(); ++i)
    if (body_name[i] == name) return static_cast<int>(i);
  return -1;
}

int Model::frame_index(const std::string &name) const {
  for (size_t i = 0; i < frames.size(); ++i)
    if (frames[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {

template <class V>
void check_size(const V &v, size_t expected, const char *what) {
  if (v.size() != expected)
    throw Error(Status::Model, fmt::format("model: '{}' has {} entries, expected n_B + 1 = {}",
                                           what, v.size(), expected));
}

// Relative threshold of the structural singularity test (docs/dynamics.md §2).
constexpr double kSingularTolerance = 1e-9;

// The smallest mass of the heaviest body (kg): below it, inverse masses approach overflow.
constexpr double kMinModelMass = 1e-30;

// Configurations of the generic-singularity test: M singular at all of them means singular for
// every s (the singular set of a mass matrix that is regular somewhere has measure zero).
constexpr int kGenericSamples = 3;

// The joints that move with joint k's null motion: the null vector of the mass matrix of k's
// subtree (λ(k) held, the block of M on the subtree's joints) at the configuration s, its
// entries above a tenth of the largest. Empty for models too large for a dense eigensolver.
std::vector<int> null_motion_joints(const Model &model, Workspace &ws, const VecX &s, int k) {
  const int count = model.subtree_end[k] - k;
  std::vector<int> joints;
  if (k < 1 || count > 300 || model.num_dofs() > 1000) return joints;
  MatX M(model.num_dofs(), model.num_dofs());
  crba(model, ws, s, M);
  const MatX block = M.block(model.dof(k), model.dof(k), count, count);
  const Eigen::SelfAdjointEigenSolver<MatX> eig(block);
  const VecX x = eig.eigenvectors().col(0).cwiseAbs();
  for (int i = 0; i < count; ++i)
    if (x[i] >= 0.1 * x.maxCoeff()) joints.push_back(k + i);
  return joints;
}

// The generic-singularity test: the articulated-body pivots (the runtime test of
// docs/c-api.md, "Numeric contract") at kGenericSamples pseudo-random configurations. Throws
// Status::Model naming the joint (and the joints that move with it) or the base when every
// sample fails.
void check_generic_regularity(const Model &model) {
  Workspace ws(model, kWorkspaceDynamics, 0);
  VecX s(model.n_B);
  int body = -1;
  for (int sample = 0; sample < kGenericSamples; ++sample) {
    for (int k = 0; k < model.n_B; ++k) {
      // Weyl sequence in [-1, 1): well spread, reproducible, never a multiple of pi/2.
      const double u =
          2.0 * std::fmod(0.5 + (k + 1) * 0.6180339887498949 * (sample + 1.3), 1.0) - 1.0;
      s[k] = model.joint_type[k + 1] == JointType::Prismatic ? 0.2 * u : 2.9 * u;
    }
    forward_kinematics(model, ws, s);
    const Outcome outcome = detail::articulated_inertias(model, ws);
    if (outcome) return;
    body = outcome.index;
  }
  if (body == 0)
    throw Error(Status::Model,
                fmt::format("base link '{}': the mass matrix is singular at every configuration: "
                            "the base's articulated inertia vanishes (a base without mass or "
                            "inertia along a direction in which its joints let the whole robot "
                            "move freely, e.g. a massless base with a single revolute child)",
                            model.body_name[0]));
  std::vector<std::string> names;
  for (int j : null_motion_joints(model, ws, s, body))
    names.push_back("'" + model.joint_name[j] + "'");
  std::string with;
  for (size_t i = 0; i < names.size() && i < 6; ++i) with += (i ? ", " : "") + names[i];
  throw Error(Status::Model,
              fmt::format("joint '{}': the mass matrix is singular at every configuration: the "
                          "joint moves its subtree as other joints do ({}), e.g. coincident "
                          "joint axes joined by massless links; give those links mass or merge "
                          "the joints",
                          model.joint_name[body],
                          names.size() > 1 ? "the null motion moves joints " + with
                                           : "through massless links"));
}

// The sizes of the per-body arrays. Reads n_B and every per-body array; writes the defaults of
// the optional damping (zeros) and mimic_of (empty names) when they are empty. Throws
// Status::Model naming the first array of the wrong size.
void check_array_sizes(Model &model) {
  if (model.n_B < 0) throw Error(Status::Model, "model: n_B is negative");
  const size_t nb = static_cast<size_t>(model.n_B) + 1;
  if (model.damping.empty()) model.damping.assign(nb, 0.0);
  if (model.mimic_of.empty()) model.mimic_of.assign(nb, std::string());
  if (model.mimic_multiplier.empty()) model.mimic_multiplier.assign(nb, 1.0);
  if (model.mimic_offset.empty()) model.mimic_offset.assign(nb, 0.0);
  if (model.armature.size() == 0) model.armature.setZero(model.n_B);
  check_size(model.parent, nb, "parent");
  check_size(model.body_name, nb, "body_name");
  check_size(model.joint_name, nb, "joint_name");
  check_size(model.joint_type, nb, "joint_type");
  check_size(model.joint_axis, nb, "joint_axis");
  check_size(model.H_parent_joint, nb, "H_parent_joint");
  check_size(model.damping, nb, "damping");
  check_size(model.mimic_of, nb, "mimic_of");
  check_size(model.mimic_multiplier, nb, "mimic_multiplier");
  check_size(model.mimic_offset, nb, "mimic_offset");
  if (model.armature.size() != model.n_B)
    throw Error(Status::Model, fmt::format("model: 'armature' has {} entries, expected n_J = {}",
                                           model.armature.size(), model.n_B));
  check_size(model.mass, nb, "mass");
  check_size(model.com, nb, "com");
  check_size(model.inertia_com, nb, "inertia_com");
}

// The tree (docs/dynamics.md §2): λ(i) < i, μ(i), depth and the subtree ranges of the
// depth-first numbering. Reads parent and body_name; writes children, depth and subtree_end.
// Throws Status::Model naming the body whose parent or numbering is wrong.
void build_tree(Model &model) {
  const int n = model.n_B;
  const size_t nb = static_cast<size_t>(n) + 1;
  if (model.parent[0] != -1)
    throw Error(Status::Model, fmt::format("body '{}' (0) is the base: its parent must be -1",
                                           model.body_name[0]));
  model.children.assign(nb, {});
  model.depth.assign(nb, 0);
  model.subtree_end.resize(nb);
  for (int i = 1; i <= n; ++i) {
    const int p = model.parent[i];
    if (p < 0 || p >= i)
      throw Error(Status::Model, fmt::format("body '{}' ({}): parent {} violates λ(i) < i",
                                             model.body_name[i], i, p));
    model.children[p].push_back(i);
    model.depth[i] = model.depth[p] + 1;
  }
  for (size_t i = 0; i < nb; ++i) model.subtree_end[i] = static_cast<int>(i) + 1;
  for (int i = n; i >= 1; --i) {
    const int p = model.parent[i];
    model.subtree_end[p] = std::max(model.subtree_end[p], model.subtree_end[i]);
  }
  for (int i = 0; i <= n; ++i) {
    int next = i + 1;  // the children's subtrees must tile [i + 1, subtree_end[i])
    for (int c : model.children[i]) {
      if (c != next)
        throw Error(Status::Model,
                    fmt::format("body '{}' ({}): bodies are not numbered depth-first",
                                model.body_name[c], c));
      next = model.subtree_end[c];
    }
    if (next != model.subtree_end[i])
      throw Error(Status::Model, fmt::format("body '{}' ({}): bodies are not numbered depth-first",
                                             model.body_name[i], i));
  }
}

// The joints: unit axes and motion subspaces S_i, linear part first (docs/dynamics.md §2).
// Reads joint_name, joint_type, H_parent_joint and damping; writes joint_axis (normalized),
// joint_axis_index, joint_origin_turns and S. Throws Status::Model naming the joint with a
// non-finite or zero axis, a non-finite origin, a negative or non-finite damping or an unknown
// type.
void build_motion_subspaces(Model &model) {
  model.S.assign(static_cast<size_t>(model.n_B) + 1, Vec6::Zero());
  model.joint_axis_index.assign(static_cast<size_t>(model.n_B) + 1, -1);
  model.joint_origin_turns.assign(static_cast<size_t>(model.n_B) + 1, true);
  for (int i = 1; i <= model.n_B; ++i) {
    const std::string &name = model.joint_name[i];
    Vec3 &a = model.joint_axis[i];
    if (!a.allFinite())
      throw Error(Status::Model, fmt::format("joint '{}': axis is not finite", name));
    const double norm = a.norm();
    if (!(norm > 1e-12)) throw Error(Status::Model, fmt::format("joint '{}': axis is zero", name));
    a /= norm;
    for (int k = 0; k < 3; ++k)  // ±e_k exactly: the joint transform has a sparse rotation
      if (std::abs(a[k]) == 1.0 && a[(k + 1) % 3] == 0.0 && a[(k + 2) % 3] == 0.0)
        model.joint_axis_index[i] = k;
    const Transform &H = model.H_parent_joint[i];
    if (!H.R.allFinite() || !H.o.allFinite())
      throw Error(Status::Model, fmt::format("joint '{}': origin is not finite", name));
    model.joint_origin_turns[i] = H.R != Mat3::Identity();
    if (!std::isfinite(model.damping[i]) || model.damping[i] < 0.0)
      throw Error(Status::Model, fmt::format("joint '{}': damping must be finite and >= 0", name));
    switch (model.joint_type[i]) {
      case JointType::Revolute:
      case JointType::Continuous:
        model.S[i].tail<3>() = a;
        break;
      case JointType::Prismatic:
        model.S[i].head<3>() = a;
        break;
      default:
        throw Error(Status::Model, fmt::format("joint '{}': unknown joint type", name));
    }
  }
}

// armature[k] of joint k (0-based): finite and >= 0. Throws `status` (NonFinite for a NaN or an
// infinity, else the given one) naming armature[k] and the joint.
void check_armature(const Model &model, const Eigen::Ref<const Eigen::VectorXd> &armature,
                    Status status) {
  for (int k = 0; k < model.n_B; ++k) {
    const double a = armature[k];
    if (std::isfinite(a) && a >= 0.0) continue;
    throw Error(std::isfinite(a) ? status : Status::NonFinite,
                fmt::format("armature[{}] = {} (joint '{}') must be finite and >= 0 (kg m^2 for a "
                            "revolute or continuous joint, kg for a prismatic one)",
                            k, a, model.joint_name[static_cast<size_t>(k) + 1]));
  }
}

// The model-wide scales of the structural singularity test (see finalize_model).
struct InertiaScale {
  double rot = 0.0;  // J = max_i ½ tr(I_O,i)
  double lin = 0.0;  // max_i m_i
};

// The spatial inertias M_i (docs/dynamics.md §1) and the model's inertia scales. Reads mass,
// com and inertia_com; writes inertia. Throws Status::Model naming a body with a negative or
// non-finite mass, centre of mass or inertia, or when the heaviest body is below
// kMinModelMass (1/m would overflow: denormal masses load as positive numbers).
InertiaScale build_spatial_inertias(Model &model) {
  const size_t nb = static_cast<size_t>(model.n_B) + 1;
  model.inertia.resize(nb);
  InertiaScale scale;
  for (size_t i = 0; i < nb; ++i) {
    const double m = model.mass[i];
    if (!std::isfinite(m) || m < 0.0 || !model.com[i].allFinite() ||
        !model.inertia_com[i].allFinite())
      throw Error(Status::Model,
                  fmt::format("body '{}': mass, centre of mass or inertia is negative or not "
                              "finite",
                              model.body_name[i]));
    model.inertia[i] = spatial_inertia(m, model.com[i], model.inertia_com[i]);
    const Mat3 I_O = model.inertia[i].bottomRightCorner<3, 3>();
    scale.rot = std::max(scale.rot, 0.5 * I_O.trace());
    scale.lin = std::max(scale.lin, m);
  }
  if (scale.lin > 0.0 && scale.lin < kMinModelMass)
    throw Error(Status::Model,
                fmt::format("the heaviest body weighs {:g} kg: geolin needs at least one body of "
                            "{:g} kg or more (smaller masses overflow the dynamics)",
                            scale.lin, kMinModelMass));
  return scale;
}

// Composite inertias of every subtree at s = 0, in the frame of the subtree's root, as
// (mass m, first moment h = m c, rotational inertia I_O about the frame origin).
struct Composites {
  std::vector<double> m;
  std::vector<Vec3> h;
  std::vector<Mat3> I;
};

// IC_i at s = 0 for every body (RBDA §6.2), accumulated from the leaves. For ^C H_D = (R, o):
// h' = R h + m o and
// I_O' = R I_O R^T + 2 (o . Rh) 1 - (Rh o^T + o (Rh)^T) + m (|o|^2 1 - o o^T)
// (parallel-axis theorem, RBDA §2.13) -- the same as transform_inertia, with 3x3 products.
// Reads parent, H_parent_joint, mass, com and inertia; writes nothing in the model.
Composites composite_inertias_at_zero(const Model &model) {
  const size_t nb = static_cast<size_t>(model.n_B) + 1;
  Composites c{std::vector<double>(nb), std::vector<Vec3>(nb), std::vector<Mat3>(nb)};
  for (size_t i = 0; i < nb; ++i) {
    c.m[i] = model.mass[i];
    c.h[i] = model.mass[i] * model.com[i];
    c.I[i] = model.inertia[i].bottomRightCorner<3, 3>();
  }
  for (int i = model.n_B; i >= 1; --i) {
    const int p = model.parent[i];
    const Transform &H = model.H_parent_joint[i];
    const Vec3 h = H.R * c.h[i];
    const Vec3 &o = H.o;
    Mat3 I = H.R * c.I[i] * H.R.transpose();
    I.diagonal().array() += 2.0 * o.dot(h) + c.m[i] * o.squaredNorm();
    I -= h * o.transpose() + o * h.transpose() + c.m[i] * o * o.transpose();
    c.m[p] += c.m[i];
    c.h[p] += h + c.m[i] * o;
    c.I[p] += I;
  }
  return c;
}

// The structural singularity test of each joint k (docs/dynamics.md §2):
// d_k = S_k^T IC_k S_k (= M_kk at s = 0) must exceed kSingularTolerance times the model's
// scale. Reads joint_type, joint_axis and joint_name. Throws Status::Model naming the joint.
void check_joint_inertias(const Model &model, const Composites &c, const InertiaScale &scale) {
  for (int k = 1; k <= model.n_B; ++k) {
    const bool prismatic = model.joint_type[k] == JointType::Prismatic;
    const Vec3 &a = model.joint_axis[k];
    // d_k = S^T IC_k S: the mass for [a; 0], a^T I_O a for [0; a].
    const double d = prismatic ? c.m[k] : a.dot(c.I[k] * a);
    if (!(d > kSingularTolerance * (prismatic ? scale.lin : scale.rot)))
      throw Error(Status::Model,
                  prismatic
                      ? fmt::format("joint '{}': its subtree has no mass (massless subtree): the "
                                    "mass matrix would be singular",
                                    model.joint_name[k])
                      : fmt::format("joint '{}': its subtree has no inertia about the joint axis "
                                    "(massless subtree): the mass matrix would be singular",
                                    model.joint_name[k]));
  }
}

// A moving base needs the whole-tree composite inertia IC_0 positive definite: mass > 0 and a
// rotational inertia about the centre of mass with eigenvalues > kSingularTolerance J. Reads
// fixed_base and body_name[0]. Throws Status::Model naming the base link.
void check_base_inertia(const Model &model, const Composites &c, const InertiaScale &scale) {
  if (model.fixed_base) return;
  if (!(c.m[0] > 0.0))
    throw Error(Status::Model,
                fmt::format("base link '{}': the robot has no mass at all (base and every "
                            "link): a moving base needs mass (load it as a fixed base if it is "
                            "welded to the world)",
                            model.body_name[0]));
  const Vec3 com = c.h[0] / c.m[0];
  Mat3 I_c = c.I[0] - c.m[0] * (com.squaredNorm() * Mat3::Identity() - com * com.transpose());
  I_c = 0.5 * (I_c + I_c.transpose()).eval();
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(I_c, Eigen::EigenvaluesOnly);
  if (!(eig.eigenvalues()(0) > kSingularTolerance * scale.rot))
    throw Error(Status::Model,
                fmt::format("base link '{}': the whole model has no rotational inertia about "
                            "some axis through its centre of mass: the base block of the mass "
                            "matrix would be singular",
                            model.body_name[0]));
}

}  // namespace

// docs/dynamics.md §2. Fills children, subtree_end, depth, S and inertia; checks λ(i) < i, the
// depth-first numbering, finite joint and inertia data, a positive base mass (moving base) and
// the structural singularity test: for each joint k, d_k = S_kᵀ IC_k S_k (= M_kk at s = 0),
// where IC_k is the composite inertia of the subtree of k in frame k at s = 0 (RBDA §6.2).
//
// Scale of the test (model-wide, independent of the size of the tree so that long chains are
// not refused):
//   revolute/continuous: d_k <= 1e-9 * J, J = max over bodies of ½ tr(I_O,i), the polar
//     moment ∫|r|² dm of body i about its own frame origin (I_O = I_c - m ĉ ĉ); it is the
//     order of magnitude of the largest single-body inertia about a joint axis;
//   prismatic: d_k <= 1e-9 * max_i m_i.
// A moving base also needs the whole-tree composite inertia IC_0 to be positive definite
// (mass > 0 and a rotational inertia about the centre of mass with eigenvalues > 1e-9 J).
// Finally the generic-singularity test (check_generic_regularity). The steps run in this order
// and each relies on the checks of the ones before it.
void finalize_model(Model &model) {
  check_array_sizes(model);
  build_tree(model);
  build_motion_subspaces(model);
  const InertiaScale scale = build_spatial_inertias(model);
  const Composites composites = composite_inertias_at_zero(model);
  check_joint_inertias(model, composites, scale);
  check_base_inertia(model, composites, scale);
  check_armature(model, model.armature, Status::Model);
  check_generic_regularity(model);
}

// A copy with other armatures: the tree, the inertias and the singularity tests do not depend on
// them (an armature only adds a non-negative diagonal to M, which keeps a regular M regular).
Model with_armature(const Model &model, const Eigen::Ref<const Eigen::VectorXd> &armature) {
  if (armature.size() != model.n_B)
    throw Error(Status::InvalidArgument, fmt::format("armature has {} entries, expected n_J = {}",
                                                     armature.size(), model.n_B));
  check_armature(model, armature, Status::InvalidArgument);
  Model copy = model;
  copy.armature = armature;
  return copy;
}

}  // namespace geolin
