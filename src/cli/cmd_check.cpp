// geolin check: the analytical A, B against geometric finite differences (docs/dynamics.md §5,
// §6.7) over several states, including pitch ±90° and large velocities; with --contacts the
// contact-constrained A, B, dlambda/dz and dlambda/dw (contact_linearize against
// contact_linearize_finite_difference). --step H checks the discrete step with the contacts
// held (contact_step_linearize: A_d, B_d, dlambda/dz, dlambda/dw) and --impulse the impact map
// (impulse_linearize: A_imp, dimpulse/dz) against geometric central differences of contact_step
// and impulse (discrete_fd.cpp; docs/contacts.md §9-§10). Exit status 1 above the tolerance.
//
// The reference is a Richardson extrapolation of central differences (Richardson 1911; e.g.
// Nocedal & Wright, Numerical Optimization, §8.1): a central difference D(eps) = D + c eps^2 +
// O(eps^4), so (4 D(eps/2) - D(eps)) / 3 = D + O(eps^4), which allows a step large enough to keep
// the round-off small. That round-off, and the accuracy of the analytical A itself, are those of
// nu_dot = M^-1 (...): about u cond(M) relative (u = 2^-53). The tolerance at a state is
// therefore max(T, 10 u cond(M)) (capped at max(T, 1e-3)); cond(M) = lambda_max / lambda_min of
// the CRBA mass matrix (Eigen's SelfAdjointEigenSolver).
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

#include "args.hpp"
#include "check_costs.hpp"
#include "commands.hpp"
#include "contacts.hpp"
#include "discrete_fd.hpp"
#include "geolin/algorithms.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "simulate.hpp"
#include "state_io.hpp"

