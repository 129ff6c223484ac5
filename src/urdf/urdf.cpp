// URDF loader: reads the XML, checks the URDF and builds the tree model of docs/dynamics.md §2
// (Bos et al. 2022, §2.1), merging fixed joints.
//
// One reader decides the structure. geolin's own XML reader (xml.hpp) is the only code that
// reads the raw text: it builds the element tree once (iteratively, depth-limited), refusing
// every construct it does not read exactly. All checks below -- one <robot>, no xacro, the
// joint tree (duplicates, unknown links, roots, cycles), mimic joints, numbers -- run on that
// tree, and urdfdom, which parses the values, is then given a canonical document written from
// the same tree (Document::canonical: elements and attributes only, values escaped, numbers
// with their whitespace collapsed; only the <robot>'s <link>, <joint> and <material> subtrees,
// which is all urdfdom reads). urdfdom can therefore only ever see what was checked: a
// declaration, comment, DOCTYPE or processing instruction cannot hide an element from one
// reader and show it to the other.
// After urdfdom, the link and joint counts are compared with the tree's (a difference would
// be a bug: Status::Internal).
//
// urdfdom stores links and joints in std::map (sorted by name) and so loses the file order;
// the element tree gives it (children in URDF order). All traversals are iterative.
//
// Files: regular files only, opened non-blocking and checked with fstat on the open
// descriptor (a FIFO or device is refused without blocking or reading), at most
// kMaxUrdfFileBytes (model.hpp). An allocation failure while loading becomes Status::Memory.
//
// Nothing is printed: urdfdom's console_bridge output is captured into the error message (the
// handler is process-global; the mutex serializes geolin's own loads, a host that logs through
// console_bridge from another thread during a load would have those lines captured too).
// Inertia checks: mass >= 0 and finite, tensor finite and positive semidefinite (to a tolerance
// relative to the link's own moments and mass, kInertiaTolerance); a violation of the triangle
// inequality is refused when significant at the model's scale, and always with kStrictInertia
// (model.hpp explains why).
//
// Numbers: every number urdfdom reads is checked here first (check_numbers: decimal, finite,
// bounded); the canonical document gives urdfdom those values with their XML whitespace
// collapsed (is_number_attribute), so mass=" 2 " loads as mass="2" (xs:double allows
// surrounding whitespace) while "1,5", "0x10", "1e", "nan", "inf" and "" are still refused.
#include <console_bridge/console.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "geolin/model.hpp"
#include "geolin/status.hpp"
#include "xml.hpp"

namespace geolin {
namespace {

// ---------------------------------------------------------------------------------------------
// console_bridge capture: urdfdom reports through console_bridge, which prints to the host's
// stderr by default. The handler is process-global, so installing ours is serialized by a
// mutex; the previous handler and log level are restored on every exit path (RAII).
class CapturingHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string &text, console_bridge::LogLevel level, const char *, int) override {
    if (level < console_bridge::CONSOLE_BRIDGE_LOG_WARN) return;
    if (!text_.empty()) text_ += "; ";
    text_ += text;
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) had_error_ = true;
  }
  const std::string &text() const { return text_; }
  bool had_error() const { return had_error_; }

 private:
  std::string text_;
  bool had_error_ = false;
};

std::mutex &console_mutex() {
  static std::mutex mutex;
  return mutex;
}

class ConsoleCapture {
 public:
  explicit ConsoleCapture(CapturingHandler &handler)
      : lock_(console_mutex()),
        previous_(console_bridge::getOutputHandler()),
        previous_level_(console_bridge::getLogLevel()) {
    console_bridge::useOutputHandler(&handler);
    console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_WARN);
  }
  ~ConsoleCapture() {
    console_bridge::setLogLevel(previous_level_);
    console_bridge::useOutputHandler(previous_);
  }
  ConsoleCapture(const ConsoleCapture &) = delete;
  ConsoleCapture &operator=(const ConsoleCapture &) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
  console_bridge::OutputHandler *previous_;
  console_bridge::LogLevel previous_level_;
};

// ---------------------------------------------------------------------------------------------
// The structure of the URDF as written in the file (names and order only), read from the tree
// of the XML reader (xml.hpp).
using xml::Document;

// Nesting limit of the XML reader. Real URDFs nest fewer than 20 levels; urdfdom's parser
// (TinyXML) reads and frees the canonical document recursively, a few stack frames per level.
constexpr int kMaxElementDepth = 256;

// Peak memory of a load relative to the document's size, quoted by the Status::Memory message
// (measured: 0.8 GB peak resident memory for `geolin info` on a generated 100000-body chain of
// 38 MB; urdfdom's objects are most of it).
constexpr int kLoadMemoryFactor = 20;

struct ScanLink {
  std::string name;
  int element = -1;
  int parent_joint = -1;          // joint index, -1 for a root
  std::vector<int> child_joints;  // in file order
};

struct ScanJoint {
  std::string name, type, parent, child;
  std::string mimic;  // the <mimic joint=...> target, "" without <mimic>
  int element = -1;
  int parent_link = -1, child_link = -1;
};

struct ScanRobot {
  std::vector<ScanLink> links;
  std::vector<ScanJoint> joints;
  int root = -1;
};

// Link or joint name -> its index in ScanRobot::links or ::joints.
using NameIndex = std::unordered_map<std::string, int>;

