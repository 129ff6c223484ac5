// The state x = (H, s, v, r) and input tau of the tool: the default, random states, and the JSON
// state file of docs/state-file.md with its validation.
#include "state_io.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/Geometry>
#include <cmath>
#include <fstream>
#include <sstream>

#include "args.hpp"
#include "model_load.hpp"
#include "output.hpp"

namespace geolin::cli {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kRigidTolerance = 1e-6;

// An error about one field of a state file.
[[noreturn]] void field_error(Status status, const std::string &origin, const std::string &field,
                              const std::string &what) {
  throw Error(status, fmt::format("state {}: field \"{}\": {}", origin, field, what));
}

double number_at(const Json &j, const std::string &origin, const std::string &field) {
  if (!j.is_number()) {
    field_error(Status::InvalidArgument, origin, field,
                fmt::format("expected a number, got {}", j.dump()));
  }
  const double x = j.get<double>();
  if (!std::isfinite(x)) field_error(Status::NonFinite, origin, field, "not a finite number");
  return x;
}

// A list of exactly `size` finite numbers.
VecX read_vector(const Json &j, int size, const std::string &origin, const std::string &field) {
  if (!j.is_array()) {
    field_error(Status::InvalidArgument, origin, field,
                fmt::format("expected a list of {} numbers", size));
  }
  if (static_cast<int>(j.size()) != size) {
    field_error(Status::InvalidArgument, origin, field,
                fmt::format("expected {} numbers, got {}", size, j.size()));
  }
  VecX x(size);
  for (int k = 0; k < size; ++k) x[k] = number_at(j[k], origin, fmt::format("{}[{}]", field, k));
  return x;
}

// A joint vector: a list of n_J numbers in joint order, or an object {joint name: value} in
// which missing joints keep the value already in `x`.
void read_joint_vector(const Json &j, const Model &model, const std::string &origin,
                       const std::string &field, VecX &x) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const int k = model.joint_index(it.key());
      if (k < 0) {
        field_error(Status::InvalidArgument, origin, field,
                    fmt::format("the model has no joint named '{}'", it.key()));
      }
      x[k] = number_at(it.value(), origin, fmt::format("{}.{}", field, it.key()));
    }
    return;
  }
  x = read_vector(j, model.num_joints(), origin, field);
}

Transform read_transform(const Json &j, const std::string &origin) {
  const std::string field = "H";
  if (!j.is_array() || j.size() != 4) {
    field_error(Status::InvalidArgument, origin, field,
                "expected a 4x4 matrix as a list of 4 rows of 4 numbers");
  }
  Mat4 H;
  for (int i = 0; i < 4; ++i) {
    const VecX row = read_vector(j[i], 4, origin, fmt::format("H[{}]", i));
    H.row(i) = row.transpose();
  }
  const double last_row_error =
      (H.row(3) - Eigen::RowVector4d(0.0, 0.0, 0.0, 1.0)).cwiseAbs().maxCoeff();
  if (last_row_error > kRigidTolerance) {
    field_error(
        Status::InvalidArgument, origin, field,
        fmt::format("the last row must be [0, 0, 0, 1] (within {:g}), got [{}]", kRigidTolerance,
                    fmt::join(H.row(3).data(), H.row(3).data() + 4, ", ")));
  }
  const Mat3 R = H.topLeftCorner<3, 3>();
  const double orth_error = (R.transpose() * R - Mat3::Identity()).cwiseAbs().maxCoeff();
  if (orth_error > kRigidTolerance) {
    field_error(Status::InvalidArgument, origin, field,
                fmt::format("the rotation block is not orthonormal: max|R^T R - 1| = {:.3g} "
                            "(tolerance {:g})",
                            orth_error, kRigidTolerance));
  }
  if (R.determinant() < 0.0) {
    field_error(Status::InvalidArgument, origin, field,
                "the rotation block has determinant -1 (a reflection, not a rotation)");
  }
  return Transform::from_matrix(H);
}

// "wrenches": {frame name: [fx, fy, fz, tx, ty, tz], ...}, in the order of the file.
std::vector<std::pair<std::string, Vec6>> read_wrenches(const Json &j, const Model &model,
                                                        const std::string &origin) {
  const std::string field = "wrenches";
  if (!j.is_object()) {
    field_error(Status::InvalidArgument, origin, field,
                "expected an object {\"frame name\": [fx, fy, fz, tx, ty, tz], ...}");
  }
  std::vector<std::pair<std::string, Vec6>> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    find_frame(model, it.key(), fmt::format("state {}: field \"{}\"", origin, field));
    const VecX w = read_vector(it.value(), 6, origin, fmt::format("{}.{}", field, it.key()));
    out.emplace_back(it.key(), Vec6(w));
  }
  return out;
}