namespace geolin::cli {

namespace {

constexpr double kHalfPi = 1.57079632679489661923;

// The matrices compared: A, B, and with contacts dlambda/dz, dlambda/dw.
enum Matrix { kA, kB, kDz, kDw };

// A block of one matrix compared between the two methods.
struct CheckBlock {
  std::string name;
  Matrix matrix = kA;
  int row, rows, col, cols;
  double max_error = 0.0;  // the largest relative error over the samples
  int max_error_sample = -1;
  double scale = 0.0;      // max|X_an| at max_error_sample
  double worst = 0.0;      // the relative error at worst_sample
  double worst_tol = 0.0;  // the tolerance at worst_sample
  int worst_sample = -1;   // the sample of the largest error / tolerance (decides pass or fail)
};

// What is checked: the continuous A, B (linearize, contact_linearize), the discrete step with
// the contacts held (--step) or the impact map (--impulse).
enum class Checked { Continuous, Step, Impulse };

// The blocks of a discrete map's matrices: its pose rows (z_H, z_s), its velocity rows (z_v,
// z_r), its input columns and the derivatives of its forces.
std::vector<CheckBlock> discrete_blocks(const Model &model, int contact_rows, Checked what) {
  const int nj = model.num_joints(), n = model.num_dofs(), N = model.state_dim();
  const bool step = what == Checked::Step;
  const std::string A = step ? "A_d" : "A_imp", f = step ? "dlambda" : "dimpulse";
  std::vector<CheckBlock> out = {{A + " pose rows", kA, 0, n, 0, N},
                                 {A + " velocity rows", kA, n, n, 0, N},
                                 {"B_d", kB, 0, N, 0, step ? nj : 0},
                                 {f + "/dz", kDz, 0, contact_rows, 0, N},
                                 {"dlambda/dw", kDw, 0, contact_rows, 0, step ? nj : 0}};
  std::vector<CheckBlock> nonempty;
  for (const auto &b : out) {
    if (b.rows > 0 && b.cols > 0) nonempty.push_back(b);
  }
  return nonempty;
}

std::vector<CheckBlock> check_blocks(const Model &model, int contact_rows, Checked what) {
  if (what != Checked::Continuous) return discrete_blocks(model, contact_rows, what);
  const int nj = model.num_joints(), n = model.num_dofs(), N = model.state_dim();
  const int dyn = model.fixed_base ? nj : 6 + nj;  // first dynamics row (z_v, or z_r)
  std::vector<CheckBlock> out;
  out.push_back({"kinematic rows", kA, 0, dyn, 0, N});
  if (!model.fixed_base) out.push_back({"F_H", kA, dyn, n, 0, 6});
  out.push_back({"F_s", kA, dyn, n, model.fixed_base ? 0 : 6, nj});
  if (!model.fixed_base) out.push_back({"F_v", kA, dyn, n, 6 + nj, 6});
  out.push_back({"F_r", kA, dyn, n, model.fixed_base ? nj : 12 + nj, nj});
  out.push_back({"B", kB, 0, N, 0, nj});
  if (contact_rows > 0) {
    out.push_back({"dlambda/dz", kDz, 0, contact_rows, 0, N});
    out.push_back({"dlambda/dw", kDw, 0, contact_rows, 0, nj});
  }
  std::vector<CheckBlock> nonempty;  // n_J = 0 (a single rigid body) leaves some blocks empty
  for (const auto &b : out) {
    if (b.rows > 0 && b.cols > 0) nonempty.push_back(b);
  }
  return nonempty;
}

// max|an - fd| / max(1, max|an|); infinite if anything is not finite.
double relative_error(const Eigen::Ref<const MatX> &an, const Eigen::Ref<const MatX> &fd,
                      double &scale) {
  scale = an.size() == 0 ? 0.0 : an.cwiseAbs().maxCoeff();
  if (an.size() == 0) return 0.0;
  if (!an.allFinite() || !fd.allFinite()) return std::numeric_limits<double>::infinity();
  return (an - fd).cwiseAbs().maxCoeff() / std::max(1.0, scale);
}

struct Sample {
  State state;
  std::string label;
};

std::vector<Sample> make_samples(const Model &model, int count, unsigned long long seed) {
  std::vector<Sample> out;
  for (int k = 0; k < count; ++k) {
    State st = random_state(model, seed + static_cast<unsigned long long>(k));
    std::string label = fmt::format("random (seed {})", seed + k);
    if ((k == 0 || k == 1) && !model.fixed_base) {
      const double pitch = k == 0 ? kHalfPi : -kHalfPi;
      st.H.R = rotation_y(pitch);
      label = fmt::format("pitch {}90 deg, seed {}", k == 0 ? "+" : "-", seed + k);
    } else if (k == 2) {
      if (st.v.norm() > 0.0) st.v *= 10.0 / st.v.norm();
      st.r *= 10.0;
      label = fmt::format("|v| = 10, r in [-10, 10], seed {}", seed + k);
    }
    st.description = label;
    out.push_back({st, label});
  }
  return out;
}

// The condition number lambda_max / lambda_min of the mass matrix M(s) (CRBA, symmetric positive
// definite); infinite if M is numerically singular.
double mass_matrix_condition(const Model &model, Workspace &ws, const VecX &s, MatX &M) {
  crba(model, ws, s, M);
  if (M.size() == 0) return 1.0;
  const Eigen::SelfAdjointEigenSolver<MatX> eig(M, Eigen::EigenvaluesOnly);
  if (eig.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
  const double lo = eig.eigenvalues().minCoeff(), hi = eig.eigenvalues().maxCoeff();
  return lo > 0.0 ? hi / lo : std::numeric_limits<double>::infinity();
}

constexpr double kUnitRoundoff = 0x1.0p-53;
constexpr double kCondMargin = 10.0;  // tolerance >= kCondMargin u cond(M)
constexpr double kMaxWidened = 1e-3;  // ... but never widened above this

enum class FdMethod { Richardson, Central };

// The options of check, validated (in the order the usage errors are reported).
struct CheckOptions {
  Args args;
  bool constrained = false;
  Format format = Format::Text;
  int count = 20;  // --samples
  double tol = 1e-5;
  double eps = 2e-4;
  unsigned long long seed = 1;
  FdMethod method = FdMethod::Richardson;
  std::string fd_name;  // as given: "richardson" or "central"
  Checked checked = Checked::Continuous;
  double h = 0.0;  // --step H
  StepMethod step_method = StepMethod::SemiImplicitEuler;
  std::string step_method_name = "euler";  // --method
  double restitution = 0.0;                // --restitution E
  bool costs = false;  // --costs: the derivatives of the cost-side functions instead
};

FdMethod parse_fd_method(const std::string &name) {
  if (name == "richardson") return FdMethod::Richardson;
  if (name == "central") return FdMethod::Central;
  throw UsageError(fmt::format("--fd: unknown method '{}' (richardson or central)", name));
}

// --step H [--method euler|rk4|implicit] or --impulse [--restitution E]: the discrete map checked.
void parse_discrete_options(const Args &args, CheckOptions &o) {
  if (args.has("--step") && args.flag("--impulse"))
    throw UsageError("--step (the contact step) and --impulse (the impact map) cannot be combined");
  if (args.has("--method") && !args.has("--step")) throw UsageError("--method needs --step H");
  if (args.has("--restitution") && !args.flag("--impulse"))
    throw UsageError("--restitution needs --impulse");
  if (args.has("--step")) {
    o.checked = Checked::Step;
    o.h = args.get_double("--step", 0.0);
    if (!(o.h > 0.0) || !std::isfinite(o.h)) throw UsageError("--step: H must be positive");
    o.step_method = parse_step_method(args, "euler", o.step_method_name);
  } else if (args.flag("--impulse")) {
    o.checked = Checked::Impulse;
    o.restitution = args.get_double("--restitution", 0.0);
    if (!(o.restitution >= 0.0 && o.restitution <= 1.0))
      throw UsageError("--restitution: E must be in [0, 1]");
  }
}

CheckOptions parse_check_options(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.add_flags(kModelFlags).add_flags(kMixedFlags).add_flags({"--impulse", "--costs"});
  spec.options = {"--samples", "--tol",  "--eps",    "--seed",       "--format",
                  "--fd",      "--step", "--method", "--restitution"};
  spec.add_options(kContactOptions).add_options(kModelOptions).add_options(kConstraintOptions);
  CheckOptions o;
  o.args = parse_args(argv, spec);
  const Args &args = o.args;
  bool others = false;  // --loops, --couplings, --wheels
  for (const auto &option : kConstraintOptions) others = others || args.has(option);
  if (args.flag("--mixed") && !args.has("--contacts") && !others)
    throw UsageError("--mixed needs --contacts");
  o.costs = args.flag("--costs");
  if (o.costs && args.has("--contacts")) throw UsageError("--costs does not take --contacts");
  if (o.costs && others) throw UsageError("--costs does not take --loops, --couplings or --wheels");
  if (o.costs && (args.has("--step") || args.flag("--impulse")))
    throw UsageError("--costs does not take --step or --impulse");
  o.constrained = constrained_mode(args);
  o.format = parse_format(args, {Format::Text, Format::Json});
  const long samples = args.get_int("--samples", 20);
  o.tol = args.get_double("--tol", 1e-5);
  o.fd_name = args.get("--fd", "richardson");
  o.method = parse_fd_method(o.fd_name);
  // Default steps measured on the bundled and the shared models (docs/performance.md §6): a central
  // difference is best near 1e-5 (truncation eps^2 against round-off 1/eps); Richardson's O(eps^4)
  // truncation allows 2e-4, which divides the round-off by 10 (on iCub, 200 states: worst 8e-6).
  o.eps = args.get_double("--eps", o.method == FdMethod::Richardson ? 2e-4 : 1e-5);
  const long seed = args.get_int("--seed", 1);
  if (samples < 1 || samples > 100000) throw UsageError("--samples: K must be in [1, 100000]");
  if (!(o.tol > 0.0)) throw UsageError("--tol: T must be positive");
  if (!(o.eps > 0.0 && o.eps < 1.0)) throw UsageError("--eps: EPS must be in (0, 1)");
  if (seed < 0) throw UsageError("--seed: SEED must be >= 0");
  o.count = static_cast<int>(samples);
  o.seed = static_cast<unsigned long long>(seed);
  parse_discrete_options(args, o);
  return o;
}

// The matrices of one state, indexed by Matrix: analytical, finite differences, and D(eps/2)
// (Richardson only).
struct Comparison {
  MatX an[4], fd[4], half[4];
};

Comparison make_comparison(const Model &model, int contact_rows, FdMethod method, Checked what) {
  const int N = model.state_dim(), m = contact_rows;
  const int nj = what == Checked::Impulse ? 0 : model.num_joints();  // the impact has no input
  const int rows[4] = {N, N, m, m}, cols[4] = {N, nj, N, nj};
  Comparison c;
  for (int i = 0; i < 4; ++i) {
    c.an[i].resize(rows[i], cols[i]);
    c.fd[i].resize(rows[i], cols[i]);
    if (method == FdMethod::Richardson) c.half[i].resize(rows[i], cols[i]);
  }
  return c;
}

// linearize and linearize_finite_difference (at eps, and eps/2 for Richardson).
void linearize_both(const Model &model, Workspace &ws, const Transform &H, const State &st,
                    const CheckOptions &o, Comparison &c) {
  check_outcome(model, linearize(model, ws, H, st.s, st.v, st.r, st.tau, c.an[kA], c.an[kB]),
                "linearize", "A");
  check_outcome(model,
                linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, o.eps, c.fd[kA],
                                            c.fd[kB]),
                "linearize_finite_difference", "A");
  if (o.method == FdMethod::Richardson)
    check_outcome(model,
                  linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, o.eps / 2.0,
                                              c.half[kA], c.half[kB]),
                  "linearize_finite_difference", "A");
}

// contact_linearize and contact_linearize_finite_difference (at eps, and eps/2 for Richardson).
void contact_linearize_both(const Model &model, Workspace &ws, const Transform &H, const State &st,
                            const CheckOptions &o, const ContactSet &contacts, Comparison &c) {
  check_outcome(model,
                held_linearize(model, ws, H, st.s, st.v, st.r, st.tau, contacts, c.an[kA], c.an[kB],
                               c.an[kDz], c.an[kDw]),
                held_function(contacts, "contact_linearize"), "A", &contacts);
  const double steps[2] = {o.eps, o.eps / 2.0};
  for (int h = 0; h < (o.method == FdMethod::Richardson ? 2 : 1); ++h) {
    MatX *X = h == 0 ? c.fd : c.half;
    check_outcome(model,
                  held_linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, contacts,
                                                   steps[h], X[kA], X[kB], X[kDz], X[kDw]),
                  held_function(contacts, "contact_linearize_finite_difference"), "A", &contacts);
  }
}

