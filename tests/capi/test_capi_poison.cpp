// A failed call does not poison the workspace (docs/c-api.md: a call never reads workspace
// contents it has not written in the same call). On ONE workspace per model, every failing call
// of the table kPoisons (inputs that pass the argument checks and then overflow or meet dependent
// contacts, plus a few that fail the checks) is followed by every evaluation function of the
// table kEvals, and each evaluation must give what it gives on a FRESH workspace: the same status,
// the same outputs bit for bit (every optional output requested; what a call leaves unwritten
// keeps a sentinel, so that is compared too) and, on failure, the same message. A result that
// depends on what an earlier call left in the workspace (a buffer zeroed in part, a block assumed
// zero, a stale term multiplied by zero: 0 * Inf = NaN) differs from the fresh one.
//
// The tables list functions, not cases: to cover a new evaluation function, add a row to kEvals
// (and, if it can fail numerically, rows to kPoisons); every fixture runs every row.
//
// usage: test_capi_poison <models_dir> <tree.urdf>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "geolin.h"

namespace {

int g_checks = 0, g_failures = 0;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    ++g_checks;                                                            \
    if (!(cond)) {                                                         \
      ++g_failures;                                                        \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                   \
      std::fprintf(stderr, "\n");                                          \
    }                                                                      \
  } while (0)

constexpr double kSentinel = -7.25;

// Consecutive output arrays of one call, carved from one buffer that starts as sentinels.
class Outputs {
 public:
  explicit Outputs(std::size_t capacity) : buffer_(capacity, kSentinel) {}
  double *take(std::ptrdiff_t count) {
    if (used_ + static_cast<std::size_t>(count) > buffer_.size()) {
      std::fprintf(stderr, "test_capi_poison: output buffer too small\n");
      std::abort();
    }
    double *p = buffer_.data() + used_;
    used_ += static_cast<std::size_t>(count);
    return p;
  }
  void reset() {
    std::fill(buffer_.begin(), buffer_.end(), kSentinel);
    used_ = 0;
  }
  bool untouched() const {
    for (double x : buffer_)
      if (std::memcmp(&x, &kSentinel, sizeof x) != 0) return false;
    return true;
  }
  const std::vector<double> &values() const { return buffer_; }

 private:
  std::vector<double> buffer_;
  std::size_t used_ = 0;
};

// A set of contacts of one call: frames, types, axes, gains and reference poses.
struct ContactSet {
  int nc = 0;
  int frames[4] = {0, 0, 0, 0};
  int types[4] = {0, 0, 0, 0};
  unsigned flags = GEOLIN_WRENCH_LOCAL;
  const double *gains = nullptr;
  std::vector<double> refs;  // 16 per contact
  int rows() const {
    int m = 0;
    for (int k = 0; k < nc; ++k) m += types[k];
    return m;
  }
  const double *refs_or_null() const { return refs.empty() ? nullptr : refs.data(); }
};

// One model, the workspace setting the calls share (the contact regularization mu), a regular
// state and the contacts, wrenches and frames the calls use.
struct Fixture {
  const char *name = "";
  geolin_model *model = nullptr;
  double mu = 0.0;
  int nj = 0, n = 0, N = 0, nframes = 0;
  bool fixed = false;
  double H[16] = {0};
  std::vector<double> s, v, r, tau, nu_dot;
  int frame = 0;  // the frame of the frame calls (a tip)
  double H_ref[16] = {0};
  int wrench_frames[2] = {0, 0};
  std::vector<double> wrenches;  // 12
  ContactSet points;             // Mixed, with gains and refs
  ContactSet rigid;              // Local, a rigid contact first, gains and refs
  ContactSet free;       // Mixed, a rigid contact first, no gains (Kp = Kd = 0, refs not read)
  ContactSet none;       // nc = 0
  ContactSet redundant;  // one frame held twice: dependent rows (unless mu > 0)
  double gains[2] = {40.0, 6.0};
  int prismatic = -1;  // a prismatic joint, or -1
  // Constraint sets of the model: `constrained` the points' contacts (Mixed, gains and refs) with
  // a coupling and, on the quadruped, a loop between the hind feet; `held` the contacts of
  // `rigid` as a set; `dependent` those of `redundant`.
  geolin_constraints *constrained = nullptr, *held = nullptr, *dependent = nullptr;

  geolin_workspace *new_workspace() const {
    geolin_workspace *ws = nullptr;
    if (geolin_workspace_new(model, &ws) != GEOLIN_OK) return nullptr;
    if (geolin_workspace_set_contact_regularization(ws, mu) != GEOLIN_OK) {
      geolin_workspace_free(ws);
      return nullptr;
    }
    return ws;
  }
  std::size_t output_capacity() const {
    // The largest call: linearize_ext's A and B (2 wrenches), the contact step's A_d, B_d, dλ.
    return 2 * static_cast<std::size_t>(N) * static_cast<std::size_t>(N + nj + 12) + 64;
  }
};

using Ws = geolin_workspace;
using Call = std::function<int(Ws *, const Fixture &, Outputs &)>;

struct Row {
  const char *name;
  Call call;
};

// A copy of the fixture's vector x with every entry `value`.
std::vector<double> all(const std::vector<double> &x, double value) {
  return std::vector<double>(x.size(), value);
}

// --- the evaluation functions, every optional output requested --------------------------------

int contact_dynamics(Ws *ws, const Fixture &f, Outputs &o, const ContactSet &c) {
  return geolin_contact_dynamics(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), c.nc,
                                 c.frames, c.types, c.flags, c.gains, c.refs_or_null(), o.take(f.n),
                                 o.take(c.rows()));
}

int contact_linearize(Ws *ws, const Fixture &f, Outputs &o, const ContactSet &c) {
  return geolin_contact_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), c.nc,
                                  c.frames, c.types, c.flags, c.gains, c.refs_or_null(),
                                  o.take(f.N * f.N), o.take(f.N * f.nj), o.take(c.rows() * f.N),
                                  o.take(c.rows() * f.nj));
}

int impulse(Ws *ws, const Fixture &f, Outputs &o, const ContactSet &c, const double *v) {
  return geolin_impulse(ws, f.H, f.s.data(), v, f.r.data(), c.nc, c.frames, c.types, c.flags, 0.5,
                        o.take(6), o.take(f.nj), o.take(c.rows()));
}

int impulse_linearize(Ws *ws, const Fixture &f, Outputs &o, const ContactSet &c, const double *v) {
  return geolin_impulse_linearize(ws, f.H, f.s.data(), v, f.r.data(), c.nc, c.frames, c.types,
                                  c.flags, 0.5, o.take(f.N * f.N), o.take(c.rows() * f.N));
}

