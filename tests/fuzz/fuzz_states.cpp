// libFuzzer target for the evaluation functions of the C API at arbitrary states: any input must
// end, for every function, either in GEOLIN_OK with every output entry finite, or in a documented
// evaluation error (INVALID_ARGUMENT, NONFINITE, NUMERIC) with a message and every output entry
// untouched (geolin.h: "on any failure write nothing to their outputs"). Outputs are filled
// with a signalling-NaN sentinel before each call and compared bit by bit. Never a crash, a
// leak, undefined behaviour or GEOLIN_ERR_INTERNAL. Built by cmake/ci_fuzz.sh with
// clang++ -fsanitize=fuzzer,address,undefined.
//
// Input: byte 0 chooses one of the bundled models (models/*.urdf, GEOLIN_FUZZ_MODELS_DIR),
// moving or fixed base; the rest is read as the numbers of the calls (gravity, H, s, v, r, tau,
// nu_dot, the wrenches, frame indices, the step method and length, the finite-difference
// step, then the contact regularization mu, the contacts: count, frames, types, gains,
// references, then the impact's restitution, then a constraint set: count, each constraint's
// kind and arguments, a ref, the joint feedback gains). Each number is one control
// byte, then either a small value (one byte, times a scale from 1e-8 to 1e150 chosen by the control
// byte) or, for control bytes >= 0xE0, the raw 8 bytes of a double (NaN, Inf, denormals, anything).
// H is a rigid transform built from six numbers, or 16 raw numbers, or a rigid transform with one
// entry changed.
//
// tests/fuzz/states_seeds/ holds one moderate input per model and base (default gravity, two
// mixed wrenches, RK4), the starting corpus of cmake/ci_fuzz.sh. Inputs that once failed go to
// tests/fuzz/states_regressions/ (replay: `fuzz_states tests/fuzz/states_regressions/*`).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "geolin.h"

#ifndef GEOLIN_FUZZ_MODELS_DIR
#error "compile with -DGEOLIN_FUZZ_MODELS_DIR=\"<repo>/models\""
#endif

namespace {

constexpr std::uint64_t kSentinelBits = 0x7FF4000000DEAD01ull;  // a signalling NaN

double sentinel() {
  double x;
  std::memcpy(&x, &kSentinelBits, sizeof x);
  return x;
}

bool is_sentinel(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits == kSentinelBits;
}

// ---------------------------------------------------------------------------------------------
// The bundled models, each loaded once as moving and as fixed base.
struct Robot {
  std::string name;
  bool fixed = false;
  geolin_model *model = nullptr;
  geolin_workspace *ws = nullptr;
};

// Freed at exit, so that the leak checker sees no leak.
struct Robots {
  std::vector<Robot> all;
  Robots() = default;
  Robots(const Robots &) = delete;
  Robots &operator=(const Robots &) = delete;
  ~Robots() {
    for (Robot &r : all) {
      geolin_workspace_free(r.ws);
      geolin_model_free(r.model);
    }
  }
};

std::vector<Robot> &robots() {
  static Robots robots;
  if (robots.all.empty()) {
    Robots &out = robots;
    const char *files[] = {"single_link_arm", "cart_pendulum", "satellite_panel",
                           "free_body",       "arm7",          "quadruped",
                           "humanoid"};
    for (const char *file : files) {
      for (unsigned flags : {0u, GEOLIN_FIXED_BASE}) {
        const std::string path = std::string(GEOLIN_FUZZ_MODELS_DIR) + "/" + file + ".urdf";
        Robot r;
        r.name = file;
        r.fixed = flags != 0;
        if (geolin_model_load_urdf(path.c_str(), flags, &r.model) != GEOLIN_OK) continue;
        if (geolin_workspace_new(r.model, &r.ws) != GEOLIN_OK) {
          std::fprintf(stderr, "fuzz_states: no workspace for %s: %s\n", path.c_str(),
                       geolin_last_error());
          std::abort();
        }
        out.all.push_back(r);
      }
    }
    if (out.all.size() < 10) {
      std::fprintf(stderr, "fuzz_states: only %zu bundled models load from %s\n", out.all.size(),
                   GEOLIN_FUZZ_MODELS_DIR);
      std::abort();
    }
  }
  return robots.all;
}

// ---------------------------------------------------------------------------------------------
// The input as a stream of numbers (zeros once it is used up).
class Input {
 public:
  Input(const std::uint8_t *data, std::size_t size) : p_(data), end_(data + size) {}

