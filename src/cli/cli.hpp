// Shared pieces of the `geolin` command-line tool: argument parsing, model loading, the state
// (file, random, default), and matrix output in text, JSON and CSV. Every subcommand is a
// function `int cmd_NAME(const std::vector<std::string> &args)` returning the exit code.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "geolin/algorithms.hpp"
#include "geolin/model.hpp"
#include "geolin/spatial.hpp"
#include "geolin/state.hpp"
#include "geolin/status.hpp"
#include "geolin/workspace.hpp"

namespace geolin::cli {

/// JSON with the members in insertion order.
using Json = nlohmann::ordered_json;

/// Exit codes of the tool (documented in README.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,  // an error from the library, a bad state file, or `check` above tolerance
  kExitUsage = 2,    // bad command line
};

/// A command-line mistake: printed with the command's usage, exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "GEOLIN_ERR_IO" etc., the names of geolin.h.
const char *status_name(Status status);

// --- command line ---------------------------------------------------------------------------

/// The options a subcommand accepts: flags (no value) and options taking one value.
struct ArgSpec {
  std::set<std::string> flags;
  std::set<std::string> options;
  int max_positional = 1;

  ArgSpec &add_flags(const std::set<std::string> &names) {
    flags.insert(names.begin(), names.end());
    return *this;
  }
  ArgSpec &add_options(const std::set<std::string> &names) {
    options.insert(names.begin(), names.end());
    return *this;
  }
};

struct Args {
  std::vector<std::string> positional;
  std::set<std::string> flags;
  std::map<std::string, std::string> options;

  bool flag(const std::string &name) const { return flags.count(name) != 0; }
  bool has(const std::string &name) const { return options.count(name) != 0; }
  std::string get(const std::string &name, const std::string &fallback = "") const;
  double get_double(const std::string &name, double fallback) const;
  long get_int(const std::string &name, long fallback) const;
};

/// Parses `--name value`, `--name=value` and flags; throws UsageError on anything unknown.
Args parse_args(const std::vector<std::string> &argv, const ArgSpec &spec);

double parse_double(const std::string &text, const std::string &what);
long parse_int(const std::string &text, const std::string &what);

// --- model ----------------------------------------------------------------------------------

/// The options every model-reading command shares.
inline const std::set<std::string> kModelFlags = {"--fixed-base", "--joint-damping",
                                                  "--strict-inertia"};

struct LoadedModel {
  Model model;
  std::string source;  // the path, "-" (stdin) or "humanoid.urdf (bundled)"
};

/// The options with a value every model-reading command shares: --armature VALUE (every joint)
/// or --armature JOINT=VALUE,... (the joints named, the others 0), the reflected rotor inertias
/// of Model::armature.
inline const std::set<std::string> kModelOptions = {"--armature"};

/// The LoadFlags of --fixed-base / --joint-damping / --strict-inertia.
unsigned load_flags(const Args &args);

/// Loads a model: `path` is a file, "-" for standard input, or empty for the bundled default.
LoadedModel load_model(const std::string &path, unsigned flags);

/// Loads args.positional[0] (a path, or "-" for standard input), or the bundled default model
/// when there is no positional argument, with --fixed-base / --joint-damping /
/// --strict-inertia and --armature (apply_armature_option).
LoadedModel load_model(const Args &args);

/// With --armature: lm.model becomes the copy with that armature (with_armature). Throws
/// Error(InvalidArgument or NonFinite) naming the option and the joint at fault.
void apply_armature_option(const Args &args, LoadedModel &lm);

/// The index of the frame (URDF link) named `name`. Throws Error(InvalidArgument) naming it,
/// `where` it was asked for, and the closest frame names of the model.
int find_frame(const Model &model, const std::string &name, const std::string &where);

/// The URDF text of the bundled default model and its file name (default_model.cpp, generated
/// at build time from models/humanoid.urdf).
extern const char *const kDefaultModelUrdf;
extern const char *const kDefaultModelName;

