// geolin bench: nanoseconds per call of the main algorithms (median and interquartile range over
// batches of about 1 ms, the functions of a model timed in turns), their ratios, and with --scaling
// the time against the number of bodies for chains and random trees, with fitted exponents and an
// optional SVG plot. On a model whose feet are known by name (kKnownFeet), or with --contacts,
// also the contact-constrained dynamics and its linearization, against forward dynamics in the
// same run. --isa forces one of the solver's instruction-set copies, to time each on one machine.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>

#include "../solver/solver.hpp"  // the solver's instruction-set switch
#include "args.hpp"
#include "commands.hpp"
#include "contacts.hpp"
#include "geolin/algorithms.hpp"
#include "geolin/generate.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "state_io.hpp"
#include "svg.hpp"

namespace geolin::cli {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kBatchSeconds = 1e-3;  // the target duration of one batch
constexpr int kMinBatches = 3;
constexpr double kFdEps = 1e-5;
constexpr int kScalingSizes[] = {8, 16, 32, 64, 128};
constexpr int kFdMaxBodies = 64;  // --scaling: linearize_finite_difference is O(n^2), skipped above
constexpr unsigned kTreeSeed = 7;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Keeps the results observable, so that no call can be optimized away.
volatile double g_sink = 0.0;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Nanoseconds per call: the median and spread over the batches.
struct Timing {
  double median = kNaN, q1 = kNaN, q3 = kNaN, min = kNaN, max = kNaN;
  long batch = 0, batches = 0;
  bool measured() const { return batches > 0; }
};

// Linear interpolation between order statistics (sorted input).
double quantile(const std::vector<double> &sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t k = static_cast<std::size_t>(pos);
  if (k + 1 >= sorted.size()) return sorted.back();
  return sorted[k] + (pos - static_cast<double>(k)) * (sorted[k + 1] - sorted[k]);
}

// The number of calls of `f` that last about kBatchSeconds (after a warm-up call): grown until a
// batch takes a quarter of the target, then scaled by the fastest of three such batches (a
// preempted batch must not shrink it).
long batch_size(const std::function<void()> &f) {
  f();  // warm-up
  auto time_batch = [&f](long calls) {
    const auto t0 = Clock::now();
    for (long i = 0; i < calls; ++i) f();
    return seconds_since(t0);
  };
  long batch = 1;
  double dt = time_batch(batch);
  while (dt < 0.25 * kBatchSeconds && batch < (1L << 26)) {
    batch *= 4;
    dt = time_batch(batch);
  }
  if (dt < kBatchSeconds) dt = std::min({dt, time_batch(batch), time_batch(batch)});
  return std::max(1L, std::lround(static_cast<double>(batch) * kBatchSeconds / dt));
}

Timing summarize(std::vector<double> &ns, long batch) {
  std::sort(ns.begin(), ns.end());
  Timing t;
  t.median = quantile(ns, 0.5);
  t.q1 = quantile(ns, 0.25);
  t.q3 = quantile(ns, 0.75);
  t.min = ns.front();
  t.max = ns.back();
  t.batch = batch;
  t.batches = static_cast<long>(ns.size());
  return t;
}

// Runs the functions in turns, one batch of each per round, for about `seconds` per function
// (at least kMinBatches each). Interleaved, every function sees the same phases of a noisy
// machine (another tenant, frequency changes), so that the ratios of their medians stay fair;
// timed one after the other, a slow phase during one function alone skews every ratio with it.
std::vector<Timing> measure_interleaved(const std::vector<std::function<void()>> &fs,
                                        double seconds) {
  const std::size_t k = fs.size();
  std::vector<long> batch(k);
  for (std::size_t i = 0; i < k; ++i) batch[i] = batch_size(fs[i]);
  std::vector<std::vector<double>> ns(k);
  const auto start = Clock::now();
  const double total = seconds * static_cast<double>(k);
  while (static_cast<int>(ns[0].size()) < kMinBatches ||
         (seconds_since(start) < total && ns[0].size() < 1000000)) {
    for (std::size_t i = 0; i < k; ++i) {
      const auto t0 = Clock::now();
      for (long c = 0; c < batch[i]; ++c) fs[i]();
      ns[i].push_back(seconds_since(t0) * 1e9 / static_cast<double>(batch[i]));
    }
  }
  std::vector<Timing> out(k);
  for (std::size_t i = 0; i < k; ++i) out[i] = summarize(ns[i], batch[i]);
  return out;
}

Timing measure(const std::function<void()> &f, double seconds) {
  return measure_interleaved({f}, seconds).front();
}

// The benchmarked functions.
struct Kernel {
  const char *key;    // JSON and plot name
  const char *label;  // text output
};
const Kernel kKernels[] = {
    {"aba", "forward dynamics (aba)"},
    {"rnea", "inverse dynamics (rnea)"},
    {"crba", "mass matrix (crba)"},
    {"minv", "mass_matrix_inverse"},
    {"linearize", "linearize"},
    {"linearize_fd", "linearize_finite_difference (eps 1e-5)"},
    {"inverse_dynamics_linearize", "inverse_dynamics_linearize"},
    {"center_of_mass", "center_of_mass with J_com"},
    {"centroidal_momentum", "centroidal_momentum with A_G, dh_dz"},
    {"centroidal_momentum_A_G", "centroidal_momentum with A_G"},
    {"centroidal_momentum_h", "centroidal_momentum h_G only"},
    {"frame_pose_error", "frame_pose_error with de_dz"},
    {"frame_velocity", "frame_velocity (mixed) with dtwist_dz"},
    {"frame_acceleration", "frame_acceleration (mixed) with both derivatives"},
    {"contact_dynamics", "contact_dynamics"},
    {"contact_linearize", "contact_linearize"},
    {"impulse", "impulse (e = 0)"},
    {"impulse_linearize", "impulse_linearize (e = 0)"},
    {"contact_step", "contact_step (Euler, h 1 ms)"},
    {"contact_step_linearize", "contact_step_linearize (Euler, h 1 ms)"},
    {"contact_step_linearize_rk4", "contact_step_linearize (RK4, h 1 ms)"},
    {"contact_step_implicit", "contact_step (implicit, h 1 ms)"},  // kd = 1 on every joint
    // with --loops, --couplings or --wheels: the whole set (contacts included)
    {"constrained_dynamics", "constrained_dynamics"},
    {"constrained_linearize", "constrained_linearize"},
};
constexpr int kNumKernels = sizeof(kKernels) / sizeof(kKernels[0]);
enum KernelId {
  kAba,
  kRnea,
  kCrba,
  kMinv,
  kLinearize,
  kLinearizeFd,
  kIdLinearize,
  kCenterOfMass,
  kCentroidalMomentum,
  kCentroidalMomentumAG,
  kCentroidalMomentumH,
  kFramePoseError,
  kFrameVelocity,
  kFrameAcceleration,
  kContactDynamics,
  kContactLinearize,
  kImpulse,
  kImpulseLinearize,
  kContactStep,
  kContactStepLinearize,
  kContactStepLinearizeRk4,
  kContactStepImplicit,
  kConstrainedDynamics,
  kConstrainedLinearize
};
// --scaling times the dynamics kernels (before the costs and the contacts: generated models
// have no feet).
constexpr int kNumScalingKernels = kCenterOfMass;

// Feet by their usual names, used when --contacts is not given and the model has all of a set's
// frames (names compared without regard to case): the bundled quadruped's (and solo12's)
// and ANYmal's (and HyQ's) four points, the bundled humanoid's (and iCub's, Romeo's) and TALOS's
// two rigid soles.
struct KnownFeet {
  std::vector<std::string> frames;
  int type;
};
const KnownFeet kKnownFeet[] = {
    {{"FL_foot", "FR_foot", "HL_foot", "HR_foot"}, kContactPoint},
    {{"LF_foot", "RF_foot", "LH_foot", "RH_foot"}, kContactPoint},
    {{"L_sole", "R_sole"}, kContactRigid},
    {{"left_sole_link", "right_sole_link"}, kContactRigid},
};

bool same_name_ignoring_case(const std::string &a, const std::string &b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// The frame named `name` up to case (an exact match first), -1 if none.
int frame_ignoring_case(const Model &model, const std::string &name) {
  const int exact = model.frame_index(name);
  if (exact >= 0) return exact;
  for (std::size_t i = 0; i < model.frames.size(); ++i)
    if (same_name_ignoring_case(model.frames[i].name, name)) return static_cast<int>(i);
  return -1;
}

// The contacts of a model: --contacts (and --contact-type, --gains, --mixed) if given, else the
// first set of known feet it has with no more rows than degrees of freedom, else none.
ContactSet bench_contacts(const Model &model, const Args &args) {
  if (args.has("--contacts")) return contacts_from_args(model, args);
  for (const auto &option : kConstraintOptions)  // the set given, without the known feet
    if (args.has(option)) return contacts_from_args(model, args);
  ContactSet c;
  for (const auto &feet : kKnownFeet) {
    std::vector<int> found;
    for (const auto &f : feet.frames) found.push_back(frame_ignoring_case(model, f));
    // All of them, and no more rows than degrees of freedom (else it is not a stance).
    const int rows = feet.type * static_cast<int>(feet.frames.size());
    if (std::count(found.begin(), found.end(), -1) > 0 || rows > model.num_dofs()) continue;
    for (int frame : found) {
      c.names.push_back(model.frames[frame].name);
      c.frames.push_back(frame);
      c.types.push_back(feet.type);
    }
    c.mixed = args.flag("--mixed");
    break;
  }
  return c;
}

// A model at its default state with every output buffer, ready to run kernel k.
class Bench {
 public:
  explicit Bench(const Model &model, ContactSet contacts = {})
      : model_(model),
        st_(default_state(model)),
        ws_(model, kWorkspaceAll, workspace_capacity(model, contacts)),
        H_(model.fixed_base ? model.H_A_0 : st_.H),
        contacts_(std::move(contacts)) {
    ws_.gravity = st_.gravity;
    const int n = model.num_dofs(), N = model.state_dim(), nj = model.num_joints();
    nu_dot_ = VecX::Zero(n);
    tau_ = VecX::Zero(n);
    M_ = MatX::Zero(n, n);
    A_ = MatX::Zero(N, N);
    B_ = MatX::Zero(N, nj);
    dtau_dz_ = MatX::Zero(n, N);
    check_outcome(model_, aba(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, nu_dot_),  // rnea's
                  "aba", "nu_dot");                                                     // input
    accel_ = nu_dot_;
    // The cost kernels: the first contact's frame, else the last frame (a leaf's), and a target
    // pose away from it.
    J_com_ = MatX::Zero(3, n);
    J6_ = MatX::Zero(6, n);
    D6_ = MatX::Zero(6, N);
    frame_ =
        contacts_.count() == 0 ? static_cast<int>(model.frames.size()) - 1 : contacts_.frames[0];
    H_ref_ = frame_pose(model_, ws_, H_, st_.s, frame_) *
             exp_se3((Vec6() << 0.05, -0.02, 0.03, 0.1, -0.2, 0.15).finished());
    if (contacts_.general()) {
      // The whole set, evaluated once (a redundant set fails here, with the library's message).
      const int m = contacts_.rows();
      set_lambda_ = VecX::Zero(m);
      set_dlambda_dz_ = MatX::Zero(m, N);
      set_dlambda_dw_ = MatX::Zero(m, nj);
      set_contact_refs(model_, ws_, H_, st_.s, contacts_);
      check_outcome(model_,
                    constrained_dynamics(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau,
                                         contacts_.set, contacts_.mu, contact_nu_dot_, set_lambda_),
                    "constrained_dynamics", "nu_dot", &contacts_);
      check_outcome(
          model_,
          constrained_linearize(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, contacts_.set,
                                contacts_.mu, A_, B_, set_dlambda_dz_, set_dlambda_dw_),
          "constrained_linearize", "A", &contacts_);
      contacts_only_ = contacts_;  // the contact functions' part: the contacts alone
      contacts_only_.loops.clear();
      contacts_only_.couplings.clear();
      contacts_only_.wheels.clear();
    } else {
      contacts_only_ = contacts_;
    }
    if (contacts_only_.count() > 0) {
      // One evaluation of each, so that a state where the contacts are redundant fails here
      // with the library's message rather than being timed.
      const int m = contacts_only_.rows();
      lambda_ = VecX::Zero(m);
      dlambda_dz_ = MatX::Zero(m, N);
      dlambda_dw_ = MatX::Zero(m, nj);
      set_contact_refs(model_, ws_, H_, st_.s, contacts_only_);
      c_ = contacts_only_.library();
      check_outcome(model_,
                    contact_dynamics(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, c_,
                                     contact_nu_dot_, lambda_),
                    "contact_dynamics", "nu_dot", &contacts_only_);
      check_outcome(model_,
                    contact_linearize(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, c_, A_, B_,
                                      dlambda_dz_, dlambda_dw_),
                    "contact_linearize", "A", &contacts_only_);
    }
  }

  // Whether there are contacts (the contact functions are timed), and loops, couplings or wheels
  // (constrained_dynamics and constrained_linearize are timed, with the contacts).
  bool has_contacts() const { return contacts_.count() > 0; }
  bool has_constraints() const { return contacts_.general(); }
  const ContactSet &contacts() const { return contacts_; }

  // The function timed as kernel k (a KernelId), by group.
  std::function<void()> kernel(int k) {
    if (k < kCenterOfMass) return dynamics_kernel(k);
    if (k < kContactDynamics) return cost_kernel(k);
    if (k >= kConstrainedDynamics) return constrained_kernel(k);
    return contact_kernel(k);
  }

  // The whole set of --loops, --couplings, --wheels (and --contacts).
  std::function<void()> constrained_kernel(int k) {
    if (k == kConstrainedDynamics)
      return [this] {
        constrained_dynamics(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, contacts_.set,
                             contacts_.mu, contact_nu_dot_, set_lambda_);
        g_sink = set_lambda_[0];
      };
    return [this] {
      constrained_linearize(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, contacts_.set,
                            contacts_.mu, A_, B_, set_dlambda_dz_, set_dlambda_dw_);
      g_sink = set_dlambda_dz_(0, 0);
    };
  }

  // Dynamics, the mass matrix and its inverse, and the linearizations.
  std::function<void()> dynamics_kernel(int k) {
    switch (k) {
      case kAba:
        return [this] {
          aba(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, nu_dot_);
          g_sink = nu_dot_[0];
        };
      case kRnea:
        return [this] {
          rnea(model_, ws_, H_, st_.s, st_.v, st_.r, accel_, tau_);
          g_sink = tau_[0];
        };
      case kCrba:
        return [this] {
          crba(model_, ws_, st_.s, M_);
          g_sink = M_(0, 0);
        };
      case kMinv:
        return [this] {
          mass_matrix_inverse(model_, ws_, st_.s, M_);
          g_sink = M_(0, 0);
        };
      case kLinearize:
        return [this] {
          linearize(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, A_, B_);
          g_sink = A_(A_.rows() - 1, 0);
        };
      case kLinearizeFd:
        return [this] {
          linearize_finite_difference(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, kFdEps, A_,
                                      B_);
          g_sink = A_(A_.rows() - 1, 0);
        };
      default:  // kIdLinearize: τ, ∂τ/∂z and M at rnea's input
        return [this] {
          inverse_dynamics_linearize(model_, ws_, H_, st_.s, st_.v, st_.r, accel_, tau_, dtau_dz_,
                                     M_);
          g_sink = dtau_dz_(0, 0);
        };
    }
  }

  // The cost-side functions with their derivatives.
  std::function<void()> cost_kernel(int k) {
    switch (k) {
      case kCenterOfMass:
        return [this] {
          center_of_mass(model_, ws_, H_, st_.s, st_.v, st_.r, com_, com_velocity_, J_com_);
          g_sink = J_com_(0, 0);
        };
      case kCentroidalMomentum:
        return [this] {
          centroidal_momentum(model_, ws_, H_, st_.s, st_.v, st_.r, y6_, J6_, D6_);
          g_sink = D6_(0, 0);
        };
      case kCentroidalMomentumAG:  // Pinocchio's ccrba: h_G and A_G
        return [this] {
          centroidal_momentum(model_, ws_, H_, st_.s, st_.v, st_.r, y6_, J6_, none_);
          g_sink = J6_(0, 0);
        };
      case kCentroidalMomentumH:  // Pinocchio's computeCentroidalMomentum: h_G
        return [this] {
          centroidal_momentum(model_, ws_, H_, st_.s, st_.v, st_.r, y6_, none_, none_);
          g_sink = y6_[0];
        };
      case kFramePoseError:
        return [this] {
          frame_pose_error(model_, ws_, H_, st_.s, frame_, H_ref_, y6_, D6_);
          g_sink = D6_(0, 0);
        };
      case kFrameVelocity:
        return [this] {
          frame_velocity(model_, ws_, H_, st_.s, st_.v, st_.r, frame_, kWrenchMixed, y6_, D6_);
          g_sink = D6_(0, 0);
        };
      default:  // kFrameAcceleration
        return [this] {
          frame_acceleration(model_, ws_, H_, st_.s, st_.v, st_.r, accel_, frame_, kWrenchMixed,
                             y6_, D6_, J6_);
          g_sink = D6_(0, 0);
        };
    }
  }

  // The contact functions: dynamics, impact, step and their linearizations.
  std::function<void()> contact_kernel(int k) {
    switch (k) {
      case kContactDynamics:
        return [this] {
          contact_dynamics(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, c_, contact_nu_dot_,
                           lambda_);
          g_sink = lambda_[0];
        };
      case kImpulse:
        return [this] {
          impulse(model_, ws_, H_, st_.s, st_.v, st_.r, c_, 0.0, contact_nu_dot_, lambda_);
          g_sink = lambda_[0];
        };
      case kImpulseLinearize:
        return [this] {
          impulse_linearize(model_, ws_, H_, st_.s, st_.v, st_.r, c_, 0.0, A_, dlambda_dz_);
          g_sink = dlambda_dz_(0, 0);
        };
      case kContactStep:
        return [this] {
          contact_step(model_, ws_, StepMethod::SemiImplicitEuler, 1e-3, H_, st_.s, st_.v, st_.r,
                       st_.tau, c_, H_next_, s_next_, v_next_, r_next_, lambda_);
          g_sink = lambda_[0];
        };
      case kContactStepImplicit:  // the damped path: the model with armature + h kd (D56)
        return [this] {
          contact_step(model_, ws_, StepMethod::ImplicitEuler, 1e-3, H_, st_.s, st_.v, st_.r,
                       st_.tau, c_, H_next_, s_next_, v_next_, r_next_, lambda_,
                       {nullptr, kd_.data(), nullptr, nullptr});
          g_sink = lambda_[0];
        };
      case kContactStepLinearize:
      case kContactStepLinearizeRk4: {
        const StepMethod method =
            k == kContactStepLinearize ? StepMethod::SemiImplicitEuler : StepMethod::Rk4;
        return [this, method] {
          contact_step_linearize(model_, ws_, method, 1e-3, H_, st_.s, st_.v, st_.r, st_.tau, c_,
                                 A_, B_, dlambda_dz_, dlambda_dw_);
          g_sink = dlambda_dz_(0, 0);
        };
      }
      default:
        return [this] {
          contact_linearize(model_, ws_, H_, st_.s, st_.v, st_.r, st_.tau, c_, A_, B_, dlambda_dz_,
                            dlambda_dw_);
          g_sink = dlambda_dz_(0, 0);
        };
    }
  }

  const State &state() const { return st_; }

 private:
  const Model &model_;
  State st_;
  Workspace ws_;
  Transform H_;
  VecX nu_dot_, accel_, tau_;
  MatX M_, A_, B_, dtau_dz_;
  ContactSet contacts_, contacts_only_;  // the set; its contacts alone
  Contacts c_;
  VecX set_lambda_;  // the whole set's outputs
  MatX set_dlambda_dz_, set_dlambda_dw_;
  VecX contact_nu_dot_ = VecX::Zero(model_.num_dofs()), lambda_;
  MatX dlambda_dz_, dlambda_dw_;
  // The cost kernels' outputs and arguments.
  Vec3 com_, com_velocity_;
  Vec6 y6_;
  MatX J_com_, J6_, D6_, none_;  // none_: an output not asked for
  int frame_ = 0;
  Transform H_ref_;
  Transform H_next_;  // contact_step's outputs
  Vec6 v_next_ = Vec6::Zero();
  VecX s_next_ = VecX::Zero(model_.num_joints()), r_next_ = VecX::Zero(model_.num_joints());
  VecX kd_ = VecX::Ones(model_.num_joints());  // contact_step_implicit's joint damping
};

std::string format_ns(double ns) {
  if (!std::isfinite(ns)) return "-";
  return ns < 100.0 ? fmt::format("{:.1f}", ns) : fmt::format("{:.0f}", ns);
}

Json timing_json(const Timing &t) {
  if (!t.measured()) return Json();
  return {{"median_ns", t.median}, {"q1_ns", t.q1},   {"q3_ns", t.q3},
          {"min_ns", t.min},       {"max_ns", t.max}, {"batches", t.batches},
          {"batch_size", t.batch}};
}

// The solver's instruction set in use, and whether --isa chose it.
std::string isa_description(const Args &args) {
  return fmt::format("{} ({})", detail::solve_isa(),
                     args.has("--isa") ? "--isa" : "the widest this processor has");
}

// --isa NAME: run the solver's loops with that instruction set (for comparing the paths on one
// machine); a set the processor lacks is a usage error.
void select_isa(const Args &args) {
  if (!args.has("--isa")) return;
  const std::string isa = args.get("--isa");
  if (isa != "baseline" && isa != "avx2+fma" && isa != "avx512")
    throw UsageError(fmt::format("--isa: '{}' is not baseline, avx2+fma or avx512", isa));
  if (!detail::force_solve_isa(isa.c_str()))
    throw UsageError(fmt::format("--isa: this processor (or this build) has no {}", isa));
}

double ratio(const Timing &a, const Timing &b) {
  return a.median / b.median;
}

// --- one or more models -----------------------------------------------------------------------

// Every function of a model: in turns (measure_interleaved), but linearize_fd, which costs a
// hundred of the others per call, alone. Model m of count, for the progress line.
std::vector<Timing> time_model(Bench &bench, const std::string &name, std::size_t m,
                               std::size_t count, double seconds, Progress &progress) {
  std::vector<Timing> t(kNumKernels);
  progress.show(
      fmt::format("bench: {} ({}/{}): {}...", name, m + 1, count, kKernels[kLinearizeFd].key));
  t[kLinearizeFd] = measure(bench.kernel(kLinearizeFd), seconds);
  std::vector<int> turns;
  std::vector<std::function<void()>> fs;
  for (int k = 0; k < kNumKernels; ++k) {
    if (k == kLinearizeFd) continue;
    if (k >= kContactDynamics && k < kConstrainedDynamics && !bench.has_contacts()) continue;
    if (k >= kConstrainedDynamics && !bench.has_constraints()) continue;
    turns.push_back(k);
    fs.push_back(bench.kernel(k));
  }
  progress.show(
      fmt::format("bench: {} ({}/{}): {} functions in turns...", name, m + 1, count, fs.size()));
  const std::vector<Timing> timed = measure_interleaved(fs, seconds);
  for (std::size_t i = 0; i < turns.size(); ++i) t[turns[i]] = timed[i];
  progress.clear();
  return t;
}

// The ratios of the medians, in the order printed.
struct Ratio {
  const char *key;   // JSON
  const char *text;  // text output
  KernelId num, den;
  bool contacts;             // only with contacts
  bool constraints = false;  // only with loops, couplings or wheels
  bool shown(const Bench &bench) const {
    return (!contacts || bench.has_contacts()) && (!constraints || bench.has_constraints());
  }
};
const Ratio kRatios[] = {
    {"linearize/forward_dynamics", "linearize / forward dynamics", kLinearize, kAba, false},
    {"linearize_fd/linearize", "linearize_fd / linearize", kLinearizeFd, kLinearize, false},
    {"forward_dynamics/inverse_dynamics", "forward dynamics / inverse dynamics", kAba, kRnea,
     false},
    {"inverse_dynamics/forward_dynamics", "inverse dynamics / forward dynamics", kRnea, kAba,
     false},
    {"mass_matrix/forward_dynamics", "mass matrix / forward dynamics", kCrba, kAba, false},
    {"inverse_dynamics_linearize/inverse_dynamics", "inverse_dynamics_linearize / inverse dyn.",
     kIdLinearize, kRnea, false},
    {"center_of_mass/forward_dynamics", "center_of_mass+J / forward dynamics", kCenterOfMass, kAba,
     false},
    {"centroidal_momentum/forward_dynamics", "centroidal_momentum+d / forward dynamics",
     kCentroidalMomentum, kAba, false},
    {"centroidal_momentum_A_G/forward_dynamics", "centroidal_momentum+A_G / forward dynamics",
     kCentroidalMomentumAG, kAba, false},
    {"centroidal_momentum_h/forward_dynamics", "centroidal_momentum h_G / forward dynamics",
     kCentroidalMomentumH, kAba, false},
    {"frame_pose_error/forward_dynamics", "frame_pose_error+d / forward dynamics", kFramePoseError,
     kAba, false},
    {"frame_velocity/forward_dynamics", "frame_velocity+d / forward dynamics", kFrameVelocity, kAba,
     false},
    {"frame_acceleration/forward_dynamics", "frame_acceleration+d / forward dynamics",
     kFrameAcceleration, kAba, false},
    {"contact_dynamics/forward_dynamics", "contact_dynamics / forward dynamics", kContactDynamics,
     kAba, true},
    {"contact_linearize/forward_dynamics", "contact_linearize / forward dynamics",
     kContactLinearize, kAba, true},
    {"impulse/contact_dynamics", "impulse / contact_dynamics", kImpulse, kContactDynamics, true},
    {"impulse_linearize/contact_linearize", "impulse_linearize / contact_linearize",
     kImpulseLinearize, kContactLinearize, true},
    {"contact_step/contact_dynamics", "contact_step (Euler) / contact_dynamics", kContactStep,
     kContactDynamics, true},
    {"contact_step_linearize/contact_linearize",
     "contact_step_linearize (Euler) / contact_linearize", kContactStepLinearize, kContactLinearize,
     true},
    {"contact_step_linearize_rk4/contact_linearize",
     "contact_step_linearize (RK4) / contact_linearize", kContactStepLinearizeRk4,
     kContactLinearize, true},
    {"constrained_dynamics/forward_dynamics", "constrained_dynamics / forward dynamics",
     kConstrainedDynamics, kAba, false, true},
    {"constrained_linearize/forward_dynamics", "constrained_linearize / forward dynamics",
     kConstrainedLinearize, kAba, false, true},
};

Json model_timings_json(const LoadedModel &lm, const Bench &bench, const std::vector<Timing> &t) {
  Json functions = Json::object();
  for (int k = 0; k < kNumKernels; ++k) {
    if (!t[k].measured()) continue;
    Json entry = timing_json(t[k]);
    entry["label"] = kKernels[k].label;
    functions[kKernels[k].key] = entry;
  }
  Json ratios = Json::object();
  for (const Ratio &r : kRatios) {
    if (r.shown(bench)) ratios[r.key] = ratio(t[r.num], t[r.den]);
  }
  return {{"model", model_json(lm)},
          {"state", bench.state().description},
          {"contacts", !bench.contacts().empty() ? bench.contacts().json() : Json()},
          {"functions", functions},
          {"ratios", ratios}};
}

void print_model_timings(const Args &args, const LoadedModel &lm, const Bench &bench,
                         const std::vector<Timing> &t, double seconds) {
  fmt::print("model: {}\n", model_summary(lm));
  fmt::print("state: the default state; {:g} s per function in batches of ~{:g} ms\n", seconds,
             kBatchSeconds * 1e3);
  fmt::print("instruction set of the solver: {}\n", isa_description(args));
  if (bench.has_constraints()) {
    fmt::print("constraints: {}\n\n", bench.contacts().describe());
  } else if (bench.has_contacts()) {
    fmt::print("contacts{}: {}\n\n", args.has("--contacts") ? "" : " (the model's known feet)",
               bench.contacts().describe());
  } else {
    fmt::print("contacts: none (no known feet: --contacts FRAME,... times contact_dynamics)\n\n");
  }
  std::vector<std::vector<std::string>> rows;
  for (int k = 0; k < kNumKernels; ++k) {
    if (!t[k].measured()) continue;
    rows.push_back({kKernels[k].label, format_ns(t[k].median),
                    fmt::format("{} .. {}", format_ns(t[k].q1), format_ns(t[k].q3)),
                    fmt::format("{} .. {}", format_ns(t[k].min), format_ns(t[k].max)),
                    fmt::format("{} x {}", t[k].batches, t[k].batch)});
  }
  print_table({"function", "median ns/call", "IQR (25%..75%)", "min .. max", "batches x calls"},
              rows, {1, 2, 3, 4});
  fmt::print("\nratios (of the medians):\n");
  for (const Ratio &r : kRatios) {
    if (r.shown(bench)) {
      fmt::print("  {:<38}{:8.2f}\n", r.text, ratio(t[r.num], t[r.den]));
    }
  }
}

int bench_models(const Args &args, double seconds, bool json) {
  std::vector<std::string> paths = args.positional;
  if (paths.empty()) paths.push_back("");  // the bundled model
  const unsigned flags = load_flags(args);
  Progress progress(seconds * kNumKernels * static_cast<double>(paths.size()) > 1.0);
  bool others = false;
  for (const auto &option : kConstraintOptions) others = others || args.has(option);
  if (args.has("--contacts") || args.has("--contact-type") || args.has("--gains") || others) {
    (void)constrained_mode(args);  // --contact-type / --gains need --contacts
  }
  Json models = Json::array();
  for (std::size_t m = 0; m < paths.size(); ++m) {
    LoadedModel lm = load_model(paths[m], flags);
    apply_armature_option(args, lm);
    Bench bench(lm.model, bench_contacts(lm.model, args));
    const std::vector<Timing> t =
        time_model(bench, lm.model.name, m, paths.size(), seconds, progress);
    if (json) {
      models.push_back(model_timings_json(lm, bench, t));
      continue;
    }
    if (m > 0) fmt::print("\n");
    print_model_timings(args, lm, bench, t, seconds);
  }
  if (json)
    print_json({{"seconds_per_function", seconds},
                {"instruction_set", detail::solve_isa()},
                {"models", models}});
  return kExitOk;
}

// --- scaling ----------------------------------------------------------------------------------

struct Family {
  std::string key, label;
  std::function<std::string(int)> urdf;
  std::vector<std::vector<double>> ns;  // [kernel][size]
  std::vector<double> exponent;         // per kernel; NaN with fewer than two points
};

// Least-squares slope of log y against log x over the finite points.
double fitted_exponent(const std::vector<double> &x, const std::vector<double> &y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int count = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!(std::isfinite(y[k]) && y[k] > 0.0)) continue;
    const double lx = std::log(x[k]), ly = std::log(y[k]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
    ++count;
  }
  if (count < 2) return kNaN;
  return (count * sxy - sx * sy) / (count * sxx - sx * sx);
}

// The generated families: chains and random trees.
std::vector<Family> scaling_families() {
  return {
      {"chain", "chains", [](int n) { return make_chain_urdf(n); }, {}, {}},
      {"tree",
       fmt::format("random trees (seed {})", kTreeSeed),
       [](int n) { return make_random_tree_urdf(n, kTreeSeed); },
       {},
       {}},
  };
}

// Times every scaling kernel on every family and size, and fits the exponents.
void time_families(std::vector<Family> &families, const std::vector<double> &sizes, unsigned flags,
                   double seconds) {
  Progress progress(true);
  for (auto &fam : families) {
    fam.ns.assign(kNumScalingKernels, std::vector<double>(sizes.size(), kNaN));
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const int n = static_cast<int>(sizes[i]);
      const Model model = load_urdf_string(fam.urdf(n), flags);
      Bench bench(model);
      for (int k = 0; k < kNumScalingKernels; ++k) {
        if (k == kLinearizeFd && n > kFdMaxBodies) continue;
        progress.show(
            fmt::format("bench --scaling: {} of {} bodies: {}...", fam.key, n, kKernels[k].key));
        fam.ns[k][i] = measure(bench.kernel(k), seconds).median;
      }
    }
    for (int k = 0; k < kNumScalingKernels; ++k)
      fam.exponent.push_back(fitted_exponent(sizes, fam.ns[k]));
  }
  progress.clear();
}

