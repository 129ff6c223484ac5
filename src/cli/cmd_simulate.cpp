// geolin simulate: integrates x_dot = x lambda(x, tau) with geolin::step (tau held constant) and
// writes the trajectory as CSV, with energies and the inertial spatial momentum; --plot writes an
// SVG of the energy error for steps h and h/2. With --contacts it steps with the contacts held
// (geolin::contact_step, references at the initial poses) and writes the step's lambda per
// contact; with --loops, --couplings, --wheels it steps with geolin::constrained_step, and
// --path-plot writes an SVG of the wheels' contact paths on the ground plane (x-y); --drop HEIGHT
// runs the drop test of simulate_drop.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "args.hpp"
#include "commands.hpp"
#include "contacts.hpp"
#include "geolin/algorithms.hpp"
#include "labels.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "simulate.hpp"
#include "state_io.hpp"
#include "svg.hpp"

namespace geolin::cli {

namespace {

struct Method {
  StepMethod method = StepMethod::Rk4;
  std::string name;
};

Method parse_method(const Args &args) {
  Method m;
  m.method = parse_step_method(args, "rk4", m.name);
  return m;
}

using Point = geolin::State;

double total_energy(const Model &model, Workspace &ws, const Point &x) {
  return kinetic_energy(model, ws, x.s, x.v, x.r) + potential_energy(model, ws, x.H, x.s);
}

// The divergence criteria of a run without the drop test (simulate.hpp): a state or forces not
// finite; the energy balance E - E0 - tau . (s - s0) rising beyond half the energy scale
// K0 + m |g| 1 m + |tau . (s - s0)| (the constant tau does exactly the work tau . (s - s0),
// joint damping only removes energy, the contacts' Baumgarte gains act on errors that start at 0;
// an integration error is a small fraction of the scale, a divergence grows through it in tens
// of steps); with contacts, forces oscillating with period two and growing amplitude (above 5 %
// of the weight plus the first step's largest force).
class RunDivergence {
 public:
  RunDivergence(const Model &model, Workspace &ws, const Point &x0, const VecX &tau,
                const ContactSet &contacts)
      : model_(model), ws_(ws), s0_(x0.s), tau_(tau), names_(lambda_labels(contacts)) {
    E0_ = total_energy(model, ws, x0);
    weight_ = model.total_mass() * ws.gravity.norm();
    scale0_ = kinetic_energy(model, ws, x0.s, x0.v, x0.r) + weight_ * 1.0;
  }

  Divergence check(const Point &x, const VecX &lambda) {
    if (Divergence d = check_finite(x, lambda)) return d;
    if (Divergence d = check_energy_rise(rise(x), limit(x), "E(0) plus the work of tau")) return d;
    if (lambda.size() == 0) return {};
    if (floor_ < 0.0) floor_ = 0.05 * (weight_ + lambda.cwiseAbs().maxCoeff()) + 1e-9;
    return alternation_.check(lambda, names_, floor_);
  }

  // A step that failed after the energy balance had risen by a hundredth of its limit: growth.
  Divergence growth_before_failure(const Point &x, const Error &e) {
    const double r = rise(x);
    if (!(r > 0.01 * limit(x))) return {};
    return {
        fmt::format("the step failed ({}) after the total energy had risen {:.4g} J above "
                    "E(0) plus the work of tau",
                    e.what(), r)};
  }

 private:
  double work(const Point &x) const { return tau_.dot(x.s - s0_); }
  double rise(const Point &x) { return total_energy(model_, ws_, x) - E0_ - work(x); }
  double limit(const Point &x) const { return 0.5 * (scale0_ + std::abs(work(x))) + 1e-9; }