// --- state ----------------------------------------------------------------------------------

/// What a state file holds (docs/state-file.md): the state x = (H, s, v, r) of the library
/// (geolin::State, docs/dynamics.md §4), the input tau, gravity and external wrenches.
struct State : geolin::State {
  VecX tau;
  Vec3 gravity = Vec3(0.0, 0.0, -9.81);
  /// External wrenches [fx, fy, fz, tx, ty, tz] by frame name ("wrenches" of a state file), in
  /// the order given; after wrenches_from_args, exactly one per --wrenches frame, in that order.
  std::vector<std::pair<std::string, Vec6>> wrenches;
  std::string description;  // "default", "file x.json", "random (seed 3)"
};

/// The pose of the base at a state: H, or H_A_0 for a fixed base (which ignores st.H).
inline Transform base_pose(const Model &model, const State &st) {
  return model.fixed_base ? model.H_A_0 : st.H;
}

/// The documented default: base at z = 1 m pitched 90° about y, s_k = 0.5 sin(k+1),
/// v = [0.3, 0, 0, 0, 0.5, 0.2], r_k = 0.4 cos(k+1), tau_k = 2 sin(2k+1) (k = 0-based joint).
State default_state(const Model &model);

/// A reproducible random state (docs/state-file.md): uniformly random rotation, position and
/// v, r, tau in [-1, 1], s in [-pi, pi]. Same seed, same state on every platform.
State random_state(const Model &model, unsigned long long seed);

/// Reads and validates a JSON state file (docs/state-file.md). Throws Error(InvalidArgument or
/// NonFinite) naming the field at fault.
State read_state_file(const Model &model, const std::string &path);
State parse_state_json(const Model &model, const std::string &text, const std::string &origin);

/// --state FILE | --random SEED | the default.
inline const std::set<std::string> kStateOptions = {"--state", "--random"};
State state_from_args(const Model &model, const Args &args);

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

/// Reproducible uniform numbers in [0, 1) (SplitMix64), independent of the standard library.
class Random {
 public:
  explicit Random(unsigned long long seed) : state_(seed) {}
  unsigned long long next();
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// A rotation uniformly distributed on SO(3) (Shoemake's unit quaternion).
  Mat3 rotation();

 private:
  unsigned long long state_;
};

/// The rotation about y by angle (pitch).
Mat3 rotation_y(double angle);

// --- discrete maps (discrete_fd.cpp) ---------------------------------------------------------

/// A discrete map (x, tau) -> (x+, lambda): contact_step or impulse. Returns false where the
/// library does (out and lambda are not to be used then).
using DiscreteMap =
    std::function<bool(const geolin::State &x, const VecX &tau, geolin::State &out, VecX &lambda)>;

/// The geometric central finite differences of a discrete map at (x, tau) with step eps:
/// x exp(z) -> x+ exp(A z + B w), and the derivatives of its lambda (dlambda_dz: m x N,
/// dlambda_dw: m x B.cols()). A map without input takes B with no columns. Returns false if an
/// evaluation failed. The reference of geolin check --step / --impulse.
bool discrete_finite_difference(const Model &model, const DiscreteMap &map, const geolin::State &x,
                                const VecX &tau, double eps, MatX &A, MatX &B, MatX &dlambda_dz,
                                MatX &dlambda_dw);

// --- simulate (cmd_simulate.cpp, simulate_drop.cpp) ------------------------------------------

/// One step of simulate: geolin::step without contacts, contact_step with them held (their
/// gains and refs; lambda: the step's forces). Returns the outcome of step or contact_step.
Outcome simulation_step(const Model &model, Workspace &ws, StepMethod method, double h,
                        const geolin::State &x, const VecX &tau, const ContactSet &contacts,
                        geolin::State &next, VecX &lambda);

/// The columns of simulate's trajectory CSV: t, the base pose, s, v, r, energies, momentum.
std::vector<std::string> trajectory_header(const Model &model);
/// One row of it (ending in a newline) into line; returns the total energy.
double trajectory_row(const Model &model, Workspace &ws, double t, const geolin::State &x,
                      std::string &line);