void print_scaling_json(const std::vector<Family> &families, const std::vector<double> &sizes,
                        double seconds) {
  Json doc;
  doc["seconds_per_function"] = seconds;
  doc["sizes"] = sizes;
  Json fams = Json::object();
  for (const auto &fam : families) {
    Json f = Json::object();
    for (int k = 0; k < kNumScalingKernels; ++k) {
      Json times = Json::array();
      for (double v : fam.ns[k]) times.push_back(finite_or_null(v));
      f[kKernels[k].key] = {{"median_ns", times}, {"exponent", finite_or_null(fam.exponent[k])}};
    }
    fams[fam.key] = f;
  }
  doc["families"] = fams;
  doc["instruction_set"] = detail::solve_isa();
  print_json(doc);
}

// The times: one row per family and size, one column per function.
void print_scaling_times(const std::vector<Family> &families, const std::vector<double> &sizes) {
  std::vector<std::string> header = {"family", "n"};
  for (int k = 0; k < kNumScalingKernels; ++k) header.push_back(kKernels[k].key);
  std::vector<std::vector<std::string>> rows;
  std::set<int> right = {1};
  for (int k = 0; k < kNumScalingKernels; ++k) right.insert(2 + k);
  for (const auto &fam : families) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      std::vector<std::string> row = {fam.key, fmt::format("{:g}", sizes[i])};
      for (int k = 0; k < kNumScalingKernels; ++k) row.push_back(format_ns(fam.ns[k][i]));
      rows.push_back(std::move(row));
    }
  }
  print_table(header, rows, right);
}