  const Model &model_;
  Workspace &ws_;
  VecX s0_, tau_;
  std::vector<std::string> names_;
  double E0_ = 0.0, weight_ = 0.0, scale0_ = 0.0, floor_ = -1.0;
  ForceAlternation alternation_;
};

// What to change when a run diverges.
std::string run_advice(double h, bool contacts) {
  return fmt::format(
      "Change: a smaller --dt (e.g. --dt {:g}), or --method implicit (joint damping treated "
      "implicitly){}",
      h / 4.0, contacts ? ", or smaller contact --gains" : "");
}

// Integrates `steps` steps of length h from the state, calling visit(k, t, point) for
// k = 0 (the initial state) .. steps; the step's lambda (with contacts) is in ws.contact_lambda's
// head. Throws Error(Numeric) if the run diverges (RunDivergence; after the row of that step) or
// the mass matrix is singular, or the contacts redundant, at a stage.
template <class Visit>
void integrate(const Model &model, Workspace &ws, StepMethod method, double h, long steps,
               const State &st, const ContactSet &contacts, Visit &&visit) {
  Point x{model.fixed_base ? model.H_A_0 : st.H, st.s, model.fixed_base ? Vec6::Zero() : st.v,
          st.r};
  Point next = x;
  VecX lambda = VecX::Zero(contacts.rows());
  visit(0L, 0.0, x, lambda);
  RunDivergence divergence(model, ws, x, st.tau, contacts);
  for (long k = 1; k <= steps; ++k) {
    const double t = static_cast<double>(k) * h;
    try {
      // A singular mass matrix at a stage: the step is not to be used (the C API's message).
      check_outcome(model, simulation_step(model, ws, method, h, x, st.tau, contacts, next, lambda),
                    contacts.empty() ? "step" : held_function(contacts, "contact_step"),
                    "the next state", contacts.empty() ? nullptr : &contacts);
    } catch (const Error &e) {
      // A step that fails once the motion grows: the divergence, not its last symptom.
      if (const Divergence d = divergence.growth_before_failure(x, e))
        throw divergence_error(d, k, t, h, run_advice(h, !contacts.empty()));
      throw Error(e.status(), fmt::format("step {} (t = {:g} s): {}", k, t, e.what()));
    }
    std::swap(x, next);
    visit(k, t, x, lambda);
    if (const Divergence d = divergence.check(x, lambda))
      throw divergence_error(d, k, t, h, run_advice(h, !contacts.empty()));
  }
}

}  // namespace

Outcome simulation_step(const Model &model, Workspace &ws, StepMethod method, double h,
                        const geolin::State &x, const VecX &tau, const ContactSet &contacts,
                        geolin::State &next, VecX &lambda, const JointFeedback &feedback) {
  if (contacts.empty())
    return step(model, ws, method, h, x.H, x.s, x.v, x.r, tau, next.H, next.s, next.v, next.r,
                feedback);
  return held_step(model, ws, method, h, x.H, x.s, x.v, x.r, tau, contacts, next.H, next.s, next.v,
                   next.r, lambda, feedback);
}

StepMethod parse_step_method(const Args &args, const std::string &fallback, std::string &name) {
  name = args.get("--method", fallback);
  if (name == "rk4") return StepMethod::Rk4;
  if (name == "euler") return StepMethod::SemiImplicitEuler;
  if (name == "implicit") return StepMethod::ImplicitEuler;
  throw UsageError(fmt::format("--method: unknown method '{}' (euler, rk4 or implicit)", name));
}

std::vector<std::string> trajectory_header(const Model &model) {
  std::vector<std::string> h = {"t"};
  if (!model.fixed_base) {
    for (const char *c : {"x", "y", "z"}) h.push_back(c);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) h.push_back(fmt::format("R{}{}", i, j));
    }
  }
  for (const auto &l : joint_labels(model, "s")) h.push_back(l);
  if (!model.fixed_base) {
    for (const auto &l : twist_labels("v")) h.push_back(l);
  }
  for (const auto &l : joint_labels(model, "r")) h.push_back(l);
  for (const char *c : {"kinetic", "potential", "total"}) h.push_back(c);
  for (const char *c : {"px", "py", "pz", "Lx", "Ly", "Lz"}) h.push_back(fmt::format("h_A[{}]", c));
  return h;
}