  std::uint8_t byte() { return p_ < end_ ? *p_++ : 0; }

  double number() {
    const std::uint8_t control = byte();
    if (control >= 0xE0) {  // raw bits
      std::uint64_t bits = 0;
      for (int k = 0; k < 8; ++k) bits |= static_cast<std::uint64_t>(byte()) << (8 * k);
      double x;
      std::memcpy(&x, &bits, sizeof x);
      return x;
    }
    static const double kScale[] = {1.0, 1.0, 1.0, 0.1, 10.0, 1e-3, 1e3, 1e-8, 1e6, 1e150};
    const double scale = kScale[control % (sizeof kScale / sizeof kScale[0])];
    return static_cast<std::int8_t>(byte()) / 16.0 * scale;
  }

  void numbers(double *x, int count) {
    for (int k = 0; k < count; ++k) x[k] = number();
  }

 private:
  const std::uint8_t *p_, *end_;
};

// H: a rigid transform exp of six numbers (Rodrigues), 16 raw numbers, or a rigid transform
// with one entry replaced.
void read_transform(Input &in, double H[16]) {
  const std::uint8_t mode = in.byte() % 8;
  if (mode == 7) {
    in.numbers(H, 16);
    return;
  }
  double w[3], p[3];
  in.numbers(w, 3);
  in.numbers(p, 3);
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // column-major
  const double angle = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  if (std::isfinite(angle) && angle > 0.0) {
    const double k[3] = {w[0] / angle, w[1] / angle, w[2] / angle};
    const double c = std::cos(angle), s = std::sin(angle), t = 1.0 - c;
    R[0] = c + t * k[0] * k[0];
    R[1] = t * k[0] * k[1] + s * k[2];
    R[2] = t * k[0] * k[2] - s * k[1];
    R[3] = t * k[0] * k[1] - s * k[2];
    R[4] = c + t * k[1] * k[1];
    R[5] = t * k[1] * k[2] + s * k[0];
    R[6] = t * k[0] * k[2] + s * k[1];
    R[7] = t * k[1] * k[2] - s * k[0];
    R[8] = c + t * k[2] * k[2];
  }
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) H[i + 4 * j] = R[i + 3 * j];
  H[3] = H[7] = H[11] = 0.0;
  H[12] = p[0], H[13] = p[1], H[14] = p[2], H[15] = 1.0;
  if (mode == 6) H[in.byte() % 16] = in.number();
}

// ---------------------------------------------------------------------------------------------
// Outputs filled with the sentinel, checked after the call.
struct Output {
  const char *name;
  std::vector<double> data;
  bool written;  // false: the function documents that it does not write this output
  Output(const char *n, std::size_t count, bool w = true)
      : name(n), data(count, sentinel()), written(w) {}
};

[[noreturn]] void fail(const Robot &robot, const char *function, int status, const char *what,
                       const Output *out, std::size_t index) {
  std::fprintf(stderr, "fuzz_states: %s (%s, %s base): status %d (%s): %s", function,
               robot.name.c_str(), robot.fixed ? "fixed" : "moving", status,
               geolin_status_string(status), what);
  if (out) std::fprintf(stderr, " -- output %s[%zu] = %.17g", out->name, index, out->data[index]);
  std::fprintf(stderr, "\nlast error: %s\n", geolin_last_error());
  std::abort();
}

