// One set of constraints held during an evaluation (docs/constraints.md): the feet's contacts of
// contact_dynamics plus closed kinematic loops, joint couplings (URDF <mimic>) and rolling
// wheels, with the same dynamics, linearizations, steps and impact maps as the contacts.
//
// A set is an ordered list; its rows, and the entries of λ, come constraint after constraint in
// that order. A set of contacts only is evaluated by the contact functions themselves
// (contact_dynamics, ...), so that it equals them exactly; any other set by the same solve along
// the paths of its rows (docs/constraints.md §3; src/constraints/).
#pragma once

#include <vector>

#include "geolin/algorithms.hpp"

namespace geolin {

/// Loop types (the values of GEOLIN_LOOP_*): the number of rows of a loop closure.
enum LoopType : int {
  kLoopPoint = 3,  // the origins of frames a and b coincide
  kLoopHinge = 5,  // ... and their z axes stay parallel
  kLoopRigid = 6,  // the two frames coincide
};

/// One constraint of a set (docs/constraints.md §2).
struct Constraint {
  enum class Kind : int { contact, loop, coupling, wheel };
  Kind kind = Kind::contact;
  int type = kContactPoint;          // contact: ContactType; loop: LoopType
  int frame = -1;                    // contact, wheel: the frame; loop: frame a
  int frame_b = -1;                  // loop: frame b
  int joint = -1, source = -1;       // coupling: s[joint] = ratio s[source] + offset (joints)
  double ratio = 1.0, offset = 0.0;  // coupling
  Vec3 axis = Vec3::UnitZ();         // wheel: the unit spin axis, in the frame's axes
  double radius = 0.0;               // wheel: > 0, m
  bool has_ref = false;              // contact: whether ref was given
  Transform ref;                     // contact: the held pose H_ref (a point: its translation)

  /// A contact (ContactType) at frame; with ref, held at the pose H_ref (a point: its translation).
  static Constraint contact(int frame, int type) {
    Constraint c;
    c.type = type;
    c.frame = frame;
    return c;
  }
  static Constraint contact(int frame, int type, const Transform &ref) {
    Constraint c = contact(frame, type);
    c.has_ref = true;
    c.ref = ref;
    return c;
  }
  /// A loop closure (LoopType) between frames a and b.
  static Constraint loop(int frame_a, int frame_b, int type) {
    Constraint c;
    c.kind = Kind::loop;
    c.type = type;
    c.frame = frame_a;
    c.frame_b = frame_b;
    return c;
  }
  /// The coupling s[joint] = ratio s[source] + offset.
  static Constraint coupling(int joint, int source, double ratio, double offset) {
    Constraint c;
    c.kind = Kind::coupling;
    c.joint = joint;
    c.source = source;
    c.ratio = ratio;
    c.offset = offset;
    return c;
  }
  /// A wheel at frame (its centre) with the unit spin axis (frame's axes) and radius.
  static Constraint wheel(int frame, const Vec3 &axis, double radius) {
    Constraint c;
    c.kind = Kind::wheel;
    c.frame = frame;
    c.axis = axis;
    c.radius = radius;
    return c;
  }

  /// Its number of rows.
  int rows() const {
    switch (kind) {
      case Kind::coupling:
        return 1;
      case Kind::wheel:
        return 3;
      default:
        return type;
    }
  }
};

/// An ordered set of constraints of one model, with the Baumgarte gains of every holonomic row
/// (contacts, loops, couplings, a wheel's normal row) and the axes of contact and loop forces.
struct ConstraintSet {
  std::vector<Constraint> items;
  double Kp = 0.0, Kd = 0.0;
  unsigned flags = kWrenchLocal;

  int rows() const {
    int m = 0;
    for (const Constraint &c : items) m += c.rows();
    return m;
  }
  /// The wrench slots the set takes in a workspace (max_wrenches): one per constraint, two per
  /// loop.
  int slots() const {
    int k = 0;
    for (const Constraint &c : items) k += c.kind == Constraint::Kind::loop ? 2 : 1;
    return k;
  }
  bool contacts_only() const {
    for (const Constraint &c : items)
      if (c.kind != Constraint::Kind::contact) return false;
    return true;
  }

