// The forces of a `geolin` evaluation (contacts.cpp): given external wrenches (--wrenches),
// contact constraints (--contacts), the evaluation they belong to, and the numeric failures.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "args.hpp"
#include "geolin/algorithms.hpp"
#include "geolin/constraints.hpp"
#include "geolin/model.hpp"
#include "geolin/outcome.hpp"
#include "geolin/spatial.hpp"
#include "geolin/workspace.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "state_io.hpp"

namespace geolin::cli {

// --- external wrenches (--wrenches) -----------------------------------------------------------

/// --wrenches FRAME,FRAME,... (dynamics, linearize): given external wrenches at frames.
inline const std::set<std::string> kWrenchOptions = {"--wrenches"};
/// --mixed: world-aligned axes at the frame origin, for --wrenches and for --contacts alike.
inline const std::set<std::string> kMixedFlags = {"--mixed"};

/// The given external wrenches of one evaluation: one per frame, in the order given.
struct Wrenches {
  std::vector<std::string> names;
  std::vector<int> frames;     // frame indices (Model::frames)
  std::vector<double> values;  // 6 per wrench: [fx, fy, fz, tx, ty, tz]
  bool mixed = false;          // kWrenchMixed (world-aligned axes at the frame origin)

  int count() const { return static_cast<int>(frames.size()); }
  /// The library's view of these wrenches (points into this object: keep it alive).
  ExternalWrenches external() const;
  /// "local" or "mixed" and a one-line description for text output.
  std::string axes_name() const { return mixed ? "mixed" : "local"; }
  std::string describe() const;
};

/// The wrenches: the frames of --wrenches (checked, no duplicates), or without --wrenches the
/// frames named in the state's "wrenches"; each takes its wrench from the state, zero if the
/// state names none. A state wrench at a frame not in --wrenches is an error. Rewrites
/// st.wrenches to exactly the applied wrenches, in order. Only without --contacts.
Wrenches wrenches_from_args(const Model &model, const Args &args, State &st);

/// The names of the six components of a wrench (and of a rigid contact's lambda), in order.
inline constexpr const char *kWrenchComponents[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};

/// f[frame][fx]..f[frame][tz] for every wrench.
std::vector<std::string> wrench_labels(const Wrenches &wrenches);

// --- contact constraints (--contacts) ---------------------------------------------------------

/// --contacts FRAME,... [--contact-type point|rigid[,...]] [--gains KP,KD] [--regularization MU]
/// (dynamics, linearize, check, bench, simulate) with --mixed for the axes of lambda.
inline const std::set<std::string> kContactOptions = {"--contacts", "--contact-type", "--gains",
                                                      "--regularization"};

/// --loops A:B[:point|hinge|rigid],... --couplings mimic|J=RATIO*S+OFFSET,...
/// --wheels FRAME:RADIUS[:AXIS],... (dynamics, linearize, check, bench, simulate): the other
/// constraints of a geolin::ConstraintSet (docs/constraints.md), held with the contacts.
inline const std::set<std::string> kConstraintOptions = {"--loops", "--couplings", "--wheels"};

/// A loop closure of --loops: frames a and b meet (point: 3 rows, hinge: 5, rigid: 6).
struct LoopItem {
  std::string name_a, name_b;
  int frame_a = -1, frame_b = -1;
  int type = kLoopPoint;
  static const char *type_name(int type) {
    return type == kLoopHinge ? "hinge" : type == kLoopRigid ? "rigid" : "point";
  }
};

/// A joint coupling of --couplings: s[joint] = ratio s[source] + offset (1 row).
struct CouplingItem {
  std::string joint_name, source_name;
  int joint = -1, source = -1;  // joint indices k (0-based)
  double ratio = 1.0, offset = 0.0;
  bool mimic = false;  // from the URDF's <mimic>
};

/// A rolling wheel of --wheels: the frame's origin is the wheel centre, axis its spin axis in the
/// frame's axes (3 rows: the ground's force on the wheel, world axes).
struct WheelItem {
  std::string name;
  int frame = -1;
  Vec3 axis = Vec3::UnitY();
  double radius = 0.0;
};

/// The contacts of a constrained evaluation (geolin::contact_dynamics): frames held as a point
/// (3 rows of lambda: a force) or rigidly (6 rows: force then torque), lambda in the frame's own
/// axes or world-aligned ones (--mixed), Baumgarte gains, and references (the frames' poses at
/// the state, set by set_contact_refs).
struct ContactSet {
  std::vector<std::string> names;
  std::vector<int> frames;  // frame indices (Model::frames); a frame may repeat
  std::vector<int> types;   // kContactPoint (3) or kContactRigid (6)
  bool mixed = false;
  double Kp = 0.0, Kd = 0.0;
  double mu = 0.0;           // --regularization MU (docs/contacts.md §4); 0: redundant refused
  std::vector<double> refs;  // 16 per contact: ^A H_ref, column-major
  // --loops, --couplings, --wheels: with any of them the set is evaluated by the
  // geolin::constrained_* functions (set, in the order contacts, loops, couplings, wheels),
  // without them by the contact_* functions exactly as before.
  std::vector<LoopItem> loops;
  std::vector<CouplingItem> couplings;
  std::vector<WheelItem> wheels;
  ConstraintSet set;  // the library's set (build_set; the refs are copied by set_contact_refs)

