// Command-line parsing, model loading and labels shared by every subcommand.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <sstream>

#include "args.hpp"
#include "geolin/workspace.hpp"
#include "labels.hpp"
#include "model_load.hpp"

namespace geolin::cli {

// The one table of status names is the core's (src/status.cpp).
const char *status_name(Status status) {
  return geolin::status_name(status);
}

// --- command line ---------------------------------------------------------------------------

std::string Args::get(const std::string &name, const std::string &fallback) const {
  auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

double Args::get_double(const std::string &name, double fallback) const {
  return has(name) ? parse_double(get(name), name) : fallback;
}

long Args::get_int(const std::string &name, long fallback) const {
  return has(name) ? parse_int(get(name), name) : fallback;
}

double parse_double(const std::string &text, const std::string &what) {
  errno = 0;
  char *end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
    throw UsageError(fmt::format("{}: '{}' is not a number", what, text));
  }
  return x;
}

long parse_int(const std::string &text, const std::string &what) {
  errno = 0;
  char *end = nullptr;
  const long x = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
    throw UsageError(fmt::format("{}: '{}' is not an integer", what, text));
  }
  return x;
}

Args parse_args(const std::vector<std::string> &argv, const ArgSpec &spec) {
  Args args;
  bool only_positional = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string &a = argv[i];
    if (only_positional || a == "-" || a.size() < 2 || a[0] != '-') {
      args.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string name = a, value;
    bool has_value = false;
    const auto eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (spec.flags.count(name)) {
      if (has_value) throw UsageError(fmt::format("option {} takes no value", name));
      args.flags.insert(name);
    } else if (spec.options.count(name)) {
      if (!has_value) {
        if (i + 1 >= argv.size()) throw UsageError(fmt::format("option {} needs a value", name));
        value = argv[++i];
      }
      args.options[name] = value;
    } else {
      throw UsageError(fmt::format("unknown option '{}'", a));
    }
  }
  if (static_cast<int>(args.positional.size()) > spec.max_positional) {
    throw UsageError(fmt::format("unexpected argument '{}'", args.positional[spec.max_positional]));
  }
  return args;
}

// --- model ----------------------------------------------------------------------------------

unsigned load_flags(const Args &args) {
  unsigned flags = 0;
  if (args.flag("--fixed-base")) flags |= kFixedBase;
  if (args.flag("--joint-damping")) flags |= kJointDamping;
  if (args.flag("--strict-inertia")) flags |= kStrictInertia;
  return flags;
}

LoadedModel load_model(const std::string &path, unsigned flags) {
  LoadedModel lm;
  lm.source = path.empty()  ? fmt::format("{} (bundled)", kDefaultModelName)
              : path == "-" ? std::string("<stdin>")
                            : path;
  try {
    if (path.empty()) {
      lm.model = load_urdf_string(kDefaultModelUrdf, flags);
    } else if (path == "-") {
      const std::string xml((std::istreambuf_iterator<char>(std::cin)),
                            std::istreambuf_iterator<char>());
      lm.model = load_urdf_string(xml, flags);
    } else {
      lm.model = load_urdf_file(path, flags);
    }
  } catch (const Error &e) {
    // Every load error names its source: a string (standard input, the bundled model) has no
    // name the library could give, and a file's message may not repeat its path.
    const std::string what = e.what();
    if (what.find(lm.source) != std::string::npos) throw;
    throw Error(e.status(), fmt::format("{}: {}", lm.source, what));
  }
  return lm;
}

LoadedModel load_model(const Args &args) {
  LoadedModel lm =
      load_model(args.positional.empty() ? std::string() : args.positional[0], load_flags(args));
  apply_armature_option(args, lm);
  return lm;
}

namespace {
// --armature's text: "VALUE" for every joint, or "JOINT=VALUE,..." (the other joints 0).
VecX parse_armature(const Model &model, const std::string &text) {
  VecX a = VecX::Zero(model.num_joints());
  if (text.find('=') == std::string::npos) return a.setConstant(parse_double(text, "--armature"));
  std::vector<bool> given(a.size(), false);
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(fmt::format("--armature: '{}' is not JOINT=VALUE", item));
    const std::string name = item.substr(0, eq);
    const int k = model.joint_index(name);
    if (k < 0)
      throw Error(Status::InvalidArgument,
                  fmt::format("--armature: model '{}' has no joint named '{}'", model.name, name));
    if (given[k]) throw UsageError(fmt::format("--armature: joint '{}' is given twice", name));
    given[k] = true;
    a[k] = parse_double(item.substr(eq + 1), fmt::format("--armature {}", name));
  }
  return a;
}
}  // namespace