// contact_step_linearize or impulse_linearize, and the finite differences of contact_step or
// impulse (discrete_fd.cpp; at eps, and eps/2 for Richardson).
void discrete_both(const Model &model, Workspace &ws, const Transform &H, const State &st,
                   const CheckOptions &o, const ContactSet &contacts, Comparison &c) {
  const bool step = o.checked == Checked::Step;
  const std::string name = held_function(contacts, step ? "contact_step" : "impulse");
  const Outcome linearized =
      step ? held_step_linearize(model, ws, o.step_method, o.h, H, st.s, st.v, st.r, st.tau,
                                 contacts, c.an[kA], c.an[kB], c.an[kDz], c.an[kDw])
           : held_impulse_linearize(model, ws, H, st.s, st.v, st.r, contacts, o.restitution,
                                    c.an[kA], c.an[kDz]);
  check_outcome(model, linearized, name + "_linearize", "A", &contacts);
  VecX nu_next(model.num_dofs());
  Outcome evaluations;  // the first failure of the finite differences' evaluations
  const DiscreteMap map = [&](const geolin::State &x, const VecX &tau, geolin::State &out,
                              VecX &lam) {
    const Outcome done =
        step ? held_step(model, ws, o.step_method, o.h, x.H, x.s, x.v, x.r, tau, contacts, out.H,
                         out.s, out.v, out.r, lam)
             : held_impulse(model, ws, x.H, x.s, x.v, x.r, contacts, o.restitution, nu_next, lam);
    evaluations.keep_first(done);
    if (!step) {
      out = x;
      if (!model.fixed_base) out.v = nu_next.head<6>();
      out.r = nu_next.tail(model.num_joints());
    }
    return done.ok();
  };
  const geolin::State x{H, st.s, model.fixed_base ? Vec6::Zero() : st.v, st.r};
  const double steps[2] = {o.eps, o.eps / 2.0};
  for (int h = 0; h < (o.method == FdMethod::Richardson ? 2 : 1); ++h) {
    MatX *X = h == 0 ? c.fd : c.half;
    if (!discrete_finite_difference(model, map, x, st.tau, steps[h], X[kA], X[kB], X[kDz], X[kDw]))
      check_outcome(model, evaluations.ok() ? Outcome::overflowed() : evaluations,
                    name + " (finite differences)", "A", &contacts);
  }
}

