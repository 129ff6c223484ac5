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
#include "geolin/state.hpp"
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
  int m = library().rows();
  for (const LoopItem &l : loops) m += l.type;
  m += static_cast<int>(couplings.size()) + 3 * static_cast<int>(wheels.size());
  return m;
}

void ContactSet::build_set() {
  set = ConstraintSet{};
  set.Kp = Kp;
  set.Kd = Kd;
  set.flags = mixed ? kWrenchMixed : kWrenchLocal;
  const bool with_refs = refs.size() == 16 * frames.size();
  for (int k = 0; k < count(); ++k) {
    set.items.push_back(
        with_refs ? Constraint::contact(
                        frames[k], types[k],
                        Transform::from_matrix(Eigen::Map<const Mat4>(refs.data() + 16 * k)))
                  : Constraint::contact(frames[k], types[k]));
  }
  for (const LoopItem &l : loops) {
    set.items.push_back(Constraint::loop(l.frame_a, l.frame_b, l.type));
  }
  for (const CouplingItem &j : couplings) {
    set.items.push_back(Constraint::coupling(j.joint, j.source, j.ratio, j.offset));
  }
  for (const WheelItem &w : wheels) {
    set.items.push_back(Constraint::wheel(w.frame, w.axis, w.radius));
  }
}

namespace {

std::string coupling_text(const CouplingItem &c) {
  return fmt::format("{} = {:g} * {} {} {:g}{}", c.joint_name, c.ratio, c.source_name,
                     c.offset < 0.0 ? "-" : "+", std::abs(c.offset),
                     c.mimic ? " (URDF mimic)" : "");
}

std::string axis_text(const Vec3 &a) {
  return fmt::format("[{:g}, {:g}, {:g}]", a[0], a[1], a[2]);
}

}  // namespace

std::vector<ConstraintEntry> constraint_entries(const ContactSet &set) {
  std::vector<ConstraintEntry> out;
  const std::string axes = set.mixed ? "MIXED" : "LOCAL";
  auto components = [](int rows) {
    return std::vector<std::string>(std::begin(kWrenchComponents),
                                    std::begin(kWrenchComponents) + rows);
  };
  for (int k = 0; k < set.count(); ++k) {
    out.push_back({set.names[k], ContactSet::type_name(set.types[k]), axes, set.types[k],
                   components(set.types[k]), true, set.mixed, set.frames[k]});
  }
  for (const LoopItem &l : set.loops) {
    out.push_back({l.name_a + ":" + l.name_b, fmt::format("loop {}", LoopItem::type_name(l.type)),
                   axes, l.type, components(l.type), false, false, -1});
  }
  for (const CouplingItem &c : set.couplings) {
    out.push_back({c.joint_name, "coupling", "joint", 1, {"tau"}, false, false, -1});
  }
  for (const WheelItem &w : set.wheels) {
    out.push_back({w.name, "wheel", "WORLD", 3, components(3), true, true, w.frame});
  }
  return out;
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
  if (general()) {
    std::vector<std::string> parts;
    if (!items.empty()) parts.push_back(fmt::format("contacts {}", fmt::join(items, ", ")));
    std::vector<std::string> l, c, w;
    for (const LoopItem &x : loops)
      l.push_back(fmt::format("{}:{} ({})", x.name_a, x.name_b, LoopItem::type_name(x.type)));
    for (const CouplingItem &x : couplings) c.push_back(coupling_text(x));
    for (const WheelItem &x : wheels)
      w.push_back(fmt::format("{} (radius {:g} m, axis {})", x.name, x.radius, axis_text(x.axis)));
    if (!l.empty()) parts.push_back(fmt::format("loops {}", fmt::join(l, ", ")));
    if (!c.empty()) parts.push_back(fmt::format("couplings {}", fmt::join(c, ", ")));
    if (!w.empty()) parts.push_back(fmt::format("wheels {}", fmt::join(w, ", ")));
    std::vector<std::string> axes;  // of each kind present
    if (count() > 0 || !loops.empty())
      axes.push_back(fmt::format("{}: {} axes ({})",
                                 count() == 0     ? "loops"
                                 : !loops.empty() ? "contacts and loops"
                                                  : "contacts",
                                 axes_name(),
                                 mixed ? "world-aligned at the frame origin" : "the frame's own"));
    if (!couplings.empty()) axes.push_back("couplings: the generalized force on the joint");
    if (!wheels.empty()) axes.push_back("wheels: the ground's force, world axes");
    return fmt::format("{}\n  lambda: {}; m = {} constraint rows; gains Kp = {:g}, Kd = {:g}{}",
                       fmt::join(parts, "; "), fmt::join(axes, "; "), rows(), Kp, Kd,
                       mu > 0.0 ? fmt::format("; regularization mu = {:g}", mu) : std::string());
  }
  return fmt::format(
      "{}\n  lambda axes: {} ({}); m = {} constraint rows; gains Kp = {:g}, Kd = {:g}{}",
      fmt::join(items, ", "), axes_name(),
      mixed ? "world-aligned at the frame origin" : "the frame's own", rows(), Kp, Kd,
      mu > 0.0 ? fmt::format("; regularization mu = {:g}", mu) : std::string());
}