int step(Ws *ws, const Fixture &f, Outputs &o, int method, double h, const double *tau) {
  return geolin_step(ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), tau, o.take(16),
                     o.take(f.nj), o.take(6), o.take(f.nj));
}

int step_linearize(Ws *ws, const Fixture &f, Outputs &o, int method, double h) {
  return geolin_step_linearize(ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(),
                               o.take(f.N * f.N), o.take(f.N * f.nj));
}

int contact_step(Ws *ws, const Fixture &f, Outputs &o, int method, double h, const double *tau,
                 const ContactSet &c) {
  return geolin_contact_step(ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), tau, c.nc,
                             c.frames, c.types, c.flags, c.gains, c.refs_or_null(), o.take(16),
                             o.take(f.nj), o.take(6), o.take(f.nj), o.take(c.rows()));
}

int contact_step_linearize(Ws *ws, const Fixture &f, Outputs &o, int method, double h,
                           const ContactSet &c) {
  return geolin_contact_step_linearize(ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(),
                                       f.tau.data(), c.nc, c.frames, c.types, c.flags, c.gains,
                                       c.refs_or_null(), o.take(f.N * f.N), o.take(f.N * f.nj),
                                       o.take(c.rows() * f.N), o.take(c.rows() * f.nj));
}

// The joint feedback of the _feedback steps: kp = 30, kd = `kd` on every joint, the references
// the state's s + 0.1 and 0 (a PD about a nearby posture).
struct Feedback {
  std::vector<double> kp, kd, s_ref, r_ref;
  Feedback(const Fixture &f, double kd_value)
      : kp(f.nj, 30.0), kd(f.nj, kd_value), s_ref(f.s), r_ref(f.nj, 0.0) {
    for (double &x : s_ref) x += 0.1;
  }
};

int step_feedback(Ws *ws, const Fixture &f, Outputs &o, int method, double h, double kd) {
  const Feedback fb(f, kd);
  return geolin_step_feedback(ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(),
                              fb.kp.data(), fb.kd.data(), fb.s_ref.data(), fb.r_ref.data(),
                              o.take(16), o.take(f.nj), o.take(6), o.take(f.nj));
}

int step_feedback_linearize(Ws *ws, const Fixture &f, Outputs &o, int method, double h, double kd) {
  const Feedback fb(f, kd);
  return geolin_step_feedback_linearize(ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(),
                                        f.tau.data(), fb.kp.data(), fb.kd.data(), fb.s_ref.data(),
                                        fb.r_ref.data(), o.take(f.N * f.N), o.take(f.N * f.nj));
}

int contact_step_feedback(Ws *ws, const Fixture &f, Outputs &o, int method, double h, double kd,
                          const ContactSet &c) {
  const Feedback fb(f, kd);
  return geolin_contact_step_feedback(
      ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), fb.kp.data(),
      fb.kd.data(), fb.s_ref.data(), fb.r_ref.data(), c.nc, c.frames, c.types, c.flags, c.gains,
      c.refs_or_null(), o.take(16), o.take(f.nj), o.take(6), o.take(f.nj), o.take(c.rows()));
}

int contact_step_feedback_linearize(Ws *ws, const Fixture &f, Outputs &o, int method, double h,
                                    double kd, const ContactSet &c) {
  const Feedback fb(f, kd);
  return geolin_contact_step_feedback_linearize(
      ws, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), fb.kp.data(),
      fb.kd.data(), fb.s_ref.data(), fb.r_ref.data(), c.nc, c.frames, c.types, c.flags, c.gains,
      c.refs_or_null(), o.take(f.N * f.N), o.take(f.N * f.nj), o.take(c.rows() * f.N),
      o.take(c.rows() * f.nj));
}

using Set = const geolin_constraints *;

int constrained_dynamics(Ws *ws, const Fixture &f, Outputs &o, Set set, const double *tau) {
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_dynamics(ws, set, f.H, f.s.data(), f.v.data(), f.r.data(), tau,
                                     o.take(f.n), o.take(m));
}

int constrained_linearize(Ws *ws, const Fixture &f, Outputs &o, Set set, const double *r) {
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_linearize(ws, set, f.H, f.s.data(), f.v.data(), r, f.tau.data(),
                                      o.take(f.N * f.N), o.take(f.N * f.nj), o.take(m * f.N),
                                      o.take(m * f.nj));
}

int constrained_step(Ws *ws, const Fixture &f, Outputs &o, Set set, int method, double h) {
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_step(ws, set, method, h, f.H, f.s.data(), f.v.data(), f.r.data(),
                                 f.tau.data(), o.take(16), o.take(f.nj), o.take(6), o.take(f.nj),
                                 o.take(m));
}

int constrained_step_linearize(Ws *ws, const Fixture &f, Outputs &o, Set set, int method,
                               double h) {
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_step_linearize(ws, set, method, h, f.H, f.s.data(), f.v.data(),
                                           f.r.data(), f.tau.data(), o.take(f.N * f.N),
                                           o.take(f.N * f.nj), o.take(m * f.N), o.take(m * f.nj));
}

int constrained_impulse(Ws *ws, const Fixture &f, Outputs &o, Set set, const double *v,
                        const double *r) {
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_impulse(ws, set, 0.5, f.H, f.s.data(), v, r, o.take(6), o.take(f.nj),
                                    o.take(m));
}

int constrained_impulse_linearize(Ws *ws, const Fixture &f, Outputs &o, Set set, const double *v,
                                  const double *r) {
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_impulse_linearize(ws, set, 0.5, f.H, f.s.data(), v, r,
                                              o.take(f.N * f.N), o.take(m * f.N));
}

int constrained_step_feedback(Ws *ws, const Fixture &f, Outputs &o, Set set, int method, double h,
                              double kd) {
  const Feedback fb(f, kd);
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_step_feedback(ws, set, method, h, f.H, f.s.data(), f.v.data(),
                                          f.r.data(), f.tau.data(), fb.kp.data(), fb.kd.data(),
                                          fb.s_ref.data(), fb.r_ref.data(), o.take(16),
                                          o.take(f.nj), o.take(6), o.take(f.nj), o.take(m));
}

int constrained_step_feedback_linearize(Ws *ws, const Fixture &f, Outputs &o, Set set, int method,
                                        double h, double kd) {
  const Feedback fb(f, kd);
  const int m = geolin_constraints_num_rows(set);
  return geolin_constrained_step_feedback_linearize(
      ws, set, method, h, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), fb.kp.data(),
      fb.kd.data(), fb.s_ref.data(), fb.r_ref.data(), o.take(f.N * f.N), o.take(f.N * f.nj),
      o.take(m * f.N), o.take(m * f.nj));
}