void print_scaling_text(const Args &args, const std::vector<Family> &families,
                        const std::vector<double> &sizes, double seconds) {
  fmt::print(
      "time per call (median ns) against the number of moving bodies n; {:g} s per function,\n"
      "the default state; linearize_fd skipped above {} bodies; instruction set of the solver:\n"
      "{}\n\n",
      seconds, kFdMaxBodies, isa_description(args));
  print_scaling_times(families, sizes);
  fmt::print("\nfitted exponent p of time ~ n^p (least squares on log time against log n):\n");
  std::vector<std::vector<std::string>> rows;
  for (int k = 0; k < kNumScalingKernels; ++k) {
    std::vector<std::string> row = {kKernels[k].key};
    for (const auto &fam : families) {
      row.push_back(std::isfinite(fam.exponent[k]) ? fmt::format("{:.2f}", fam.exponent[k]) : "-");
    }
    rows.push_back(std::move(row));
  }
  print_table({"function", "chain", "tree"}, rows, {1, 2});
}

// Every function's time against n, log-log; chains solid, random trees dashed.
Plot scaling_plot(const Args &args, const std::vector<Family> &families,
                  const std::vector<double> &sizes, double seconds) {
  Plot plot;
  plot.title = "Time per call against the number of bodies";
  plot.subtitle = fmt::format(
      "chains solid, random trees (seed {}) dashed; median over batches, {:g} s per function{}",
      kTreeSeed, seconds, load_flags(args) & kFixedBase ? ", fixed base" : "");
  plot.x_label = "moving bodies n";
  plot.y_label = "time per call [ns]";
  plot.log_x = plot.log_y = true;
  plot.x_ticks = sizes;
  for (std::size_t f = 0; f < families.size(); ++f) {
    for (int k = 0; k < kNumScalingKernels; ++k) {
      plot.series.push_back(
          {f == 0 ? kKernels[k].key : "", plot_color(k), f > 0, sizes, families[f].ns[k]});
    }
  }
  plot.legend_only = {{"chain", "#222", false, {}, {}}, {"random tree", "#222", true, {}, {}}};
  return plot;
}