Json ContactSet::json() const {
  std::vector<std::string> type_names;
  for (int t : types) type_names.push_back(type_name(t));
  Json doc = {{"frames", names},
              {"types", type_names},
              {"axes", axes_name()},
              {"rows", rows()},
              {"Kp", Kp},
              {"Kd", Kd},
              {"regularization", mu},
              {"refs", "the frames' poses at the state"}};
  if (!general()) return doc;
  Json l = Json::array(), c = Json::array(), w = Json::array();
  for (const LoopItem &x : loops)
    l.push_back(
        {{"frame_a", x.name_a}, {"frame_b", x.name_b}, {"type", LoopItem::type_name(x.type)}});
  for (const CouplingItem &x : couplings)
    c.push_back({{"joint", x.joint_name},
                 {"source", x.source_name},
                 {"ratio", x.ratio},
                 {"offset", x.offset},
                 {"mimic", x.mimic}});
  for (const WheelItem &x : wheels)
    w.push_back({{"frame", x.name},
                 {"radius", x.radius},
                 {"axis", std::vector<double>{x.axis[0], x.axis[1], x.axis[2]}}});
  doc["loops"] = l;
  doc["couplings"] = c;
  doc["wheels"] = w;
  return doc;
}

bool constrained_mode(const Args &args) {
  const bool contacts = args.has("--contacts");
  if (contacts && args.has("--wrenches")) {
    throw UsageError(
        "--contacts (contact constraints: lambda is solved for) and --wrenches (given external "
        "wrenches) cannot be combined");
  }
  bool others = false;
  for (const std::string &option : kConstraintOptions) {
    if (!args.has(option)) continue;
    others = true;
    if (args.has("--wrenches"))
      throw UsageError(fmt::format(
          "{} (constraints: lambda is solved for) and --wrenches (given external wrenches) "
          "cannot be combined",
          option));
  }
  if (!contacts && args.has("--contact-type"))
    throw UsageError("--contact-type needs --contacts FRAME,...");
  for (const char *option : {"--gains", "--regularization"}) {
    if (!contacts && !others && args.has(option)) {
      throw UsageError(
          fmt::format("{} needs --contacts FRAME,... (or --loops, --couplings, --wheels)", option));
    }
  }
  return contacts || others;
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

// The parts of `text` between `sep`s (empty parts kept).
std::vector<std::string> split_at(const std::string &text, char sep) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  for (;;) {
    const auto end = text.find(sep, start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// A finite number of an entry of `option`, or a UsageError naming both.
double entry_number(const std::string &text, const std::string &option, const std::string &entry,
                    const std::string &what) {
  char *end = nullptr;
  const double x = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x))
    throw UsageError(
        fmt::format("{}: '{}': {} '{}' is not a finite number", option, entry, what, text));
  return x;
}

// --loops A:B[:point|hinge|rigid],...
void loops_from_args(const Model &model, const Args &args, ContactSet &c) {
  if (!args.has("--loops")) return;
  const std::string expected = "A:B[:point|hinge|rigid],... (frame names)";
  for (const auto &entry : split_list(args.get("--loops"), "--loops", expected)) {
    const auto parts = split_at(entry, ':');
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty())
      throw UsageError(fmt::format("--loops: '{}' is not {}", entry, expected));
    LoopItem l;
    l.name_a = parts[0];
    l.name_b = parts[1];
    if (parts.size() == 3) {
      if (parts[2] == "point") {
        l.type = kLoopPoint;
      } else if (parts[2] == "hinge") {
        l.type = kLoopHinge;
      } else if (parts[2] == "rigid") {
        l.type = kLoopRigid;
      } else {
        throw UsageError(fmt::format(
            "--loops: '{}': unknown loop type '{}' (point, hinge or rigid)", entry, parts[2]));
      }
    }
    if (l.name_a == l.name_b)
      throw UsageError(fmt::format("--loops: '{}' pairs frame '{}' with itself", entry, l.name_a));
    l.frame_a = find_frame(model, l.name_a, "--loops");
    l.frame_b = find_frame(model, l.name_b, "--loops");
    c.loops.push_back(l);
  }
}