void check(const Robot &robot, const char *function, int status, std::vector<Output> &outputs) {
  if (status == GEOLIN_OK) {
    for (const Output &o : outputs)
      for (std::size_t k = 0; k < o.data.size(); ++k) {
        if (o.written ? !std::isfinite(o.data[k]) : !is_sentinel(o.data[k]))
          fail(robot, function, status,
               o.written ? "GEOLIN_OK with a non-finite output" : "wrote an unused output", &o, k);
      }
    return;
  }
  if (status != GEOLIN_ERR_INVALID_ARGUMENT && status != GEOLIN_ERR_NONFINITE &&
      status != GEOLIN_ERR_NUMERIC)
    fail(robot, function, status, "not a documented evaluation status", nullptr, 0);
  const char *message = geolin_last_error();
  if (message == nullptr || message[0] == '\0')
    fail(robot, function, status, "an error without a message", nullptr, 0);
  for (const Output &o : outputs)
    for (std::size_t k = 0; k < o.data.size(); ++k)
      if (!is_sentinel(o.data[k]))
        fail(robot, function, status, "an error, but an output was written", &o, k);
}

// A setter of a constraint set: OK, or INVALID_ARGUMENT / NONFINITE with a message and the set's
// rows unchanged.
void check_setter(const Robot &robot, const char *function, int status, int rows_before,
                  const geolin_constraints *set) {
  const int rows = geolin_constraints_num_rows(set);
  if (status == GEOLIN_OK) {
    if (rows < rows_before) fail(robot, function, status, "OK, but the set lost rows", nullptr, 0);
    return;
  }
  if (status != GEOLIN_ERR_INVALID_ARGUMENT && status != GEOLIN_ERR_NONFINITE)
    fail(robot, function, status, "not a documented setter status", nullptr, 0);
  const char *message = geolin_last_error();
  if (message == nullptr || message[0] == '\0')
    fail(robot, function, status, "an error without a message", nullptr, 0);
  if (rows != rows_before)
    fail(robot, function, status, "refused, but the set changed", nullptr, 0);
}