double trajectory_row(const Model &model, Workspace &ws, double t, const geolin::State &x,
                      std::string &line) {
  line = fmt::format("{:.17g}", t);
  auto add = [&line](double value) { line += fmt::format(",{:.17g}", value); };
  if (!model.fixed_base) {
    for (int i = 0; i < 3; ++i) add(x.H.o[i]);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) add(x.H.R(i, j));
    }
  }
  for (int k = 0; k < x.s.size(); ++k) add(x.s[k]);
  if (!model.fixed_base) {
    for (int k = 0; k < 6; ++k) add(x.v[k]);
  }
  for (int k = 0; k < x.r.size(); ++k) add(x.r[k]);
  const double K = kinetic_energy(model, ws, x.s, x.v, x.r);
  const double U = potential_energy(model, ws, x.H, x.s);
  add(K);
  add(U);
  add(K + U);
  // The spatial momentum about the base frame, expressed in the inertial frame A.
  const Vec6 h_A = transform_force(x.H, spatial_momentum(model, ws, x.s, x.v, x.r));
  for (int k = 0; k < 6; ++k) add(h_A[k]);
  line += '\n';
  return K + U;
}

namespace {

// At most max_points points of |E - E0| against t: the first point, then the largest error of
// each bin, so that the envelope of a long run survives.
void append_decimated(const std::vector<double> &t, const std::vector<double> &err,
                      std::size_t max_points, PlotSeries &out) {
  if (t.empty()) return;
  out.x.push_back(t[0]);
  out.y.push_back(err[0]);
  const std::size_t n = t.size() - 1, bins = std::max<std::size_t>(1, std::min(n, max_points));
  for (std::size_t b = 0; b < bins; ++b) {
    const std::size_t lo = 1 + b * n / bins, hi = 1 + (b + 1) * n / bins;
    std::size_t best = lo;
    for (std::size_t k = lo; k < hi; ++k) {
      if (err[k] > err[best]) best = k;
    }
    if (lo < hi) {
      out.x.push_back(t[best]);
      out.y.push_back(err[best]);
    }
  }
}

struct EnergyError {
  std::vector<double> t, err;
  double max() const { return err.empty() ? 0.0 : *std::max_element(err.begin(), err.end()); }
};

// --- options --------------------------------------------------------------------------------

struct SimulateOptions {
  Args args;
  long steps = 1000;  // --steps
  double h = 1e-3;    // --dt
  Method method;
  std::string output, plot;  // --output, --plot ("": none)
  std::string path_plot;     // --path-plot: the wheels' contact paths ("": none)
  bool passive = false;      // --passive: tau = 0
  bool constrained = false;  // --contacts: steps with the contacts held
};

SimulateOptions parse_simulate_options(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.add_flags(kModelFlags).add_flags(kMixedFlags).add_flags({"--passive"});
  spec.options = {"--steps",  "--dt",        "--method",      "--plot",
                  "--output", "--path-plot", "--joint-gains", "--drop"};
  spec.add_options(kStateOptions).add_options(kContactOptions).add_options(kModelOptions);
  spec.add_options(kConstraintOptions);
  SimulateOptions o;
  o.args = parse_args(argv, spec);
  const Args &args = o.args;
  o.steps = args.get_int("--steps", 1000);
  o.h = args.get_double("--dt", 1e-3);
  o.method = parse_method(args);
  if (o.steps < 1 || o.steps > 100000000L) throw UsageError("--steps: K must be in [1, 1e8]");
  if (!(o.h > 0.0) || !std::isfinite(o.h)) throw UsageError("--dt: h must be positive");
  if (args.has("--output") && args.has("--plot") && args.get("--output") == args.get("--plot")) {
    throw UsageError("--output and --plot name the same file");
  }
  o.output = args.get("--output");
  o.plot = args.get("--plot");
  o.path_plot = args.get("--path-plot");
  if (args.has("--path-plot") && !args.has("--wheels"))
    throw UsageError("--path-plot needs --wheels FRAME:RADIUS,... (it draws their contact paths)");
  for (const char *other : {"--output", "--plot"}) {
    if (args.has("--path-plot") && args.has(other) && args.get(other) == o.path_plot)
      throw UsageError(fmt::format("{} and --path-plot name the same file", other));
  }
  o.passive = args.flag("--passive");
  if (args.has("--joint-gains") && !args.has("--drop"))
    throw UsageError("--joint-gains needs --drop HEIGHT");
  if (!args.has("--drop")) {
    o.constrained = constrained_mode(args);
    if (args.flag("--mixed") && !o.constrained) throw UsageError("--mixed needs --contacts");
  } else {
    for (const auto &option : kConstraintOptions)
      if (args.has(option)) throw UsageError(fmt::format("--drop does not take {}", option));
  }
  return o;
}

// The output files, opened before the run (which may take minutes), so that a path that cannot
// be written fails at once, naming it and the reason.
struct SimulateFiles {
  std::unique_ptr<OutputFile> csv, plot, path_plot;
};

SimulateFiles open_simulate_files(const SimulateOptions &o) {
  SimulateFiles f;
  if (o.args.has("--output")) f.csv = std::make_unique<OutputFile>("--output", o.output);
  if (o.args.has("--plot")) f.plot = std::make_unique<OutputFile>("--plot", o.plot);
  if (o.args.has("--path-plot"))
    f.path_plot = std::make_unique<OutputFile>("--path-plot", o.path_plot);
  return f;
}

// The state of --state / --random (tau = 0 with --passive); it may give no wrenches.
State simulate_state(const Model &model, const SimulateOptions &o) {
  State st = state_from_args(model, o.args);
  if (o.passive) st.tau.setZero();
  if (!st.wrenches.empty()) {
    throw Error(Status::Unsupported,
                fmt::format("state {}: field \"wrenches\": simulate applies no external wrenches "
                            "(only dynamics and linearize do, with --wrenches)",
                            st.description));
  }
  return st;
}

// --- run ------------------------------------------------------------------------------------

// The trajectory's destination: --output, or standard output.
class TrajectorySink {
 public:
  explicit TrajectorySink(OutputFile *file) : file_(file) {}
  void write(const std::string &text) {
    if (file_ != nullptr) {
      file_->write(text);
    } else {
      fmt::print("{}", text);
    }
  }
  void finish() {
    if (file_ != nullptr) {
      file_->close();
    } else {
      std::fflush(stdout);
    }
  }

