// The immutable tree model of docs/dynamics.md §2 (Bos et al. 2022, §2.1; EG notation).
//
// Bodies are numbered 0..n_B; body 0 is the base (the URDF root after merging fixed joints).
// Numbering is depth-first from the root with children visited in URDF order, so λ(i) < i and
// the subtree of body i is the contiguous range [i, subtree_end[i]).
// Joint i connects λ(i) to i; joint data are indexed by the successor body i = 1..n_B
// (entry 0 is unused). Joint k of the C API (0-based) is the joint of body k + 1.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "geolin/spatial.hpp"

namespace geolin {

enum class JointType : int { Revolute = 0, Continuous = 1, Prismatic = 2 };

const char *joint_type_name(JointType type);

/// A named frame: every URDF link, including those merged into a body by fixed joints.
struct Frame {
  std::string name;
  int body = 0;  // the body the frame is rigidly attached to
  Transform H;   // ^{body} H_F, constant
};

/// Load-time flags (the same bits as GEOLIN_FIXED_BASE, GEOLIN_JOINT_DAMPING).
/// kStrictInertia (C++ only for now): refuse every link inertia whose principal moments violate
/// the triangle inequality I1 + I2 >= I3. By default a violation is refused only when it is
/// significant at the model's scale (urdf.cpp, kTriangleSlack): many CAD-exported URDFs break it
/// on small links (e.g. the public anymal, hyq, icub and talos_reduced URDFs) while their mass
/// matrix is still positive definite. Positive semidefiniteness is always enforced,
/// to a tolerance relative to the link's own inertia: 1e-4 times the sum of its principal moments
/// plus its mass times (1 µm)² (urdf.cpp), so a tiny negative moment of an insect-scale link is
/// refused as well as that of an ordinary one.
enum LoadFlags : unsigned { kFixedBase = 1u, kJointDamping = 2u, kStrictInertia = 4u };

struct Model {
  std::string name;            // URDF robot name
  int n_B = 0;                 // number of moving bodies = number of joints n_J
  bool fixed_base = false;     // body 0 welded to the inertial frame A
  bool joint_damping = false;  // damping[] acts as tau - D r (GEOLIN_JOINT_DAMPING)
  Transform H_A_0;             // fixed base: ^A H_0 (identity by default)

  // --- tree (size n_B + 1) ---
  std::vector<int> parent;                 // λ(i); parent[0] = -1
  std::vector<std::vector<int>> children;  // μ(i), in URDF order
  std::vector<int> subtree_end;            // subtree of i = [i, subtree_end[i])
  std::vector<int> depth;                  // depth[0] = 0
  std::vector<std::string> body_name;      // URDF link name of each body

  // --- joints, indexed by successor body i (entry 0 unused) ---
  std::vector<std::string> joint_name;
  std::vector<JointType> joint_type;
  std::vector<Vec3> joint_axis;           // unit axis a_i in frame i
  std::vector<int> joint_axis_index;      // k when a_i = ±e_k (a coordinate axis), else −1
  std::vector<Vec6> S;                    // motion subspace S_i (frame i): [0; a] or [a; 0]
  std::vector<Transform> H_parent_joint;  // ^{λ(i)} H_{λ(i)|i}, the URDF joint origin
  std::vector<bool> joint_origin_turns;   // H_parent_joint[i] has a rotation (else it translates)
  std::vector<double> damping;            // URDF <dynamics damping>, 0 if absent
  std::vector<std::string> mimic_of;      // non-empty: URDF <mimic joint=...>; the joint is
                                          // still modelled as an independent joint (a
                                          // ConstraintSet's coupling holds it: constraints.hpp)
  std::vector<double> mimic_multiplier;   // its <mimic multiplier> (1 if absent)
  std::vector<double> mimic_offset;       // its <mimic offset> (0 if absent)
  // Reflected rotor inertia ("armature", I_rotor N²) of joint k = 0..n_J−1 (joint order, not body
  // order): kg m² for a revolute or continuous joint, kg for a prismatic one; finite, >= 0;
  // zeros from URDF (with_armature gives a copy with others). Every algorithm uses
  // M(s) + diag(0_6, armature) (fixed base: M(s) + diag(armature)) in place of M(s)
  // (docs/dynamics.md §3, (D3a)); the centre of mass, the centroidal momentum and the frames do
  // not depend on it (docs/conventions.md, "Armature").
  Eigen::VectorXd armature;