std::string quoted_list(const std::vector<std::string> &names, size_t max_names = 5) {
  std::string out;
  for (size_t k = 0; k < names.size() && k < max_names; ++k) {
    if (k) out += ", ";
    out += "'" + names[k] + "'";
  }
  if (names.size() > max_names) out += fmt::format(" and {} more", names.size() - max_names);
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Largest magnitude accepted for masses, inertia entries, lengths and damping. No robot comes
// near it, and it keeps the products the model and the dynamics form (m |o|^2, I + m |c|^2,
// m g h, d r) far from overflow: a mass or offset of 1e308 is finite but turns the mass matrix
// or the gravity force into Inf. Angles (periodic) and joint limits (not used) are not bounded.
constexpr double kMaxMagnitude = 1e100;

// A decimal number as urdfdom reads it (std::istream >> double in the classic locale):
// [+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?
bool is_decimal(std::string_view t) {
  size_t i = 0;
  const size_t n = t.size();
  if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && is_digit(t[i])) ++i, ++digits;
  if (i < n && t[i] == '.') {
    ++i;
    while (i < n && is_digit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    const size_t e0 = i;
    while (i < n && is_digit(t[i])) ++i;
    if (i == e0) return false;
  }
  return i == n;
}

// Every number of attribute `key` of element e (-1: none) must be a decimal number (Status::
// Parse otherwise: "0x10", "1,5", "1e", ...), finite and at most `max_magnitude` in magnitude
// (Status::Model); the value must hold at least one (Status::Parse: "" or only whitespace).
// Numbers are separated by XML whitespace, which may also surround them (canonical() gives
// urdfdom the value collapsed, is_number_attribute). Messages name the link or joint, the
// element and the attribute. Returns the numbers.
std::vector<double> check_numbers(const Document &doc, int e, const char *key, const char *kind,
                                  std::string_view name, const char *what,
                                  double max_magnitude = HUGE_VAL) {
  std::vector<double> numbers;
  if (e < 0) return numbers;
  const std::optional<std::string_view> value = doc.attribute(e, key);
  if (!value) return numbers;
  const std::string_view v = *value;
  for (size_t i = 0; i < v.size();) {
    while (i < v.size() && is_space(v[i])) ++i;
    if (i >= v.size()) break;
    const size_t start = i;
    while (i < v.size() && !is_space(v[i])) ++i;
    const std::string token(v.substr(start, i - start));
    char *end = nullptr;
    const double x = std::strtod(token.c_str(), &end);
    const bool parsed = end == token.c_str() + token.size();
    if (!is_decimal(token) && !(parsed && !std::isfinite(x))) {
      const size_t sign = token[0] == '+' || token[0] == '-' ? 1 : 0;
      const bool hex = token.compare(sign, 2, "0x") == 0 || token.compare(sign, 2, "0X") == 0;
      throw Error(
          Status::Parse,
          fmt::format("URDF parse error: {} '{}': {} is not a decimal number ('{}'{} in "
                      "<{} {}=\"{}\">, {}); URDF numbers are written in decimal, e.g. 16, "
                      "-0.5 or 1e-3",
                      kind, name, what, xml::excerpt(token, 0, 24), hex ? " is hexadecimal" : "",
                      doc.name(e), key, xml::excerpt(v, 0, 60), doc.where(e)));
    }
    if (!std::isfinite(x))
      throw Error(Status::Model,
                  fmt::format("{} '{}': {} is not finite (<{} {}=\"{}\">, {})", kind, name, what,
                              doc.name(e), key, xml::excerpt(v, 0, 60), doc.where(e)));
    if (std::abs(x) > max_magnitude)
      throw Error(Status::Model,
                  fmt::format("{} '{}': {} is too large (<{} {}=\"{}\">, {}; geolin accepts "
                              "magnitudes up to {:g})",
                              kind, name, what, doc.name(e), key, xml::excerpt(v, 0, 60),
                              doc.where(e), max_magnitude));
    numbers.push_back(x);
  }
  if (numbers.empty())
    throw Error(
        Status::Parse,
        fmt::format("URDF parse error: {} '{}': {} has no number (<{} {}=\"{}\">, {}); "
                    "URDF numbers are written in decimal, e.g. 16, -0.5 or 1e-3",
                    kind, name, what, doc.name(e), key, xml::excerpt(v, 0, 60), doc.where(e)));
  return numbers;
}

// The attributes urdfdom reads numbers from, as (element, attribute) names: every attribute
// check_link_numbers, check_joint_numbers and scan_robot check with check_numbers. Their
// values are xs:double or lists of them, whose XML Schema whitespace facet is "collapse": the
// canonical document gives urdfdom these values with leading and trailing whitespace removed
// and inner runs of whitespace as one space (urdfdom's std::istream reading refuses
// mass=" 2 " and its vector reading a tab), the numbers geolin checked and nothing else.
bool is_number_attribute(std::string_view element, std::string_view attribute) {
  static const struct {
    std::string_view element, attribute;
  } kNumberAttributes[] = {
      {"origin", "xyz"},
      {"origin", "rpy"},
      {"axis", "xyz"},
      {"mass", "value"},
      {"inertia", "ixx"},
      {"inertia", "ixy"},
      {"inertia", "ixz"},
      {"inertia", "iyy"},
      {"inertia", "iyz"},
      {"inertia", "izz"},
      {"box", "size"},
      {"cylinder", "radius"},
      {"cylinder", "length"},
      {"sphere", "radius"},
      {"mesh", "scale"},
      {"color", "rgba"},
      {"limit", "lower"},
      {"limit", "upper"},
      {"limit", "effort"},
      {"limit", "velocity"},
      {"dynamics", "damping"},
      {"dynamics", "friction"},
      {"safety_controller", "soft_lower_limit"},
      {"safety_controller", "soft_upper_limit"},
      {"safety_controller", "k_position"},
      {"safety_controller", "k_velocity"},
      {"calibration", "rising"},
      {"calibration", "falling"},
      {"mimic", "multiplier"},
      {"mimic", "offset"},
  };
  for (const auto &a : kNumberAttributes)
    if (a.element == element && a.attribute == attribute) return true;
  return false;
}

// The children of e called `name`, in file order.
std::vector<int> children_named(const Document &doc, int e, std::string_view name) {
  std::vector<int> out;
  for (int c = doc.first_child(e); c >= 0; c = doc.next_sibling(c))
    if (doc.name(c) == name) out.push_back(c);
  return out;
}

// urdfdom reads only the <material>, <link> and <joint> children of <robot> (and its name and
// version attributes): the canonical document it is given holds just those.
bool read_by_urdfdom(std::string_view name) {
  return name == "link" || name == "joint" || name == "material";
}

// The document is one <robot>, without a second <robot> inside it, and without xacro markup
// (Status::Parse): xacro elements or attributes (prefix "xacro:" or any prefix bound to the
// xacro namespace), or "${" / "$(" in the values urdfdom reads. The xmlns:xacro declaration
// itself stays in files xacro has expanded and is not a fault.
void check_document(const Document &doc) {
  const int robot = doc.root();
  if (doc.name(robot) != "robot")
    throw Error(Status::Parse,
                fmt::format("URDF parse error: the root element is <{}>, not <robot> ({}): this "
                            "is not a URDF document",
                            xml::excerpt(doc.name(robot), 0, 40), doc.where(robot)));
  std::vector<std::string> prefixes{"xacro:"};
  for (int e = 0; e < doc.num_elements(); ++e) {
    for (int k = 0; k < doc.num_attributes(e); ++k) {
      const std::string_view key = doc.attribute_name(e, k), value = doc.attribute_value(e, k);
      if (key.substr(0, 6) != "xmlns:" || key.size() == 6) continue;
      const bool xacro_uri = (value.size() >= 6 && value.substr(value.size() - 6) == "/xacro") ||
                             (value.size() >= 7 && value.substr(value.size() - 7) == "/xacro/");
      if (xacro_uri) prefixes.push_back(std::string(key.substr(6)) + ":");
    }
  }
  auto xacro_prefixed = [&](std::string_view name) {
    for (const std::string &p : prefixes)
      if (name.size() > p.size() && name.substr(0, p.size()) == p) return true;
    return false;
  };
  for (int e = 0; e < doc.num_elements(); ++e) {
    if (e != robot && doc.name(e) == "robot")
      throw Error(Status::Parse,
                  fmt::format("URDF parse error: a second <robot> element inside <{}> ({}): a "
                              "URDF describes one robot in one <robot> element",
                              doc.name(doc.parent(e)), doc.where(e)));
    if (xacro_prefixed(doc.name(e)))
      throw Error(Status::Parse,
                  fmt::format("URDF parse error: unexpanded xacro: element <{}> ({}); run xacro "
                              "on the file first (xacro in.urdf.xacro > out.urdf)",
                              xml::excerpt(doc.name(e), 0, 40), doc.where(e)));
    for (int k = 0; k < doc.num_attributes(e); ++k)
      if (xacro_prefixed(doc.attribute_name(e, k)))
        throw Error(
            Status::Parse,
            fmt::format("URDF parse error: unexpanded xacro: attribute '{}' of <{}> ({}); "
                        "run xacro on the file first",
                        xml::excerpt(doc.attribute_name(e, k), 0, 40), doc.name(e), doc.where(e)));
  }
  // "${...}" and "$(...)" in what urdfdom reads: the robot and its link/joint/material trees.
  std::vector<int> stack{robot};
  while (!stack.empty()) {
    const int e = stack.back();
    stack.pop_back();
    for (int k = 0; k < doc.num_attributes(e); ++k) {
      const std::string_view value = doc.attribute_value(e, k);
      const size_t at = std::min(value.find("${"), value.find("$("));
      if (at != std::string_view::npos)
        throw Error(Status::Parse,
                    fmt::format("URDF parse error: unexpanded xacro expression '{}' in attribute "
                                "'{}' of <{}> ({}); run xacro on the file first",
                                xml::excerpt(value, at, 40), doc.attribute_name(e, k), doc.name(e),
                                doc.where(e)));
    }
    for (int c = doc.first_child(e); c >= 0; c = doc.next_sibling(c))
      if (e != robot || read_by_urdfdom(doc.name(c))) stack.push_back(c);
  }
}

// The numbers urdfdom reads from a link, checked (check_numbers) with the link named.
void check_link_numbers(const Document &doc, const ScanLink &link) {
  const int l = link.element;
  const char *kind = "link";
  const int inertial = doc.child(l, "inertial");
  if (inertial >= 0) {
    const int origin = doc.child(inertial, "origin");
    check_numbers(doc, origin, "xyz", kind, link.name, "inertial origin xyz", kMaxMagnitude);
    check_numbers(doc, origin, "rpy", kind, link.name, "inertial origin rpy");
    check_numbers(doc, doc.child(inertial, "mass"), "value", kind, link.name, "mass",
                  kMaxMagnitude);
    const int inertia = doc.child(inertial, "inertia");
    for (const char *key : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"})
      check_numbers(doc, inertia, key, kind, link.name, "inertia tensor", kMaxMagnitude);
  }
  // Visual and collision elements: only their syntax and finiteness matter to geolin.
  for (const char *part : {"visual", "collision"}) {
    for (int v : children_named(doc, l, part)) {
      const int origin = doc.child(v, "origin");
      const std::string what = std::string(part) + " origin";
      check_numbers(doc, origin, "xyz", kind, link.name, (what + " xyz").c_str());
      check_numbers(doc, origin, "rpy", kind, link.name, (what + " rpy").c_str());
      const int geometry = doc.child(v, "geometry");
      if (geometry >= 0) {
        check_numbers(doc, doc.child(geometry, "box"), "size", kind, link.name, "box size");
        const int cylinder = doc.child(geometry, "cylinder");
        check_numbers(doc, cylinder, "radius", kind, link.name, "cylinder radius");
        check_numbers(doc, cylinder, "length", kind, link.name, "cylinder length");
        check_numbers(doc, doc.child(geometry, "sphere"), "radius", kind, link.name,
                      "sphere radius");
        check_numbers(doc, doc.child(geometry, "mesh"), "scale", kind, link.name, "mesh scale");
      }
      const int material = doc.child(v, "material");
      if (material >= 0)
        check_numbers(doc, doc.child(material, "color"), "rgba", kind, link.name,
                      "material color rgba");
    }
  }
}

// The single number of attribute `key` of element e, if it has exactly one (after
// check_numbers).
std::optional<double> single_number(const Document &doc, int e, const char *key) {
  if (e < 0) return std::nullopt;
  const std::optional<std::string_view> value = doc.attribute(e, key);
  if (!value) return std::nullopt;
  const std::string text(*value);
  char *end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  while (*end && is_space(*end)) ++end;
  if (end == text.c_str() || *end) return std::nullopt;
  return x;
}

// The numbers urdfdom reads from a joint (check_numbers), then the values a joint must have:
// lower <= upper (urdfdom's default for a missing bound is 0), effort >= 0, velocity >= 0
// (Status::Model).
void check_joint_numbers(const Document &doc, const ScanJoint &joint) {
  const int j = joint.element;
  const char *kind = "joint";
  const int origin = doc.child(j, "origin");
  check_numbers(doc, origin, "xyz", kind, joint.name, "origin xyz", kMaxMagnitude);
  check_numbers(doc, origin, "rpy", kind, joint.name, "origin rpy");
  check_numbers(doc, doc.child(j, "axis"), "xyz", kind, joint.name, "axis");
  static const struct {
    const char *element, *key, *what;
    double max_magnitude;
  } kJointNumbers[] = {
      {"limit", "lower", "limit lower", HUGE_VAL},
      {"limit", "upper", "limit upper", HUGE_VAL},
      {"limit", "effort", "limit effort", HUGE_VAL},
      {"limit", "velocity", "limit velocity", HUGE_VAL},
      {"dynamics", "damping", "damping", kMaxMagnitude},
      {"dynamics", "friction", "friction", HUGE_VAL},
      {"safety_controller", "soft_lower_limit", "safety_controller soft_lower_limit", HUGE_VAL},
      {"safety_controller", "soft_upper_limit", "safety_controller soft_upper_limit", HUGE_VAL},
      {"safety_controller", "k_position", "safety_controller k_position", HUGE_VAL},
      {"safety_controller", "k_velocity", "safety_controller k_velocity", HUGE_VAL},
      {"calibration", "rising", "calibration rising", HUGE_VAL},
      {"calibration", "falling", "calibration falling", HUGE_VAL},
      {"mimic", "multiplier", "mimic multiplier", HUGE_VAL},
      {"mimic", "offset", "mimic offset", HUGE_VAL},
  };
  for (const auto &n : kJointNumbers)
    check_numbers(doc, doc.child(j, n.element), n.key, kind, joint.name, n.what, n.max_magnitude);
  const int limit = doc.child(j, "limit");
  if (limit < 0) return;
  const std::optional<double> lower = single_number(doc, limit, "lower");
  const std::optional<double> upper = single_number(doc, limit, "upper");
  if ((!doc.attribute(limit, "lower") || lower) && (!doc.attribute(limit, "upper") || upper)) {
    const double lo = lower.value_or(0.0), hi = upper.value_or(0.0);
    if (lo > hi)
      throw Error(Status::Model,
                  fmt::format("joint '{}': limit lower ({:g}{}) is greater than limit upper "
                              "({:g}{}) ({})",
                              joint.name, lo, lower ? "" : ", the default", hi,
                              upper ? "" : ", the default", doc.where(limit)));
  }
  for (const char *key : {"effort", "velocity"}) {
    const std::optional<double> x = single_number(doc, limit, key);
    if (x && *x < 0.0)
      throw Error(Status::Model, fmt::format("joint '{}': limit {} is negative ({:g}, {})",
                                             joint.name, key, *x, doc.where(limit)));
  }
}

// Mimic joints (<mimic joint="target"/>) are loaded as independent joints; the element must
// still make sense: a target that exists, is not the joint itself, is not fixed, and no cycle
// of mimics (Status::Model). A fixed joint may carry a <mimic> (talos_reduced.urdf does): it
// has no position, and nothing follows from it.
void check_mimics(const ScanRobot &robot, const NameIndex &index) {
  const size_t n = robot.joints.size();
  std::vector<int> target(n, -1);
  for (size_t j = 0; j < n; ++j) {
    const ScanJoint &joint = robot.joints[j];
    if (joint.mimic.empty()) continue;
    if (joint.mimic == joint.name)
      throw Error(Status::Model, fmt::format("joint '{}' mimics itself", joint.name));
    const auto t = index.find(joint.mimic);
    if (t == index.end())
      throw Error(Status::Model, fmt::format("joint '{}' mimics joint '{}', which does not exist",
                                             joint.name, joint.mimic));
    if (robot.joints[t->second].type == "fixed")
      throw Error(Status::Model,
                  fmt::format("joint '{}' mimics joint '{}', which is fixed (it has no position "
                              "to follow)",
                              joint.name, joint.mimic));
    target[j] = t->second;
  }
  // Each joint has at most one target: follow the chains, marking joints on the current chain.
  std::vector<char> state(n, 0);  // 0 unvisited, 1 on the current chain, 2 done
  std::vector<int> chain;
  for (size_t start = 0; start < n; ++start) {
    if (state[start]) continue;
    chain.clear();
    int k = static_cast<int>(start);
    while (k >= 0 && state[k] == 0) {
      state[k] = 1;
      chain.push_back(k);
      k = target[k];
    }
    if (k >= 0 && state[k] == 1) {
      std::string cycle;
      const auto from = std::find(chain.begin(), chain.end(), k);
      for (auto c = from; c != chain.end(); ++c) cycle += "'" + robot.joints[*c].name + "' -> ";
      cycle += "'" + robot.joints[k].name + "'";
      throw Error(Status::Model,
                  fmt::format("joints mimic each other in a cycle ({}): a mimic joint must "
                              "follow a joint that does not depend on it",
                              cycle));
    }
    for (int c : chain) state[c] = 2;
  }
}

// One <link> child of <robot>: its name and element. `number` (1-based, file order) names a
// link without a name attribute (Status::Parse).
ScanLink read_link_element(const Document &doc, int c, size_t number) {
  const std::optional<std::string_view> name = doc.attribute(c, "name");
  if (!name)
    throw Error(Status::Parse,
                fmt::format("URDF parse error: link number {} has no name attribute ({})", number,
                            doc.where(c)));
  ScanLink link;
  link.name = std::string(*name);
  link.element = c;
  return link;
}

// One <joint> child of <robot>: name, type, parent and child link names, the <mimic> target.
// `number` (1-based, file order) names a joint without a name attribute. Throws Status::Parse
// for a missing required attribute or element, or a <mimic> without a joint attribute.
ScanJoint read_joint_element(const Document &doc, int c, size_t number) {
  const std::optional<std::string_view> name = doc.attribute(c, "name");
  const std::optional<std::string_view> type = doc.attribute(c, "type");
  const int parent = doc.child(c, "parent");
  const int child = doc.child(c, "child");
  const char *missing = !name                            ? "a name attribute"
                        : !type                          ? "a type attribute"
                        : parent < 0                     ? "a <parent> element"
                        : !doc.attribute(parent, "link") ? "a <parent link=...> attribute"
                        : child < 0                      ? "a <child> element"
                        : !doc.attribute(child, "link")  ? "a <child link=...> attribute"
                                                         : nullptr;
  if (missing)
    throw Error(Status::Parse, fmt::format("URDF parse error: joint {} has no {} ({})",
                                           name ? "'" + std::string(*name) + "'"
                                                : fmt::format("number {}", number),
                                           missing, doc.where(c)));
  ScanJoint joint;
  joint.name = std::string(*name);
  joint.type = std::string(*type);
  joint.parent = std::string(*doc.attribute(parent, "link"));
  joint.child = std::string(*doc.attribute(child, "link"));
  joint.element = c;
  const int mimic = doc.child(c, "mimic");
  if (mimic >= 0) {
    const std::optional<std::string_view> target = doc.attribute(mimic, "joint");
    if (!target || target->empty())
      throw Error(Status::Parse,
                  fmt::format("URDF parse error: joint '{}': <mimic> has no joint attribute "
                              "naming the joint it follows ({})",
                              joint.name, doc.where(mimic)));
    joint.mimic = std::string(*target);
  }
  return joint;
}

// The <link> and <joint> children of <robot>, in file order. Reads the document; writes
// out.links, out.joints and the name -> index maps. Throws Status::Model for a name defined
// twice and Status::Parse for a robot without links (or a link or joint that lacks a required
// attribute).
void collect_links_and_joints(const Document &doc, ScanRobot &out, NameIndex &link_index,
                              NameIndex &joint_index) {
  const int robot = doc.root();
  for (int c = doc.first_child(robot); c >= 0; c = doc.next_sibling(c)) {
    if (doc.name(c) == "link") {
      ScanLink link = read_link_element(doc, c, out.links.size() + 1);
      if (!link_index.emplace(link.name, static_cast<int>(out.links.size())).second)
        throw Error(Status::Model, fmt::format("link '{}' is defined more than once ({})",
                                               link.name, doc.where(c)));
      out.links.push_back(std::move(link));
    } else if (doc.name(c) == "joint") {
      ScanJoint joint = read_joint_element(doc, c, out.joints.size() + 1);
      if (!joint_index.emplace(joint.name, static_cast<int>(out.joints.size())).second)
        throw Error(Status::Model, fmt::format("joint '{}' is defined more than once ({})",
                                               joint.name, doc.where(c)));
      out.joints.push_back(std::move(joint));
    }
  }
  if (out.links.empty())
    throw Error(Status::Parse, fmt::format("URDF parse error: <robot> ({}) has no <link> element",
                                           doc.where(robot)));
}

// The numbers of every link, joint and top-level material (check_link_numbers,
// check_joint_numbers, check_numbers), and the joint types geolin models: Status::Unsupported
// for planar and floating joints. Reads the document and the scanned links and joints.
void check_scanned_numbers(const Document &doc, const ScanRobot &robot) {
  for (const ScanLink &link : robot.links) check_link_numbers(doc, link);
  for (const ScanJoint &joint : robot.joints) {
    check_joint_numbers(doc, joint);
    if (joint.type == "planar" || joint.type == "floating")
      throw Error(Status::Unsupported,
                  fmt::format("joint '{}' is of type {}, which geolin does not model (only "
                              "revolute, continuous, prismatic and fixed joints)",
                              joint.name, joint.type));
  }
  for (int m : children_named(doc, doc.root(), "material"))
    check_numbers(doc, doc.child(m, "color"), "rgba", "material",
                  doc.attribute(m, "name").value_or(""), "color rgba");
}

// The links of each joint and the parent joint and child joints of each link. Reads the link
// and joint names; writes ScanJoint::parent_link/child_link and ScanLink::parent_joint/
// child_joints. Throws Status::Model for an unknown link, a link with two parent joints or a
// joint from a link to itself.
void connect_joints(ScanRobot &out, const NameIndex &link_index) {
  for (size_t j = 0; j < out.joints.size(); ++j) {
    ScanJoint &joint = out.joints[j];
    auto p = link_index.find(joint.parent);
    if (p == link_index.end())
      throw Error(Status::Model, fmt::format("joint '{}': parent link '{}' does not exist",
                                             joint.name, joint.parent));
    auto c = link_index.find(joint.child);
    if (c == link_index.end())
      throw Error(Status::Model, fmt::format("joint '{}': child link '{}' does not exist",
                                             joint.name, joint.child));
    joint.parent_link = p->second;
    joint.child_link = c->second;
    ScanLink &child = out.links[c->second];
    if (child.parent_joint >= 0)
      throw Error(Status::Model,
                  fmt::format("link '{}' is the child of two joints ('{}' and '{}'): the URDF "
                              "is not a tree",
                              child.name, out.joints[child.parent_joint].name, joint.name));
    if (joint.parent_link == joint.child_link)
      throw Error(Status::Model,
                  fmt::format("joint '{}' connects link '{}' to itself", joint.name, joint.child));
    child.parent_joint = static_cast<int>(j);
    out.links[p->second].child_joints.push_back(static_cast<int>(j));
  }
}

// The single root link (no parent joint). Reads ScanLink::parent_joint; writes out.root.
// Throws Status::Model for no root (a cycle) or several roots (naming them).
void find_root(ScanRobot &out) {
  std::vector<std::string> roots;
  for (size_t l = 0; l < out.links.size(); ++l) {
    if (out.links[l].parent_joint < 0) {
      if (out.root < 0) out.root = static_cast<int>(l);
      roots.push_back(out.links[l].name);
    }
  }
  if (roots.empty())
    throw Error(Status::Model,
                "no root link: every link is the child of a joint (the joints "
                "form a cycle)");
  if (roots.size() > 1)
    throw Error(Status::Model, fmt::format("the URDF has {} root links ({}); a tree has one",
                                           roots.size(), quoted_list(roots)));
}

// Every link is reachable from the root (a cycle not through the root leaves links
// unreached). Reads the connected links and joints. Throws Status::Model naming the unreached
// links.
void check_reachable(const ScanRobot &robot) {
  std::vector<char> seen(robot.links.size(), 0);
  std::vector<int> stack{robot.root};
  size_t reached = 0;
  while (!stack.empty()) {
    const int l = stack.back();
    stack.pop_back();
    if (seen[l]) continue;
    seen[l] = 1;
    ++reached;
    for (int j : robot.links[l].child_joints) stack.push_back(robot.joints[j].child_link);
  }
  if (reached == robot.links.size()) return;
  std::vector<std::string> lost;
  for (size_t l = 0; l < robot.links.size(); ++l)
    if (!seen[l]) lost.push_back(robot.links[l].name);
  throw Error(Status::Model,
              fmt::format("links {} are not connected to the root link '{}': their joints "
                          "form a cycle",
                          quoted_list(lost), robot.links[robot.root].name));
}

// Build the file structure and check it is a tree (docs/dynamics.md §2). Throws Status::Model for
// duplicate names, unknown links, several or no roots, cycles, bad mimics and bad numbers,
// Status::Unsupported for planar and floating joints, and Status::Parse when a link or joint
// lacks a required attribute or the robot has no link. The steps run in this order (the
// messages of a file with several faults depend on it).
void scan_robot(const Document &doc, ScanRobot &out) {
  NameIndex link_index, joint_index;
  collect_links_and_joints(doc, out, link_index, joint_index);
  check_scanned_numbers(doc, out);
  connect_joints(out, link_index);
  find_root(out);
  check_reachable(out);
  check_mimics(out, joint_index);
}

// ---------------------------------------------------------------------------------------------
Transform to_transform(const urdf::Pose &pose) {
  Transform T;
  const Eigen::Quaterniond q(pose.rotation.w, pose.rotation.x, pose.rotation.y, pose.rotation.z);
  const double norm = q.norm();
  T.R = (norm > 0.0 ? Eigen::Quaterniond(q.coeffs() / norm) : Eigen::Quaterniond::Identity())
            .toRotationMatrix();
  T.o = Vec3(pose.position.x, pose.position.y, pose.position.z);
  return T;
}

bool pose_is_finite(const urdf::Pose &p) {
  return std::isfinite(p.position.x) && std::isfinite(p.position.y) &&
         std::isfinite(p.position.z) && std::isfinite(p.rotation.x) &&
         std::isfinite(p.rotation.y) && std::isfinite(p.rotation.z) && std::isfinite(p.rotation.w);
}

// Tolerance of the inertia checks of a link of mass m and principal moments l:
//   kInertiaTolerance |l|_1 + m kInertiaFloorLength^2,
// relative 1e-4 (URDF inertias are often printed with 4-6 digits), with a floor for round-off
// in zero tensors (point masses) relative to the link's own mass: the inertia of its mass at
// 1 um. CAD tools compute such tensors as differences of terms of order m L^2 (L the offset
// between their frames, below 1 m for robot parts), so their round-off is below 1e-15 m;
// icub.urdf has moments of +-1.4e-20 and -5.4e-20 kg m^2 on links of 0.27-0.53 kg
// (m (1 um)^2 = 2.7e-13). The floor matters only for parts with a radius of gyration below
// ~70 um (above it the relative term is larger), so it cannot let a negative moment of a real
// part through, however light: an insect-scale link of 5 mg with moments of 1e-12 kg m^2 gets a
// floor of 5e-18, and a moment of -6e-13 is refused. A massless link has no floor: only the
// relative term.
constexpr double kInertiaTolerance = 1e-4;
constexpr double kInertiaFloorLength = 1e-6;  // m

// Mass m, centre of mass c and I_c (about c, link axes) of one URDF link; checks physical
// consistency: m >= 0, I_c positive semidefinite, and principal moments obeying the triangle
// inequality I1 + I2 >= I3 (RBDA §2.13; a rigid body satisfies it since
// I1 + I2 - I3 = 2 ∫ z'^2 dm >= 0 in principal axes). Real CAD exports break the triangle
// inequality on small links (e.g. the public anymal, hyq, icub and talos URDFs, by up to 2x
// of the link's own inertia); such a violation is tolerated when its excess is below kTriangleSlack
// x the model's inertia scale (the largest moment of any link), and refused otherwise — or always,
// with kStrictInertia.
constexpr double kTriangleSlack = 0.05;

void link_inertia(const std::string &name, const urdf::Inertial *in, bool strict,
                  double model_scale, double &m, Vec3 &c, Mat3 &I_c) {
  m = 0.0;
  c.setZero();
  I_c.setZero();
  if (!in) return;
  auto owner = [&name] { return fmt::format("link '{}'", name); };
  if (!std::isfinite(in->mass))
    throw Error(Status::Model, fmt::format("{}: mass is not finite", owner()));
  if (in->mass < 0.0)
    throw Error(Status::Model, fmt::format("{}: mass is negative ({})", owner(), in->mass));
  if (!pose_is_finite(in->origin))
    throw Error(Status::Model, fmt::format("{}: inertial origin is not finite", owner()));
  Mat3 I;
  I << in->ixx, in->ixy, in->ixz, in->ixy, in->iyy, in->iyz, in->ixz, in->iyz, in->izz;
  if (!I.allFinite())
    throw Error(Status::Model, fmt::format("{}: inertia tensor is not finite", owner()));
  Vec3 l;  // principal moments, ascending
  if (in->ixy == 0.0 && in->ixz == 0.0 && in->iyz == 0.0) {
    l = I.diagonal();
    std::sort(l.data(), l.data() + 3);
  } else {
    l = Eigen::SelfAdjointEigenSolver<Mat3>(I, Eigen::EigenvaluesOnly).eigenvalues();
  }
  const double tol = kInertiaTolerance * l.cwiseAbs().sum() +
                     in->mass * (kInertiaFloorLength * kInertiaFloorLength);
  if (l(0) < -tol)
    throw Error(Status::Model,
                fmt::format("{}: inertia tensor is not positive semidefinite (principal moments "
                            "{:g}, {:g}, {:g})",
                            owner(), l(0), l(1), l(2)));
  const double slack = strict ? tol : tol + kTriangleSlack * model_scale;
  if (l(0) + l(1) < l(2) - slack)
    throw Error(Status::Model,
                fmt::format("{}: inertia tensor violates the triangle inequality (principal "
                            "moments {:g} + {:g} < {:g})",
                            owner(), l(0), l(1), l(2)));
  const Transform T = to_transform(in->origin);
  m = in->mass;
  c = T.o;
  I_c = T.R * I * T.R.transpose();  // docs/dynamics.md §1: I_c = R_rpy I_urdf R_rpy^T
}

JointType moving_joint_type(const urdf::Joint &joint) {
  switch (joint.type) {
    case urdf::Joint::REVOLUTE:
      return JointType::Revolute;
    case urdf::Joint::CONTINUOUS:
      return JointType::Continuous;
    case urdf::Joint::PRISMATIC:
      return JointType::Prismatic;
    default:
      throw Error(Status::Unsupported,
                  fmt::format("joint '{}' has a type geolin does not model", joint.name));
  }
}

// Per-body accumulator of merged link inertias: mass, first moment and rotational inertia
// about the body frame origin (parallel-axis theorem, RBDA §2.13).
struct InertiaSum {
  double m = 0.0;
  Vec3 mc = Vec3::Zero();
  Mat3 I_O = Mat3::Zero();

  // H = ^{body} H_link; `identity` skips the transform for the body's own link (hot path).
  void add(const Transform &H, bool identity, double m_k, const Vec3 &c_k, const Mat3 &Ic_k) {
    if (m_k == 0.0 && Ic_k.isZero(0.0)) return;
    const Vec3 c = identity ? c_k : H.apply(c_k);
    const Mat3 C = hat(c);
    m += m_k;
    mc += m_k * c;
    if (identity) {
      I_O += Ic_k;
    } else {
      I_O += H.R * Ic_k * H.R.transpose();
    }
    I_O -= m_k * C * C;
  }
  void result(double &mass, Vec3 &com, Mat3 &I_c) const {
    mass = m;
    com = m > 0.0 ? Vec3(mc / m) : Vec3::Zero();
    const Mat3 C = hat(com);
    I_c = I_O + m * C * C;
    I_c = 0.5 * (I_c + I_c.transpose()).eval();
  }
};

// The model's inertia scale: the largest diagonal moment of any link (finite ones only; the
// per-link checks of link_inertia report the others). Reads urdfdom's link inertials.
double model_inertia_scale(const urdf::ModelInterface &urdf_model) {
  double inertia_scale = 0.0;
  for (const auto &entry : urdf_model.links_) {
    const urdf::Inertial *in = entry.second ? entry.second->inertial.get() : nullptr;
    if (!in) continue;
    for (double d : {in->ixx, in->iyy, in->izz})
      if (std::isfinite(d)) inertia_scale = std::max(inertia_scale, std::abs(d));
  }
  return inertia_scale;
}

// The direction of a moving joint's axis (not yet normalized, but of magnitude at most 1).
// Throws Status::Model naming the joint for a non-finite or zero axis.
Vec3 joint_axis_direction(const urdf::Joint &joint) {
  Vec3 axis(joint.axis.x, joint.axis.y, joint.axis.z);
  if (!axis.allFinite())
    throw Error(Status::Model, fmt::format("joint '{}': axis is not finite", joint.name));
  // Only the direction matters: scale large axes down first, so that the norm of, e.g.,
  // (0, 0, 1e308) does not overflow (its normalization would give a zero axis).
  const double largest = axis.cwiseAbs().maxCoeff();
  if (largest > 1.0) axis /= largest;
  if (!(axis.norm() > 1e-12))
    throw Error(Status::Model, fmt::format("joint '{}': axis is zero", joint.name));
  return axis;
}

// The Model under construction by build_model: the bodies found so far and, per URDF link
// (ScanRobot order), its body and its pose in that body's frame.
struct ModelBuilder {
  Model model;
  std::vector<InertiaSum> sums;        // per body: the merged inertias of its links
  std::vector<int> body_of;            // per link: its body, -1 before it is reached
  std::vector<Transform> H_body_link;  // per link: ^{body} H_link

  // Appends a body named after its link; returns its index.
  int add_body(const std::string &link_name) {
    model.body_name.push_back(link_name);
    sums.emplace_back();
    return static_cast<int>(model.body_name.size()) - 1;
  }
  // Entry 0 of the joint arrays, unused (body 0 has no joint).
  void add_base_joint_entry() {
    model.parent.push_back(-1);
    model.joint_name.emplace_back();
    model.joint_type.push_back(JointType::Revolute);
    model.joint_axis.push_back(Vec3::UnitX());
    model.H_parent_joint.push_back(Transform::identity());
    model.damping.push_back(0.0);
    model.mimic_of.emplace_back();
    model.mimic_multiplier.push_back(1.0);
    model.mimic_offset.push_back(0.0);
  }
};

// Appends the body of link `l` reached through the moving joint `joint` from a body `parent`,
// with H = ^{parent} H_joint. Writes the joint arrays of the model and body_of[l],
// H_body_link[l]. Throws Status::Unsupported for a joint type geolin does not model and
// Status::Model for a bad axis or a non-finite damping.
void add_moving_joint(ModelBuilder &b, int l, const std::string &link_name,
                      const urdf::Joint &joint, int parent, const Transform &H) {
  const JointType type = moving_joint_type(joint);
  const Vec3 axis = joint_axis_direction(joint);
  b.body_of[l] = b.add_body(link_name);
  b.H_body_link[l] = Transform::identity();
  Model &model = b.model;
  model.parent.push_back(parent);
  model.joint_name.push_back(joint.name);
  model.joint_type.push_back(type);
  model.joint_axis.push_back(axis.normalized());
  model.H_parent_joint.push_back(H);
  model.damping.push_back(joint.dynamics ? joint.dynamics->damping : 0.0);
  model.mimic_of.push_back(joint.mimic ? joint.mimic->joint_name : std::string());
  model.mimic_multiplier.push_back(joint.mimic ? joint.mimic->multiplier : 1.0);
  model.mimic_offset.push_back(joint.mimic ? joint.mimic->offset : 0.0);
  if (!std::isfinite(model.damping.back()))
    throw Error(Status::Model, fmt::format("joint '{}': damping is not finite", joint.name));
}

// Places link `l` (its parent link already placed): a root starts body 0, a link under a
// fixed joint joins its parent's body, a link under a moving joint starts a new body
// (add_moving_joint). Reads urdfdom's joint; writes body_of[l] and H_body_link[l]. Throws
// Status::Model for a non-finite joint origin, Status::Internal if urdfdom lacks the joint.
void place_link(ModelBuilder &b, const urdf::ModelInterface &urdf_model, const ScanRobot &scan,
                int l) {
  const ScanLink &slink = scan.links[l];
  if (slink.parent_joint < 0) {
    b.body_of[l] = b.add_body(slink.name);
    b.H_body_link[l] = Transform::identity();
    return;
  }
  const ScanJoint &sjoint = scan.joints[slink.parent_joint];
  const urdf::JointConstSharedPtr joint = urdf_model.getJoint(sjoint.name);
  if (!joint)
    throw Error(
        Status::Internal,
        fmt::format("joint '{}': urdfdom read its name differently (please report)", sjoint.name));
  if (!pose_is_finite(joint->parent_to_joint_origin_transform))
    throw Error(Status::Model, fmt::format("joint '{}': origin is not finite", joint->name));
  const int p = sjoint.parent_link;
  // ^{body(p)} H_{joint} = ^{body(p)} H_p * ^p H_joint (the URDF joint origin).
  const Transform H = b.H_body_link[p] * to_transform(joint->parent_to_joint_origin_transform);
  if (joint->type == urdf::Joint::FIXED) {
    b.body_of[l] = b.body_of[p];
    b.H_body_link[l] = H;
  } else {
    add_moving_joint(b, l, slink.name, *joint, b.body_of[p], H);
  }
}

// Adds the inertia of placed link `l` to its body and records its frame. Reads urdfdom's link
// (link_inertia checks it); writes sums[body_of[l]] and model.frames[l]. Throws Status::Model
// for a bad inertia, Status::Internal if urdfdom lacks the link.
void add_link_inertia(ModelBuilder &b, const urdf::ModelInterface &urdf_model,
                      const ScanLink &slink, int l, bool strict, double inertia_scale) {
  const urdf::LinkConstSharedPtr link = urdf_model.getLink(slink.name);
  if (!link)
    throw Error(
        Status::Internal,
        fmt::format("link '{}': urdfdom read its name differently (please report)", slink.name));
  double m;
  Vec3 c;
  Mat3 I_c;
  link_inertia(slink.name, link->inertial.get(), strict, inertia_scale, m, c, I_c);
  const int body = b.body_of[l];
  const bool own_link = b.model.body_name[body] == slink.name;
  b.sums[body].add(b.H_body_link[l], own_link, m, c, I_c);
  b.model.frames[l] = Frame{slink.name, body, b.H_body_link[l]};
}

// Build the Model from urdfdom's values and the file structure (docs/dynamics.md §2). Bodies are
// numbered in depth-first pre-order of the links, children in file order; a link reached
// through a fixed joint joins its parent's body (its frame, its inertia and its children).
// Each link is placed (place_link), then its inertia is added (add_link_inertia); the merged
// inertias become the bodies' mass, com and inertia_com, and finalize_model checks the result.
Model build_model(const urdf::ModelInterface &urdf_model, const ScanRobot &scan, unsigned flags) {
  ModelBuilder b;
  Model &model = b.model;
  model.name = urdf_model.getName();
  model.fixed_base = (flags & kFixedBase) != 0;
  model.joint_damping = (flags & kJointDamping) != 0;
  model.H_A_0 = Transform::identity();
  const size_t n_links = scan.links.size();
  const double inertia_scale = model_inertia_scale(urdf_model);
  const bool strict = (flags & kStrictInertia) != 0;
  b.body_of.assign(n_links, -1);
  b.H_body_link.resize(n_links);
  model.frames.resize(n_links);
  b.add_base_joint_entry();

  std::vector<int> stack{scan.root};
  while (!stack.empty()) {
    const int l = stack.back();
    stack.pop_back();
    const ScanLink &slink = scan.links[l];
    place_link(b, urdf_model, scan, l);
    add_link_inertia(b, urdf_model, slink, l, strict, inertia_scale);
    for (auto j = slink.child_joints.rbegin(); j != slink.child_joints.rend(); ++j)
      stack.push_back(scan.joints[*j].child_link);
  }

  model.n_B = static_cast<int>(model.body_name.size()) - 1;
  const size_t nb = model.body_name.size();
  model.mass.resize(nb);
  model.com.resize(nb);
  model.inertia_com.resize(nb);
  for (size_t i = 0; i < nb; ++i)
    b.sums[i].result(model.mass[i], model.com[i], model.inertia_com[i]);
  finalize_model(model);
  return std::move(b.model);
}

// urdfdom's links keep shared pointers to their children: a long chain would be destroyed
// recursively (one stack frame per link). Cut the links before the model is released.
void release_iteratively(urdf::ModelInterfaceSharedPtr &model) {
  if (!model) return;
  for (auto &entry : model->links_) {
    if (!entry.second) continue;
    entry.second->child_links.clear();
    entry.second->child_joints.clear();
  }
  model.reset();
}

struct UrdfHolder {
  urdf::ModelInterfaceSharedPtr model;
  ~UrdfHolder() { release_iteratively(model); }
};

Model load(std::string_view text, unsigned flags) {
  const Document doc(text, kMaxElementDepth);
  check_document(doc);
  // The structure is checked before urdfdom sees anything: urdfdom links a cycle of joints
  // into a cycle of shared pointers before it detects it, and then leaks it.
  ScanRobot scan;
  scan_robot(doc, scan);

  CapturingHandler handler;
  UrdfHolder urdf_model;
  {
    const std::string canonical = doc.canonical(doc.root(), read_by_urdfdom, is_number_attribute);
    ConsoleCapture capture(handler);
    try {
      urdf_model.model = urdf::parseURDF(canonical);
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &e) {
      urdf_model.model.reset();
      throw Error(Status::Parse, fmt::format("URDF parse error: {}{}{}", handler.text(),
                                             handler.text().empty() ? "" : "; ", e.what()));
    }
  }
  const std::string said = handler.text().empty() ? "(no message)" : handler.text();
  if (!urdf_model.model || handler.had_error())
    throw Error(Status::Parse, fmt::format("URDF parse error: {}", said));
  if (urdf_model.model->links_.size() != scan.links.size() ||
      urdf_model.model->joints_.size() != scan.joints.size())
    throw Error(Status::Internal,
                fmt::format("urdfdom read {} links and {} joints, geolin's XML reader {} and {} "
                            "(please report)",
                            urdf_model.model->links_.size(), urdf_model.model->joints_.size(),
                            scan.links.size(), scan.joints.size()));
  return build_model(*urdf_model.model, scan, flags);
}

// A std::bad_alloc while loading: Status::Memory with the size of the document (the memory a
// load needs grows with it).
Error out_of_memory(size_t bytes) {
  return Error(Status::Memory,
               fmt::format("out of memory while loading a URDF document of {} bytes (a load "
                           "needs memory of the order of {} times the document's size)",
                           bytes, kLoadMemoryFactor));
}

const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The whole content of a regular file of at most kMaxUrdfFileBytes (Status::Io otherwise).
// The file is opened non-blocking (a FIFO without a writer cannot block the open) and its type
// is checked on the opened descriptor (no race between a check and the open).
std::string read_urdf_file(const std::string &path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    throw Error(Status::Io, fmt::format("cannot open URDF file '{}': {}", path,
                                        err == ENOENT ? "no such file" : std::strerror(err)));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    throw Error(Status::Io,
                fmt::format("cannot read URDF file '{}': {}", path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw Error(Status::Io,
                fmt::format("cannot read URDF file '{}': it is {}{}", path, file_kind(st.st_mode),
                            S_ISDIR(st.st_mode) ? ""
                                                : "; geolin reads URDF from regular files only "
                                                  "(read a stream yourself and load the text)"));
  const auto too_large = [&](const std::string &size) {
    return Error(Status::Io, fmt::format("cannot read URDF file '{}': it is {} bytes, more than "
                                         "the {} bytes (64 MiB) geolin reads",
                                         path, size, kMaxUrdfFileBytes));
  };
  if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > kMaxUrdfFileBytes)
    throw too_large(std::to_string(st.st_size));
  // Read to the end (the file may change size after fstat), never more than the limit + 1.
  std::string content(static_cast<size_t>(st.st_size) + 1, '\0');
  size_t total = 0;
  for (;;) {
    if (total == content.size()) {
      if (content.size() > kMaxUrdfFileBytes) throw too_large("more than " + std::to_string(total));
      content.resize(std::min(2 * content.size() + 4096, kMaxUrdfFileBytes + 1));
    }
    const ssize_t got = ::read(fd, &content[total], content.size() - total);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(Status::Io,
                  fmt::format("cannot read URDF file '{}': {}", path, std::strerror(errno)));
    }
    if (got == 0) break;
    total += static_cast<size_t>(got);
  }
  content.resize(total);
  return content;
}

}  // namespace

Model load_urdf_string(const std::string &xml, unsigned flags) {
  try {
    return load(xml, flags);
  } catch (const std::bad_alloc &) {
    throw out_of_memory(xml.size());
  }
}

Model load_urdf_file(const std::string &path, unsigned flags) {
  std::string content;
  try {
    content = read_urdf_file(path);
  } catch (const std::bad_alloc &) {
    throw Error(Status::Memory, fmt::format("out of memory while reading URDF file '{}'", path));
  }
  try {
    return load(content, flags);
  } catch (const Error &e) {
    throw Error(e.status(), fmt::format("{}: {}", path, e.what()));
  } catch (const std::bad_alloc &) {
    const Error e = out_of_memory(content.size());
    throw Error(e.status(), fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace geolin
