// URDF loader: urdfdom parses the file, geolin checks it and builds the tree model of
// docs/dynamics.md §2 (Bos et al. 2022, §2.1), merging fixed joints.
//
// urdfdom stores links and joints in std::map (sorted by name), so it loses the order in which
// joints appear in the file, and it refuses duplicates, several roots and unknown links with
// the same "null model" as malformed XML. A small, non-validating XML scanner (below) therefore
// reads the element structure once more: it gives the file order (children in URDF order) and
// lets the loader tell a structural fault (Status::Model) from a syntax fault (Status::Parse).
// urdfdom remains the parser of every value. All traversals are iterative.
//
// Nothing is printed: urdfdom's console_bridge output is captured into the error message (the
// handler is process-global; the mutex serializes geolin's own loads, a host that logs through
// console_bridge from another thread during a load would have those lines captured too).
// Inertia checks: mass >= 0 and finite, tensor finite and positive semidefinite; the triangle
// inequality only with kStrictInertia (model.hpp explains why).
#include <console_bridge/console.h>
#include <fmt/format.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "geolin/model.hpp"
#include "geolin/status.hpp"

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
// A minimal XML element scanner (elements and attributes only; comments, processing
// instructions, CDATA, DOCTYPE and text are skipped). Iterative, with an explicit stack.
struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<int> children;

  const std::string *attribute(const char *key) const {
    for (const auto &a : attributes)
      if (a.first == key) return &a.second;
    return nullptr;
  }
};

struct XmlDocument {
  std::vector<XmlElement> elements;
  std::vector<int> top;  // top-level elements

  const XmlElement *first_child(const XmlElement &e, const char *name) const {
    for (int c : e.children)
      if (elements[c].name == name) return &elements[c];
    return nullptr;
  }
};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_name_end(char c) {
  return is_space(c) || c == '/' || c == '>' || c == '=';
}

void append_utf8(std::string &out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decode the predefined entities and character references of an attribute value. Returns
// false when the value is not well-formed XML (an undeclared entity, a '&' without ';', a bad
// character reference): TinyXML, urdfdom's parser, would decode such a value differently
// (it drops the '&' of an unknown entity), and the names of the two parses must agree.
bool decode_entities(const std::string &raw, std::string &out) {
  if (raw.find('&') == std::string::npos) {
    out = raw;
    return true;
  }
  out.clear();
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size();) {
    if (raw[i] != '&') {
      out += raw[i++];
      continue;
    }
    const size_t semi = raw.find(';', i);
    if (semi == std::string::npos) return false;
    const std::string ent = raw.substr(i + 1, semi - i - 1);
    if (ent == "lt") {
      out += '<';
    } else if (ent == "gt") {
      out += '>';
    } else if (ent == "amp") {
      out += '&';
    } else if (ent == "quot") {
      out += '"';
    } else if (ent == "apos") {
      out += '\'';
    } else if (ent.size() > 1 && ent[0] == '#') {
      const bool hex = ent[1] == 'x';  // XML allows only the lowercase 'x'
      const std::string digits = ent.substr(hex ? 2 : 1);
      if (digits.empty() || digits.size() > 8) return false;
      for (char c : digits)
        if (!(hex ? std::isxdigit(static_cast<unsigned char>(c))
                  : std::isdigit(static_cast<unsigned char>(c))))
          return false;
      const unsigned long cp = std::strtoul(digits.c_str(), nullptr, hex ? 16 : 10);
      if (cp == 0 || cp > 0x10FFFF) return false;
      append_utf8(out, cp);
    } else {
      return false;
    }
    i = semi + 1;
  }
  return true;
}

