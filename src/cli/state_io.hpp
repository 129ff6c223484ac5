// The state of a `geolin` command (state_io.cpp): the state file (docs/state-file.md), the
// default and random states, --state / --random, and the state as JSON.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "args.hpp"
#include "geolin/model.hpp"
#include "geolin/spatial.hpp"
#include "geolin/state.hpp"
#include "geolin/workspace.hpp"
#include "model_load.hpp"
#include "output.hpp"

namespace geolin::cli {

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

/// The state in the state-file format, so that `dynamics --format json` output can be fed back
/// with --state.
Json state_json(const Model &model, const State &state);

/// The members "model", "state" (the state-file format) and "state_description".
Json state_document(const LoadedModel &lm, const State &st);

}  // namespace geolin::cli
