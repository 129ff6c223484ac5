// External wrenches at named frames (--wrenches, --mixed): which frames, their wrenches from the
// state, and the labels of the wrench inputs. Contact constraints (--contacts, --contact-type,
// --gains, --mixed) for geolin::contact_dynamics and contact_linearize. The GEOLIN_ERR_NUMERIC
// messages of failed outcomes: geolin::describe's (src/outcome.cpp), as the C API's.
#include "contacts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "args.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "state_io.hpp"

namespace geolin::cli {

namespace {

// The comma-separated items of an option's value; an empty item is a UsageError.
std::vector<std::string> split_list(const std::string &text, const std::string &option,
                                    const std::string &expected) {
  std::vector<std::string> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) {
      throw UsageError(
          fmt::format("{}: an empty item in '{}' (expected {})", option, text, expected));
    }
    out.push_back(item);
  }
  if (out.empty() || text.back() == ',') {
    throw UsageError(fmt::format("{}: '{}' is not {}", option, text, expected));
  }
  return out;
}

}  // namespace

// --- external wrenches ------------------------------------------------------------------------

ExternalWrenches Wrenches::external() const {
  ExternalWrenches ext;
  ext.count = count();
  ext.frames = frames.data();
  ext.wrenches = values.data();
  ext.flags = mixed ? kWrenchMixed : kWrenchLocal;
  return ext;
}

std::string Wrenches::describe() const {
  if (names.empty()) return "none";
  return fmt::format("{} ({} axes: {})", fmt::join(names, ", "), axes_name(),
                     mixed ? "world-aligned at the frame origin" : "the frame's own");
}

Wrenches wrenches_from_args(const Model &model, const Args &args, State &st) {
  Wrenches c;
  c.mixed = args.flag("--mixed");
  if (args.has("--wrenches")) {
    for (const auto &name : split_list(args.get("--wrenches"), "--wrenches", "FRAME,FRAME,...")) {
      if (std::find(c.names.begin(), c.names.end(), name) != c.names.end()) {
        throw UsageError(fmt::format("--wrenches: frame '{}' is listed twice", name));
      }
      c.frames.push_back(find_frame(model, name, "--wrenches"));
      c.names.push_back(name);
    }
    for (const auto &w : st.wrenches) {
      if (std::find(c.names.begin(), c.names.end(), w.first) == c.names.end()) {
        throw Error(Status::InvalidArgument,
                    fmt::format("state {}: field \"wrenches\": a wrench at frame '{}', which is "
                                "not in --wrenches ({}); add it there or remove it",
                                st.description, w.first, fmt::join(c.names, ",")));
      }
    }
  } else {
    for (const auto &w : st.wrenches) {
      c.frames.push_back(find_frame(model, w.first, "wrenches"));
      c.names.push_back(w.first);
    }
  }
  if (c.mixed && c.names.empty() && !args.has("--frame")) {  // linearize --frame: its axes
    throw UsageError(
        "--mixed needs --contacts, --wrenches or \"wrenches\" in the state file (it sets their "
        "axes)");
  }
  std::vector<std::pair<std::string, Vec6>> applied;
  for (const auto &name : c.names) {
    Vec6 w = Vec6::Zero();
    for (const auto &given : st.wrenches) {
      if (given.first == name) w = given.second;
    }
    applied.emplace_back(name, w);
    c.values.insert(c.values.end(), w.data(), w.data() + 6);
  }
  st.wrenches = std::move(applied);
  return c;
}

std::vector<std::string> wrench_labels(const Wrenches &wrenches) {
  std::vector<std::string> out;
  for (const auto &name : wrenches.names) {
    for (const char *c : kWrenchComponents) out.push_back(fmt::format("f[{}][{}]", name, c));
  }
  return out;
}

// --- contact constraints ----------------------------------------------------------------------

int ContactSet::rows() const {
  return library().rows();
}

Contacts ContactSet::library() const {
  Contacts c;
  c.count = count();
  c.frames = frames.data();
  c.types = types.data();
  c.flags = mixed ? kWrenchMixed : kWrenchLocal;
  c.Kp = Kp;
  c.Kd = Kd;
  c.mu = mu;
  c.refs = refs.size() == 16 * frames.size() ? refs.data() : nullptr;
  return c;
}

