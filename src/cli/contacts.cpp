// External wrenches at named frames (--contacts, --mixed): which frames, their wrenches from the
// state, and the labels of the wrench inputs.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

#include "cli.hpp"

namespace geolin::cli {

ExternalWrenches Contacts::external() const {
  ExternalWrenches ext;
  ext.count = count();
  ext.frames = frames.data();
  ext.wrenches = values.data();
  ext.flags = mixed ? kWrenchMixed : kWrenchLocal;
  return ext;
}

std::string Contacts::describe() const {
  if (names.empty()) return "none";
  return fmt::format("{} ({} axes: {})", fmt::join(names, ", "), axes_name(),
                     mixed ? "world-aligned at the frame origin" : "the frame's own");
}

Contacts contacts_from_args(const Model &model, const Args &args, State &st) {
  Contacts c;
  c.mixed = args.flag("--mixed");
  if (args.has("--contacts")) {
    std::stringstream list(args.get("--contacts"));
    std::string name;
    while (std::getline(list, name, ',')) {
      if (name.empty()) throw UsageError("--contacts: an empty frame name (FRAME,FRAME,...)");
      if (std::find(c.names.begin(), c.names.end(), name) != c.names.end()) {
        throw UsageError(fmt::format("--contacts: frame '{}' is listed twice", name));
      }
      c.frames.push_back(find_frame(model, name, "--contacts"));
      c.names.push_back(name);
    }
    if (c.names.empty()) throw UsageError("--contacts: expected FRAME,FRAME,...");
    for (const auto &w : st.wrenches) {
      if (std::find(c.names.begin(), c.names.end(), w.first) == c.names.end()) {
        throw Error(Status::InvalidArgument,
                    fmt::format("state {}: field \"wrenches\": a wrench at frame '{}', which is "
                                "not in --contacts ({}); add it there or remove it",
                                st.description, w.first, fmt::join(c.names, ",")));
      }
    }
  } else {
    for (const auto &w : st.wrenches) {
      c.frames.push_back(find_frame(model, w.first, "wrenches"));
      c.names.push_back(w.first);
    }
  }
  if (c.mixed && c.names.empty()) {
    throw UsageError("--mixed needs contacts (--contacts or \"wrenches\" in the state file)");
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

std::vector<std::string> wrench_labels(const Contacts &contacts) {
  static const char *const kWrenchNames[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
  std::vector<std::string> out;
  for (const auto &name : contacts.names) {
    for (const char *c : kWrenchNames) out.push_back(fmt::format("f[{}][{}]", name, c));
  }
  return out;
}

}  // namespace geolin::cli