/// geolin simulate --drop HEIGHT (simulate_drop.cpp): the drop test, with the parsed --steps,
/// --dt and --method.
int simulate_drop(const Args &args, long steps, double h, StepMethod method);

// --- labels ---------------------------------------------------------------------------------

/// Labels of the generalized velocity nu: v[vx]..v[wz] (moving base), then r[joint].
std::vector<std::string> nu_labels(const Model &model, const std::string &base,
                                   const std::string &joint);
/// Labels of z = [z_H; z_s; z_v; z_r] (fixed base: [z_s; z_r]).
std::vector<std::string> z_labels(const Model &model);
/// A block of z: name ("z_H", "z_s", "z_v", "z_r"), offset and size.
struct Block {
  std::string name;
  int offset = 0;
  int size = 0;
};
/// The blocks of z in order (fixed base: z_s, z_r only); blocks of size 0 are kept.
std::vector<Block> z_blocks(const Model &model);

/// tau[joint] for every joint.
std::vector<std::string> tau_labels(const Model &model);
/// PREFIX[joint] for every joint.
std::vector<std::string> joint_labels(const Model &model, const std::string &prefix);
/// PREFIX[vx]..PREFIX[wz].
std::vector<std::string> twist_labels(const std::string &prefix);

// --- output ---------------------------------------------------------------------------------

enum class Format { Text, Json, Csv };
Format parse_format(const Args &args,
                    const std::vector<Format> &allowed = {Format::Text, Format::Json, Format::Csv});

/// A labelled dense matrix (a vector is a matrix with one column).
struct NamedMatrix {
  std::string name;
  std::string title;  // a one-line description for text output
  MatX value;
  std::vector<std::string> row_labels;
  std::vector<std::string> col_labels;
  bool vector = false;  // JSON: a flat list rather than a list of rows
};

/// Text: a labelled table, wrapped in chunks of columns to fit `width` characters; exact zeros
/// print as "0". 4 significant digits unless precision says otherwise.
void print_matrix_text(const NamedMatrix &m, int precision = 4, int width = 120);

/// CSV: a header row ("", column labels...) then one row per matrix row (label, values...),
/// values with 17 significant digits (round-trip).
void print_matrix_csv(const NamedMatrix &m);

/// Prints several matrices as CSV: one block each, preceded by "# name (rows x cols)" and
/// separated by a blank line, or only the block itself when there is just one.
void print_matrices_csv(const std::vector<NamedMatrix> &matrices);

/// A plain text table: header, then rows; columns padded to their widest cell. Columns listed in
/// right_aligned are right-aligned (numbers), the others left-aligned.
void print_table(const std::vector<std::string> &header,
                 const std::vector<std::vector<std::string>> &rows,
                 const std::set<int> &right_aligned = {}, const std::string &indent = "  ");

/// Text formatting of one number: "0" for exact zeros, else %.{precision-1}e.
std::string format_number(double x, int precision = 4);

/// `text` re-broken at spaces into lines of at most `width` characters (longer words stay whole),
/// without a final newline.
std::string wrap_text(const std::string &text, std::size_t width);

/// Model summary line used by several commands: "name (source), moving base, n_J = ..".
std::string model_summary(const LoadedModel &lm);

/// JSON pieces: a matrix as a list of rows, a vector as a list, the state in the state-file
/// format (so that `dynamics --format json` output can be fed back with --state), the model.
Json matrix_json(const MatX &m);
Json vector_json(const VecX &x);
Json state_json(const Model &model, const State &state);
Json model_json(const LoadedModel &lm);

/// Prints matrices in the given format. Text: each as a labelled table (the caller prints its
/// own header first). JSON: `doc` with one member per matrix (a list of rows, or a flat list for
/// a vector). CSV: print_matrices_csv.
void print_matrices(Format format, const std::vector<NamedMatrix> &matrices, Json doc,
                    int text_precision = 4);