// Joint k named `name`, or Error(InvalidArgument) naming the option and the entry.
int coupling_joint(const Model &model, const std::string &name, const std::string &entry) {
  const int k = model.joint_index(name);
  if (k >= 0) return k;
  std::vector<std::string> names(model.joint_name.begin() + 1, model.joint_name.end());
  throw Error(Status::InvalidArgument,
              fmt::format("--couplings: '{}': the model has no joint named '{}' (its {} joints: "
                          "{})",
                          entry, name, names.size(), fmt::join(names, ", ")));
}

// One J=[RATIO*]S[+OFFSET|-OFFSET] entry of --couplings.
CouplingItem parse_coupling(const Model &model, const std::string &entry) {
  const std::string expected = "J=RATIO*S+OFFSET (joint names; RATIO* and +OFFSET optional)";
  const auto eq = entry.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
    throw UsageError(fmt::format("--couplings: '{}' is not mimic or {}", entry, expected));
  CouplingItem c;
  c.joint_name = entry.substr(0, eq);
  std::string rest = entry.substr(eq + 1);
  const auto star = rest.find('*');
  if (star != std::string::npos) {
    c.ratio = entry_number(rest.substr(0, star), "--couplings", entry, "the ratio");
    rest = rest.substr(star + 1);
  }
  // S[(+|-)OFFSET]: the first split whose S is a joint of the model (joint names may hold + or -).
  c.source_name = rest;
  for (std::string::size_type p = 1; p < rest.size(); ++p) {
    if (rest[p] != '+' && rest[p] != '-') continue;
    if (model.joint_index(rest.substr(0, p)) < 0) continue;
    c.source_name = rest.substr(0, p);
    c.offset = entry_number(rest.substr(p), "--couplings", entry, "the offset");
    break;
  }
  if (c.source_name.empty())
    throw UsageError(fmt::format("--couplings: '{}' is not {}", entry, expected));
  c.joint = coupling_joint(model, c.joint_name, entry);
  c.source = coupling_joint(model, c.source_name, entry);
  if (c.joint == c.source)
    throw UsageError(
        fmt::format("--couplings: '{}' couples joint '{}' with itself", entry, c.joint_name));
  return c;
}