  int count() const { return static_cast<int>(frames.size()); }
  int rows() const;
  /// No constraint at all (neither contacts nor loops, couplings or wheels).
  bool empty() const { return frames.empty() && !general(); }
  /// Whether the set has loops, couplings or wheels (the constrained_* functions).
  bool general() const { return !loops.empty() || !couplings.empty() || !wheels.empty(); }
  /// Rebuilds `set` from the items, gains, axes and refs.
  void build_set();
  /// The library's view (points into this object: keep it alive).
  Contacts library() const;
  std::string axes_name() const { return mixed ? "mixed" : "local"; }
  static const char *type_name(int type) { return type == kContactRigid ? "rigid" : "point"; }
  /// "FL_foot (point), ...", then on a second line the axes, the rows and the gains.
  std::string describe() const;
  Json json() const;
};

/// One constraint of a set as the tables show it: its name, kind, rows, the axes of its lambda and
/// the names of its components (lambda's rows).
struct ConstraintEntry {
  std::string name, kind, axes;
  int rows = 0;
  std::vector<std::string> components;
  bool ground_force = false;  // a contact or a wheel: lambda's first 3 rows are a force on the
                              // robot from the world (summed by dynamics)
  bool world_axes = false;    // ... in world axes (a wheel, or MIXED)
  int frame = -1;             // ... at this frame (LOCAL: the frame's axes)
};

/// The constraints in the order of lambda's rows.
std::vector<ConstraintEntry> constraint_entries(const ContactSet &set);

/// Whether the command line asks for constraints (--contacts, --loops, --couplings, --wheels);
/// --contact-type without --contacts, --gains or --regularization without constraints, or
/// constraints with --wrenches, are usage errors.
bool constrained_mode(const Args &args);

/// The contacts of --contacts / --contact-type / --gains / --mixed. A frame the model does not
/// have is Error(InvalidArgument) naming the option and the closest frames; a bad type or gain
/// is a UsageError naming the option and the value. More constraint rows than the model's
/// degrees of freedom are Error(Numeric) (redundant for certain). The refs are not set.
ContactSet contacts_from_args(const Model &model, const Args &args);

/// The forces of dynamics and linearize: with --contacts (constrained) the contact set, and a
/// state that gives wrenches is an error; otherwise the given wrenches (wrenches_from_args).
void forces_from_args(const Model &model, const Args &args, bool constrained, State &st,
                      Wrenches &wrenches, ContactSet &contacts);

/// What dynamics and linearize evaluate: a model, a state, and its given wrenches or contacts.
struct Evaluation {
  LoadedModel lm;
  State st;
  Wrenches wrenches;    // the given external wrenches (--wrenches)
  ContactSet contacts;  // the contact constraints (--contacts)
  Transform H;          // base_pose(model, st)
};

/// The options of dynamics and linearize: the model flags, --state / --random, --format, --only,
/// --wrenches, --contacts (--contact-type, --gains) and --mixed.
ArgSpec evaluation_arg_spec();

/// load_model, state_from_args and forces_from_args, in that order (the order of the errors).
Evaluation evaluation_from_args(const Args &args, bool constrained);

/// Text: "contacts: ..." and, with a nonzero Kp, the note on the references; nothing without
/// contacts.
void print_contacts_text(const ContactSet &contacts);

/// JSON: the members "wrenches" (if any) and "contacts" (if any; with loops, couplings or wheels
/// also their lists).
void add_forces_json(Json &doc, const Wrenches &wrenches, const ContactSet &contacts);

/// The references: every contact frame's pose at the state (H, s), so that the constraint error
/// p_F - p_ref (log(H_ref^-1 H_F)) is zero there; only Kd then acts at the state itself.
void set_contact_refs(const Model &model, Workspace &ws, const Transform &H, const VecX &s,
                      ContactSet &contacts);

// --- evaluations with a set: contact_* without loops, couplings and wheels (exactly as before),
// --- the geolin::constrained_* functions with them (mu: --regularization)
// -------------------------

/// "contact_dynamics" or "constrained_dynamics" (and so on for `contact_name`).
std::string held_function(const ContactSet &set, const std::string &contact_name);

Outcome held_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v, CRefVec r, CRefVec tau, const ContactSet &set, RefVec nu_dot,
                      RefVec lambda);