  /// Call after any change of items, Kp, Kd or flags (the C API's setters do): rebuilds the
  /// arrays through which a contacts-only set is handed to the contact functions, so that an
  /// evaluation neither allocates nor writes the set (many threads may share it).
  void update();
  /// The set as contact_dynamics takes it; valid when contacts_only() (a contact without ref
  /// has the identity there, read only when Kp != 0, which the C API refuses).
  Contacts contacts(double mu) const;

 private:
  std::vector<int> contact_frames_, contact_types_;
  std::vector<double> contact_refs_;  // 16 per contact, column-major
};

/// Constrained forward dynamics (docs/constraints.md (K1)-(K4)): ν̇ (n) and λ (m) of
///   M ν̇ + C ν + G = S τ + J_cᵀ λ,   c(x, ν, ν̇) = J_c ν̇ + k(x, ν) = −mu λ,
/// c the set's rows. A contacts-only set is contact_dynamics, exactly. Returns
/// Outcome::Kind::dependent_constraint_row when the rows depend on each other at this state
/// (mu = 0), or the failed pivot of M. Needs kWorkspaceContacts.
Outcome constrained_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                             const Vec6 &v, CRefVec r, CRefVec tau, const ConstraintSet &set,
                             double mu, RefVec nu_dot, RefVec lambda);

/// Its exact left-trivialized linearization, as contact_linearize: A (N x N), B (N x n_J),
/// ∂λ/∂z (m x N), ∂λ/∂w (m x n_J) (either may be empty). Nothing is written unless finite
/// (Outcome::overflowed). Needs kWorkspaceContacts and kWorkspaceLinearize.
Outcome constrained_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                              const Vec6 &v, CRefVec r, CRefVec tau, const ConstraintSet &set,
                              double mu, RefMat A, RefMat B, RefMat dlambda_dz, RefMat dlambda_dw);

/// The same numbers written out (docs/constraints.md §4): J_c (left in ws.cs_J, m x n), ∂c/∂z from
/// frame_velocity and frame_acceleration, linearize with λ as wrenches, dense products with
/// M⁻¹ J_cᵀ; several times slower. The readable reference that constrained_linearize's path solve
/// is tested against; a contacts-only set is not handed to the contact functions here.
Outcome constrained_linearize_reference(const Model &model, Workspace &ws, const Transform &H,
                                        CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                        const ConstraintSet &set, double mu, RefMat A, RefMat B,
                                        RefMat dlambda_dz, RefMat dlambda_dw);

/// One step of the constrained dynamics, as contact_step (methods, feedback and λ alike).
Outcome constrained_step(const Model &model, Workspace &ws, StepMethod method, double h,
                         const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                         const ConstraintSet &set, double mu, Transform &H_next, RefVec s_next,
                         Vec6 &v_next, RefVec r_next, RefVec lambda,
                         const JointFeedback &feedback = JointFeedback{});

/// Its exact linearization, as contact_step_linearize. Needs kWorkspaceContacts and
/// kWorkspaceStepLinearize.
Outcome constrained_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                                   const Transform &H, CRefVec s, const Vec6 &v, CRefVec r,
                                   CRefVec tau, const ConstraintSet &set, double mu, RefMat A_d,
                                   RefMat B_d, RefMat dlambda_dz, RefMat dlambda_dw,
                                   const JointFeedback &feedback = JointFeedback{});

/// The impact map (docs/constraints.md §5): M (ν⁺ − ν⁻) = J_cᵀ Λ, J_c ν⁺ = −E J_c ν⁻ (+ −mu Λ),
/// E = e on contact rows and a wheel's normal row, 0 on loops, couplings and a wheel's rolling
/// rows (those stop: plastic). nu_next (n), impulse (m). Gains and refs are not used.
Outcome constrained_impulse(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                            const Vec6 &v, CRefVec r, const ConstraintSet &set, double mu,
                            double restitution, RefVec nu_next, RefVec impulse);

/// Its exact Jacobian, as impulse_linearize: A_imp (N x N), ∂Λ/∂z (m x N; may be empty).
Outcome constrained_impulse_linearize(const Model &model, Workspace &ws, const Transform &H,
                                      CRefVec s, const Vec6 &v, CRefVec r, const ConstraintSet &set,
                                      double mu, double restitution, RefMat A_imp,
                                      RefMat dimpulse_dz);

}  // namespace geolin