  // --- inertia of each body after merging fixed joints, in frame i ---
  std::vector<double> mass;
  std::vector<Vec3> com;          // centre of mass c_i
  std::vector<Mat3> inertia_com;  // I_c about the centre of mass, frame-i axes
  std::vector<Mat6> inertia;      // spatial inertia M_i

  std::vector<Frame> frames;  // every URDF link, in URDF order of appearance

  int num_joints() const { return n_B; }
  int num_bodies() const { return n_B + 1; }
  int num_dofs() const { return fixed_base ? n_B : 6 + n_B; }
  int state_dim() const { return 2 * num_dofs(); }
  /// Index of the generalized velocity of joint body i (1..n_B) in ν.
  int dof(int body) const { return fixed_base ? body - 1 : body + 5; }
  /// Offset of the joint block in ν: 0 (fixed base) or 6.
  int joint_offset() const { return fixed_base ? 0 : 6; }

  double total_mass() const;
  int joint_index(const std::string &name) const;  // 0-based joint k, -1 if absent
  int body_index(const std::string &name) const;   // -1 if absent
  int frame_index(const std::string &name) const;  // -1 if absent
};

/// Derived data and validation: fills children, subtree_end, depth, S and inertia from the
/// rest, and checks the model (docs/dynamics.md §2). Throws Error(Status::Model) naming the joint
/// or body at fault. Called by the URDF loader and by code that builds a Model by hand.
void finalize_model(Model &model);

/// A copy of model whose joints carry the reflected rotor inertias armature (n_J entries, joint
/// order), replacing any it had; model is unchanged. Throws Error naming armature[k] and joint k:
/// Status::InvalidArgument for a wrong size or a negative entry, Status::NonFinite for a NaN or
/// infinite one.
Model with_armature(const Model &model, const Eigen::Ref<const Eigen::VectorXd> &armature);

/// The largest URDF file load_urdf_file reads: 64 MiB (a 100000-body chain is 38 MB).
constexpr std::size_t kMaxUrdfFileBytes = std::size_t{64} << 20;

/// Load a URDF (urdf.cpp). flags: LoadFlags bits. Throws Error with a message naming the
/// offending element (and its line), never prints anything:
///   Status::Io        (file only) missing, unreadable, not a regular file (a FIFO or device
///                     is refused without blocking), or larger than kMaxUrdfFileBytes;
///   Status::Parse     not well-formed XML or an XML construct geolin does not read (DTD
///                     entities or attribute defaults), names or values not valid UTF-8, elements
///                     nested more than 256 levels deep, a root that is not <robot>, a second
///                     <robot>, unexpanded xacro (xacro: elements or attributes, "${" or "$(" in
///                     values), a number that is not decimal ("0x10"), a missing required
///                     element or attribute;
///   Status::Model     not a valid tree or dynamics model: duplicate names, unknown links,
///                     several or no roots, cycles, non-finite numbers, masses, inertias,
///                     lengths and damping above 1e100 in magnitude (they overflow in the
///                     dynamics), limit lower > upper, negative effort or velocity, a <mimic>
///                     of itself, of an unknown or fixed joint or in a cycle, negative mass,
///                     inertia not positive semidefinite, a singular mass matrix (model.cpp);
///   Status::Unsupported planar and floating joints;
///   Status::Memory    an allocation failed (the message gives the document's size).
/// A valid <mimic> is reported in Model::mimic_of; the joint is modelled as an independent
/// joint (its own position, velocity and torque), not as a constraint.
Model load_urdf_file(const std::string &path, unsigned flags = 0);
Model load_urdf_string(const std::string &xml, unsigned flags = 0);

}  // namespace geolin