bool scan_xml(const std::string &s, XmlDocument &doc) {
  std::vector<int> open;
  const size_t n = s.size();
  size_t i = 0;
  auto starts = [&](size_t at, const char *prefix) {
    return s.compare(at, std::strlen(prefix), prefix) == 0;
  };
  while (i < n) {
    if (s[i] != '<') {
      i = s.find('<', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (starts(i, "<!--")) {
      const size_t j = s.find("-->", i + 4);
      if (j == std::string::npos) return false;
      i = j + 3;
    } else if (starts(i, "<![CDATA[")) {
      const size_t j = s.find("]]>", i + 9);
      if (j == std::string::npos) return false;
      i = j + 3;
    } else if (starts(i, "<?") || starts(i, "<!")) {
      // Declarations, processing instructions and DOCTYPE end at the first '>', as in TinyXML
      // (urdfdom's parser): skipping more (a DOCTYPE's internal subset up to "]>") would hide
      // from this scanner elements that urdfdom reads, e.g. a joint closing a cycle.
      const size_t j = s.find('>', i + 2);
      if (j == std::string::npos) return false;
      i = j + 1;
    } else if (starts(i, "</")) {
      const size_t j = s.find('>', i + 2);
      if (j == std::string::npos || open.empty()) return false;
      size_t b = i + 2, e = j;
      while (e > b && is_space(s[e - 1])) --e;
      if (s.compare(b, e - b, doc.elements[open.back()].name) != 0) return false;
      open.pop_back();
      i = j + 1;
    } else {  // start tag
      size_t j = i + 1;
      while (j < n && !is_name_end(s[j])) ++j;
      if (j == i + 1) return false;
      XmlElement element;
      element.name = s.substr(i + 1, j - i - 1);
      bool self_closing = false;
      for (;;) {
        while (j < n && is_space(s[j])) ++j;
        if (j >= n) return false;
        if (s[j] == '>') {
          ++j;
          break;
        }
        if (s[j] == '/') {
          if (j + 1 >= n || s[j + 1] != '>') return false;
          self_closing = true;
          j += 2;
          break;
        }
        const size_t k0 = j;
        while (j < n && !is_name_end(s[j])) ++j;
        if (j == k0) return false;
        std::string key = s.substr(k0, j - k0);
        while (j < n && is_space(s[j])) ++j;
        if (j >= n || s[j] != '=') return false;
        ++j;
        while (j < n && is_space(s[j])) ++j;
        if (j >= n || (s[j] != '"' && s[j] != '\'')) return false;
        const char quote = s[j++];
        const size_t v0 = j;
        j = s.find(quote, j);
        if (j == std::string::npos) return false;
        std::string value;
        if (!decode_entities(s.substr(v0, j - v0), value)) return false;
        element.attributes.emplace_back(std::move(key), std::move(value));
        ++j;
      }
      const int index = static_cast<int>(doc.elements.size());
      if (open.empty()) {
        doc.top.push_back(index);
      } else {
        doc.elements[open.back()].children.push_back(index);
      }
      doc.elements.push_back(std::move(element));
      if (!self_closing) open.push_back(index);
      i = j;
    }
  }
  return open.empty();
}

// TinyXML (urdfdom's XML parser) parses and destroys nested elements recursively, a few stack
// frames per level: a document of ~100000 nested elements (300 kB) overflows an 8 MB stack.
// Real URDFs nest fewer than 20 levels. xml_nesting_bound() over-approximates the depth TinyXML
// would reach -- it follows TinyXML's grammar (an element starts with '<' and a letter, '_' or
// a non-ASCII byte; '<!' and '<?' nodes end at the first '>'; comments and CDATA at their
// terminator; '/' outside quotes in a tag closes it; '</' closes one level) and never skips
// more text than TinyXML does -- and stops counting once past `limit`.
constexpr int kMaxElementDepth = 256;

int xml_nesting_bound(const std::string &s, int limit) {
  const size_t n = s.size();
  int depth = 0, deepest = 0;
  size_t i = 0;
  while (i < n) {
    if (s[i] != '<') {
      ++i;
      continue;
    }
    if (s.compare(i, 4, "<!--") == 0 || s.compare(i, 9, "<![CDATA[") == 0) {
      const bool comment = s[i + 2] == '-';
      const size_t j = s.find(comment ? "-->" : "]]>", i + (comment ? 4 : 9));
      if (j == std::string::npos) break;
      i = j + 3;
    } else if (i + 1 < n && s[i + 1] == '/') {
      if (depth > 0) --depth;
      i += 2;
    } else if (i + 1 < n && (std::isalpha(static_cast<unsigned char>(s[i + 1])) ||
                             s[i + 1] == '_' || static_cast<unsigned char>(s[i + 1]) >= 0x80)) {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) return deepest;
      size_t j = i + 1;
      char quote = 0;
      for (; j < n; ++j) {
        const char c = s[j];
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '/') {  // self-closing (or a syntax error: TinyXML stops there)
          --depth;
          break;
        } else if (c == '>') {
          break;
        }
      }
      i = j + 1;
    } else {  // '<!...', '<?...' and anything else: TinyXML skips to the first '>'
      const size_t j = s.find('>', i + 1);
      if (j == std::string::npos) break;
      i = j + 1;
    }
  }
  return deepest;
}

