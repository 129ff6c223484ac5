// The forces of a `geolin` evaluation (contacts.cpp): given external wrenches (--wrenches),
// contact constraints (--contacts), the evaluation they belong to, and the numeric failures.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "args.hpp"
#include "geolin/algorithms.hpp"
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

  int count() const { return static_cast<int>(frames.size()); }
  int rows() const;
  bool empty() const { return frames.empty(); }
  /// The library's view (points into this object: keep it alive).
  Contacts library() const;
  std::string axes_name() const { return mixed ? "mixed" : "local"; }
  static const char *type_name(int type) { return type == kContactRigid ? "rigid" : "point"; }
  /// "FL_foot (point), ...", then on a second line the axes, the rows and the gains.
  std::string describe() const;
  Json json() const;
};

/// Whether the command line asks for constrained contacts (--contacts); --contact-type and
/// --gains without --contacts, or --contacts with --wrenches, are usage errors.
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

/// JSON: the members "wrenches" (if any) and "contacts" (if any).
void add_forces_json(Json &doc, const Wrenches &wrenches, const ContactSet &contacts);

/// The references: every contact frame's pose at the state (H, s), so that the constraint error
/// p_F - p_ref (log(H_ref^-1 H_F)) is zero there; only Kd then acts at the state itself.
void set_contact_refs(const Model &model, Workspace &ws, const Transform &H, const VecX &s,
                      ContactSet &contacts);

/// lambda[frame][fx]..[fz] (point) or ..[tz] (rigid), per contact: the rows of lambda.
std::vector<std::string> lambda_labels(const ContactSet &contacts);

/// A workspace for a model with room for the contacts (all features).
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