/// A number, or null where it is not finite (JSON has no infinity).
Json finite_or_null(double x);

/// The members "model", "state" (the state-file format) and "state_description".
Json state_document(const LoadedModel &lm, const State &st);

/// Prints a JSON document (2-space indentation) and a newline.
void print_json(const Json &doc);

/// A CSV field, quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string &s);
/// The fields joined by commas (each csv_field), without a newline.
std::string csv_line(const std::vector<std::string> &fields);

/// An output file opened (created or truncated) before a long run, so that a path that cannot be
/// written fails at once: the constructor throws Error(Io) naming `option`, the path and the
/// system's reason. If the run fails before anything was written, the destructor removes the
/// empty file again, if this run created it (an existing file or a device such as /dev/null is
/// never removed).
class OutputFile {
 public:
  OutputFile(std::string option, std::string path);
  ~OutputFile();
  OutputFile(const OutputFile &) = delete;
  OutputFile &operator=(const OutputFile &) = delete;

  std::FILE *get() const { return file_; }
  const std::string &path() const { return path_; }
  /// Writes text; throws Error(Io) if that fails.
  void write(const std::string &text);
  /// Flushes and closes; throws Error(Io) naming the path if any write failed (a full disk).
  void close();

 private:
  std::string option_, path_;
  std::FILE *file_ = nullptr;
  bool written_ = false;
  bool created_ = false;  // the path did not exist before
};

/// A one-line progress report on stderr, redrawn in place ("\r"), only when stderr is a terminal
/// (isatty) and `wanted`; nothing at all otherwise (a pipe or a file stays clean).
class Progress {
 public:
  explicit Progress(bool wanted = true);
  ~Progress();
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;
  bool enabled() const { return enabled_; }
  void show(const std::string &text);
  /// "label: 42%" for done of total, redrawn only when the integer percentage changes.
  void percent(const std::string &label, long done, long total);
  void clear();

 private:
  bool enabled_;
  std::size_t width_ = 0;
  int last_percent_ = -1;
};

// --- plots (svg.cpp) ------------------------------------------------------------------------

/// One polyline of a plot. Points with a non-finite coordinate are skipped; on a log axis,
/// values below the axis floor are drawn at the floor.
struct PlotSeries {
  std::string label;  // in the legend unless empty
  std::string color;  // an SVG colour, "#1f77b4"
  bool dashed = false;
  std::vector<double> x, y;
};

/// A self-contained SVG line plot: title, subtitle, labelled axes with ticks, legend.
struct Plot {
  std::string title, subtitle, x_label, y_label;
  bool log_x = false, log_y = false;
  double y_floor = 0.0;         // log y: the smallest value drawn (0: from the data)
  std::vector<double> x_ticks;  // explicit x ticks (empty: automatic)
  std::vector<PlotSeries> series;
  std::vector<PlotSeries> legend_only;  // legend keys without data (line styles)
};

/// The SVG document of a plot.
std::string render_svg(const Plot &plot);
/// One SVG document of several plots stacked vertically (each a full-size panel).
std::string render_svg_panels(const std::vector<Plot> &plots);

/// A qualitative colour for series k (a 10-colour palette).
std::string plot_color(int k);

/// Keeps only the matrices named in --only (comma separated), if given; throws UsageError for
/// an unknown name.
std::vector<NamedMatrix> select_matrices(std::vector<NamedMatrix> matrices, const Args &args);

// --- subcommands ----------------------------------------------------------------------------

int cmd_info(const std::vector<std::string> &argv);
int cmd_dynamics(const std::vector<std::string> &argv);
int cmd_linearize(const std::vector<std::string> &argv);
int cmd_check(const std::vector<std::string> &argv);
int cmd_generate(const std::vector<std::string> &argv);
int cmd_simulate(const std::vector<std::string> &argv);
int cmd_bench(const std::vector<std::string> &argv);

}  // namespace geolin::cli