// ---------------------------------------------------------------------------------------------
// The structure of the URDF as written in the file (names and order only).
struct ScanLink {
  std::string name;
  int element = -1;
  int parent_joint = -1;          // joint index, -1 for a root
  std::vector<int> child_joints;  // in file order
};

struct ScanJoint {
  std::string name, type, parent, child;
  int element = -1;
  int parent_link = -1, child_link = -1;
};

struct ScanRobot {
  std::vector<ScanLink> links;
  std::vector<ScanJoint> joints;
  int root = -1;
};

std::string quoted_list(const std::vector<std::string> &names, size_t max_names = 5) {
  std::string out;
  for (size_t k = 0; k < names.size() && k < max_names; ++k) {
    if (k) out += ", ";
    out += "'" + names[k] + "'";
  }
  if (names.size() > max_names) out += fmt::format(" and {} more", names.size() - max_names);
  return out;
}

// Largest magnitude accepted for masses, inertia entries, lengths and damping. No robot comes
// near it, and it keeps the products the model and the dynamics form (m |o|^2, I + m |c|^2,
// m g h, d r) far from overflow: a mass or offset of 1e308 is finite but turns the mass matrix
// or the gravity force into Inf. Angles (periodic) and joint limits (not used) are not bounded.
constexpr double kMaxMagnitude = 1e100;

// Every number of attribute `key` of `e` must be finite and at most `max_magnitude` in
// magnitude (urdfdom refuses "nan"/"inf" as a syntax error; geolin reports them as a model
// error naming the element).
void check_finite_attribute(const XmlElement *e, const char *key, const char *kind,
                            const std::string &name, const char *what,
                            double max_magnitude = HUGE_VAL) {
  if (!e) return;
  const std::string *value = e->attribute(key);
  if (!value) return;
  const char *p = value->c_str();
  for (;;) {
    while (*p && is_space(*p)) ++p;
    if (!*p) break;
    const char *token = p;
    while (*p && !is_space(*p)) ++p;
    char *end = nullptr;
    const double x = std::strtod(token, &end);
    if (end != p) continue;  // not a number: left to urdfdom
    if (!std::isfinite(x))
      throw Error(Status::Model,
                  fmt::format("{} '{}': {} is not finite ('{}')", kind, name, what, *value));
    if (std::abs(x) > max_magnitude)
      throw Error(Status::Model,
                  fmt::format("{} '{}': {} is too large ('{}'; geolin accepts magnitudes up to "
                              "{:g})",
                              kind, name, what, *value, max_magnitude));
  }
}

