// geolin simulate: integrates x_dot = x lambda(x, tau) with geolin::step (tau held constant) and
// writes the trajectory as CSV, with energies and the inertial spatial momentum; --plot writes an
// SVG of the energy error for steps h and h/2.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {

struct Method {
  StepMethod method;
  std::string name;
};

Method parse_method(const Args &args) {
  const std::string name = args.get("--method", "rk4");
  if (name == "rk4") return {StepMethod::Rk4, name};
  if (name == "euler") return {StepMethod::SemiImplicitEuler, name};
  throw UsageError(fmt::format("--method: unknown method '{}' (euler or rk4)", name));
}

// The moving point of the integration.
struct Point {
  Transform H;
  VecX s, r;
  Vec6 v = Vec6::Zero();
};

bool finite(const Point &x) {
  return x.H.R.allFinite() && x.H.o.allFinite() && x.s.allFinite() && x.r.allFinite() &&
         x.v.allFinite();
}

// Integrates `steps` steps of length h from the state, calling visit(k, t, point) for
// k = 0 (the initial state) .. steps. Throws Error(Numeric) if the state stops being finite or
// the mass matrix is singular at a stage.
template <class Visit>
void integrate(const Model &model, Workspace &ws, StepMethod method, double h, long steps,
               const State &st, Visit &&visit) {
  Point x{model.fixed_base ? model.H_A_0 : st.H, st.s, st.r,
          model.fixed_base ? Vec6::Zero() : st.v};
  Point next = x;
  visit(0L, 0.0, x);
  for (long k = 1; k <= steps; ++k) {
    ws.singular = -1;
    step(model, ws, method, h, x.H, x.s, x.v, x.r, st.tau, next.H, next.s, next.v, next.r);
    const double t = static_cast<double>(k) * h;
    // A singular mass matrix at a stage: the step is not to be used (the C API's message).
    if (ws.singular >= 0) {
      try {
        check_singular(model, ws, "step", "the next state");
      } catch (const Error &e) {
        throw Error(e.status(), fmt::format("step {} (t = {:g} s): {}", k, t, e.what()));
      }
    }
    std::swap(x, next);
    if (!finite(x)) {
      throw Error(Status::Numeric,
                  fmt::format("the simulation diverged at step {} (t = {:g} s, h = {:g}): try a "
                              "smaller --dt",
                              k, t, h));
    }
    visit(k, t, x);
  }
}