// The analytical matrices and their reference at sample k. A state where M is singular, or the
// contacts redundant, fails with the library's message, naming the joint or the contact, and
// the state (nothing to compare).
void compute_sample(const Model &model, Workspace &ws, const Sample &sample, int k,
                    const CheckOptions &o, ContactSet &contacts, Comparison &c) {
  const State &st = sample.state;
  const Transform H = base_pose(model, st);
  for (int i = 0; i < 4; ++i) {
    c.an[i].setZero();
    c.fd[i].setZero();
  }
  if (o.constrained) set_contact_refs(model, ws, H, st.s, contacts);
  try {
    if (o.checked != Checked::Continuous) {
      discrete_both(model, ws, H, st, o, contacts, c);
    } else if (o.constrained) {
      contact_linearize_both(model, ws, H, st, o, contacts, c);
    } else {
      linearize_both(model, ws, H, st, o, c);
    }
  } catch (const Error &e) {
    throw Error(e.status(), fmt::format("state {} ({}): {}", k, sample.label, e.what()));
  }
  if (o.method == FdMethod::Richardson) {
    // D(eps) is even in eps: D + c eps^2 + O(eps^4); this cancels the eps^2 term.
    for (int i = 0; i < 4; ++i) c.fd[i] = (4.0 * c.half[i] - c.fd[i]) / 3.0;
  }
}