void apply_armature_option(const Args &args, LoadedModel &lm) {
  if (!args.has("--armature")) return;
  const VecX a = parse_armature(lm.model, args.get("--armature"));
  try {
    lm.model = with_armature(lm.model, a);
  } catch (const Error &e) {
    throw Error(e.status(), fmt::format("--armature: {}", e.what()));
  }
}

namespace {
// Levenshtein distance, case-insensitive: ranks the frame names offered after a typo.
std::size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}
}  // namespace

int find_frame(const Model &model, const std::string &name, const std::string &where) {
  const int index = model.frame_index(name);
  if (index >= 0) return index;
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto &f : model.frames) ranked.emplace_back(edit_distance(name, f.name), f.name);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto &x, const auto &y) { return x.first < y.first; });
  std::string closest;
  for (std::size_t k = 0; k < ranked.size() && k < 5; ++k) {
    closest += (k == 0 ? "" : ", ") + ranked[k].second;
  }
  throw Error(Status::InvalidArgument,
              fmt::format("{}: the model has no frame named '{}' (closest: {}; {} frames in all, "
                          "'geolin info' lists them)",
                          where, name, closest, model.frames.size()));
}

std::string model_summary(const LoadedModel &lm) {
  const Model &m = lm.model;
  std::string text =
      fmt::format("{} ({}), {} base, n_J = {}, n = {}, N = {}", m.name, lm.source,
                  m.fixed_base ? "fixed" : "moving", m.num_joints(), m.num_dofs(), m.state_dim());
  const auto geared = (m.armature.array() > 0.0).count();  // --armature
  if (geared > 0)
    text += fmt::format(", armature on {} joint(s) (max {:g})", geared, m.armature.maxCoeff());
  return text;
}

// --- labels ---------------------------------------------------------------------------------

namespace {
const char *const kTwistNames[6] = {"vx", "vy", "vz", "wx", "wy", "wz"};

void append_twist(std::vector<std::string> &out, const std::string &prefix) {
  for (const char *c : kTwistNames) out.push_back(fmt::format("{}[{}]", prefix, c));
}

void append_joints(std::vector<std::string> &out, const Model &model, const std::string &prefix) {
  for (int i = 1; i <= model.n_B; ++i) {
    out.push_back(fmt::format("{}[{}]", prefix, model.joint_name[i]));
  }
}
}  // namespace

std::vector<std::string> nu_labels(const Model &model, const std::string &base,
                                   const std::string &joint) {
  std::vector<std::string> out;
  if (!model.fixed_base) append_twist(out, base);
  append_joints(out, model, joint);
  return out;
}

std::vector<std::string> z_labels(const Model &model) {
  std::vector<std::string> out;
  if (!model.fixed_base) append_twist(out, "z_H");
  append_joints(out, model, "z_s");
  if (!model.fixed_base) append_twist(out, "z_v");
  append_joints(out, model, "z_r");
  return out;
}

std::vector<Block> z_blocks(const Model &model) {
  const int nj = model.num_joints();
  if (model.fixed_base) return {{"z_s", 0, nj}, {"z_r", nj, nj}};
  return {{"z_H", 0, 6}, {"z_s", 6, nj}, {"z_v", 6 + nj, 6}, {"z_r", 12 + nj, nj}};
}

std::vector<std::string> tau_labels(const Model &model) {
  return joint_labels(model, "tau");
}

std::vector<std::string> joint_labels(const Model &model, const std::string &prefix) {
  std::vector<std::string> out;
  append_joints(out, model, prefix);
  return out;
}

std::vector<std::string> twist_labels(const std::string &prefix) {
  std::vector<std::string> out;
  append_twist(out, prefix);
  return out;
}

}  // namespace geolin::cli