// --couplings mimic|J=RATIO*S+OFFSET,...: "mimic" adds every URDF <mimic> of the model.
void couplings_from_args(const Model &model, const Args &args, ContactSet &c) {
  if (!args.has("--couplings")) return;
  for (const auto &entry :
       split_list(args.get("--couplings"), "--couplings", "mimic or J=RATIO*S+OFFSET,...")) {
    if (entry != "mimic") {
      c.couplings.push_back(parse_coupling(model, entry));
      continue;
    }
    int added = 0;
    for (int i = 1; i <= model.n_B; ++i) {
      if (model.mimic_of[i].empty()) continue;
      CouplingItem m;
      m.joint_name = model.joint_name[i];
      m.source_name = model.mimic_of[i];
      m.joint = i - 1;
      m.source = model.joint_index(m.source_name);
      m.ratio = model.mimic_multiplier[i];
      m.offset = model.mimic_offset[i];
      m.mimic = true;
      c.couplings.push_back(m);
      ++added;
    }
    if (added == 0)
      throw Error(
          Status::InvalidArgument,
          fmt::format("--couplings: 'mimic': model '{}' has no URDF <mimic> joint", model.name));
  }
  // A joint coupled to itself through others (J = S, S = J): refused, as by the library.
  const int nj = model.num_joints();
  for (const CouplingItem &start : c.couplings) {
    int at = start.source;
    for (int hops = 0; hops <= nj && at >= 0; ++hops) {
      if (at == start.joint)
        throw UsageError(
            fmt::format("--couplings: the coupling of joint '{}' closes a cycle of "
                        "couplings (a joint may not depend on itself)",
                        start.joint_name));
      int next = -1;
      for (const CouplingItem &x : c.couplings)
        if (x.joint == at) next = x.source;
      at = next;
    }
  }
}

// --wheels FRAME:RADIUS[:AXIS],...: AXIS x, y, z, -x, -y, -z or AX/AY/AZ (default y).
void wheels_from_args(const Model &model, const Args &args, ContactSet &c) {
  if (!args.has("--wheels")) return;
  const std::string expected = "FRAME:RADIUS[:AXIS],... (AXIS: x, y, z, -x, -y, -z or AX/AY/AZ)";
  for (const auto &entry : split_list(args.get("--wheels"), "--wheels", expected)) {
    const auto parts = split_at(entry, ':');
    if (parts.size() < 2 || parts.size() > 3 || parts[0].empty())
      throw UsageError(fmt::format("--wheels: '{}' is not {}", entry, expected));
    WheelItem w;
    w.name = parts[0];
    w.radius = entry_number(parts[1], "--wheels", entry, "the radius");
    if (!(w.radius > 0.0))
      throw UsageError(fmt::format("--wheels: '{}': the radius must be > 0 (m)", entry));
    if (parts.size() == 3) {
      const std::string &a = parts[2];
      const std::string named = a.size() == 2 && a[0] == '-' ? a.substr(1) : a;
      if (named == "x" || named == "y" || named == "z") {
        w.axis = Vec3::Unit(named[0] - 'x') * (a[0] == '-' ? -1.0 : 1.0);
      } else {
        const auto xyz = split_at(a, '/');
        if (xyz.size() != 3)
          throw UsageError(
              fmt::format("--wheels: '{}': axis '{}' is not x, y, z, -x, -y, -z or "
                          "AX/AY/AZ (components separated by '/': ',' separates the wheels)",
                          entry, a));
        for (int i = 0; i < 3; ++i) w.axis[i] = entry_number(xyz[i], "--wheels", entry, "the axis");
      }
      if (!(w.axis.norm() > 0.0))
        throw UsageError(fmt::format("--wheels: '{}': the axis is zero", entry));
      w.axis.normalize();
    }
    w.frame = find_frame(model, w.name, "--wheels");
    c.wheels.push_back(w);
  }
}

}  // namespace