// The tolerance at a state: T, or 10 u cond(M) where larger, at most max(T, 1e-3). Not finite
// (M singular): no widening, the state fails unless everything agrees within T.
double state_tolerance(double tol, double cond) {
  if (!std::isfinite(cond)) return tol;
  return std::min(std::max(tol, kCondMargin * kUnitRoundoff * cond), std::max(tol, kMaxWidened));
}

// The outcome at one state.
struct SampleResult {
  double cond = 0.0;   // cond(M)
  double tol = 0.0;    // the tolerance there
  double worst = 0.0;  // the largest relative error over the blocks
  std::string block;   // ... and its block
  bool ok = false;
};

// Compares every block at sample k: updates each block's largest error and worst state, and
// the sample's worst error and block.
void compare_blocks(const Comparison &c, int k, std::vector<CheckBlock> &blocks, SampleResult &r) {
  for (auto &b : blocks) {
    double scale = 0.0;
    const double err = relative_error(c.an[b.matrix].block(b.row, b.col, b.rows, b.cols),
                                      c.fd[b.matrix].block(b.row, b.col, b.rows, b.cols), scale);
    if (b.max_error_sample < 0 || !(err <= b.max_error)) {
      b.max_error = err;
      b.max_error_sample = k;
      b.scale = scale;
    }
    // The worst state of a block is the one closest to (or furthest above) its tolerance.
    if (b.worst_sample < 0 || !(err / r.tol <= b.worst / b.worst_tol)) {
      b.worst = err;
      b.worst_tol = r.tol;
      b.worst_sample = k;
    }
    if (r.block.empty() || !(err <= r.worst)) {
      r.worst = err;
      r.block = b.name;
    }
  }
  r.ok = r.worst <= r.tol;  // false for NaN and infinity too
}

struct CheckResult {
  std::vector<Sample> samples;
  std::vector<SampleResult> results;  // one per sample
  std::vector<CheckBlock> blocks;
  double worst_cond = 0.0;  // the largest cond(M) over the samples, at worst_cond_sample
  int worst_cond_sample = 0;
  int widened = 0;  // states whose tolerance is above T

  static bool block_ok(const CheckBlock &b) { return b.worst <= b.worst_tol; }  // not NaN
  bool pass() const { return std::all_of(blocks.begin(), blocks.end(), block_ok); }
};

CheckResult run_check(const Model &model, const CheckOptions &o, ContactSet &contacts) {
  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, contacts));
  Comparison c = make_comparison(model, contacts.rows(), o.method, o.checked);
  MatX M(model.num_dofs(), model.num_dofs());
  CheckResult out;
  out.blocks = check_blocks(model, contacts.rows(), o.checked);
  out.samples = make_samples(model, o.count, o.seed);
  for (int k = 0; k < o.count; ++k) {
    const Sample &sample = out.samples[k];
    ws.gravity = sample.state.gravity;
    SampleResult r;
    r.cond = mass_matrix_condition(model, ws, sample.state.s, M);
    if (!(r.cond <= out.worst_cond)) {
      out.worst_cond = r.cond;
      out.worst_cond_sample = k;
    }
    r.tol = state_tolerance(o.tol, r.cond);
    out.widened += r.tol > o.tol;
    compute_sample(model, ws, sample, k, o, contacts, c);
    compare_blocks(c, k, out.blocks, r);
    out.results.push_back(std::move(r));
  }
  return out;
}