 private:
  OutputFile *file_;
};

// The wheels' contact points on the ground plane along the run (--path-plot): x, y per wheel.
struct WheelPaths {
  std::vector<std::vector<double>> x, y;  // one per wheel of the set

  // The contact point of each wheel at x: the rim point nearest the plane z = 0, the centre minus
  // radius times the unit vector of the wheel plane nearest to +z (docs/constraints.md).
  void record(const Model &model, Workspace &ws, const ContactSet &set, const Point &p) {
    x.resize(set.wheels.size());
    y.resize(set.wheels.size());
    for (std::size_t k = 0; k < set.wheels.size(); ++k) {
      const WheelItem &w = set.wheels[k];
      const Transform F = frame_pose(model, ws, p.H, p.s, w.frame);
      const Vec3 a = F.R * w.axis;
      Vec3 up = Vec3::UnitZ() - a[2] * a;
      if (!(up.norm() > 0.0)) continue;  // the axis normal to the plane: no contact point
      up.normalize();
      const Vec3 c = F.o - w.radius * up;
      x[k].push_back(c[0]);
      y[k].push_back(c[1]);
    }
  }
};

// The plot of the wheels' contact paths on the ground plane.
Plot wheel_path_plot(const LoadedModel &lm, const SimulateOptions &o, const ContactSet &set,
                     const WheelPaths &paths) {
  Plot plot;
  plot.title = fmt::format("Wheel contact paths: {}, {}, h = {:g} s, t = 0 .. {:g} s",
                           lm.model.name, o.method.name, o.h, static_cast<double>(o.steps) * o.h);
  plot.subtitle =
      fmt::format("{}: the rim point of each wheel nearest the ground plane z = 0", lm.source);
  plot.x_label = "x [m]";
  plot.y_label = "y [m]";
  for (std::size_t k = 0; k < set.wheels.size() && k < paths.x.size(); ++k) {
    PlotSeries series{set.wheels[k].name, plot_color(static_cast<int>(k)), false, {}, {}};
    const std::size_t n = paths.x[k].size(), stride = n > 2000 ? (n + 1999) / 2000 : 1;
    for (std::size_t i = 0; i < n; i += stride) {
      series.x.push_back(paths.x[k][i]);
      series.y.push_back(paths.y[k][i]);
    }
    if (n > 0 && (n - 1) % stride != 0) {  // always the end point
      series.x.push_back(paths.x[k][n - 1]);
      series.y.push_back(paths.y[k][n - 1]);
    }
    plot.series.push_back(std::move(series));
  }
  return plot;
}

// The run with step h: writes the trajectory (header, then one row per step) and returns the
// energy error |E(t) - E(0)| at every step; E0 is set to E(0). With `paths`, records the wheels'
// contact points at every step.
EnergyError run_trajectory(const Model &model, Workspace &ws, const SimulateOptions &o,
                           const State &st, const ContactSet &contacts, bool two_runs,
                           TrajectorySink &sink, double &E0, WheelPaths *paths = nullptr) {
  std::vector<std::string> header = trajectory_header(model);
  for (const auto &l : lambda_labels(contacts)) header.push_back(l);
  sink.write(csv_line(header) + "\n");
  // A percentage on stderr while the run lasts, only if stderr is a terminal.
  Progress progress;
  const std::string label = fmt::format("simulate: {} steps of h = {:g} s{}", o.steps, o.h,
                                        two_runs ? " (run 1 of 2)" : "");
  EnergyError run;
  std::string line;
  auto row = [&](long k, double t, const Point &x, const VecX &lambda) {
    const double E = trajectory_row(model, ws, t, x, line);
    if (lambda.size() > 0) {
      line.pop_back();  // the newline: lambda's columns follow
      for (int i = 0; i < lambda.size(); ++i) line += fmt::format(",{:.17g}", lambda[i]);
      line += '\n';
    }
    if (k == 0) E0 = E;
    run.t.push_back(t);
    run.err.push_back(std::abs(E - E0));
    sink.write(line);
    if (paths != nullptr) paths->record(model, ws, contacts, x);
    progress.percent(label, k, o.steps);
  };
  integrate(model, ws, o.method.method, o.h, o.steps, st, contacts, row);
  progress.clear();
  sink.finish();
  return run;
}

// The same duration with h / 2: the energy error against E0 (no trajectory).
EnergyError run_half_step(const Model &model, Workspace &ws, const SimulateOptions &o,
                          const State &st, const ContactSet &contacts, double E0) {
  Progress progress;
  const std::string label = fmt::format("simulate: {} steps of h/2 (run 2 of 2)", 2 * o.steps);
  EnergyError run;
  integrate(model, ws, o.method.method, o.h / 2.0, 2 * o.steps, st, contacts,
            [&](long k, double t, const Point &x, const VecX &) {
              run.t.push_back(t);
              run.err.push_back(std::abs(total_energy(model, ws, x) - E0));
              progress.percent(label, k, 2 * o.steps);
            });
  progress.clear();
  return run;
}

bool torqued(const State &st) {
  return st.tau.size() > 0 && st.tau.cwiseAbs().maxCoeff() > 0.0;
}

// The energy error of both runs against t, on a log axis.
Plot energy_plot(const LoadedModel &lm, const SimulateOptions &o, const State &st,
                 const EnergyError &run_h, const EnergyError &run_h2, double E0) {
  const Model &model = lm.model;
  const double floor = 1e-16 * std::max(1.0, std::abs(E0));
  Plot plot;
  plot.title = fmt::format("Energy error: {}, {}, h = {:g} s", model.name, o.method.name, o.h);
  // The short form of the state: "default", "random (seed 3)", "file 'x.json'".
  const std::string state_name = st.description.substr(0, st.description.find(':'));
  plot.subtitle =
      fmt::format("{}, {}, state {}, {}; values below {:.0e} J drawn at {:.0e}", lm.source,
                  model.fixed_base ? "fixed base" : "moving base", state_name,
                  torqued(st) ? "constant tau (does work)" : "tau = 0", floor, floor);
  plot.x_label = "t [s]";
  plot.y_label = "|E(t) - E(0)| [J]";
  plot.log_y = true;
  plot.y_floor = floor;
  PlotSeries a{fmt::format("h = {:g} s", o.h), plot_color(0), false, {}, {}};
  PlotSeries b{fmt::format("h/2 = {:g} s", o.h / 2.0), plot_color(1), false, {}, {}};
  append_decimated(run_h.t, run_h.err, 1500, a);
  append_decimated(run_h2.t, run_h2.err, 1500, b);
  plot.series = {a, b};
  return plot;
}

// --- print ----------------------------------------------------------------------------------

// The summary of the run with step h, on `msg` (where the trajectory does not go).
void print_run_summary(std::FILE *msg, const Model &model, const SimulateOptions &o,
                       const State &st, const EnergyError &run_h, double E0) {
  const double duration = static_cast<double>(o.steps) * o.h;
  fmt::print(msg, "simulate: {}, {} with h = {:g} s, {} steps (t = 0 .. {:g} s)\n", model.name,
             o.method.name, o.h, o.steps, duration);
  if (o.args.has("--output"))
    fmt::print(msg, "  trajectory: {} rows written to {}\n", o.steps + 1, o.output);
  fmt::print(msg, "  max |E(t) - E(0)| = {:.3e} J (E(0) = {:.6g} J)\n", run_h.max(), E0);
  if (torqued(st) || model.joint_damping) {
    fmt::print(msg,
               "  note: {} work, so E is not conserved and |E(t) - E(0)| is not only the "
               "integration error (--passive sets tau = 0)\n",
               torqued(st) ? "the constant joint torques do" : "joint damping does");
  }
}

// The comparison of the two runs: the error with h/2 and the observed order.
void print_half_step_summary(std::FILE *msg, const SimulateOptions &o, const EnergyError &run_h,
                             const EnergyError &run_h2) {
  const double ratio = run_h2.max() > 0.0 ? run_h.max() / run_h2.max() : 0.0;
  fmt::print(msg, "  with h/2: max |E(t) - E(0)| = {:.3e} J", run_h2.max());
  if (ratio > 0.0) {
    fmt::print(msg, ", ratio {:.3g} (observed order {:.2f})", ratio, std::log2(ratio));
  }
  fmt::print(msg, "\n  plot: {}\n", o.plot);
}

}  // namespace