std::string ContactSet::describe() const {
  std::vector<std::string> items;
  for (int k = 0; k < count(); ++k)
    items.push_back(fmt::format("{} ({})", names[k], type_name(types[k])));
  return fmt::format(
      "{}\n  lambda axes: {} ({}); m = {} constraint rows; gains Kp = {:g}, Kd = {:g}{}",
      fmt::join(items, ", "), axes_name(),
      mixed ? "world-aligned at the frame origin" : "the frame's own", rows(), Kp, Kd,
      mu > 0.0 ? fmt::format("; regularization mu = {:g}", mu) : std::string());
}

Json ContactSet::json() const {
  std::vector<std::string> type_names;
  for (int t : types) type_names.push_back(type_name(t));
  return {{"frames", names},
          {"types", type_names},
          {"axes", axes_name()},
          {"rows", rows()},
          {"Kp", Kp},
          {"Kd", Kd},
          {"regularization", mu},
          {"refs", "the frames' poses at the state"}};
}

bool constrained_mode(const Args &args) {
  const bool contacts = args.has("--contacts");
  if (contacts && args.has("--wrenches")) {
    throw UsageError(
        "--contacts (contact constraints: lambda is solved for) and --wrenches (given external "
        "wrenches) cannot be combined");
  }
  for (const char *option : {"--contact-type", "--gains", "--regularization"}) {
    if (!contacts && args.has(option)) {
      throw UsageError(fmt::format("{} needs --contacts FRAME,...", option));
    }
  }
  return contacts;
}

namespace {

// The types of --contact-type (default point): one for every contact, or one per contact.
std::vector<int> contact_types_from_args(const Args &args, std::size_t count) {
  std::vector<int> types;
  for (const auto &t : split_list(args.get("--contact-type", "point"), "--contact-type",
                                  "point or rigid, or one of them per contact")) {
    if (t == "point") {
      types.push_back(kContactPoint);
    } else if (t == "rigid") {
      types.push_back(kContactRigid);
    } else {
      throw UsageError(
          fmt::format("--contact-type: unknown contact type '{}' (point or rigid)", t));
    }
  }
  if (types.size() == 1) return std::vector<int>(count, types[0]);
  if (types.size() == count) return types;
  throw UsageError(fmt::format(
      "--contact-type: {} types for {} contacts (give one type for all, or one per contact)",
      types.size(), count));
}

// The Baumgarte gains of --gains KP,KD (finite, >= 0), if given.
void gains_from_args(const Args &args, ContactSet &c) {
  if (!args.has("--gains")) return;
  const auto gains = split_list(args.get("--gains"), "--gains", "KP,KD");
  if (gains.size() != 2) {
    throw UsageError(fmt::format("--gains: '{}' is not KP,KD (two numbers)", args.get("--gains")));
  }
  c.Kp = parse_double(gains[0], "--gains (KP)");
  c.Kd = parse_double(gains[1], "--gains (KD)");
  for (double g : {c.Kp, c.Kd}) {
    if (!(std::isfinite(g) && g >= 0.0)) {
      throw UsageError(
          fmt::format("--gains: '{}': the gains must be finite and >= 0", args.get("--gains")));
    }
  }
}

}  // namespace

ContactSet contacts_from_args(const Model &model, const Args &args) {
  ContactSet c;
  c.mixed = args.flag("--mixed");
  for (const auto &name : split_list(args.get("--contacts"), "--contacts", "FRAME,FRAME,...")) {
    c.frames.push_back(find_frame(model, name, "--contacts"));
    c.names.push_back(name);
  }
  c.types = contact_types_from_args(args, c.frames.size());
  gains_from_args(args, c);
  c.mu = args.get_double("--regularization", 0.0);
  if (!(c.mu >= 0.0) || !(c.mu <= kMaxContactRegularization))
    throw UsageError(
        fmt::format("--regularization: MU must be finite and >= 0, at most {:g} "
                    "(docs/contacts.md §4.2)",
                    kMaxContactRegularization));
  const int m = c.rows(), n = model.num_dofs();
  if (m > n) {
    throw Error(Status::Numeric,
                fmt::format("--contacts: the {} contacts have {} constraint rows, more than the "
                            "model's {} degrees of freedom: they are redundant (remove contacts, "
                            "or hold points instead of frames)",
                            c.count(), m, n));
  }
  return c;
}