// What is checked, in words.
std::string checked_text(const CheckOptions &o) {
  if (o.checked == Checked::Step)
    return fmt::format(
        "contact_step_linearize ({}, h = {:g} s: A_d, B_d, dlambda/dz, dlambda/dw) of the step "
        "with the contacts held",
        o.step_method_name, o.h);
  if (o.checked == Checked::Impulse)
    return fmt::format("impulse_linearize (e = {:g}: A_imp, dimpulse/dz) of the impact map",
                       o.restitution);
  return o.constrained ? "contact-constrained A, B, dlambda/dz, dlambda/dw" : "A, B";
}

// What is compared with what (text output, before the run).
void print_check_header(const LoadedModel &lm, const ContactSet &contacts, const CheckOptions &o) {
  const std::string fd_text =
      o.method == FdMethod::Richardson
          ? fmt::format(
                "Richardson-extrapolated central differences (4 D(eps/2) - D(eps)) / 3, "
                "eps = {:g}",
                o.eps)
          : fmt::format("central differences, eps = {:g}", o.eps);
  fmt::print("model: {}\n", model_summary(lm));
  if (o.constrained)
    fmt::print("{}: {}\n", contacts.general() ? "constraints" : "contacts", contacts.describe());
  fmt::print("checking {} state{}: analytical {} against {}\n\n", o.count, o.count == 1 ? "" : "s",
             checked_text(o), fd_text);
}

// Why this tolerance, in the output itself.
std::string tolerance_note(const CheckOptions &o, const CheckResult &r) {
  std::string why = fmt::format(
      "tolerance: T = {:g}, or 10 u cond(M) where larger (u = 2^-53, at most {:g}): A and its "
      "finite differences both go through nu_dot = M^-1 (...), which round-off determines only "
      "to about u cond(M) relative, so no comparison can be stricter at an ill-conditioned "
      "state. cond(M) reaches {} here (state {}); {} of {} state{} had a wider tolerance.",
      o.tol, std::max(o.tol, kMaxWidened), format_number(r.worst_cond, 2), r.worst_cond_sample,
      r.widened, o.count, o.count == 1 ? "" : "s");
  why += o.method == FdMethod::Richardson
             ? " The reference is Richardson-extrapolated: it cancels the O(eps^2) truncation of "
               "a central difference, so a step large enough to keep the round-off (~ u cond(M) "
               "/ eps) small is still accurate."
             : " The reference is a plain central difference: truncation O(eps^2), round-off "
               "~ u cond(M) / eps; on an ill-conditioned model no eps makes both small "
               "(the default --fd richardson does).";
  return why;
}

Json samples_json(const CheckResult &r) {
  Json out = Json::array();
  for (std::size_t k = 0; k < r.results.size(); ++k) {
    const SampleResult &s = r.results[k];
    out.push_back({{"index", static_cast<int>(k)},
                   {"label", r.samples[k].label},
                   {"cond_M", finite_or_null(s.cond)},
                   {"tolerance", s.tol},
                   {"worst_error", s.worst},
                   {"worst_block", s.block},
                   {"ok", s.ok}});
  }
  return out;
}

Json blocks_json(const CheckResult &r) {
  Json out = Json::array();
  for (const auto &b : r.blocks) {
    out.push_back({{"block", b.name},
                   {"rows", b.rows},
                   {"cols", b.cols},
                   {"relative_error", b.max_error},
                   {"max_abs_analytical", b.scale},
                   {"max_error_sample", b.max_error_sample},
                   {"worst_ratio", b.worst / b.worst_tol},
                   {"worst_ratio_error", b.worst},
                   {"worst_ratio_tolerance", b.worst_tol},
                   {"worst_sample", b.worst_sample},
                   {"ok", CheckResult::block_ok(b)}});
  }
  return out;
}

void print_check_json(const LoadedModel &lm, const ContactSet &contacts, const CheckOptions &o,
                      const CheckResult &r) {
  Json doc;
  doc["model"] = model_json(lm);
  if (o.constrained) doc["contacts"] = contacts.json();
  doc["checked"] = checked_text(o);
  doc["fd_method"] = o.fd_name;
  doc["eps"] = o.eps;
  doc["tol"] = o.tol;
  doc["max_cond_M"] = finite_or_null(r.worst_cond);
  doc["tolerance_note"] = tolerance_note(o, r);
  doc["samples"] = samples_json(r);
  doc["blocks"] = blocks_json(r);
  doc["pass"] = r.pass();
  print_json(doc);
}