// Where a JSON parser stands: the path of the value being read, in the field notation of the
// messages ("s[3]", "H[1][2]", "wrenches.L_foot[2]", "s.L_knee"). Used to name the number that
// overflowed (nlohmann rejects 1e999 with error 406, "number overflow", without saying where).
class PathTracker : public nlohmann::json_sax<Json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t &) override { return value(); }
  bool string(string_t &) override { return value(); }
  bool binary(binary_t &) override { return value(); }
  bool start_object(std::size_t) override { return push(false); }
  bool key(string_t &k) override {
    stack_.back().key = k;
    return true;
  }
  bool end_object() override { return pop(); }
  bool start_array(std::size_t) override { return push(true); }
  bool end_array() override { return pop(); }
  bool parse_error(std::size_t, const std::string &token,
                   const nlohmann::detail::exception &e) override {
    if (e.id == 406) {
      overflow_ = true;
      token_ = token;
      // The value being read has not been counted yet: in an array it is the next index.
      path_.clear();
      for (std::size_t d = 0; d < stack_.size(); ++d) {
        const Level &l = stack_[d];
        const long index = d + 1 == stack_.size() ? l.index + 1 : l.index;
        if (l.array) {
          path_ += fmt::format("[{}]", index);
        } else {
          path_ += (path_.empty() ? "" : ".") + l.key;
        }
      }
    }
    return false;
  }

  bool overflow() const { return overflow_; }
  const std::string &path() const { return path_; }
  const std::string &token() const { return token_; }

 private:
  struct Level {
    bool array;
    long index;  // arrays: the index of the last value read
    std::string key;
  };
  bool value() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
    return true;
  }
  bool push(bool array) {
    value();
    stack_.push_back({array, -1, ""});
    return true;
  }
  bool pop() {
    stack_.pop_back();
    return true;
  }
  std::vector<Level> stack_;
  bool overflow_ = false;
  std::string path_, token_;
};

}  // namespace

unsigned long long Random::next() {
  unsigned long long z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Mat3 Random::rotation() {
  const double u1 = uniform(), u2 = uniform(), u3 = uniform();
  const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
  const Eigen::Quaterniond q(b * std::cos(2.0 * kPi * u3), a * std::sin(2.0 * kPi * u2),
                             a * std::cos(2.0 * kPi * u2), b * std::sin(2.0 * kPi * u3));
  return q.normalized().toRotationMatrix();
}

Mat3 rotation_y(double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  Mat3 R;
  R << c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c;
  return R;
}

// The starting point of state files and random states: identity attitude, base at z = 1 m, all
// else zero.
State zero_state(const Model &model) {
  State st;
  st.H.R.setIdentity();
  st.H.o = Vec3(0.0, 0.0, 1.0);
  st.s = VecX::Zero(model.num_joints());
  st.r = VecX::Zero(model.num_joints());
  st.tau = VecX::Zero(model.num_joints());
  st.v.setZero();
  st.description = "zero state (H = identity with the base at z = 1 m, s = v = r = tau = 0)";
  return st;
}

// The documented default: a moving, torqued state at pitch 90 deg, so that every block of A is
// exercised (at rest with zero torque a free-floating robot only falls, and F_s = F_v = F_r = 0).
State default_state(const Model &model) {
  State st = zero_state(model);
  st.H.R = rotation_y(kPi / 2);
  for (int k = 0; k < model.num_joints(); ++k) {
    st.s[k] = 0.5 * std::sin(k + 1.0);
    st.r[k] = 0.4 * std::cos(k + 1.0);
    st.tau[k] = 2.0 * std::sin(2.0 * k + 1.0);
  }
  if (model.fixed_base) {
    // The base pose and twist are not used: say nothing about them.
    st.description =
        "default: s_k = 0.5 sin(k+1), r_k = 0.4 cos(k+1), tau_k = 2 sin(2k+1) (joint k 0-based)";
    return st;
  }
  st.v << 0.3, 0.0, 0.0, 0.0, 0.5, 0.2;
  st.description =
      "default: base at z = 1 m pitched 90 deg about y (where Euler angles are singular), s_k = "
      "0.5 sin(k+1), v = [0.3, 0, 0, 0, 0.5, 0.2], r_k = 0.4 cos(k+1), tau_k = 2 sin(2k+1) (joint "
      "k 0-based)";
  return st;
}

State random_state(const Model &model, unsigned long long seed) {
  // The order of the draws is part of the documented format (docs/state-file.md).
  Random rng(seed);
  const int nj = model.num_joints();
  State st = zero_state(model);
  st.H.R = rng.rotation();
  for (int k = 0; k < 3; ++k) st.H.o[k] = rng.uniform(-1.0, 1.0);
  for (int k = 0; k < nj; ++k) st.s[k] = rng.uniform(-kPi, kPi);
  for (int k = 0; k < 6; ++k) st.v[k] = rng.uniform(-1.0, 1.0);
  for (int k = 0; k < nj; ++k) st.r[k] = rng.uniform(-1.0, 1.0);
  for (int k = 0; k < nj; ++k) st.tau[k] = rng.uniform(-1.0, 1.0);
  st.description = fmt::format("random (seed {})", seed);
  return st;
}

namespace {

// The JSON document of a state file: an object, else Error(Parse, InvalidArgument or NonFinite,
// for a number that overflows a double, naming where it stands).
Json parse_state_document(const std::string &text, const std::string &origin) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception &e) {
    if (e.id == 406) {
      // A number too large for a double (1e999): JSON has no infinity, so it would become one.
      PathTracker where;
      Json::sax_parse(text, &where);
      if (where.overflow() && !where.path().empty()) {
        field_error(
            Status::NonFinite, origin, where.path(),
            fmt::format("{} is not a finite number (it overflows a double)", where.token()));
      }
      throw Error(Status::NonFinite,
                  fmt::format("state {}: {} is not a finite number (it overflows a double)", origin,
                              where.token()));
    }
    throw Error(Status::Parse, fmt::format("state {}: not valid JSON: {}", origin, e.what()));
  }
  if (!doc.is_object()) {
    throw Error(Status::InvalidArgument,
                fmt::format("state {}: expected a JSON object {{\"H\": ..., \"s\": ...}}", origin));
  }
  return doc;
}

