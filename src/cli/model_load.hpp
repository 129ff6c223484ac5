// Loading the model of a `geolin` command (common.cpp): the model options (--fixed-base,
// --joint-damping, --strict-inertia, --armature), the bundled default model, frames by name.
#pragma once

#include <set>
#include <string>

#include "args.hpp"
#include "geolin/model.hpp"

namespace geolin::cli {

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

/// Model summary line used by several commands: "name (source), moving base, n_J = ..".
std::string model_summary(const LoadedModel &lm);

}  // namespace geolin::cli