void print_check_text(const CheckOptions &o, const CheckResult &r) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < r.results.size(); ++k) {
    const SampleResult &s = r.results[k];
    rows.push_back({std::to_string(k), r.samples[k].label, format_number(s.cond, 2),
                    format_number(s.tol, 2), format_number(s.worst, 2), s.block,
                    s.ok ? "ok" : "FAIL"});
  }
  fmt::print(
      "per state (cond(M) of the mass matrix, the tolerance there, the worst relative error "
      "over the blocks):\n");
  print_table({"#", "state", "cond(M)", "tol", "error", "block", ""}, rows, {0, 2, 3, 4});
  rows.clear();
  for (const auto &b : r.blocks) {
    rows.push_back({b.name, fmt::format("{} x {}", b.rows, b.cols), format_number(b.max_error, 2),
                    format_number(b.scale, 3), std::to_string(b.max_error_sample),
                    format_number(b.worst / b.worst_tol, 2), std::to_string(b.worst_sample),
                    CheckResult::block_ok(b) ? "ok" : "FAIL"});
  }
  fmt::print(
      "\nper block (error = max|an - fd| / max(1, max|an|): the largest over the states, and "
      "the largest error / tol):\n");
  print_table({"block", "size", "error", "max|an|", "state", "error/tol", "state", ""}, rows,
              {2, 3, 4, 5, 6});
  fmt::print("\n{}\n", wrap_text(tolerance_note(o, r), 100));
  const bool pass = r.pass();
  fmt::print("\n{}: {}\n", pass ? "PASS" : "FAIL",
             pass ? "every error within its tolerance" : "an error above its tolerance");
}

// --- --costs: the derivatives of the cost-side functions -----------------------------------

// One checked derivative block of a cost-side function: its largest relative error over the
// states, and at which state.
struct CostBlock {
  std::string name;
  double error = 0.0;
  int sample = -1;
};

// The generalized force at x exp(e e_k), z = [z_H; z_s; z_v; z_r] (docs/dynamics.md (D15)):
// a right perturbation of the base pose, additions elsewhere; a fixed base has no z_H, z_v.
void inverse_dynamics_at(const Model &model, Workspace &ws, const State &st, const VecX &nu_dot,
                         int k, double e, VecX &tau) {
  Transform H = base_pose(model, st);
  VecX s = st.s, r = st.r;
  Vec6 v = st.v;
  state_integrate_coordinate(model, k, e, H, s, v, r);
  rnea(model, ws, H, s, v, r, nu_dot, tau);
}

// inverse_dynamics_linearize (docs/dynamics.md (D39)) against central differences of rnea
// through x exp(z) (Richardson-extrapolated with --fd richardson) at fixed ν̇, and M against
// the exact difference in ν̇ (τ is affine in ν̇), at the states of make_samples with a random ν̇.
// Blocks: dtau/dz_H, dtau/dz_s, dtau/dz_v, dtau/dz_r (fixed base: z_s, z_r), M.
std::vector<CostBlock> check_inverse_dynamics_costs(const Model &model,
                                                    const std::vector<Sample> &samples,
                                                    const CheckOptions &o) {
  const int n = model.num_dofs(), nj = model.num_joints(), N = model.state_dim(), nv = n - nj;
  Workspace ws(model);
  std::vector<CostBlock> blocks;
  std::vector<std::pair<int, int>> cols;  // first column and count of each dtau/dz block
  if (nv > 0) blocks.push_back({"dtau/dz_H"}), cols.push_back({0, 6});
  blocks.push_back({"dtau/dz_s"}), cols.push_back({nv, nj});
  if (nv > 0) blocks.push_back({"dtau/dz_v"}), cols.push_back({n, 6});
  blocks.push_back({"dtau/dz_r"}), cols.push_back({n + nv, nj});
  blocks.push_back({"M = dtau/dnu_dot"});
  VecX tau(n), plus(n), minus(n);
  MatX dz(n, N), M(n, n), fd(n, N), fd_M(n, n);
  auto central = [&](const State &st, const VecX &a, int k, double e) {
    inverse_dynamics_at(model, ws, st, a, k, e, plus);
    inverse_dynamics_at(model, ws, st, a, k, -e, minus);
    return VecX((plus - minus) / (2.0 * e));
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const State &st = samples[i].state;
    ws.gravity = st.gravity;
    // A reproducible ν̇: the velocities of another random state, ν = [v; r].
    const State other = random_state(model, o.seed + 7919 + i);
    VecX nu_dot(n);
    if (nv > 0) nu_dot.head(nv) = other.v;
    nu_dot.tail(nj) = other.r;
    inverse_dynamics_linearize(model, ws, base_pose(model, st), st.s, st.v, st.r, nu_dot, tau, dz,
                               M);
    for (int k = 0; k < N; ++k) {
      fd.col(k) = central(st, nu_dot, k, o.eps);
      if (o.method == FdMethod::Richardson)
        fd.col(k) = (4.0 * central(st, nu_dot, k, o.eps / 2.0) - fd.col(k)) / 3.0;
    }
    for (int k = 0; k < n; ++k) {
      VecX a = nu_dot;
      a[k] += 1.0;
      rnea(model, ws, base_pose(model, st), st.s, st.v, st.r, a, plus);
      a[k] -= 2.0;
      rnea(model, ws, base_pose(model, st), st.s, st.v, st.r, a, minus);
      fd_M.col(k) = (plus - minus) / 2.0;
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      double scale = 0.0;
      const double err = b + 1 == blocks.size()
                             ? relative_error(M, fd_M, scale)
                             : relative_error(dz.middleCols(cols[b].first, cols[b].second),
                                              fd.middleCols(cols[b].first, cols[b].second), scale);
      if (blocks[b].sample < 0 || !(err <= blocks[b].error)) {
        blocks[b].error = err;
        blocks[b].sample = static_cast<int>(i);
      }
    }
  }
  return blocks;
}