ContactSet contacts_from_args(const Model &model, const Args &args) {
  ContactSet c;
  c.mixed = args.flag("--mixed");
  if (args.has("--contacts")) {
    for (const auto &name : split_list(args.get("--contacts"), "--contacts", "FRAME,FRAME,...")) {
      c.frames.push_back(find_frame(model, name, "--contacts"));
      c.names.push_back(name);
    }
    c.types = contact_types_from_args(args, c.frames.size());
  }
  loops_from_args(model, args, c);
  couplings_from_args(model, args, c);
  wheels_from_args(model, args, c);
  gains_from_args(args, c);
  c.mu = args.get_double("--regularization", 0.0);
  if (!(c.mu >= 0.0) || !(c.mu <= kMaxContactRegularization))
    throw UsageError(
        fmt::format("--regularization: MU must be finite and >= 0, at most {:g} "
                    "(docs/contacts.md §4.2)",
                    kMaxContactRegularization));
  const int m = c.rows(), n = model.num_dofs();
  if (m > n && !c.general()) {
    throw Error(Status::Numeric,
                fmt::format("--contacts: the {} contacts have {} constraint rows, more than the "
                            "model's {} degrees of freedom: they are redundant (remove contacts, "
                            "or hold points instead of frames)",
                            c.count(), m, n));
  }
  c.build_set();
  if (m > n) {
    throw Error(Status::Numeric,
                fmt::format("--contacts, --loops, --couplings, --wheels: the {} constraints have "
                            "{} rows, more than the model's {} degrees of freedom: they are "
                            "redundant (remove constraints, or use point loops and contacts)",
                            c.set.items.size(), m, n));
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
  contacts.build_set();
}

std::vector<std::string> lambda_labels(const ContactSet &contacts) {
  std::vector<std::string> out;
  for (const ConstraintEntry &e : constraint_entries(contacts)) {
    for (const auto &c : e.components) out.push_back(fmt::format("lambda[{}][{}]", e.name, c));
  }
  return out;
}

int workspace_capacity(const Model &model, const ContactSet &contacts) {
  int slots = contacts.count();
  if (contacts.general()) {
    ContactSet copy = contacts;
    copy.build_set();
    slots = copy.set.slots();
  }
  return std::max(static_cast<int>(model.frames.size()), slots);
}

// --- evaluations with a set ---------------------------------------------------------------------

std::string held_function(const ContactSet &set, const std::string &contact_name) {
  if (!set.general()) return contact_name;
  const std::string prefix = "contact_";  // contact_dynamics, ...; impulse, impulse_linearize
  if (contact_name.compare(0, prefix.size(), prefix) == 0)
    return "constrained_" + contact_name.substr(prefix.size());
  return "constrained_" + contact_name;
}

Outcome held_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                      const Vec6 &v, CRefVec r, CRefVec tau, const ContactSet &set, RefVec nu_dot,
                      RefVec lambda) {
  if (!set.general())
    return contact_dynamics(model, ws, H, s, v, r, tau, set.library(), nu_dot, lambda);
  return constrained_dynamics(model, ws, H, s, v, r, tau, set.set, set.mu, nu_dot, lambda);
}

Outcome held_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                       const Vec6 &v, CRefVec r, CRefVec tau, const ContactSet &set, RefMat A,
                       RefMat B, RefMat dlambda_dz, RefMat dlambda_dw) {
  if (!set.general())
    return contact_linearize(model, ws, H, s, v, r, tau, set.library(), A, B, dlambda_dz,
                             dlambda_dw);
  return constrained_linearize(model, ws, H, s, v, r, tau, set.set, set.mu, A, B, dlambda_dz,
                               dlambda_dw);
}

Outcome held_step(const Model &model, Workspace &ws, StepMethod method, double h,
                  const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                  const ContactSet &set, Transform &H_next, RefVec s_next, Vec6 &v_next,
                  RefVec r_next, RefVec lambda, const JointFeedback &feedback) {
  if (!set.general())
    return contact_step(model, ws, method, h, H, s, v, r, tau, set.library(), H_next, s_next,
                        v_next, r_next, lambda, feedback);
  return constrained_step(model, ws, method, h, H, s, v, r, tau, set.set, set.mu, H_next, s_next,
                          v_next, r_next, lambda, feedback);
}

Outcome held_step_linearize(const Model &model, Workspace &ws, StepMethod method, double h,
                            const Transform &H, CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                            const ContactSet &set, RefMat A_d, RefMat B_d, RefMat dlambda_dz,
                            RefMat dlambda_dw) {
  if (!set.general())
    return contact_step_linearize(model, ws, method, h, H, s, v, r, tau, set.library(), A_d, B_d,
                                  dlambda_dz, dlambda_dw);
  return constrained_step_linearize(model, ws, method, h, H, s, v, r, tau, set.set, set.mu, A_d,
                                    B_d, dlambda_dz, dlambda_dw);
}