// One field of a state file into st.
void read_state_field(const Model &model, const std::string &origin, const std::string &key,
                      const Json &val, State &st) {
  if (key == "H") {
    st.H = read_transform(val, origin);
  } else if (key == "s") {
    read_joint_vector(val, model, origin, key, st.s);
  } else if (key == "r") {
    read_joint_vector(val, model, origin, key, st.r);
  } else if (key == "tau") {
    read_joint_vector(val, model, origin, key, st.tau);
  } else if (key == "v") {
    st.v = read_vector(val, 6, origin, key);
  } else if (key == "gravity") {
    st.gravity = read_vector(val, 3, origin, key);
  } else if (key == "wrenches") {
    st.wrenches = read_wrenches(val, model, origin);
  } else if (key == "contacts") {
    field_error(Status::Unsupported, origin, key,
                "reserved for contact models, not supported yet (external wrenches at frames: "
                "\"wrenches\")");
  } else if (key != "comment") {  // a comment is free text, ignored
    field_error(Status::InvalidArgument, origin, key,
                "unknown field (expected H, s, v, r, tau, gravity, wrenches, comment)");
  }
}

}  // namespace

State parse_state_json(const Model &model, const std::string &text, const std::string &origin) {
  const Json doc = parse_state_document(text, origin);
  State st = zero_state(model);
  st.description = origin;
  for (auto it = doc.begin(); it != doc.end(); ++it)
    read_state_field(model, origin, it.key(), it.value(), st);
  return st;
}

State read_state_file(const Model &model, const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Status::Io, fmt::format("state file '{}': cannot open it", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_state_json(model, text.str(), fmt::format("file '{}'", path));
}

State state_from_args(const Model &model, const Args &args) {
  if (args.has("--state") && args.has("--random")) {
    throw UsageError("--state and --random exclude each other");
  }
  if (args.has("--state")) return read_state_file(model, args.get("--state"));
  if (args.has("--random")) {
    const long seed = args.get_int("--random", 0);
    if (seed < 0) throw UsageError("--random: the seed must be >= 0");
    return random_state(model, static_cast<unsigned long long>(seed));
  }
  return default_state(model);
}

Json state_document(const LoadedModel &lm, const State &st) {
  Json doc;
  doc["model"] = model_json(lm);
  doc["state"] = state_json(lm.model, st);
  doc["state_description"] = st.description;
  return doc;
}

Json state_json(const Model &model, const State &state) {
  Json j = Json::object();
  if (!model.fixed_base) {
    j["H"] = matrix_json(state.H.matrix());
  }
  j["s"] = vector_json(state.s);
  if (!model.fixed_base) j["v"] = vector_json(state.v);
  j["r"] = vector_json(state.r);
  j["tau"] = vector_json(state.tau);
  j["gravity"] = vector_json(state.gravity);
  if (!state.wrenches.empty()) {
    Json w = Json::object();
    for (const auto &[name, value] : state.wrenches) w[name] = vector_json(value);
    j["wrenches"] = w;
  }
  return j;
}

}  // namespace geolin::cli