int bench_scaling(const Args &args, double seconds, bool json) {
  // Opened before the minutes of timing, so that a path that cannot be written fails at once.
  std::unique_ptr<OutputFile> plot_file;
  if (args.has("--plot")) plot_file = std::make_unique<OutputFile>("--plot", args.get("--plot"));
  const std::vector<double> sizes(std::begin(kScalingSizes), std::end(kScalingSizes));
  std::vector<Family> families = scaling_families();
  time_families(families, sizes, load_flags(args), seconds);
  if (json) {
    print_scaling_json(families, sizes, seconds);
  } else {
    print_scaling_text(args, families, sizes, seconds);
  }
  if (plot_file) {
    plot_file->write(render_svg(scaling_plot(args, families, sizes, seconds)));
    plot_file->close();
    fmt::print(json ? stderr : stdout, "{}plot: {}\n", json ? "" : "\n", args.get("--plot"));
  }
  return kExitOk;
}

}  // namespace

int cmd_bench(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert({"--json", "--scaling"});
  spec.flags.insert(kMixedFlags.begin(), kMixedFlags.end());
  spec.options = {"--seconds", "--plot", "--isa"};
  spec.options.insert(kContactOptions.begin(), kContactOptions.end());
  spec.options.insert(kConstraintOptions.begin(), kConstraintOptions.end());
  spec.options.insert(kModelOptions.begin(), kModelOptions.end());
  spec.max_positional = 1000;
  const Args args = parse_args(argv, spec);
  const double seconds = args.get_double("--seconds", 0.3);
  if (!(seconds >= 0.0 && seconds <= 3600.0)) throw UsageError("--seconds: T must be in [0, 3600]");
  const bool json = args.flag("--json");
  select_isa(args);
  if (args.flag("--scaling")) {
    if (!args.positional.empty()) {
      throw UsageError("--scaling uses generated models: no URDF arguments");
    }
    if (args.has("--contacts")) throw UsageError("--scaling uses generated models: no --contacts");
    for (const auto &option : kConstraintOptions)
      if (args.has(option))
        throw UsageError(fmt::format("--scaling uses generated models: no {}", option));
    if (args.has("--armature")) throw UsageError("--scaling uses generated models: no --armature");
    return bench_scaling(args, seconds, json);
  }
  if (args.has("--plot")) throw UsageError("--plot needs --scaling");
  for (const auto &p : args.positional) {
    if (p == "-" && args.positional.size() > 1) {
      throw UsageError("'-' (standard input) must be the only URDF");
    }
  }
  return bench_models(args, seconds, json);
}

}  // namespace geolin::cli
