// geolin info: the tree, the totals, the couplings of the URDF's <mimic> joints and the frames of a
// model; --dot for a Graphviz graph.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "args.hpp"
#include "commands.hpp"
#include "model_load.hpp"
#include "output.hpp"

namespace geolin::cli {

namespace {

// The children list of the table: at most kShownChildren, then "… (N more)", so that a star
// with 100k leaves prints one short row, not 100k rows padded to its width. (The JSON output
// lists them all.)
constexpr std::size_t kShownChildren = 6;

std::string children_text(const std::vector<int> &v) {
  if (v.empty()) return "-";
  if (v.size() <= kShownChildren) return fmt::format("{}", fmt::join(v, ", "));
  return fmt::format("{}, … ({} more)", fmt::join(v.begin(), v.begin() + kShownChildren, ", "),
                     v.size() - kShownChildren);
}

std::string vec3_text(const Vec3 &x) {
  auto num = [](double a) { return fmt::format("{:.4g}", std::abs(a) < 5e-13 ? 0.0 : a); };
  return fmt::format("[{}, {}, {}]", num(x[0]), num(x[1]), num(x[2]));
}

// URDF roll-pitch-yaw of R = Rz(y) Ry(p) Rx(r).
Vec3 rpy(const Mat3 &R) {
  const double p = std::atan2(-R(2, 0), std::hypot(R(0, 0), R(1, 0)));
  return Vec3(std::atan2(R(2, 1), R(2, 2)), p, std::atan2(R(1, 0), R(0, 0)));
}

std::string joint_note(const Model &m, int i) {
  if (m.mimic_of[i].empty()) return "";
  return fmt::format("mimic of {} (a coupling: --couplings mimic)", m.mimic_of[i]);
}

// "finger_joint2 = 1 * finger_joint1 + 0": the coupling s_j = ratio s_i + offset of a <mimic>.
std::string coupling_text(const Model &m, int i) {
  return fmt::format("{} = {:g} * {} {} {:g}", m.joint_name[i], m.mimic_multiplier[i],
                     m.mimic_of[i], m.mimic_offset[i] < 0.0 ? "-" : "+",
                     std::abs(m.mimic_offset[i]));
}

std::string dot_escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void print_dot(const LoadedModel &lm) {
  const Model &m = lm.model;
  fmt::print("digraph \"{}\" {{\n", dot_escape(m.name));
  fmt::print("  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n");
  fmt::print("  edge [fontname=\"Helvetica\", fontsize=9];\n");
  if (m.fixed_base) fmt::print("  world [shape=plaintext, label=\"world\"];\n");
  for (int i = 0; i <= m.n_B; ++i) {
    std::string label = fmt::format("{}: {}\\n{:.4g} kg", i, dot_escape(m.body_name[i]), m.mass[i]);
    std::vector<std::string> merged;
    for (const auto &f : m.frames) {
      if (f.body == i && f.name != m.body_name[i]) merged.push_back(dot_escape(f.name));
    }
    if (!merged.empty()) label += fmt::format("\\nframes: {}", fmt::join(merged, ", "));
    fmt::print("  b{} [label=\"{}\"{}];\n", i, label, i == 0 ? ", style=bold" : "");
  }
  if (m.fixed_base) fmt::print("  world -> b0 [style=bold, label=\"fixed base\"];\n");
  for (int i = 1; i <= m.n_B; ++i) {
    const bool mimic = !m.mimic_of[i].empty();
    fmt::print("  b{} -> b{} [label=\"{} ({}){}\"{}];\n", m.parent[i], i,
               dot_escape(m.joint_name[i]), joint_type_name(m.joint_type[i]),
               mimic ? fmt::format("\\nmimic of {}", dot_escape(m.mimic_of[i])) : "",
               mimic ? ", style=dashed" : "");
  }
  fmt::print("}}\n");
}

// The bodies: index, name, parent, children, joint, type, axis, mass, note.
void print_bodies(const Model &m) {
  fmt::print("\nbodies (depth-first, λ(i) < i; joint i connects λ(i) to i):\n");
  std::vector<std::vector<std::string>> rows;
  for (int i = 0; i <= m.n_B; ++i) {
    std::vector<std::string> row = {std::to_string(i), m.body_name[i],
                                    i == 0 ? "-" : std::to_string(m.parent[i]),
                                    children_text(m.children[i])};
    if (i == 0) {
      row.insert(row.end(), {m.fixed_base ? "(fixed to the world)" : "(moving base)", "", ""});
    } else {
      row.insert(row.end(),
                 {m.joint_name[i], joint_type_name(m.joint_type[i]), vec3_text(m.joint_axis[i])});
    }
    row.push_back(fmt::format("{:.4f}", m.mass[i]));
    // the joint's reflected rotor inertia: kg m² (revolute, continuous) or kg (prismatic)
    row.push_back(i == 0 ? "" : fmt::format("{:.4g}", m.armature[i - 1]));
    row.push_back(i == 0 ? "" : joint_note(m, i));
    rows.push_back(std::move(row));
  }
  print_table(
      {"i", "body", "λ(i)", "μ(i)", "joint", "type", "axis", "mass [kg]", "armature", "note"}, rows,
      {0, 2, 7, 8});
  bool truncated = false;
  for (const auto &c : m.children) truncated = truncated || c.size() > kShownChildren;
  if (truncated) {
    fmt::print("  (μ(i) shows the first {} children; --format json lists them all)\n",
               kShownChildren);
  }
}

void print_totals(const Model &m) {
  int mimics = 0;
  for (int i = 1; i <= m.n_B; ++i) mimics += !m.mimic_of[i].empty();
  fmt::print(
      "\ntotals: n_B = {} moving bodies (+ base), n_J = {}, n = {}, N = {}, "
      "total mass = {:.4f} kg\n",
      m.n_B, m.num_joints(), m.num_dofs(), m.state_dim(), m.total_mass());
  if (mimics == 0) return;
  fmt::print(
      "        {} mimic joint(s): each loads as a joint of its own; the couplings below hold "
      "them\n        (dynamics, linearize, check, simulate, bench: --couplings mimic)\n",
      mimics);
  for (int i = 1; i <= m.n_B; ++i) {
    if (!m.mimic_of[i].empty()) fmt::print("coupling: {} (URDF mimic)\n", coupling_text(m, i));
  }
}

void print_frames(const Model &m) {
  fmt::print("\nframes (every URDF link; offset ^body H_frame as xyz [m], rpy [rad]):\n");
  std::vector<std::vector<std::string>> rows;
  for (const auto &f : m.frames) {
    rows.push_back({f.name, fmt::format("{} ({})", f.body, m.body_name[f.body]), vec3_text(f.H.o),
                    vec3_text(rpy(f.H.R))});
  }
  print_table({"frame", "body", "xyz", "rpy"}, rows);
}

void print_text(const LoadedModel &lm) {
  fmt::print("model: {}\n", model_summary(lm));
  print_bodies(lm.model);
  print_totals(lm.model);
  print_frames(lm.model);
}

void print_json_info(const LoadedModel &lm) {
  const Model &m = lm.model;
  Json doc = model_json(lm);
  doc["total_mass"] = m.total_mass();
  Json bodies = Json::array();
  for (int i = 0; i <= m.n_B; ++i) {
    Json b;
    b["index"] = i;
    b["name"] = m.body_name[i];
    b["parent"] = m.parent[i];
    b["children"] = m.children[i];
    b["mass"] = m.mass[i];
    b["com"] = vector_json(m.com[i]);
    if (i > 0) {
      b["joint"] = m.joint_name[i];
      b["joint_type"] = joint_type_name(m.joint_type[i]);
      b["axis"] = vector_json(m.joint_axis[i]);
      b["armature"] = m.armature[i - 1];
      b["mimic_of"] = m.mimic_of[i].empty() ? Json() : Json(m.mimic_of[i]);
    }
    bodies.push_back(std::move(b));
  }
  doc["bodies"] = bodies;
  Json couplings = Json::array();  // the URDF's <mimic>s: s[joint] = ratio s[source] + offset
  for (int i = 1; i <= m.n_B; ++i) {
    if (m.mimic_of[i].empty()) continue;
    couplings.push_back({{"joint", m.joint_name[i]},
                         {"source", m.mimic_of[i]},
                         {"ratio", m.mimic_multiplier[i]},
                         {"offset", m.mimic_offset[i]},
                         {"from", "URDF mimic"}});
  }
  doc["couplings"] = couplings;
  Json frames = Json::array();
  for (const auto &f : m.frames) {
    frames.push_back({{"name", f.name}, {"body", f.body}, {"H", matrix_json(f.H.matrix())}});
  }
  doc["frames"] = frames;
  print_json(doc);
}

struct InfoOptions {
  Args args;
  Format format = Format::Text;
  bool dot = false;  // --dot: a Graphviz graph
};

InfoOptions parse_info_options(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.add_flags(kModelFlags).add_flags({"--dot"});
  spec.options = {"--format"};
  spec.add_options(kModelOptions);
  InfoOptions o;
  o.args = parse_args(argv, spec);
  o.format = parse_format(o.args, {Format::Text, Format::Json});
  o.dot = o.args.flag("--dot");
  if (o.dot && o.args.has("--format")) throw UsageError("--dot and --format exclude each other");
  return o;
}

}  // namespace

int cmd_info(const std::vector<std::string> &argv) {
  const InfoOptions o = parse_info_options(argv);
  const LoadedModel lm = load_model(o.args);
  if (o.dot) {
    print_dot(lm);
  } else if (o.format == Format::Json) {
    print_json_info(lm);
  } else {
    print_text(lm);
  }
  return kExitOk;
}

}  // namespace geolin::cli
