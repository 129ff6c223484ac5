// The armature from an SRDF's <rotor_params> (Pinocchio's format, loadRotorParameters):
//   <robot name="..."> <rotor_params> <joint name="J" mass="I_rotor" gear_ratio="N"/> ...
// armature_J = I_rotor N² (docs/dynamics.md (D50)); read with the URDF loader's XML reader.
#include "geolin/srdf.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "geolin/status.hpp"
#include "xml.hpp"

namespace geolin {
namespace {

// The number in attribute `key` of a <joint> of <rotor_params>: a whole decimal number,
// finite and >= 0. Throws Status::Parse (missing, not a number) or Status::Model (negative or
// not finite) naming the joint and the line.
double rotor_number(const xml::Document &doc, int e, std::string_view key, const std::string &joint,
                    const std::string &origin) {
  const auto value = doc.attribute(e, key);
  if (!value)
    throw Error(Status::Parse, fmt::format("{}: <joint name=\"{}\"> of <rotor_params> ({}) has no "
                                           "attribute '{}'",
                                           origin, joint, doc.where(e), key));
  const std::string text(*value);
  errno = 0;
  char *end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE)
    throw Error(Status::Parse, fmt::format("{}: <joint name=\"{}\"> ({}): {}=\"{}\" is not a "
                                           "number",
                                           origin, joint, doc.where(e), key, text));
  if (!std::isfinite(x) || x < 0.0)
    throw Error(Status::Model, fmt::format("{}: <joint name=\"{}\"> ({}): {} = {} must be finite "
                                           "and >= 0",
                                           origin, joint, doc.where(e), key, text));
  return x;
}

}  // namespace

Model with_srdf_rotor_params_string(const Model &model, const std::string &srdf,
                                    const std::string &origin) {
  const xml::Document doc(srdf, 256);
  const int root = doc.root();
  if (doc.name(root) != "robot")
    throw Error(Status::Parse, fmt::format("{}: the root element is <{}>, expected <robot>", origin,
                                           doc.name(root)));
  Eigen::VectorXd armature = model.armature;
  for (int p = doc.first_child(root); p >= 0; p = doc.next_sibling(p)) {
    if (doc.name(p) != "rotor_params") continue;
    for (int e = doc.first_child(p); e >= 0; e = doc.next_sibling(e)) {
      if (doc.name(e) != "joint") continue;
      const auto name = doc.attribute(e, "name");
      if (!name)
        throw Error(Status::Parse, fmt::format("{}: <joint> of <rotor_params> ({}) has no name",
                                               origin, doc.where(e)));
      const std::string joint(*name);
      const int k = model.joint_index(joint);
      if (k < 0)
        throw Error(Status::Model, fmt::format("{}: <rotor_params> ({}) names joint '{}', which "
                                               "model '{}' does not have",
                                               origin, doc.where(e), joint, model.name));
      const double rotor = rotor_number(doc, e, "mass", joint, origin);
      const double ratio = rotor_number(doc, e, "gear_ratio", joint, origin);
      armature[k] = rotor * ratio * ratio;  // the rotor's inertia reflected through the gear
    }
  }
  return with_armature(model, armature);
}

Model with_srdf_rotor_params(const Model &model, const std::string &path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(Status::Io, fmt::format("cannot read SRDF file '{}': no such regular file", path));
  if (std::filesystem::file_size(path, ec) > kMaxUrdfFileBytes || ec)
    throw Error(Status::Io, fmt::format("cannot read SRDF file '{}': unreadable or larger than "
                                        "{} bytes",
                                        path, kMaxUrdfFileBytes));
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof())
    throw Error(Status::Io, fmt::format("cannot read SRDF file '{}'", path));
  return with_srdf_rotor_params_string(model, text, path);
}

}  // namespace geolin