Outcome held_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v, CRefVec r, CRefVec tau, const ContactSet &set, RefMat A,
                       RefMat B, RefMat dlambda_dz, RefMat dlambda_dw);
Outcome held_step(const Model &model, Workspace &ws, StepMethod method, double h,
                  const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                  const ContactSet &set, Transform &H_next, RefVec s_next, Vec6 &v_next,
                  RefVec r_next, RefVec lambda, const JointFeedback &feedback = JointFeedback{});
Outcome held_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                            const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                            const ContactSet &set, RefMat A_d, RefMat B_d, RefMat dlambda_dz,
                            RefMat dlambda_dw);
Outcome held_impulse(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                     const Vec6 &v, CRefVec r, const ContactSet &set, double restitution,
                     RefVec nu_next, RefVec impulse);
Outcome held_impulse_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                               const Vec6 &v, CRefVec r, const ContactSet &set, double restitution,
                               RefMat A_imp, RefMat dimpulse_dz);

/// The geometric central finite differences of held_dynamics (docs/dynamics.md §5, as
/// contact_linearize_finite_difference; for a set with loops, couplings or wheels, which the
/// library has no finite-difference function for): the reference of `check` and `linearize --fd`.
Outcome held_linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                         CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                         const ContactSet &set, double eps, RefMat A, RefMat B,
                                         RefMat dlambda_dz, RefMat dlambda_dw);

/// lambda[frame][fx]..[fz] (point) or ..[tz] (rigid), per contact: the rows of lambda; then
/// lambda[A:B][fx].. per loop, lambda[J][tau] per coupling, lambda[FRAME][fx]..[fz] per wheel.
std::vector<std::string> lambda_labels(const ContactSet &contacts);

/// A workspace for a model with room for the contacts (all features; a loop takes two slots).
int workspace_capacity(const Model &model, const ContactSet &contacts);

// --- numeric failures (the GEOLIN_ERR_NUMERIC messages of the C API) --------------------------

/// Throws Error(Numeric) when `outcome` failed (M singular at the state, an overflow, or with
/// `contacts` a contact row that depends on the others), with the library's message
/// (geolin::describe, Reader::command_line); `output` of `function` was not computed.
void check_outcome(const Model &model, const Outcome &outcome, const std::string &function,
                   const std::string &output, const ContactSet *contacts = nullptr);
/// Throws Error(Numeric) if `value` is not finite (an overflow; the C API's wording).
void check_finite(const Eigen::Ref<const MatX> &value, const std::string &function,
                  const std::string &output);

}  // namespace geolin::cli