void set_contact_refs(const Model &model, Workspace &ws, const Transform &H, const VecX &s,
                      ContactSet &contacts) {
  contacts.refs.assign(16 * contacts.frames.size(), 0.0);
  for (int k = 0; k < contacts.count(); ++k) {
    const Mat4 T = frame_pose(model, ws, H, s, contacts.frames[k]).matrix();  // column-major
    std::copy(T.data(), T.data() + 16, contacts.refs.begin() + 16 * k);
  }
}

std::vector<std::string> lambda_labels(const ContactSet &contacts) {
  std::vector<std::string> out;
  for (int k = 0; k < contacts.count(); ++k) {
    for (int i = 0; i < contacts.types[k]; ++i) {
      out.push_back(fmt::format("lambda[{}][{}]", contacts.names[k], kWrenchComponents[i]));
    }
  }
  return out;
}

int workspace_capacity(const Model &model, const ContactSet &contacts) {
  return std::max(static_cast<int>(model.frames.size()), contacts.count());
}

// --- numeric failures -------------------------------------------------------------------------

void check_outcome(const Model &model, const Outcome &outcome, const std::string &function,
                   const std::string &output, const ContactSet *contacts) {
  if (outcome) return;
  Contacts library;
  if (contacts != nullptr) library = contacts->library();
  char message[1024];
  describe(outcome, model, {function.c_str(), output.c_str(), contacts ? &library : nullptr},
           Reader::command_line, message, sizeof message);
  throw Error(Status::Numeric, message);
}

void check_finite(const Eigen::Ref<const MatX> &value, const std::string &function,
                  const std::string &output) {
  if (value.allFinite()) return;
  static const Model kNoModel;  // an overflow's message names no body
  check_outcome(kNoModel, Outcome::overflowed(), function, output);
}

void forces_from_args(const Model &model, const Args &args, bool constrained, State &st,
                      Wrenches &wrenches, ContactSet &contacts) {
  if (!constrained) {
    wrenches = wrenches_from_args(model, args, st);
    return;
  }
  contacts = contacts_from_args(model, args);
  if (!st.wrenches.empty()) {
    throw Error(Status::InvalidArgument,
                fmt::format("state {}: field \"wrenches\": given external wrenches cannot be "
                            "combined with --contacts (the contact forces are solved for); "
                            "use --wrenches FRAME,... or remove the field",
                            st.description));
  }
}

ArgSpec evaluation_arg_spec() {
  ArgSpec spec;
  spec.add_flags(kModelFlags).add_flags(kMixedFlags);
  spec.options = {"--state", "--random", "--format", "--only"};
  spec.add_options(kWrenchOptions).add_options(kContactOptions).add_options(kModelOptions);
  return spec;
}

Evaluation evaluation_from_args(const Args &args, bool constrained) {
  Evaluation ev;
  ev.lm = load_model(args);
  ev.st = state_from_args(ev.lm.model, args);
  forces_from_args(ev.lm.model, args, constrained, ev.st, ev.wrenches, ev.contacts);
  ev.H = base_pose(ev.lm.model, ev.st);
  return ev;
}

void print_contacts_text(const ContactSet &contacts) {
  if (contacts.empty()) return;
  fmt::print("contacts: {}\n", contacts.describe());
  if (contacts.Kp != 0.0) {
    fmt::print("references: the frames' poses at this state (the constraint error is zero)\n");
  }
}

void add_forces_json(Json &doc, const Wrenches &wrenches, const ContactSet &contacts) {
  if (wrenches.count() > 0) {
    doc["wrenches"] = {{"frames", wrenches.names}, {"axes", wrenches.axes_name()}};
  }
  if (!contacts.empty()) doc["contacts"] = contacts.json();
}

}  // namespace geolin::cli