int linearize_ext(Ws *ws, const Fixture &f, Outputs &o, unsigned flags, const double *wrenches) {
  return geolin_linearize_ext(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), 2,
                              f.wrench_frames, wrenches, flags, o.take(f.N * f.N),
                              o.take(f.N * (f.nj + 12)));
}

int forward_dynamics_ext(Ws *ws, const Fixture &f, Outputs &o, unsigned flags,
                         const double *wrenches) {
  return geolin_forward_dynamics_ext(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), 2,
                                     f.wrench_frames, wrenches, flags, o.take(f.n));
}

int frame_velocity(Ws *ws, const Fixture &f, Outputs &o, unsigned flags, bool derivative,
                   const double *v) {
  return geolin_frame_velocity(ws, f.H, f.s.data(), v, f.r.data(), f.frame, flags, o.take(6),
                               derivative ? o.take(6 * f.N) : nullptr);
}

int frame_acceleration(Ws *ws, const Fixture &f, Outputs &o, unsigned flags, bool derivatives,
                       const double *nu_dot) {
  return geolin_frame_acceleration(ws, f.H, f.s.data(), f.v.data(), f.r.data(), nu_dot, f.frame,
                                   flags, o.take(6), derivatives ? o.take(6 * f.N) : nullptr,
                                   derivatives ? o.take(6 * f.n) : nullptr);
}

constexpr int kEuler = GEOLIN_STEP_SEMI_IMPLICIT_EULER, kRk4 = GEOLIN_STEP_RK4,
              kImplicit = GEOLIN_STEP_IMPLICIT_EULER;