// check --costs: every cost-side derivative against finite differences, tolerance T.
int check_costs(const LoadedModel &lm, const CheckOptions &o) {
  const std::vector<Sample> samples = make_samples(lm.model, o.count, o.seed);
  std::vector<CostBlock> blocks;
  for (const CostBlock &b : check_inverse_dynamics_costs(lm.model, samples, o))
    blocks.push_back({"inverse_dynamics_linearize " + b.name, b.error, b.sample});
  std::vector<State> states;
  for (const Sample &sample : samples) states.push_back(sample.state);
  const CostCheck kinematic =
      check_kinematic_costs(lm.model, states, o.eps, o.method == FdMethod::Richardson, o.tol);
  for (const auto &[name, worst] : kinematic.worst) blocks.push_back({name, worst, -1});
  auto state_label = [&](const CostBlock &b) {  // the kinematic costs report the worst only
    return b.sample < 0 ? std::string("all states, every frame") : samples[b.sample].label;
  };
  const bool pass = std::all_of(blocks.begin(), blocks.end(),
                                [&](const CostBlock &b) { return b.error <= o.tol; });
  if (o.format == Format::Json) {
    Json list = Json::array();
    for (const CostBlock &b : blocks)
      list.push_back({{"block", b.name},
                      {"relative_error", finite_or_null(b.error)},
                      {"sample", b.sample},
                      {"state", state_label(b)},
                      {"ok", b.error <= o.tol}});
    print_json({{"model", model_json(lm)},
                {"fd_method", o.fd_name},
                {"eps", o.eps},
                {"tol", o.tol},
                {"costs", list},
                {"pass", pass}});
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const CostBlock &b : blocks)
      rows.push_back({b.name, format_number(b.error, 2),
                      b.sample < 0 ? std::string("-") : std::to_string(b.sample), state_label(b),
                      b.error <= o.tol ? "ok" : "FAIL"});
    fmt::print("cost-side derivatives against {} finite differences (eps {}), {} states, tol {}:\n",
               o.fd_name, o.eps, o.count, o.tol);
    print_table({"derivative", "error", "state", "", ""}, rows, {1, 2});
    fmt::print("\n{}\n", pass ? "PASS: every error within the tolerance"
                              : "FAIL: an error above the tolerance");
  }
  return pass ? kExitOk : kExitFailure;
}

}  // namespace

int cmd_check(const std::vector<std::string> &argv) {
  const CheckOptions o = parse_check_options(argv);
  const LoadedModel lm = load_model(o.args);
  if (o.costs) return check_costs(lm, o);
  ContactSet contacts;
  if (o.constrained) contacts = contacts_from_args(lm.model, o.args);
  if (o.format == Format::Text) print_check_header(lm, contacts, o);
  const CheckResult r = run_check(lm.model, o, contacts);
  if (o.format == Format::Json) {
    print_check_json(lm, contacts, o, r);
  } else {
    print_check_text(o, r);
  }
  return r.pass() ? kExitOk : kExitFailure;
}

}  // namespace geolin::cli