Outcome held_impulse(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                     const Vec6 &v, CRefVec r, const ContactSet &set, double restitution,
                     RefVec nu_next, RefVec impulse_out) {
  if (!set.general())
    return impulse(model, ws, H, s, v, r, set.library(), restitution, nu_next, impulse_out);
  return constrained_impulse(model, ws, H, s, v, r, set.set, set.mu, restitution, nu_next,
                             impulse_out);
}

Outcome held_impulse_linearize(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                               const Vec6 &v, CRefVec r, const ContactSet &set, double restitution,
                               RefMat A_imp, RefMat dimpulse_dz) {
  if (!set.general())
    return impulse_linearize(model, ws, H, s, v, r, set.library(), restitution, A_imp, dimpulse_dz);
  return constrained_impulse_linearize(model, ws, H, s, v, r, set.set, set.mu, restitution, A_imp,
                                       dimpulse_dz);
}

Outcome held_linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                         CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                         const ContactSet &set, double eps, RefMat A, RefMat B,
                                         RefMat dlambda_dz, RefMat dlambda_dw) {
  if (!set.general())
    return contact_linearize_finite_difference(model, ws, H, s, v, r, tau, set.library(), eps, A, B,
                                               dlambda_dz, dlambda_dw);
  // Column k: ([v; r; nu_dot](x exp(eps e_k)) - [..](x exp(-eps e_k))) / 2 eps, then -ad_v on
  // the SE(3) block (docs/dynamics.md §5, (D15), (D20)); the tau columns perturb tau.
  const int n = model.num_dofs(), nj = model.num_joints(), m = set.rows();
  const int off = model.joint_offset(), N = model.state_dim();
  const double inv2e = 1.0 / (2.0 * eps);
  Outcome first;
  VecX fp(N), fm(N), lp(m), lm(m), nu_dot(n);
  auto field = [&](const geolin::State &x, const VecX &t, VecX &f, VecX &lam) {
    if (!model.fixed_base) f.head<6>() = x.v;
    f.segment(off, nj) = x.r;
    first.keep_first(held_dynamics(model, ws, x.H, x.s, x.v, x.r, t, set, nu_dot, lam));
    f.tail(n) = nu_dot;
  };
  const geolin::State x0{H, s, model.fixed_base ? Vec6::Zero() : v, r};
  const VecX tau0 = tau;
  for (int k = 0; k < N; ++k) {
    geolin::State xp = x0, xm = x0;
    state_integrate_coordinate(model, k, eps, xp);
    state_integrate_coordinate(model, k, -eps, xm);
    field(xp, tau0, fp, lp);
    field(xm, tau0, fm, lm);
    A.col(k) = (fp - fm) * inv2e;
    if (dlambda_dz.size() > 0) dlambda_dz.col(k) = (lp - lm) * inv2e;
  }
  if (!model.fixed_base) A.topLeftCorner<6, 6>() -= cross_motion(x0.v);
  for (int k = 0; k < nj; ++k) {
    VecX tp = tau0, tm = tau0;
    tp[k] += eps;
    tm[k] -= eps;
    field(x0, tp, fp, lp);
    field(x0, tm, fm, lm);
    B.col(k) = (fp - fm) * inv2e;
    if (dlambda_dw.size() > 0) dlambda_dw.col(k) = (lp - lm) * inv2e;
  }
  return first;
}

// --- numeric failures -------------------------------------------------------------------------

void check_outcome(const Model &model, const Outcome &outcome, const std::string &function,
                   const std::string &output, const ContactSet *contacts) {
  if (outcome) return;
  Contacts library;
  if (contacts != nullptr) library = contacts->library();
  char message[1024];
  if (contacts != nullptr && contacts->general()) {
    describe(outcome, model, {function.c_str(), output.c_str(), nullptr, &contacts->set},
             Reader::command_line, message, sizeof message);
    throw Error(Status::Numeric, message);
  }
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
  spec.add_options(kConstraintOptions);
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
  fmt::print("{}: {}\n", contacts.general() ? "constraints" : "contacts", contacts.describe());
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