// Build the file structure and check it is a tree (docs/dynamics.md §2). Throws Status::Model for
// duplicate names, unknown links, several or no roots, cycles and non-finite numbers, and
// Status::Unsupported for planar and floating joints, Status::Parse when a link or joint lacks
// a required attribute. Returns false when there is no link (left to urdfdom's message).
bool scan_robot(const XmlDocument &doc, const XmlElement &robot, ScanRobot &out) {
  std::unordered_map<std::string, int> link_index, joint_index;
  for (int c : robot.children) {
    const XmlElement &e = doc.elements[c];
    if (e.name == "link") {
      const std::string *name = e.attribute("name");
      if (!name)
        throw Error(Status::Parse,
                    fmt::format("URDF parse error: link number {} has no name attribute",
                                out.links.size() + 1));
      if (!link_index.emplace(*name, static_cast<int>(out.links.size())).second)
        throw Error(Status::Model, fmt::format("link '{}' is defined more than once", *name));
      ScanLink link;
      link.name = *name;
      link.element = c;
      out.links.push_back(std::move(link));
    } else if (e.name == "joint") {
      const std::string *name = e.attribute("name");
      const std::string *type = e.attribute("type");
      const XmlElement *parent = doc.first_child(e, "parent");
      const XmlElement *child = doc.first_child(e, "child");
      const char *missing = !name                        ? "a name attribute"
                            : !type                      ? "a type attribute"
                            : !parent                    ? "a <parent> element"
                            : !parent->attribute("link") ? "a <parent link=...> attribute"
                            : !child                     ? "a <child> element"
                            : !child->attribute("link")  ? "a <child link=...> attribute"
                                                         : nullptr;
      if (missing)
        throw Error(
            Status::Parse,
            fmt::format("URDF parse error: joint {} has no {}",
                        name ? "'" + *name + "'" : fmt::format("number {}", out.joints.size() + 1),
                        missing));
      if (!joint_index.emplace(*name, static_cast<int>(out.joints.size())).second)
        throw Error(Status::Model, fmt::format("joint '{}' is defined more than once", *name));
      ScanJoint joint;
      joint.name = *name;
      joint.type = *type;
      joint.parent = *parent->attribute("link");
      joint.child = *child->attribute("link");
      joint.element = c;
      out.joints.push_back(std::move(joint));
    }
  }

  // Non-finite numbers, named by element.
  for (const ScanLink &link : out.links) {
    const XmlElement *inertial = doc.first_child(doc.elements[link.element], "inertial");
    if (!inertial) continue;
    const XmlElement *origin = doc.first_child(*inertial, "origin");
    check_finite_attribute(origin, "xyz", "link", link.name, "inertial origin xyz", kMaxMagnitude);
    check_finite_attribute(origin, "rpy", "link", link.name, "inertial origin rpy");
    check_finite_attribute(doc.first_child(*inertial, "mass"), "value", "link", link.name, "mass",
                           kMaxMagnitude);
    const XmlElement *inertia = doc.first_child(*inertial, "inertia");
    for (const char *key : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"})
      check_finite_attribute(inertia, key, "link", link.name, "inertia tensor", kMaxMagnitude);
  }
  for (ScanJoint &joint : out.joints) {
    const XmlElement &e = doc.elements[joint.element];
    const XmlElement *origin = doc.first_child(e, "origin");
    check_finite_attribute(origin, "xyz", "joint", joint.name, "origin xyz", kMaxMagnitude);
    check_finite_attribute(origin, "rpy", "joint", joint.name, "origin rpy");
    check_finite_attribute(doc.first_child(e, "axis"), "xyz", "joint", joint.name, "axis");
    // The other numbers urdfdom reads (limits, dynamics, safety controller, calibration, mimic).
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
      check_finite_attribute(doc.first_child(e, n.element), n.key, "joint", joint.name, n.what,
                             n.max_magnitude);
    if (joint.type == "planar" || joint.type == "floating")
      throw Error(Status::Unsupported,
                  fmt::format("joint '{}' is of type {}, which geolin does not model (only "
                              "revolute, continuous, prismatic and fixed joints)",
                              joint.name, joint.type));
  }

  // Links of each joint, parent joint of each link.
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

  if (out.links.empty()) return false;  // urdfdom: "No link elements found"
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

  // Reachability from the root (a cycle not through the root leaves links unreached).
  std::vector<char> seen(out.links.size(), 0);
  std::vector<int> stack{out.root};
  size_t reached = 0;
  while (!stack.empty()) {
    const int l = stack.back();
    stack.pop_back();
    if (seen[l]) continue;
    seen[l] = 1;
    ++reached;
    for (int j : out.links[l].child_joints) stack.push_back(out.joints[j].child_link);
  }
  if (reached != out.links.size()) {
    std::vector<std::string> lost;
    for (size_t l = 0; l < out.links.size(); ++l)
      if (!seen[l]) lost.push_back(out.links[l].name);
    throw Error(Status::Model,
                fmt::format("links {} are not connected to the root link '{}': their joints "
                            "form a cycle",
                            quoted_list(lost), out.links[out.root].name));
  }
  return true;
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

// Tolerance of the inertia checks: relative 1e-4 (URDF inertias are often printed with 4-6
// digits), with an absolute floor of 1e-12 kg m^2 (1 g at 30 um) for round-off in zero tensors
// (icub.urdf has off-diagonal entries of 1e-20 on a zero diagonal).
constexpr double kInertiaTolerance = 1e-4;
constexpr double kInertiaFloor = 1e-12;

// Mass m, centre of mass c and I_c (about c, link axes) of one URDF link; checks physical
// consistency: m >= 0, I_c positive semidefinite, and principal moments obeying the triangle
// inequality I1 + I2 >= I3 (RBDA §2.13; a rigid body satisfies it since
// I1 + I2 - I3 = 2 ∫ z'^2 dm >= 0 in principal axes). Real CAD exports break the triangle
// inequality on small links (anymal, hyq, icub, talos in the optional ../shared/models, by up to 2x
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
  const double tol = kInertiaTolerance * l.cwiseAbs().sum() + kInertiaFloor;
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

// Build the Model from urdfdom's values and the file structure (docs/dynamics.md §2). Bodies are
// numbered in depth-first pre-order of the links, children in file order; a link reached
// through a fixed joint joins its parent's body (its frame, its inertia and its children).
Model build_model(const urdf::ModelInterface &urdf_model, const ScanRobot &scan, unsigned flags) {
  Model model;
  model.name = urdf_model.getName();
  model.fixed_base = (flags & kFixedBase) != 0;
  model.joint_damping = (flags & kJointDamping) != 0;
  model.H_A_0 = Transform::identity();

  const size_t n_links = scan.links.size();
  // The model's inertia scale: the largest diagonal moment of any link (finite ones only; the
  // per-link checks below report the others).
  double inertia_scale = 0.0;
  for (const auto &entry : urdf_model.links_) {
    const urdf::Inertial *in = entry.second ? entry.second->inertial.get() : nullptr;
    if (!in) continue;
    for (double d : {in->ixx, in->iyy, in->izz})
      if (std::isfinite(d)) inertia_scale = std::max(inertia_scale, std::abs(d));
  }
  std::vector<int> body_of(n_links, -1);
  std::vector<Transform> H_body_link(n_links);
  std::vector<InertiaSum> sums;
  model.frames.resize(n_links);

  auto add_body = [&](const std::string &link_name) {
    model.body_name.push_back(link_name);
    sums.emplace_back();
    return static_cast<int>(model.body_name.size()) - 1;
  };
  // Entry 0 of the joint arrays is unused (body 0 has no joint).
  model.parent.push_back(-1);
  model.joint_name.emplace_back();
  model.joint_type.push_back(JointType::Revolute);
  model.joint_axis.push_back(Vec3::UnitX());
  model.H_parent_joint.push_back(Transform::identity());
  model.damping.push_back(0.0);
  model.mimic_of.emplace_back();

  std::vector<int> stack{scan.root};
  while (!stack.empty()) {
    const int l = stack.back();
    stack.pop_back();
    const ScanLink &slink = scan.links[l];
    if (slink.parent_joint < 0) {
      body_of[l] = add_body(slink.name);
      H_body_link[l] = Transform::identity();
    } else {
      const ScanJoint &sjoint = scan.joints[slink.parent_joint];
      const urdf::JointConstSharedPtr joint = urdf_model.getJoint(sjoint.name);
      if (!joint)
        throw Error(Status::Parse,
                    fmt::format("URDF parse error: joint '{}': urdfdom read its name differently "
                                "(a character reference outside UTF-8?)",
                                sjoint.name));
      if (!pose_is_finite(joint->parent_to_joint_origin_transform))
        throw Error(Status::Model, fmt::format("joint '{}': origin is not finite", joint->name));
      const int p = sjoint.parent_link;
      // ^{body(p)} H_{joint} = ^{body(p)} H_p * ^p H_joint (the URDF joint origin).
      const Transform H = H_body_link[p] * to_transform(joint->parent_to_joint_origin_transform);
      if (joint->type == urdf::Joint::FIXED) {
        body_of[l] = body_of[p];
        H_body_link[l] = H;
      } else {
        const JointType type = moving_joint_type(*joint);
        Vec3 axis(joint->axis.x, joint->axis.y, joint->axis.z);
        if (!axis.allFinite())
          throw Error(Status::Model, fmt::format("joint '{}': axis is not finite", joint->name));
        // Only the direction matters: scale large axes down first, so that the norm of, e.g.,
        // (0, 0, 1e308) does not overflow (its normalization would give a zero axis).
        const double largest = axis.cwiseAbs().maxCoeff();
        if (largest > 1.0) axis /= largest;
        if (!(axis.norm() > 1e-12))
          throw Error(Status::Model, fmt::format("joint '{}': axis is zero", joint->name));
        const int b = add_body(slink.name);
        body_of[l] = b;
        H_body_link[l] = Transform::identity();
        model.parent.push_back(body_of[p]);
        model.joint_name.push_back(joint->name);
        model.joint_type.push_back(type);
        model.joint_axis.push_back(axis.normalized());
        model.H_parent_joint.push_back(H);
        model.damping.push_back(joint->dynamics ? joint->dynamics->damping : 0.0);
        model.mimic_of.push_back(joint->mimic ? joint->mimic->joint_name : std::string());
        if (!std::isfinite(model.damping.back()))
          throw Error(Status::Model, fmt::format("joint '{}': damping is not finite", joint->name));
      }
    }
    const urdf::LinkConstSharedPtr link = urdf_model.getLink(slink.name);
    if (!link)
      throw Error(Status::Parse,
                  fmt::format("URDF parse error: link '{}': urdfdom read its name differently (a "
                              "character reference outside UTF-8?)",
                              slink.name));
    double m;
    Vec3 c;
    Mat3 I_c;
    link_inertia(slink.name, link->inertial.get(), (flags & kStrictInertia) != 0, inertia_scale, m,
                 c, I_c);
    const bool own_link = model.body_name[body_of[l]] == slink.name;
    sums[body_of[l]].add(H_body_link[l], own_link, m, c, I_c);
    model.frames[l] = Frame{slink.name, body_of[l], H_body_link[l]};
    for (auto j = slink.child_joints.rbegin(); j != slink.child_joints.rend(); ++j)
      stack.push_back(scan.joints[*j].child_link);
  }

  model.n_B = static_cast<int>(model.body_name.size()) - 1;
  const size_t nb = model.body_name.size();
  model.mass.resize(nb);
  model.com.resize(nb);
  model.inertia_com.resize(nb);
  for (size_t i = 0; i < nb; ++i) sums[i].result(model.mass[i], model.com[i], model.inertia_com[i]);
  finalize_model(model);
  return model;
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

Model load(const std::string &xml, unsigned flags) {
  if (xml_nesting_bound(xml, kMaxElementDepth) > kMaxElementDepth)
    throw Error(Status::Parse, fmt::format("URDF parse error: XML elements are nested more than "
                                           "{} levels deep",
                                           kMaxElementDepth));
  // The structure is checked before urdfdom sees the file: urdfdom links a cycle of joints
  // into a cycle of shared pointers before it detects it, and then leaks it.
  XmlDocument doc;
  if (!scan_xml(xml, doc))
    throw Error(Status::Parse,
                "URDF parse error: the XML is not well-formed (an element, comment, CDATA section "
                "or attribute value is not closed, an end tag does not match, or an attribute "
                "has an undeclared entity or a bad character reference)");
  ScanRobot scan;
  bool structured = false;
  for (int t : doc.top) {
    if (doc.elements[t].name == "robot") {
      structured = scan_robot(doc, doc.elements[t], scan);
      break;
    }
  }

  CapturingHandler handler;
  UrdfHolder urdf_model;
  {
    ConsoleCapture capture(handler);
    try {
      urdf_model.model = urdf::parseURDF(xml);
    } catch (const std::exception &e) {
      urdf_model.model.reset();
      throw Error(Status::Parse, fmt::format("URDF parse error: {}{}{}", handler.text(),
                                             handler.text().empty() ? "" : "; ", e.what()));
    }
  }
  const std::string said = handler.text().empty() ? "(no message)" : handler.text();
  if (!urdf_model.model) throw Error(Status::Parse, fmt::format("URDF parse error: {}", said));
  if (handler.had_error()) throw Error(Status::Parse, fmt::format("URDF parse error: {}", said));
  if (!structured)
    throw Error(Status::Parse, "URDF parse error: could not read the element structure");
  return build_model(*urdf_model.model, scan, flags);
}

}  // namespace

Model load_urdf_string(const std::string &xml, unsigned flags) {
  return load(xml, flags);
}

Model load_urdf_file(const std::string &path, unsigned flags) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error(Status::Io, fmt::format("cannot open URDF file '{}': no such file", path));
  if (std::filesystem::is_directory(path, ec))
    throw Error(Status::Io, fmt::format("cannot read URDF file '{}': it is a directory", path));
  std::ifstream file(path, std::ios::in | std::ios::binary);
  if (!file)
    throw Error(Status::Io,
                fmt::format("cannot open URDF file '{}': {}", path, std::strerror(errno)));
  std::ostringstream content;
  content << file.rdbuf();
  if (file.bad()) throw Error(Status::Io, fmt::format("cannot read URDF file '{}'", path));
  try {
    return load(content.str(), flags);
  } catch (const Error &e) {
    throw Error(e.status(), fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace geolin