// A constraint set of up to 4 fuzzed constraints (contacts, loops, couplings, wheels, with any
// arguments: the setters refuse the invalid ones), the URDF's mimics, fuzzed gains, axes and a
// ref, evaluated by every geolin_constrained_* function at the input's state, method, h and
// restitution, as the contact functions are.
void fuzz_constraint_set(const Robot &robot, Input &in, const double *Hp,
                         const std::vector<double> &s, const double *vp,
                         const std::vector<double> &r, const std::vector<double> &tau, int method,
                         double h, double restitution, const double *gains, unsigned wrench_flags) {
  geolin_workspace *ws = robot.ws;
  const int nj = geolin_model_num_joints(robot.model);
  const int frames_count = geolin_model_num_frames(robot.model);
  const std::size_t un = static_cast<std::size_t>(geolin_model_num_dofs(robot.model));
  const std::size_t uN = static_cast<std::size_t>(geolin_model_state_dim(robot.model));
  const std::size_t unj = static_cast<std::size_t>(nj);
  geolin_constraints *set = nullptr;
  if (geolin_constraints_new(robot.model, &set) != GEOLIN_OK)
    fail(robot, "geolin_constraints_new", -1, "no set", nullptr, 0);
  struct Free {
    geolin_constraints *p;
    ~Free() { geolin_constraints_free(p); }
  } owner{set};
  auto index = [&](int count) {  // [-1, count]: one before and one past the valid range
    return static_cast<int>(in.byte() % static_cast<unsigned>(count + 2)) - 1;
  };
  const int count = static_cast<int>(in.byte() % 5u);
  for (int k = 0; k < count; ++k) {
    const int rows_before = geolin_constraints_num_rows(set);
    const std::uint8_t kind = in.byte();
    if (kind % 4 == 0) {
      const int frame = index(frames_count);
      const std::uint8_t type_byte = in.byte();
      const int type = type_byte < 250
                           ? (type_byte % 2 ? GEOLIN_CONTACT_RIGID : GEOLIN_CONTACT_POINT)
                           : type_byte - 250;
      double ref[16];
      const bool with_ref = in.byte() % 2;
      if (with_ref) read_transform(in, ref);
      check_setter(robot, "geolin_constraints_add_contact",
                   geolin_constraints_add_contact(set, frame, type, with_ref ? ref : nullptr),
                   rows_before, set);
    } else if (kind % 4 == 1) {
      const int a = index(frames_count), b = index(frames_count);
      const std::uint8_t type_byte = in.byte();
      const int type = type_byte < 250 ? 3 + (type_byte % 3 == 2 ? 3 : 2 * (type_byte % 3))
                                       : type_byte - 250;  // 3, 5, 6, or anything
      check_setter(robot, "geolin_constraints_add_loop",
                   geolin_constraints_add_loop(set, a, b, type), rows_before, set);
    } else if (kind % 4 == 2) {
      const int joint = index(nj), source = index(nj);
      double ratio_offset[2];
      in.numbers(ratio_offset, 2);
      check_setter(
          robot, "geolin_constraints_add_coupling",
          geolin_constraints_add_coupling(set, joint, source, ratio_offset[0], ratio_offset[1]),
          rows_before, set);
    } else {
      const int frame = index(frames_count);
      double axis[3], radius = 0.0;
      in.numbers(axis, 3);
      in.numbers(&radius, 1);
      check_setter(robot, "geolin_constraints_add_wheel",
                   geolin_constraints_add_wheel(set, frame, kind % 8 == 7 ? nullptr : axis, radius),
                   rows_before, set);
    }
  }
  {
    const int rows_before = geolin_constraints_num_rows(set);
    const int added = geolin_constraints_add_mimic_joints(set);
    if (added < 0)
      check_setter(robot, "geolin_constraints_add_mimic_joints", added, rows_before, set);
    else if (geolin_constraints_num_rows(set) != rows_before + added)
      fail(robot, "geolin_constraints_add_mimic_joints", added, "rows are not the count added",
           nullptr, 0);
  }
  const int rows = geolin_constraints_num_rows(set);
  if (gains != nullptr)
    check_setter(robot, "geolin_constraints_set_gains",
                 geolin_constraints_set_gains(set, gains[0], gains[1]), rows, set);
  check_setter(robot, "geolin_constraints_set_axes", geolin_constraints_set_axes(set, wrench_flags),
               rows, set);
  if (in.byte() % 2) {
    double ref[16];
    const int k = index(count);
    read_transform(in, ref);
    check_setter(robot, "geolin_constraints_set_ref", geolin_constraints_set_ref(set, k, ref), rows,
                 set);
  }
  double feedback[2] = {0.0, 0.0};  // kp, kd on every joint
  in.numbers(feedback, 2);
  const std::vector<double> kp(unj, feedback[0]), kd(unj, feedback[1]);
  const std::size_t um = static_cast<std::size_t>(geolin_constraints_num_rows(set));
  {
    std::vector<Output> o{{"nu_dot", un}, {"lambda", um}};
    check(robot, "geolin_constrained_dynamics",
          geolin_constrained_dynamics(ws, set, Hp, s.data(), vp, r.data(), tau.data(),
                                      o[0].data.data(), o[1].data.data()),
          o);
  }
  {
    std::vector<Output> o{
        {"A", uN * uN}, {"B", uN * unj}, {"dlambda_dz", um * uN}, {"dlambda_dw", um * unj}};
    check(robot, "geolin_constrained_linearize",
          geolin_constrained_linearize(ws, set, Hp, s.data(), vp, r.data(), tau.data(),
                                       o[0].data.data(), o[1].data.data(), o[2].data.data(),
                                       o[3].data.data()),
          o);
  }
  for (int with_feedback = 0; with_feedback < 2; ++with_feedback) {
    std::vector<Output> o{{"H_next", 16, !robot.fixed},
                          {"s_next", unj},
                          {"v_next", 6, !robot.fixed},
                          {"r_next", unj},
                          {"lambda", um}};
    const int st =
        with_feedback
            ? geolin_constrained_step_feedback(ws, set, method, h, Hp, s.data(), vp, r.data(),
                                               tau.data(), kp.data(), kd.data(), nullptr, nullptr,
                                               o[0].data.data(), o[1].data.data(), o[2].data.data(),
                                               o[3].data.data(), o[4].data.data())
            : geolin_constrained_step(ws, set, method, h, Hp, s.data(), vp, r.data(), tau.data(),
                                      o[0].data.data(), o[1].data.data(), o[2].data.data(),
                                      o[3].data.data(), o[4].data.data());
    check(robot, with_feedback ? "geolin_constrained_step_feedback" : "geolin_constrained_step", st,
          o);
  }
  for (int with_feedback = 0; with_feedback < 2; ++with_feedback) {
    std::vector<Output> o{
        {"A_d", uN * uN}, {"B_d", uN * unj}, {"dlambda_dz", um * uN}, {"dlambda_dw", um * unj}};
    const int st =
        with_feedback ? geolin_constrained_step_feedback_linearize(
                            ws, set, method, h, Hp, s.data(), vp, r.data(), tau.data(), kp.data(),
                            kd.data(), nullptr, nullptr, o[0].data.data(), o[1].data.data(),
                            o[2].data.data(), o[3].data.data())
                      : geolin_constrained_step_linearize(
                            ws, set, method, h, Hp, s.data(), vp, r.data(), tau.data(),
                            o[0].data.data(), o[1].data.data(), o[2].data.data(), o[3].data.data());
    check(robot,
          with_feedback ? "geolin_constrained_step_feedback_linearize"
                        : "geolin_constrained_step_linearize",
          st, o);
  }
  {
    std::vector<Output> o{{"v_next", 6, !robot.fixed}, {"r_next", unj}, {"impulse", um}};
    check(robot, "geolin_constrained_impulse",
          geolin_constrained_impulse(ws, set, restitution, Hp, s.data(), vp, r.data(),
                                     o[0].data.data(), o[1].data.data(), o[2].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"A_imp", uN * uN}, {"dimpulse_dz", um * uN}};
    check(robot, "geolin_constrained_impulse_linearize",
          geolin_constrained_impulse_linearize(ws, set, restitution, Hp, s.data(), vp, r.data(),
                                               o[0].data.data(), o[1].data.data()),
          o);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  std::vector<Robot> &all = robots();
  Input in(data, size);
  const Robot &robot = all[in.byte() % all.size()];
  geolin_workspace *ws = robot.ws;
  const int nj = geolin_model_num_joints(robot.model);
  const int n = geolin_model_num_dofs(robot.model);
  const int N = geolin_model_state_dim(robot.model);
  const int frames_count = geolin_model_num_frames(robot.model);
  const std::size_t un = static_cast<std::size_t>(n), uN = static_cast<std::size_t>(N),
                    unj = static_cast<std::size_t>(nj);

  // Gravity: the default, or fuzzed (a refused gravity leaves the default: the workspace is
  // shared by all inputs, and an input must not depend on the ones before it).
  double g[3] = {0.0, 0.0, -9.81};
  if (geolin_workspace_set_gravity(ws, g) != GEOLIN_OK)
    fail(robot, "geolin_workspace_set_gravity", -1, "the default gravity is refused", nullptr, 0);
  if (in.byte() % 4 == 0) in.numbers(g, 3);
  const int gravity_status = geolin_workspace_set_gravity(ws, g);
  if (gravity_status != GEOLIN_OK && gravity_status != GEOLIN_ERR_NONFINITE &&
      gravity_status != GEOLIN_ERR_INVALID_ARGUMENT)
    fail(robot, "geolin_workspace_set_gravity", gravity_status, "unexpected status", nullptr, 0);

  double H[16];
  read_transform(in, H);
  std::vector<double> s(unj), r(unj), tau(unj), nu_dot_in(un);
  double v[6];
  in.numbers(s.data(), nj);
  in.numbers(v, 6);
  in.numbers(r.data(), nj);
  in.numbers(tau.data(), nj);
  in.numbers(nu_dot_in.data(), n);
  // Fixed base: H and v may be NULL.
  const bool null_base = robot.fixed && (in.byte() & 1);
  const double *Hp = null_base ? nullptr : H;
  const double *vp = null_base ? nullptr : v;
  const int frame = static_cast<int>(in.byte() % static_cast<unsigned>(frames_count + 2)) - 1;
  const int nf = static_cast<int>(in.byte() % 4u);
  std::vector<int> frames(static_cast<std::size_t>(nf));
  for (int &f : frames) f = static_cast<int>(in.byte() % static_cast<unsigned>(frames_count + 1));
  std::vector<double> wrenches(static_cast<std::size_t>(6 * nf));
  in.numbers(wrenches.data(), 6 * nf);
  const std::uint8_t flag_byte = in.byte();
  const unsigned wrench_flags = flag_byte < 250 ? (flag_byte & 1u) : flag_byte;
  const std::uint8_t method_byte = in.byte();
  const int method = method_byte < 250 ? (method_byte & 1) : method_byte - 250 + 2;
  double h = in.number();
  if (in.byte() % 2) h = std::ldexp(1.0, -(in.byte() % 20));  // a usual step half the time
  double eps = in.number();
  if (in.byte() % 2) eps = 1e-6;
  const std::size_t ext_cols = unj + 6 * static_cast<std::size_t>(nf);

  {
    std::vector<Output> o{{"nu_dot", un}};
    check(robot, "geolin_forward_dynamics",
          geolin_forward_dynamics(ws, Hp, s.data(), vp, r.data(), tau.data(), o[0].data.data()), o);
  }
  {
    std::vector<Output> o{{"generalized_force", un}};
    check(
        robot, "geolin_inverse_dynamics",
        geolin_inverse_dynamics(ws, Hp, s.data(), vp, r.data(), nu_dot_in.data(), o[0].data.data()),
        o);
  }
  {
    std::vector<Output> o{{"generalized_force", un}, {"dtau_dz", un * uN}, {"M", un * un}};
    check(robot, "geolin_inverse_dynamics_linearize",
          geolin_inverse_dynamics_linearize(ws, Hp, s.data(), vp, r.data(), nu_dot_in.data(),
                                            o[0].data.data(), o[1].data.data(), o[2].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"M", un * un}};
    check(robot, "geolin_mass_matrix", geolin_mass_matrix(ws, s.data(), o[0].data.data()), o);
  }
  {
    std::vector<Output> o{{"Minv", un * un}};
    check(robot, "geolin_mass_matrix_inverse",
          geolin_mass_matrix_inverse(ws, s.data(), o[0].data.data()), o);
  }
  {
    std::vector<Output> o{{"H_frame", 16}};
    check(robot, "geolin_frame_pose", geolin_frame_pose(ws, Hp, s.data(), frame, o[0].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"J", 6 * un}};
    check(robot, "geolin_frame_jacobian",
          geolin_frame_jacobian(ws, Hp, s.data(), frame, o[0].data.data()), o);
  }
  {
    std::vector<Output> o{{"com", 3}, {"com_velocity", 3}, {"J_com", 3 * un}};
    check(robot, "geolin_center_of_mass",
          geolin_center_of_mass(ws, Hp, s.data(), vp, r.data(), o[0].data.data(), o[1].data.data(),
                                o[2].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"h_G", 6}, {"A_G", 6 * un}, {"dh_dz", 6 * uN}};
    check(robot, "geolin_centroidal_momentum",
          geolin_centroidal_momentum(ws, Hp, s.data(), vp, r.data(), o[0].data.data(),
                                     o[1].data.data(), o[2].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"error", 6}, {"de_dz", 6 * uN}};
    const double I4[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    check(robot, "geolin_frame_pose_error",
          geolin_frame_pose_error(ws, Hp, s.data(), frame, Hp ? Hp : I4, o[0].data.data(),
                                  o[1].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"twist", 6}, {"dtwist_dz", 6 * uN}};
    check(robot, "geolin_frame_velocity",
          geolin_frame_velocity(ws, Hp, s.data(), vp, r.data(), frame, wrench_flags,
                                o[0].data.data(), o[1].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"acc", 6}, {"dacc_dz", 6 * uN}, {"dacc_dnudot", 6 * un}};
    check(robot, "geolin_frame_acceleration",
          geolin_frame_acceleration(ws, Hp, s.data(), vp, r.data(), nu_dot_in.data(), frame,
                                    wrench_flags, o[0].data.data(), o[1].data.data(),
                                    o[2].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"nu_dot", un}};
    check(robot, "geolin_forward_dynamics_ext",
          geolin_forward_dynamics_ext(ws, Hp, s.data(), vp, r.data(), tau.data(), nf, frames.data(),
                                      wrenches.data(), wrench_flags, o[0].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"A", uN * uN}, {"B", uN * unj}};
    check(robot, "geolin_linearize",
          geolin_linearize(ws, Hp, s.data(), vp, r.data(), tau.data(), o[0].data.data(),
                           o[1].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"A", uN * uN}, {"B", uN * unj}};
    check(robot, "geolin_linearize_finite_difference",
          geolin_linearize_finite_difference(ws, Hp, s.data(), vp, r.data(), tau.data(), eps,
                                             o[0].data.data(), o[1].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"A", uN * uN}, {"B", uN * ext_cols}};
    check(robot, "geolin_linearize_ext",
          geolin_linearize_ext(ws, Hp, s.data(), vp, r.data(), tau.data(), nf, frames.data(),
                               wrenches.data(), wrench_flags, o[0].data.data(), o[1].data.data()),
          o);
  }
  {
    // Fixed base: H_next and v_next are not written (geolin.h), even on success.
    std::vector<Output> o{{"H_next", 16, !robot.fixed},
                          {"s_next", unj},
                          {"v_next", 6, !robot.fixed},
                          {"r_next", unj}};
    check(robot, "geolin_step",
          geolin_step(ws, method, h, Hp, s.data(), vp, r.data(), tau.data(), o[0].data.data(),
                      o[1].data.data(), o[2].data.data(), o[3].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"A_d", uN * uN}, {"B_d", uN * unj}};
    check(robot, "geolin_step_linearize",
          geolin_step_linearize(ws, method, h, Hp, s.data(), vp, r.data(), tau.data(),
                                o[0].data.data(), o[1].data.data()),
          o);
  }

  // The contact regularization: 0 (dependent contacts refused) or fuzzed; the setter accepts
  // exactly the mu in [0, GEOLIN_CONTACT_REGULARIZATION_MAX], and a refused mu leaves 0 (the
  // workspace is shared by all inputs).
  double mu = 0.0;
  if (geolin_workspace_set_contact_regularization(ws, mu) != GEOLIN_OK)
    fail(robot, "geolin_workspace_set_contact_regularization", -1, "mu = 0 is refused", nullptr, 0);
  if (in.byte() % 2) in.numbers(&mu, 1);
  const int mu_status = geolin_workspace_set_contact_regularization(ws, mu);
  if ((mu_status == GEOLIN_OK) != (mu >= 0.0 && mu <= GEOLIN_CONTACT_REGULARIZATION_MAX))
    fail(robot, "geolin_workspace_set_contact_regularization", mu_status,
         "accepted a mu outside [0, GEOLIN_CONTACT_REGULARIZATION_MAX], or refused one inside",
         nullptr, 0);

  // Contacts: up to 4, at fuzzed frames (one past the last is invalid), point or rigid or an
  // invalid type, gains NULL or fuzzed, references NULL or rigid transforms (possibly broken).
  const int nc = static_cast<int>(in.byte() % 5u);
  std::vector<int> contact_frames(static_cast<std::size_t>(nc)), types(contact_frames.size());
  int m = 0;
  bool types_valid = true;
  for (int k = 0; k < nc; ++k) {
    contact_frames[k] = static_cast<int>(in.byte() % static_cast<unsigned>(frames_count + 1));
    const std::uint8_t type_byte = in.byte();
    types[k] = type_byte < 250 ? (type_byte % 2 ? GEOLIN_CONTACT_RIGID : GEOLIN_CONTACT_POINT)
                               : type_byte - 250;
    types_valid = types_valid && (types[k] == 3 || types[k] == 6);
    m += types[k] == 6 ? 6 : 3;
  }
  const std::size_t um = static_cast<std::size_t>(m);
  double gains[2] = {0.0, 0.0};
  const bool with_gains = in.byte() % 2;
  if (with_gains) in.numbers(gains, 2);
  std::vector<double> refs(16 * static_cast<std::size_t>(nc));
  const bool with_refs = in.byte() % 2;
  if (with_refs)
    for (int k = 0; k < nc; ++k) read_transform(in, &refs[16 * static_cast<std::size_t>(k)]);
  const double *gp = with_gains ? gains : nullptr;
  const double *rp = with_refs ? refs.data() : nullptr;
  {
    std::vector<Output> o{{"nu_dot", un}, {"lambda", um}};
    const int st = geolin_contact_dynamics(ws, Hp, s.data(), vp, r.data(), tau.data(), nc,
                                           contact_frames.data(), types.data(), wrench_flags, gp,
                                           rp, o[0].data.data(), o[1].data.data());
    if (st == GEOLIN_OK && !types_valid)
      fail(robot, "geolin_contact_dynamics", st, "OK with an invalid contact type", nullptr, 0);
    check(robot, "geolin_contact_dynamics", st, o);
  }
  {
    std::vector<Output> o{
        {"A", uN * uN}, {"B", uN * unj}, {"dlambda_dz", um * uN}, {"dlambda_dw", um * unj}};
    check(robot, "geolin_contact_linearize",
          geolin_contact_linearize(ws, Hp, s.data(), vp, r.data(), tau.data(), nc,
                                   contact_frames.data(), types.data(), wrench_flags, gp, rp,
                                   o[0].data.data(), o[1].data.data(), o[2].data.data(),
                                   o[3].data.data()),
          o);
  }
  // The contact step with the same contacts, method and h.
  {
    std::vector<Output> o{{"H_next", 16, !robot.fixed},
                          {"s_next", unj},
                          {"v_next", 6, !robot.fixed},
                          {"r_next", unj},
                          {"lambda", um}};
    check(robot, "geolin_contact_step",
          geolin_contact_step(ws, method, h, Hp, s.data(), vp, r.data(), tau.data(), nc,
                              contact_frames.data(), types.data(), wrench_flags, gp, rp,
                              o[0].data.data(), o[1].data.data(), o[2].data.data(),
                              o[3].data.data(), o[4].data.data()),
          o);
  }
  {
    std::vector<Output> o{
        {"A_d", uN * uN}, {"B_d", uN * unj}, {"dlambda_dz", um * uN}, {"dlambda_dw", um * unj}};
    check(robot, "geolin_contact_step_linearize",
          geolin_contact_step_linearize(ws, method, h, Hp, s.data(), vp, r.data(), tau.data(), nc,
                                        contact_frames.data(), types.data(), wrench_flags, gp, rp,
                                        o[0].data.data(), o[1].data.data(), o[2].data.data(),
                                        o[3].data.data()),
          o);
  }
  // The impact map with the same contacts and a fuzzed restitution (in [0, 1] or not).
  double restitution = 0.0;
  in.numbers(&restitution, 1);
  {
    std::vector<Output> o{{"v_next", 6, !robot.fixed}, {"r_next", unj}, {"impulse", um}};
    check(robot, "geolin_impulse",
          geolin_impulse(ws, Hp, s.data(), vp, r.data(), nc, contact_frames.data(), types.data(),
                         wrench_flags, restitution, o[0].data.data(), o[1].data.data(),
                         o[2].data.data()),
          o);
  }
  {
    std::vector<Output> o{{"A_imp", uN * uN}, {"dimpulse_dz", um * uN}};
    check(robot, "geolin_impulse_linearize",
          geolin_impulse_linearize(ws, Hp, s.data(), vp, r.data(), nc, contact_frames.data(),
                                   types.data(), wrench_flags, restitution, o[0].data.data(),
                                   o[1].data.data()),
          o);
  }
  fuzz_constraint_set(robot, in, Hp, s, vp, r, tau, method, h, restitution,
                      with_gains ? gains : nullptr, wrench_flags);
  return 0;
}