int cmd_simulate(const std::vector<std::string> &argv) {
  const SimulateOptions o = parse_simulate_options(argv);
  if (o.args.has("--drop")) return simulate_drop(o.args, o.steps, o.h);
  SimulateFiles files = open_simulate_files(o);
  const LoadedModel lm = load_model(o.args);
  const Model &model = lm.model;
  const State st = simulate_state(model, o);
  ContactSet contacts;
  if (o.constrained) contacts = contacts_from_args(model, o.args);
  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, contacts));
  ws.gravity = st.gravity;
  // The contacts hold the frames at their initial poses.
  if (o.constrained) set_contact_refs(model, ws, base_pose(model, st), st.s, contacts);
  // Messages go where the trajectory does not.
  std::FILE *msg = files.csv ? stdout : stderr;
  TrajectorySink sink(files.csv.get());
  double E0 = 0.0;
  WheelPaths paths;
  const EnergyError run_h = run_trajectory(model, ws, o, st, contacts, files.plot != nullptr, sink,
                                           E0, files.path_plot ? &paths : nullptr);
  print_run_summary(msg, model, o, st, run_h, E0);
  if (!contacts.empty()) {
    fmt::print(msg, "  {} held: {}\n", contacts.general() ? "constraints" : "contacts",
               contacts.describe());
    if (contacts.Kp != 0.0 || contacts.Kd != 0.0)
      fmt::print(msg, "  note: the Baumgarte gains of the {} do work too\n",
                 contacts.general() ? "constraints" : "contacts");
  }
  if (files.path_plot) {
    files.path_plot->write(render_svg(wheel_path_plot(lm, o, contacts, paths)));
    files.path_plot->close();
    fmt::print(msg, "  wheel contact paths: {}\n", o.path_plot);
  }
  if (files.plot) {
    const EnergyError run_h2 = run_half_step(model, ws, o, st, contacts, E0);
    files.plot->write(render_svg(energy_plot(lm, o, st, run_h, run_h2, E0)));
    files.plot->close();
    print_half_step_summary(msg, o, run_h, run_h2);
  }
  return kExitOk;
}

}  // namespace geolin::cli