// clang-format off
const std::vector<Row> kEvals = {
  {"forward_dynamics", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_forward_dynamics(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(),
                                    o.take(f.n)); }},
  {"forward_dynamics_ext (Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return forward_dynamics_ext(ws, f, o, GEOLIN_WRENCH_LOCAL, f.wrenches.data()); }},
  {"forward_dynamics_ext (Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return forward_dynamics_ext(ws, f, o, GEOLIN_WRENCH_MIXED, f.wrenches.data()); }},
  {"inverse_dynamics", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_inverse_dynamics(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.nu_dot.data(),
                                    o.take(f.n)); }},
  {"mass_matrix", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_mass_matrix(ws, f.s.data(), o.take(f.n * f.n)); }},
  {"mass_matrix_inverse", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_mass_matrix_inverse(ws, f.s.data(), o.take(f.n * f.n)); }},
  {"linearize", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(),
                             o.take(f.N * f.N), o.take(f.N * f.nj)); }},
  {"linearize_finite_difference", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_linearize_finite_difference(ws, f.H, f.s.data(), f.v.data(), f.r.data(),
                                               f.tau.data(), 1e-6, o.take(f.N * f.N),
                                               o.take(f.N * f.nj)); }},
  {"linearize_ext (Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return linearize_ext(ws, f, o, GEOLIN_WRENCH_LOCAL, f.wrenches.data()); }},
  {"linearize_ext (Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return linearize_ext(ws, f, o, GEOLIN_WRENCH_MIXED, f.wrenches.data()); }},
  {"inverse_dynamics_linearize (all outputs)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_inverse_dynamics_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(),
                                              f.nu_dot.data(), o.take(f.n), o.take(f.n * f.N),
                                              o.take(f.n * f.n)); }},
  {"inverse_dynamics_linearize (staged: nu_dot = 1e120)", [](Ws *ws, const Fixture &f,
                                                             Outputs &o) {
     const auto nu_dot = all(f.nu_dot, 1e120);  // terms beyond the bound of the direct path
     return geolin_inverse_dynamics_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(),
                                              nu_dot.data(), o.take(f.n), o.take(f.n * f.N),
                                              o.take(f.n * f.n)); }},
  {"inverse_dynamics_linearize (M only)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_inverse_dynamics_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(),
                                              f.nu_dot.data(), o.take(f.n), nullptr,
                                              o.take(f.n * f.n)); }},
  {"frame_pose", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_frame_pose(ws, f.H, f.s.data(), f.frame, o.take(16)); }},
  {"frame_jacobian", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_frame_jacobian(ws, f.H, f.s.data(), f.frame, o.take(6 * f.n)); }},
  {"frame_pose_error (de_dz)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_frame_pose_error(ws, f.H, f.s.data(), f.frame, f.H_ref, o.take(6),
                                    o.take(6 * f.N)); }},
  {"frame_pose_error", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_frame_pose_error(ws, f.H, f.s.data(), f.frame, f.H_ref, o.take(6), nullptr); }},
  {"frame_velocity (Local, dtwist_dz)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_velocity(ws, f, o, GEOLIN_WRENCH_LOCAL, true, f.v.data()); }},
  {"frame_velocity (Mixed, dtwist_dz)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_velocity(ws, f, o, GEOLIN_WRENCH_MIXED, true, f.v.data()); }},
  {"frame_velocity (Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_velocity(ws, f, o, GEOLIN_WRENCH_MIXED, false, f.v.data()); }},
  {"frame_acceleration (Local, both derivatives)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_acceleration(ws, f, o, GEOLIN_WRENCH_LOCAL, true, f.nu_dot.data()); }},
  {"frame_acceleration (Mixed, both derivatives)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_acceleration(ws, f, o, GEOLIN_WRENCH_MIXED, true, f.nu_dot.data()); }},
  {"frame_acceleration (Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_acceleration(ws, f, o, GEOLIN_WRENCH_LOCAL, false, f.nu_dot.data()); }},
  {"center_of_mass", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_center_of_mass(ws, f.H, f.s.data(), f.v.data(), f.r.data(), o.take(3),
                                  o.take(3), o.take(3 * f.n)); }},
  {"centroidal_momentum", [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_centroidal_momentum(ws, f.H, f.s.data(), f.v.data(), f.r.data(), o.take(6),
                                       o.take(6 * f.n), o.take(6 * f.N)); }},
  {"contact_dynamics (points, Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, f.points); }},
  {"contact_dynamics (rigid, Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, f.rigid); }},
  {"contact_dynamics (rigid, Mixed, no gains)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, f.free); }},
  {"contact_dynamics (nc = 0)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, f.none); }},
  {"contact_dynamics (redundant)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, f.redundant); }},
  {"contact_linearize (points, Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, f.points); }},
  {"contact_linearize (rigid, Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, f.rigid); }},
  {"contact_linearize (rigid, Mixed, no gains)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, f.free); }},
  {"contact_linearize (nc = 0)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, f.none); }},
  {"contact_linearize (redundant)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, f.redundant); }},
  {"impulse (points, Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse(ws, f, o, f.points, f.v.data()); }},
  {"impulse (rigid, Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse(ws, f, o, f.rigid, f.v.data()); }},
  {"impulse_linearize (points, Mixed)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse_linearize(ws, f, o, f.points, f.v.data()); }},
  {"impulse_linearize (rigid, Local)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse_linearize(ws, f, o, f.rigid, f.v.data()); }},
  {"impulse_linearize (nc = 0)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse_linearize(ws, f, o, f.none, f.v.data()); }},
  {"impulse_linearize (redundant)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse_linearize(ws, f, o, f.redundant, f.v.data()); }},
  {"step (Euler)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step(ws, f, o, kEuler, 1e-3, f.tau.data()); }},
  {"step (RK4)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step(ws, f, o, kRk4, 1e-3, f.tau.data()); }},
  {"step_linearize (Euler)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_linearize(ws, f, o, kEuler, 1e-3); }},
  {"step_linearize (RK4)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_linearize(ws, f, o, kRk4, 1e-3); }},
  {"contact_step (Euler, points)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step(ws, f, o, kEuler, 1e-3, f.tau.data(), f.points); }},
  {"contact_step (RK4, rigid)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step(ws, f, o, kRk4, 1e-3, f.tau.data(), f.rigid); }},
  {"contact_step (RK4, nc = 0)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step(ws, f, o, kRk4, 1e-3, f.tau.data(), f.none); }},
  {"contact_step_linearize (Euler, rigid)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kEuler, 1e-3, f.rigid); }},
  {"contact_step_linearize (Euler, rigid, no gains)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kEuler, 1e-3, f.free); }},
  {"contact_step_linearize (RK4, points)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kRk4, 1e-3, f.points); }},
  {"contact_step_linearize (RK4, nc = 0)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kRk4, 1e-3, f.none); }},
  {"step (implicit)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step(ws, f, o, kImplicit, 1e-3, f.tau.data()); }},
  {"step_feedback (implicit)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_feedback(ws, f, o, kImplicit, 1e-3, 5.0); }},
  {"step_feedback_linearize (RK4)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_feedback_linearize(ws, f, o, kRk4, 1e-3, 5.0); }},
  {"step_feedback_linearize (implicit)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_feedback_linearize(ws, f, o, kImplicit, 1e-3, 5.0); }},
  {"contact_step_feedback (implicit, points)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_feedback(ws, f, o, kImplicit, 1e-3, 5.0, f.points); }},
  {"contact_step_feedback_linearize (implicit, rigid)", [](Ws *ws, const Fixture &f,
                                                           Outputs &o) {
     return contact_step_feedback_linearize(ws, f, o, kImplicit, 1e-3, 5.0, f.rigid); }},
  {"contact_step_feedback_linearize (RK4, points)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_feedback_linearize(ws, f, o, kRk4, 1e-3, 5.0, f.points); }},
  {"constrained_dynamics (contacts, coupling, loop)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_dynamics(ws, f, o, f.constrained, f.tau.data()); }},
  {"constrained_dynamics (contacts only)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_dynamics(ws, f, o, f.held, f.tau.data()); }},
  {"constrained_dynamics (redundant)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_dynamics(ws, f, o, f.dependent, f.tau.data()); }},
  {"constrained_linearize (contacts, coupling, loop)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_linearize(ws, f, o, f.constrained, f.r.data()); }},
  {"constrained_linearize (contacts only)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_linearize(ws, f, o, f.held, f.r.data()); }},
  {"constrained_step (RK4, contacts, coupling, loop)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step(ws, f, o, f.constrained, kRk4, 1e-3); }},
  {"constrained_step_linearize (Euler, contacts, coupling, loop)",
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step_linearize(ws, f, o, f.constrained, kEuler, 1e-3); }},
  {"constrained_step_feedback (implicit, contacts only)", [](Ws *ws, const Fixture &f,
                                                             Outputs &o) {
     return constrained_step_feedback(ws, f, o, f.held, kImplicit, 1e-3, 5.0); }},
  {"constrained_step_feedback_linearize (RK4, contacts, coupling, loop)",
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step_feedback_linearize(ws, f, o, f.constrained, kRk4, 1e-3, 5.0); }},
  {"constrained_impulse (contacts, coupling, loop)", [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_impulse(ws, f, o, f.constrained, f.v.data(), f.r.data()); }},
  {"constrained_impulse_linearize (contacts, coupling, loop)",
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_impulse_linearize(ws, f, o, f.constrained, f.v.data(), f.r.data()); }},
};
// clang-format on

// --- the failing calls ---------------------------------------------------------------------

// The fixture's contact set c with Kp = Kd = big and references `big` away.
ContactSet stiff(const ContactSet &c, const double *gains) {
  ContactSet out = c;
  out.gains = gains;
  for (int k = 0; k < c.nc; ++k)
    for (int i = 12; i < 15; ++i) out.refs[16 * k + i] = 1e300;
  return out;
}

const double kBigGains[2] = {1e300, 1e300};

// A failing call and the status it must return. kDependent: dependent contact rows, NUMERIC
// without the contact regularization; with mu > 0 they are solved and the row is left out. A
// row that does not apply to the fixture's model returns kNotApplicable and is left out.
struct Poison {
  const char *name;
  int expected;
  Call call;
};

constexpr int kNumeric = GEOLIN_ERR_NUMERIC, kDependent = -1;
constexpr int kNotApplicable = -1000;  // returned by a row that does not apply to the model

// clang-format off
const std::vector<Poison> kPoisons = {
  // Inputs that pass the checks and overflow (near 1e300) or meet dependent contacts.
  {"forward_dynamics, v and r = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto v = all(f.v, 1e300), r = all(f.r, 1e300);
     return geolin_forward_dynamics(ws, f.H, f.s.data(), v.data(), r.data(), f.tau.data(),
                                    o.take(f.n)); }},
  {"forward_dynamics_ext (Mixed), wrenches = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto w = all(f.wrenches, 1e308);
     return forward_dynamics_ext(ws, f, o, GEOLIN_WRENCH_MIXED, w.data()); }},
  {"inverse_dynamics, r = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e300);
     return geolin_inverse_dynamics(ws, f.H, f.s.data(), f.v.data(), r.data(), f.nu_dot.data(),
                                    o.take(f.n)); }},
  {"linearize, r = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e300);
     return geolin_linearize(ws, f.H, f.s.data(), f.v.data(), r.data(), f.tau.data(),
                             o.take(f.N * f.N), o.take(f.N * f.nj)); }},
  {"linearize, tau = 1e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto tau = all(f.tau, 1e308);
     return geolin_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(), tau.data(),
                             o.take(f.N * f.N), o.take(f.N * f.nj)); }},
  {"linearize_ext (Mixed), wrenches = 1e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto w = all(f.wrenches, 1e308);
     return linearize_ext(ws, f, o, GEOLIN_WRENCH_MIXED, w.data()); }},
  {"linearize_finite_difference, r = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e300);
     return geolin_linearize_finite_difference(ws, f.H, f.s.data(), f.v.data(), r.data(),
                                               f.tau.data(), 1e-6, o.take(f.N * f.N),
                                               o.take(f.N * f.nj)); }},
  {"inverse_dynamics_linearize, r = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e300);
     return geolin_inverse_dynamics_linearize(ws, f.H, f.s.data(), f.v.data(), r.data(),
                                              f.nu_dot.data(), o.take(f.n), o.take(f.n * f.N),
                                              o.take(f.n * f.n)); }},
  {"inverse_dynamics_linearize, nu_dot = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto nu_dot = all(f.nu_dot, 1e308);
     return geolin_inverse_dynamics_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(),
                                              nu_dot.data(), o.take(f.n), o.take(f.n * f.N),
                                              o.take(f.n * f.n)); }},
  {"frame_velocity (Mixed, dtwist_dz), v and r = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto v = all(f.v, 1e308), r = all(f.r, 1e308);
     return geolin_frame_velocity(ws, f.H, f.s.data(), v.data(), r.data(), f.frame,
                                  GEOLIN_WRENCH_MIXED, o.take(6), o.take(6 * f.N)); }},
  {"frame_acceleration (Local, both), nu_dot = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto nu_dot = all(f.nu_dot, 1e308);
     return frame_acceleration(ws, f, o, GEOLIN_WRENCH_LOCAL, true, nu_dot.data()); }},
  {"center_of_mass, v and r = 1.7e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     if (f.fixed) return kNotApplicable;  // the joints' columns alone stay below DBL_MAX
     const auto v = all(f.v, 1.7e308), r = all(f.r, 1.7e308);
     return geolin_center_of_mass(ws, f.H, f.s.data(), v.data(), r.data(), o.take(3), o.take(3),
                                  o.take(3 * f.n)); }},
  {"frame_pose_error, H and H_ref 2e308 apart", kNumeric, [](Ws *ws, const Fixture &f,
                                                            Outputs &o) {
     double H[16], H_ref[16];
     std::memcpy(H, f.H, sizeof H);
     std::memcpy(H_ref, f.H_ref, sizeof H_ref);
     for (int i = 12; i < 15; ++i) H[i] = 1e308, H_ref[i] = -1e308;
     return geolin_frame_pose_error(ws, H, f.s.data(), f.frame, H_ref, o.take(6),
                                    o.take(6 * f.N)); }},
  {"mass_matrix, prismatic joint 1e155 out", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     if (f.prismatic < 0) return kNotApplicable;
     auto s = f.s;
     s[f.prismatic] = 1e155;  // its inertia about the base ~1e310
     return geolin_mass_matrix(ws, s.data(), o.take(f.n * f.n)); }},
  {"centroidal_momentum, v and r = 1e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e308);
     const auto v = all(f.v, 1e308);  // the sum of the momenta overflows, whatever the masses
     return geolin_centroidal_momentum(ws, f.H, f.s.data(), v.data(), r.data(), o.take(6),
                                       o.take(6 * f.n), o.take(6 * f.N)); }},
  {"contact_dynamics (points), tau = 1e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto tau = all(f.tau, 1e308);
     return geolin_contact_dynamics(ws, f.H, f.s.data(), f.v.data(), f.r.data(), tau.data(),
                                    f.points.nc, f.points.frames, f.points.types, f.points.flags,
                                    f.points.gains, f.points.refs_or_null(), o.take(f.n),
                                    o.take(f.points.rows())); }},
  {"contact_dynamics (points), gains and refs 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, stiff(f.points, kBigGains)); }},
  {"contact_dynamics (points), H translation 1e300, Kp = 1e10", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     if (f.fixed) return kNotApplicable;  // H is not read
     static const double gains[2] = {1e10, 0.0};
     ContactSet c = f.points;
     c.gains = gains;
     double H[16];
     std::memcpy(H, f.H, sizeof H);
     for (int i = 12; i < 15; ++i) H[i] = 1e300;
     return geolin_contact_dynamics(ws, H, f.s.data(), f.v.data(), f.r.data(), f.tau.data(), c.nc,
                                    c.frames, c.types, c.flags, c.gains, c.refs_or_null(),
                                    o.take(f.n), o.take(c.rows())); }},
  {"contact_dynamics (redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_dynamics(ws, f, o, f.redundant); }},
  {"contact_linearize (rigid), gains and refs 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, stiff(f.rigid, kBigGains)); }},
  {"contact_linearize (points), r = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e300);
     const ContactSet &c = f.points;
     return geolin_contact_linearize(ws, f.H, f.s.data(), f.v.data(), r.data(), f.tau.data(), c.nc,
                                     c.frames, c.types, c.flags, c.gains, c.refs_or_null(),
                                     o.take(f.N * f.N), o.take(f.N * f.nj), o.take(c.rows() * f.N),
                                     o.take(c.rows() * f.nj)); }},
  {"contact_linearize (redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_linearize(ws, f, o, f.redundant); }},
  {"impulse (points), v and r = 1e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto v = all(f.v, 1e308), r = all(f.r, 1e308);
     return geolin_impulse(ws, f.H, f.s.data(), v.data(), r.data(), f.points.nc, f.points.frames,
                           f.points.types, f.points.flags, 1.0, o.take(6), o.take(f.nj),
                           o.take(f.points.rows())); }},
  {"impulse (redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse(ws, f, o, f.redundant, f.v.data()); }},
  {"impulse_linearize (rigid), v and r = 1e308", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto v = all(f.v, 1e308), r = all(f.r, 1e308);
     return geolin_impulse_linearize(ws, f.H, f.s.data(), v.data(), r.data(), f.rigid.nc,
                                     f.rigid.frames, f.rigid.types, f.rigid.flags, 1.0,
                                     o.take(f.N * f.N), o.take(f.rigid.rows() * f.N)); }},
  {"impulse_linearize (redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return impulse_linearize(ws, f, o, f.redundant, f.v.data()); }},
  {"step (Euler), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return step(ws, f, o, kEuler, 1e300, f.tau.data()); }},
  {"step (RK4), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return step(ws, f, o, kRk4, 1e300, f.tau.data()); }},
  {"step (RK4), tau = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto tau = all(f.tau, 1e300);
     return step(ws, f, o, kRk4, 1e-3, tau.data()); }},
  {"step_linearize (Euler), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_linearize(ws, f, o, kEuler, 1e300); }},
  {"step_linearize (RK4), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_linearize(ws, f, o, kRk4, 1e300); }},
  {"contact_step (RK4, points), tau = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto tau = all(f.tau, 1e300);
     return contact_step(ws, f, o, kRk4, 1e-3, tau.data(), f.points); }},
  {"contact_step (Euler, rigid), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step(ws, f, o, kEuler, 1e300, f.tau.data(), f.rigid); }},
  {"contact_step (RK4, nc = 0), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step(ws, f, o, kRk4, 1e300, f.tau.data(), f.none); }},
  {"contact_step (RK4, redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step(ws, f, o, kRk4, 1e-3, f.tau.data(), f.redundant); }},
  {"contact_step_linearize (RK4, nc = 0), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kRk4, 1e300, f.none); }},
  {"contact_step_linearize (RK4, points), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kRk4, 1e300, f.points); }},
  {"contact_step_linearize (Euler, rigid), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kEuler, 1e300, f.rigid); }},
  {"contact_step_linearize (RK4, redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kRk4, 1e-3, f.redundant); }},
  // (The implicit step itself stays finite at h = 1e300 where the damping is on every joint.)
  {"step_feedback (Euler), h = 1e300", kNumeric, [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_feedback(ws, f, o, kEuler, 1e300, 5.0); }},
  {"step_feedback_linearize (RK4), kd = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return step_feedback_linearize(ws, f, o, kRk4, 1e-3, 1e300); }},
  {"contact_step_feedback (RK4, points), kd = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_feedback(ws, f, o, kRk4, 1e-3, 1e300, f.points); }},
  {"contact_step_feedback_linearize (implicit, rigid), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_feedback_linearize(ws, f, o, kImplicit, 1e300, 5.0, f.rigid); }},
  {"constrained_dynamics (contacts, coupling, loop), tau = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto tau = all(f.tau, 1e308);
     return constrained_dynamics(ws, f, o, f.constrained, tau.data()); }},
  {"constrained_dynamics (redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_dynamics(ws, f, o, f.dependent, f.tau.data()); }},
  {"constrained_linearize (contacts, coupling, loop), r = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto r = all(f.r, 1e300);
     return constrained_linearize(ws, f, o, f.constrained, r.data()); }},
  {"constrained_linearize (redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_linearize(ws, f, o, f.dependent, f.r.data()); }},
  {"constrained_step (RK4, contacts, coupling, loop), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step(ws, f, o, f.constrained, kRk4, 1e300); }},
  {"constrained_step (Euler, contacts only), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step(ws, f, o, f.held, kEuler, 1e300); }},
  {"constrained_step (RK4, redundant)", kDependent, [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step(ws, f, o, f.dependent, kRk4, 1e-3); }},
  {"constrained_step_linearize (RK4, contacts, coupling, loop), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step_linearize(ws, f, o, f.constrained, kRk4, 1e300); }},
  {"constrained_step_feedback (RK4, contacts, coupling, loop), kd = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step_feedback(ws, f, o, f.constrained, kRk4, 1e-3, 1e300); }},
  {"constrained_step_feedback_linearize (Euler, contacts only), h = 1e300", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return constrained_step_feedback_linearize(ws, f, o, f.held, kEuler, 1e300, 5.0); }},
  {"constrained_impulse (contacts, coupling, loop), v and r = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto v = all(f.v, 1e308), r = all(f.r, 1e308);
     return constrained_impulse(ws, f, o, f.constrained, v.data(), r.data()); }},
  {"constrained_impulse_linearize (contacts only), v and r = 1e308", kNumeric,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const auto v = all(f.v, 1e308), r = all(f.r, 1e308);
     return constrained_impulse_linearize(ws, f, o, f.held, v.data(), r.data()); }},
  // Argument checks: nothing is computed.
  {"constrained_dynamics, set = NULL", GEOLIN_ERR_INVALID_ARGUMENT,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return geolin_constrained_dynamics(ws, nullptr, f.H, f.s.data(), f.v.data(), f.r.data(),
                                        f.tau.data(), o.take(f.n), o.take(12)); }},
  {"linearize, s = NaN", GEOLIN_ERR_NONFINITE, [](Ws *ws, const Fixture &f, Outputs &o) {
     auto s = f.s;
     s.back() = NAN;
     return geolin_linearize(ws, f.H, s.data(), f.v.data(), f.r.data(), f.tau.data(),
                             o.take(f.N * f.N), o.take(f.N * f.nj)); }},
  {"contact_dynamics, frame out of range", GEOLIN_ERR_INVALID_ARGUMENT,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     ContactSet c = f.points;
     c.frames[0] = f.nframes;
     return contact_dynamics(ws, f, o, c); }},
  {"contact_step_linearize, h = -1", GEOLIN_ERR_INVALID_ARGUMENT,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return contact_step_linearize(ws, f, o, kRk4, -1.0, f.points); }},
  {"impulse_linearize, restitution = 2", GEOLIN_ERR_INVALID_ARGUMENT,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     const ContactSet &c = f.points;
     return geolin_impulse_linearize(ws, f.H, f.s.data(), f.v.data(), f.r.data(), c.nc, c.frames,
                                     c.types, c.flags, 2.0, o.take(f.N * f.N),
                                     o.take(c.rows() * f.N)); }},
  {"mass_matrix_inverse, s = Inf", GEOLIN_ERR_NONFINITE, [](Ws *ws, const Fixture &f,
                                                             Outputs &o) {
     auto s = f.s;
     s.front() = HUGE_VAL;
     return geolin_mass_matrix_inverse(ws, s.data(), o.take(f.n * f.n)); }},
  {"frame_pose, frame = -1", GEOLIN_ERR_INVALID_ARGUMENT, [](Ws *ws, const Fixture &f,
                                                             Outputs &o) {
     return geolin_frame_pose(ws, f.H, f.s.data(), -1, o.take(16)); }},
  {"frame_jacobian, J = NULL", GEOLIN_ERR_INVALID_ARGUMENT, [](Ws *ws, const Fixture &f,
                                                               Outputs &) {
     return geolin_frame_jacobian(ws, f.H, f.s.data(), f.frame, nullptr); }},
  {"frame_velocity, flags = 7", GEOLIN_ERR_INVALID_ARGUMENT,
   [](Ws *ws, const Fixture &f, Outputs &o) {
     return frame_velocity(ws, f, o, 7u, true, f.v.data()); }},
};
// clang-format on

// --- fixtures ---------------------------------------------------------------------------------

// A rotation about the axis (1, 2, 2)/3 by `angle`, with translation p.
void pose(double angle, const double p[3], double H[16]) {
  const double a[3] = {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0};
  const double c = std::cos(angle), s = std::sin(angle), k = 1.0 - c;
  const double R[3][3] = {
      {c + k * a[0] * a[0], k * a[0] * a[1] - s * a[2], k * a[0] * a[2] + s * a[1]},
      {k * a[1] * a[0] + s * a[2], c + k * a[1] * a[1], k * a[1] * a[2] - s * a[0]},
      {k * a[2] * a[0] - s * a[1], k * a[2] * a[1] + s * a[0], c + k * a[2] * a[2]}};
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) H[i + 4 * j] = R[i][j];
    H[3 + 4 * j] = 0.0;
    H[12 + j] = p[j];
  }
  H[15] = 1.0;
}

int frame_of(const geolin_model *model, const char *name) {
  const int k = geolin_model_frame_index(model, name);
  CHECK(k >= 0, "frame %s", name);
  return k < 0 ? 0 : k;
}

// Contacts on the named frames; refs a little off the frames' poses at the fixture's state.
ContactSet contacts(const Fixture &f, geolin_workspace *ws, int nc, const char *const *names,
                    const int *types, unsigned flags, const double *gains) {
  ContactSet c;
  c.nc = nc;
  c.flags = flags;
  c.gains = gains;
  for (int k = 0; k < nc; ++k) {
    c.frames[k] = frame_of(f.model, names[k]);
    c.types[k] = types[k];
  }
  if (gains != nullptr) {
    c.refs.assign(16 * static_cast<std::size_t>(nc), 0.0);
    for (int k = 0; k < nc; ++k) {
      double *ref = c.refs.data() + 16 * k;
      CHECK(geolin_frame_pose(ws, f.H, f.s.data(), c.frames[k], ref) == GEOLIN_OK, "ref pose");
      ref[12] += 0.01, ref[13] -= 0.02, ref[14] += 0.005;
    }
  }
  return c;
}

// The model's state: small values that differ entry by entry, base pose and twist off the axes.
bool load(Fixture &f, const char *name, const std::string &path, unsigned flags, double mu) {
  f.name = name;
  f.mu = mu;
  if (geolin_model_load_urdf(path.c_str(), flags, &f.model) != GEOLIN_OK) {
    CHECK(false, "load %s", path.c_str());
    return false;
  }
  f.nj = geolin_model_num_joints(f.model);
  f.n = geolin_model_num_dofs(f.model);
  f.N = geolin_model_state_dim(f.model);
  f.nframes = geolin_model_num_frames(f.model);
  f.fixed = geolin_model_is_fixed_base(f.model) == 1;
  const double p[3] = {0.1, -0.2, 0.45};
  pose(0.3, p, f.H);
  f.s.resize(f.nj), f.r.resize(f.nj), f.tau.resize(f.nj), f.nu_dot.resize(f.n);
  f.v = {0.1, -0.2, 0.15, 0.3, -0.1, 0.2};
  for (int j = 0; j < f.nj; ++j) {
    // Legs bent (hip 0.1, thigh 0.6, knee -1.2 for a quadruped's triples); an arm away from
    // its stretched singular pose.
    const double bend[3] = {0.1, 0.6, -1.2};
    f.s[j] = bend[j % 3] + 0.01 * j;
    f.r[j] = 0.2 * std::sin(1.0 + j);
    f.tau[j] = 1.5 * std::cos(2.0 + j);
  }
  for (int i = 0; i < f.n; ++i) f.nu_dot[i] = 0.3 * std::sin(3.0 + i);
  f.wrenches.resize(12);
  for (int i = 0; i < 12; ++i) f.wrenches[i] = 2.0 * std::cos(0.5 + i);
  return true;
}

// The rows of the tables on one fixture: references on fresh workspaces, then every failing call
// followed by every evaluation on one workspace.
void run(const Fixture &f) {
  struct Reference {
    int status;
    std::string message;
    std::vector<double> values;
  };
  std::vector<Reference> refs;
  Outputs out(f.output_capacity());
  for (const Row &e : kEvals) {
    geolin_workspace *fresh = f.new_workspace();
    CHECK(fresh != nullptr, "%s: workspace", f.name);
    if (fresh == nullptr) return;
    out.reset();
    const int status = e.call(fresh, f, out);
    refs.push_back({status, status == GEOLIN_OK ? "" : geolin_last_error(), out.values()});
    geolin_workspace_free(fresh);
  }
  geolin_workspace *ws = f.new_workspace();
  CHECK(ws != nullptr, "%s: workspace", f.name);
  if (ws == nullptr) return;
  int ok_refs = 0;
  for (const Reference &ref : refs) ok_refs += ref.status == GEOLIN_OK;
  std::printf(
      "%s: %zu evaluations (%d succeed on a fresh workspace) after each of %zu failing "
      "calls\n",
      f.name, kEvals.size(), ok_refs, kPoisons.size());
  for (const Poison &p : kPoisons) {
    if (p.expected == kDependent && f.mu > 0.0) continue;
    const int expected = p.expected == kDependent ? GEOLIN_ERR_NUMERIC : p.expected;
    for (std::size_t k = 0; k < kEvals.size(); ++k) {
      out.reset();
      const int st = p.call(ws, f, out);
      if (st == kNotApplicable) break;
      if (k == 0) {
        CHECK(st == expected, "%s: the failing call '%s' returned %d (expected %d): %s", f.name,
              p.name, st, expected, st == GEOLIN_OK ? "" : geolin_last_error());
        CHECK(out.untouched(), "%s: the failing call '%s' wrote an output", f.name, p.name);
      }
      out.reset();
      const int status = kEvals[k].call(ws, f, out);
      const Reference &ref = refs[k];
      const bool same_status = status == ref.status;
      const bool same_message = status == GEOLIN_OK || ref.message == geolin_last_error();
      const bool same_values = std::memcmp(out.values().data(), ref.values.data(),
                                           ref.values.size() * sizeof(double)) == 0;
      CHECK(same_status && same_message && same_values,
            "%s: after '%s', %s gave status %d (fresh: %d)%s%s%s%s", f.name, p.name, kEvals[k].name,
            status, ref.status, same_values ? "" : ", other values",
            same_message ? "" : ", message '", same_message ? "" : geolin_last_error(),
            same_message ? "" : "'");
    }
  }
  geolin_workspace_free(ws);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <models_dir> <tree.urdf>\n", argv[0]);
    return 2;
  }
  const std::string models = argv[1];
  struct Config {
    const char *name;
    std::string path;
    unsigned flags;
    double mu;
  };
  const Config configs[] = {
      {"quadruped", models + "/quadruped.urdf", 0u, 0.0},
      {"quadruped (mu = 1e-6)", models + "/quadruped.urdf", 0u, 1e-6},
      {"arm7 (fixed base, damping)", models + "/arm7.urdf",
       GEOLIN_FIXED_BASE | GEOLIN_JOINT_DAMPING, 0.0},
      {"tree (damping)", argv[2], GEOLIN_JOINT_DAMPING, 0.0},
  };
  for (const Config &cfg : configs) {
    Fixture f;
    if (!load(f, cfg.name, cfg.path, cfg.flags, cfg.mu)) continue;
    geolin_workspace *ws = f.new_workspace();
    CHECK(ws != nullptr, "%s: workspace", cfg.name);
    if (ws == nullptr) {
      geolin_model_free(f.model);
      continue;
    }
    const int point3[4] = {GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT,
                           GEOLIN_CONTACT_POINT};
    const int rigid_first[4] = {GEOLIN_CONTACT_RIGID, GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT,
                                GEOLIN_CONTACT_POINT};
    if (std::string(cfg.path).find("quadruped") != std::string::npos) {
      static const char *const feet[4] = {"FL_foot", "FR_foot", "HL_foot", "HR_foot"};
      static const char *const twice[2] = {"FL_foot", "FL_foot"};
      f.frame = frame_of(f.model, "HR_foot");
      f.wrench_frames[0] = frame_of(f.model, "FR_foot");
      f.wrench_frames[1] = frame_of(f.model, "trunk");
      f.points = contacts(f, ws, 4, feet, point3, GEOLIN_WRENCH_MIXED, f.gains);
      f.rigid = contacts(f, ws, 4, feet, rigid_first, GEOLIN_WRENCH_LOCAL, f.gains);
      f.free = contacts(f, ws, 4, feet, rigid_first, GEOLIN_WRENCH_MIXED, nullptr);
      f.redundant = contacts(f, ws, 2, twice, point3, GEOLIN_WRENCH_LOCAL, nullptr);
    } else if (std::string(cfg.path).find("arm7") != std::string::npos) {
      static const char *const tip[1] = {"tool_tip"};
      static const char *const twice[2] = {"link5", "link5"};
      f.frame = frame_of(f.model, "tool_tip");
      f.wrench_frames[0] = frame_of(f.model, "tool_tip");
      f.wrench_frames[1] = frame_of(f.model, "link4");
      f.points = contacts(f, ws, 1, tip, point3, GEOLIN_WRENCH_MIXED, f.gains);
      f.rigid = contacts(f, ws, 1, tip, rigid_first, GEOLIN_WRENCH_LOCAL, f.gains);
      f.free = contacts(f, ws, 1, tip, rigid_first, GEOLIN_WRENCH_MIXED, nullptr);
      f.redundant = contacts(f, ws, 2, twice, point3, GEOLIN_WRENCH_LOCAL, nullptr);
    } else {
      static const char *const tool[1] = {"tool"};
      static const char *const twice[2] = {"tool", "tool"};
      f.frame = frame_of(f.model, "tool");
      f.wrench_frames[0] = frame_of(f.model, "tool");
      f.wrench_frames[1] = frame_of(f.model, "link3");
      f.points = contacts(f, ws, 1, tool, point3, GEOLIN_WRENCH_MIXED, f.gains);
      f.rigid = contacts(f, ws, 1, tool, rigid_first, GEOLIN_WRENCH_LOCAL, f.gains);
      f.free = contacts(f, ws, 1, tool, rigid_first, GEOLIN_WRENCH_MIXED, nullptr);
      f.prismatic = geolin_model_joint_index(f.model, "j3");
      f.redundant = contacts(f, ws, 2, twice, point3, GEOLIN_WRENCH_LOCAL, nullptr);
    }
    f.none.flags = GEOLIN_WRENCH_MIXED;
    // The constraint sets: `constrained` the points' contacts plus a coupling of the second joint
    // to the first (and on the quadruped a loop between the hind feet, which the contacts do not
    // hold); `held` the rigid contacts; `dependent` the redundant ones.
    auto make_set = [&](const ContactSet &c, bool more) {
      geolin_constraints *set = nullptr;
      CHECK(geolin_constraints_new(f.model, &set) == GEOLIN_OK, "constraints_new");
      for (int k = 0; k < c.nc; ++k) {
        const double *ref = c.refs.empty() ? nullptr : c.refs.data() + 16 * k;
        CHECK(geolin_constraints_add_contact(set, c.frames[k], c.types[k], ref) == GEOLIN_OK,
              "add_contact");
      }
      CHECK(geolin_constraints_set_axes(set, c.flags) == GEOLIN_OK, "set_axes");
      if (c.gains != nullptr)
        CHECK(geolin_constraints_set_gains(set, c.gains[0], c.gains[1]) == GEOLIN_OK, "gains");
      if (more) {
        CHECK(geolin_constraints_add_coupling(set, 1, 0, -0.5, 0.1) == GEOLIN_OK, "coupling");
        if (f.points.nc == 4)  // the quadruped
          CHECK(geolin_constraints_add_loop(set, frame_of(f.model, "HL_foot"),
                                            frame_of(f.model, "HR_foot"),
                                            GEOLIN_LOOP_POINT) == GEOLIN_OK,
                "loop");
      }
      return set;
    };
    ContactSet two_points = f.points;  // the quadruped's front feet; the one tip elsewhere
    two_points.nc = std::min(f.points.nc, 2);
    f.constrained = make_set(two_points, true);
    f.held = make_set(f.rigid, false);
    f.dependent = make_set(f.redundant, false);
    double Hf[16];
    CHECK(geolin_frame_pose(ws, f.H, f.s.data(), f.frame, Hf) == GEOLIN_OK, "frame pose");
    const double off[3] = {Hf[12] + 0.02, Hf[13] - 0.01, Hf[14] + 0.03};
    pose(0.5, off, f.H_ref);
    geolin_workspace_free(ws);
    run(f);
    geolin_constraints_free(f.constrained);
    geolin_constraints_free(f.held);
    geolin_constraints_free(f.dependent);
    geolin_model_free(f.model);
  }
  std::printf("%d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