double total_energy(const Model &model, Workspace &ws, const Point &x) {
  return kinetic_energy(model, ws, x.s, x.v, x.r) + potential_energy(model, ws, x.H, x.s);
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

// One CSV row; returns the total energy.
double trajectory_row(const Model &model, Workspace &ws, double t, const Point &x,
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

}  // namespace

int cmd_simulate(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert("--passive");
  spec.options = {"--steps", "--dt", "--method", "--plot", "--output"};
  spec.options.insert(kStateOptions.begin(), kStateOptions.end());
  const Args args = parse_args(argv, spec);
  const long steps = args.get_int("--steps", 1000);
  const double h = args.get_double("--dt", 1e-3);
  const Method method = parse_method(args);
  if (steps < 1 || steps > 100000000L) throw UsageError("--steps: K must be in [1, 1e8]");
  if (!(h > 0.0) || !std::isfinite(h)) throw UsageError("--dt: h must be positive");
  if (args.has("--output") && args.has("--plot") && args.get("--output") == args.get("--plot")) {
    throw UsageError("--output and --plot name the same file");
  }
  // Every output file is opened before the run (which may take minutes), so that a path that
  // cannot be written fails at once, naming it and the reason.
  std::unique_ptr<OutputFile> csv_file, plot_file;
  if (args.has("--output"))
    csv_file = std::make_unique<OutputFile>("--output", args.get("--output"));
  if (args.has("--plot")) plot_file = std::make_unique<OutputFile>("--plot", args.get("--plot"));

  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  State st = state_from_args(model, args);
  if (args.flag("--passive")) st.tau.setZero();
  if (!st.wrenches.empty()) {
    throw Error(Status::Unsupported,
                fmt::format("state {}: field \"wrenches\": simulate applies no external wrenches "
                            "(only dynamics and linearize do, with --wrenches)",
                            st.description));
  }
  Workspace ws(model);
  ws.gravity = st.gravity;

  // The trajectory, to --output or standard output; messages go where the CSV does not.
  const bool to_file = csv_file != nullptr;
  std::FILE *msg = to_file ? stdout : stderr;
  auto emit = [&](const std::string &text) {
    if (to_file) {
      csv_file->write(text);
    } else {
      fmt::print("{}", text);
    }
  };
  std::string line;
  const auto header = trajectory_header(model);
  for (std::size_t j = 0; j < header.size(); ++j) {
    line += (j == 0 ? "" : ",") + csv_field(header[j]);
  }
  emit(line + "\n");

  // A percentage on stderr while the runs last, only if stderr is a terminal.
  Progress progress;
  const std::string run_label =
      fmt::format("simulate: {} steps of h = {:g} s{}", steps, h, plot_file ? " (run 1 of 2)" : "");
  EnergyError run_h, run_h2;
  double E0 = 0.0;
  integrate(model, ws, method.method, h, steps, st, [&](long k, double t, const Point &x) {
    const double E = trajectory_row(model, ws, t, x, line);
    if (k == 0) E0 = E;
    run_h.t.push_back(t);
    run_h.err.push_back(std::abs(E - E0));
    emit(line);
    progress.percent(run_label, k, steps);
  });
  progress.clear();
  if (to_file) {
    csv_file->close();
  } else {
    std::fflush(stdout);
  }

  const double duration = static_cast<double>(steps) * h;
  fmt::print(msg, "simulate: {}, {} with h = {:g} s, {} steps (t = 0 .. {:g} s)\n", model.name,
             method.name, h, steps, duration);
  if (to_file)
    fmt::print(msg, "  trajectory: {} rows written to {}\n", steps + 1, args.get("--output"));
  fmt::print(msg, "  max |E(t) - E(0)| = {:.3e} J (E(0) = {:.6g} J)\n", run_h.max(), E0);
  const bool torqued = st.tau.size() > 0 && st.tau.cwiseAbs().maxCoeff() > 0.0;
  if (torqued || model.joint_damping) {
    fmt::print(msg,
               "  note: {} work, so E is not conserved and |E(t) - E(0)| is not only the "
               "integration error (--passive sets tau = 0)\n",
               torqued ? "the constant joint torques do" : "joint damping does");
  }

  if (plot_file) {
    // The same duration with h / 2.
    const std::string label2 = fmt::format("simulate: {} steps of h/2 (run 2 of 2)", 2 * steps);
    integrate(model, ws, method.method, h / 2.0, 2 * steps, st,
              [&](long k, double t, const Point &x) {
                const double E = total_energy(model, ws, x);
                run_h2.t.push_back(t);
                run_h2.err.push_back(std::abs(E - E0));
                progress.percent(label2, k, 2 * steps);
              });
    progress.clear();
    const double floor = 1e-16 * std::max(1.0, std::abs(E0));
    Plot plot;
    plot.title = fmt::format("Energy error: {}, {}, h = {:g} s", model.name, method.name, h);
    // The short form of the state: "default", "random (seed 3)", "file 'x.json'".
    const std::string state_name = st.description.substr(0, st.description.find(':'));
    plot.subtitle =
        fmt::format("{}, {}, state {}, {}; values below {:.0e} J drawn at {:.0e}", lm.source,
                    model.fixed_base ? "fixed base" : "moving base", state_name,
                    torqued ? "constant tau (does work)" : "tau = 0", floor, floor);
    plot.x_label = "t [s]";
    plot.y_label = "|E(t) - E(0)| [J]";
    plot.log_y = true;
    plot.y_floor = floor;
    PlotSeries a{fmt::format("h = {:g} s", h), plot_color(0), false, {}, {}};
    PlotSeries b{fmt::format("h/2 = {:g} s", h / 2.0), plot_color(1), false, {}, {}};
    append_decimated(run_h.t, run_h.err, 1500, a);
    append_decimated(run_h2.t, run_h2.err, 1500, b);
    plot.series = {a, b};
    plot_file->write(render_svg(plot));
    plot_file->close();
    const double ratio = run_h2.max() > 0.0 ? run_h.max() / run_h2.max() : 0.0;
    fmt::print(msg, "  with h/2: max |E(t) - E(0)| = {:.3e} J", run_h2.max());
    if (ratio > 0.0) {
      fmt::print(msg, ", ratio {:.3g} (observed order {:.2f})", ratio, std::log2(ratio));
    }
    fmt::print(msg, "\n  plot: {}\n", args.get("--plot"));
  }
  return kExitOk;
}

}  // namespace geolin::cli
