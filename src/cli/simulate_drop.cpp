// geolin simulate --drop HEIGHT: the drop test of a legged robot. The robot starts at rest,
// upright, with its lowest foot HEIGHT above the ground plane z = 0 and falls (flight:
// geolin::step). At the step where feet reach the ground, the impact map (geolin::impulse,
// restitution 0; docs/contacts.md §9) stops them, and from then on they are held as point (or
// rigid) contacts (geolin::contact_step; docs/contacts.md §10) with references at their
// touchdown points on the ground and the Baumgarte gains of --gains. Feet never lift off. The
// joints are held by a PD about their initial angles (--joint-gains), the core's JointFeedback
// evaluated inside the step; --method defaults to implicit (ImplicitEuler: the PD's damping
// implicit). A run that diverges stops there (Drop::diverged, simulate.hpp).
// Writes the trajectory CSV (with each foot's height, vertical velocity and vertical force) and,
// with --plot, an SVG of the base height and the vertical foot forces.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "args.hpp"
#include "contacts.hpp"
#include "geolin/algorithms.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "simulate.hpp"
#include "state_io.hpp"
#include "svg.hpp"

namespace geolin::cli {

namespace {

struct DropOptions {
  double height = 0.0;  // --drop
  long steps = 0;
  double h = 0.0;
  StepMethod method = StepMethod::ImplicitEuler;  // --method, default implicit
  std::string method_name;
  double joint_kp = 200.0, joint_kd = 10.0;  // --joint-gains
  double Kp = 100.0, Kd = 20.0;              // --gains (the contacts' Baumgarte gains)
};

// Two finite numbers >= 0 of an option "A,B".
void parse_pair(const Args &args, const char *option, double &a, double &b) {
  if (!args.has(option)) return;
  const std::string text = args.get(option);
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw UsageError(fmt::format("{}: '{}' is not KP,KD (two numbers)", option, text));
  a = parse_double(text.substr(0, comma), fmt::format("{} (KP)", option));
  b = parse_double(text.substr(comma + 1), fmt::format("{} (KD)", option));
  if (!(std::isfinite(a) && a >= 0.0 && std::isfinite(b) && b >= 0.0))
    throw UsageError(fmt::format("{}: '{}': the gains must be finite and >= 0", option, text));
}

DropOptions parse_drop_options(const Args &args, long steps, double h) {
  DropOptions o;
  o.height = args.get_double("--drop", 0.0);
  if (!(o.height >= 0.0 && std::isfinite(o.height)))
    throw UsageError("--drop: HEIGHT must be finite and >= 0 (metres above the ground)");
  if (args.flag("--passive")) throw UsageError("--passive cannot be combined with --drop");
  o.steps = steps;
  o.h = h;
  o.method = parse_step_method(args, "implicit", o.method_name);
  parse_pair(args, "--joint-gains", o.joint_kp, o.joint_kd);
  parse_pair(args, "--gains", o.Kp, o.Kd);
  return o;
}

// The feet: --contacts (with --contact-type), else every frame whose name ends in "foot".
ContactSet drop_feet(const Model &model, const Args &args) {
  ContactSet feet;
  if (args.has("--contacts")) {
    feet = contacts_from_args(model, args);
  } else {
    if (args.has("--contact-type")) throw UsageError("--contact-type needs --contacts FRAME,...");
    for (int f = 0; f < static_cast<int>(model.frames.size()); ++f) {
      const std::string &name = model.frames[f].name;
      if (name.size() >= 4 && name.compare(name.size() - 4, 4, "foot") == 0) {
        feet.names.push_back(name);
        feet.frames.push_back(f);
        feet.types.push_back(kContactPoint);
      }
    }
    if (feet.empty())
      throw Error(Status::InvalidArgument,
                  fmt::format("--drop: model '{}' has no frame named '...foot': name the feet "
                              "with --contacts FRAME,...",
                              model.name));
  }
  feet.mixed = true;  // vertical forces: world axes
  return feet;
}

// The initial state: --state / --random, else at rest with s = 0 and tau = 0; upright (R = I),
// with zero velocity, lifted so that the lowest foot is `height` above z = 0.
geolin::State drop_start(const Model &model, Workspace &ws, const Args &args,
                         const ContactSet &feet, double height, State &st) {
  st = state_from_args(model, args);
  if (!args.has("--state") && !args.has("--random")) {
    st.s.setZero();
    st.tau.setZero();
  }
  if (model.fixed_base)
    throw Error(Status::Unsupported, "--drop: the model is fixed-base (nothing to drop)");
  geolin::State x{Transform(), st.s, Vec6::Zero(), VecX::Zero(st.r.size())};
  double lowest = 0.0;
  for (int k = 0; k < feet.count(); ++k) {
    const double z = frame_pose(model, ws, x.H, x.s, feet.frames[k]).o.z();
    lowest = k == 0 ? z : std::min(lowest, z);
  }
  x.H.o.z() = height - lowest;
  return x;
}

// A foot's height and world vertical velocity (the frame origin's).
void foot_motion(const Model &model, Workspace &ws, const geolin::State &x, int frame, MatX &J,
                 double &z, double &vz) {
  const Transform T = frame_pose(model, ws, x.H, x.s, frame);
  frame_jacobian(model, ws, x.H, x.s, frame, J);
  VecX nu(model.num_dofs());
  nu << x.v, x.r;
  z = T.o.z();
  vz = (T.R * (J * nu).head<3>()).z();  // the body twist's linear part in world axes
}

// The limits of the drop test's divergence criteria (simulate.hpp). The stance energy
// K + U + the PD's spring (Drop::stance_energy) cannot rise in continuous time (the PD's damping
// and the impacts only remove energy) but by the work of the Baumgarte gains, which lift the
// robot out of the touchdown penetration (up to the fall's speed times h): m |g| times that depth.
// So a rise beyond twice that plus 1 % of the weight times (HEIGHT + 0.1 m) is growth. A robot
// standing carries its weight, so a foot force beyond 10 times it, or a held foot 1 cm (plus its
// touchdown penetration) below the ground, is not a stance. The speeds: 10 times the fall's speed
// sqrt(2 g HEIGHT) for the base, and 100 rad/s (or m/s) per m/s of it for a joint (at least
// 1 m/s of it: a 0.1 m leg turning 10 times the fall's speed).
struct DropLimits {
  double energy = 0.0;       // J
  double force = 0.0;        // N: a contact force beyond it
  double force_floor = 0.0;  // N: the floor of ForceAlternation
  double depth = 0.01;       // m below the ground, beyond the deepest touchdown penetration
  double joint_speed = 0.0, base_speed = 0.0;
};

DropLimits drop_limits(double mass, double g, double height) {
  DropLimits l;
  const double weight = mass * g, fall = std::max(1.0, std::sqrt(2.0 * g * height));
  l.energy = 0.01 * weight * (height + 0.1);
  l.force = 10.0 * weight;
  l.force_floor = 0.05 * weight;
  l.joint_speed = 100.0 * fall;
  l.base_speed = 10.0 * fall;
  return l;
}

// The run's record: per step t, base height, per foot height, vertical velocity and force.
struct DropRecord {
  std::vector<double> t, base_z;
  std::vector<std::vector<double>> foot_z, foot_vz, foot_fz;  // [foot][step]
  double touchdown_t = -1.0;
  std::vector<std::string> touched;  // the feet of the first impact
  double impact_z = 0.0;             // base height at the first impact
  double impulse_z = 0.0;            // the vertical impulses' sum (N s) over the impacts
};

class Drop {
 public:
  Drop(const Model &model, Workspace &ws, const DropOptions &o, ContactSet feet, geolin::State x,
       VecX tau0)
      : model_(model),
        ws_(ws),
        o_(o),
        feet_(std::move(feet)),
        x_(std::move(x)),
        s0_(x_.s),
        tau0_(std::move(tau0)),
        kp_(VecX::Constant(model.num_joints(), o.joint_kp)),
        kd_(VecX::Constant(model.num_joints(), o.joint_kd)),
        J_(6, model.num_dofs()),
        limits_(drop_limits(model.total_mass(), ws.gravity.norm(), o.height)) {
    held_.assign(feet_.count(), -1);
    stance_.mixed = true;
    stance_.Kp = o.Kp;
    stance_.Kd = o.Kd;
    rec_.foot_z.resize(feet_.count());
    rec_.foot_vz.resize(feet_.count());
    rec_.foot_fz.resize(feet_.count());
  }

  const DropRecord &record() const { return rec_; }
  const geolin::State &state() const { return x_; }

  // The whole run; row(t, x, foot columns) after every step (and at t = 0).
  template <class Row>
  void run(Row &&row) {
    lambda_.setZero(0);
    write(0.0, row);
    for (long k = 1; k <= o_.steps; ++k) {
      const double t = static_cast<double>(k) * o_.h;
      try {
        advance();
        touchdown(t);
      } catch (const Error &e) {
        // A step that fails once the motion grows: the divergence, not its last symptom.
        if (const Divergence d = growth_before_failure(e))
          throw divergence_error(d, k, t, o_.h, advice());
        throw Error(e.status(), fmt::format("step {} (t = {:g} s): {}", k, t, e.what()));
      }
      write(t, row);
      if (const Divergence d = diverged()) throw divergence_error(d, k, t, o_.h, advice());
    }
  }

  /// What to change when the run diverges.
  std::string advice() const {
    if (o_.method == StepMethod::ImplicitEuler)
      return fmt::format(
          "Change: a smaller --dt (e.g. --dt {:g}), or softer gains (e.g. --joint-gains "
          "{:g},{:g} or --gains KP,KD smaller): --method implicit treats only the damping "
          "implicitly, the stiffnesses KP stay explicit (stable while h^2 KP / I < 4)",
          o_.h / 4.0, o_.joint_kp / 4.0, o_.joint_kd);
    return fmt::format(
        "Change: --method implicit (the drop test's default: the joints' PD damping treated "
        "implicitly), a smaller --dt (e.g. --dt {:g}), or less joint damping (e.g. "
        "--joint-gains {:g},{:g}): with an explicit method the PD's damping KD is stable only "
        "while h KD / I < 2 for the smallest effective inertia I of a joint",
        o_.h / 4.0, o_.joint_kp, o_.joint_kd / 5.0);
  }

 private:
  // The energy that stance cannot gain: K + U + the PD's spring 1/2 KP |s - s0|^2, minus the work
  // tau0 . (s - s0) of the state's constant torques.
  double stance_energy() {
    const VecX ds = x_.s - s0_;
    return kinetic_energy(model_, ws_, x_.s, x_.v, x_.r) +
           potential_energy(model_, ws_, x_.H, x_.s) + 0.5 * o_.joint_kp * ds.squaredNorm() -
           tau0_.dot(ds);
  }

  // The first criterion of simulate.hpp's that holds at the state of this step, if any.
  Divergence diverged() {
    if (Divergence d = check_finite(x_, lambda_)) return d;
    if (Divergence d = check_speed(model_, x_, limits_.joint_speed, limits_.base_speed)) return d;
    if (stance_.empty()) return {};
    const double rise = stance_energy() - stance_energy0_;
    if (Divergence d = check_energy_rise(rise, energy_limit(), "its value after the impact"))
      return d;
    if (Divergence d = check_force_bound(lambda_, lambda_names_, limits_.force, "10 x the weight"))
      return d;
    if (Divergence d = alternation_.check(lambda_, lambda_names_, limits_.force_floor)) return d;
    return held_feet_below_ground();
  }

  // DropLimits::energy plus the Baumgarte gains' lift out of the touchdown penetration, doubled.
  double energy_limit() const {
    return limits_.energy + 2.0 * model_.total_mass() * ws_.gravity.norm() * touchdown_depth_;
  }

  // A held foot deeper below the ground than the limit.
  Divergence held_feet_below_ground() const {
    for (int k = 0; k < feet_.count(); ++k) {
      const double z = rec_.foot_z[k].back(), limit = limits_.depth + touchdown_depth_;
      if (held_[k] >= 0 && z < -limit)
        return {fmt::format("the held foot {} is {:.4g} m below the ground (allowed: {:.3g} m)",
                            feet_.names[k], -z, limit)};
    }
    return {};
  }

  // A step that failed after the stance energy had risen by a hundredth of the limit: growth.
  Divergence growth_before_failure(const Error &e) {
    if (stance_.empty()) return {};
    const double rise = stance_energy() - stance_energy0_;
    if (!(rise > 0.01 * energy_limit())) return {};
    return {
        fmt::format("the step failed ({}) after the total energy had risen {:.4g} J above its "
                    "value after the impact",
                    e.what(), rise)};
  }

  // The joint PD about the initial angles, on top of the state's tau: kp (s0 - s) + kd (0 - r)
  // evaluated inside the step at each stage (docs/dynamics.md (D57)), its damping implicit with
  // StepMethod::ImplicitEuler ((D55), (D56)).
  JointFeedback feedback() const {
    JointFeedback f;
    f.kp = kp_.data();
    f.kd = kd_.data();
    f.s_ref = s0_.data();
    return f;
  }

  // One step; a state that is no longer finite is kept for diverged() to report after its row.
  void advance() {
    geolin::State next = x_;
    lambda_.resize(stance_.rows());
    check_outcome(model_,
                  simulation_step(model_, ws_, o_.method, o_.h, x_, tau0_, stance_, next, lambda_,
                                  feedback()),
                  stance_.empty() ? "step" : "contact_step", "the next state",
                  stance_.empty() ? nullptr : &stance_);
    x_ = std::move(next);
  }

  // The feet that reached z <= 0 in this step: an impact (e = 0) on them and the feet already
  // held, then they are held at their touchdown points on the ground.
  void touchdown(double t) {
    if (check_finite(x_, lambda_)) return;  // diverged; reported after the step's row
    std::vector<int> touched;
    for (int k = 0; k < feet_.count(); ++k) {
      double z = 0.0, vz = 0.0;
      foot_motion(model_, ws_, x_, feet_.frames[k], J_, z, vz);
      if (held_[k] < 0 && z <= 0.0) touched.push_back(k);
    }
    if (touched.empty()) return;
    for (int k : touched) hold(k);
    VecX nu(model_.num_dofs()), Lambda(stance_.rows());
    check_outcome(model_,
                  impulse(model_, ws_, x_.H, x_.s, x_.v, x_.r, stance_.library(), 0.0, nu, Lambda),
                  "impulse", "nu+", &stance_);
    x_.v = nu.head<6>();
    x_.r = nu.tail(model_.num_joints());
    for (int c = 0, row = 0; c < stance_.count(); row += stance_.types[c], ++c)
      rec_.impulse_z += Lambda[row + 2];
    if (rec_.touchdown_t < 0.0) {
      stance_energy0_ = stance_energy();
      rec_.touchdown_t = t;
      rec_.impact_z = x_.H.o.z();
      for (int k : touched) rec_.touched.push_back(feet_.names[k]);
    }
  }

  // Foot k joins the stance set, its reference its pose now, moved onto the ground.
  void hold(int k) {
    held_[k] = stance_.count();
    stance_.names.push_back(feet_.names[k]);
    stance_.frames.push_back(feet_.frames[k]);
    stance_.types.push_back(feet_.types[k]);
    Transform T = frame_pose(model_, ws_, x_.H, x_.s, feet_.frames[k]);
    touchdown_depth_ = std::max(touchdown_depth_, -T.o.z());
    T.o.z() = 0.0;
    const Mat4 M = T.matrix();
    stance_.refs.insert(stance_.refs.end(), M.data(), M.data() + 16);
    lambda_names_ = lambda_labels(stance_);
  }

  template <class Row>
  void write(double t, Row &row) {
    rec_.t.push_back(t);
    rec_.base_z.push_back(x_.H.o.z());
    std::vector<double> columns;
    for (int k = 0; k < feet_.count(); ++k) {
      double z = 0.0, vz = 0.0;
      foot_motion(model_, ws_, x_, feet_.frames[k], J_, z, vz);
      int row_of = 0;
      for (int c = 0; c < held_[k]; ++c) row_of += stance_.types[c];
      // The step's vertical force (world axes) on the foot; 0 in flight.
      const double fz = held_[k] >= 0 && lambda_.size() > row_of + 2 ? lambda_[row_of + 2] : 0.0;
      rec_.foot_z[k].push_back(z);
      rec_.foot_vz[k].push_back(vz);
      rec_.foot_fz[k].push_back(fz);
      columns.insert(columns.end(), {z, vz, fz});
    }
    row(t, x_, columns);
  }

  const Model &model_;
  Workspace &ws_;
  const DropOptions &o_;
  ContactSet feet_, stance_;
  geolin::State x_;
  VecX s0_, tau0_, kp_, kd_, lambda_;
  MatX J_;
  std::vector<int> held_;  // the foot's index in stance_, or -1 in flight
  DropRecord rec_;
  DropLimits limits_;
  double stance_energy0_ = 0.0;   // stance_energy() after the first impact
  double touchdown_depth_ = 0.0;  // the deepest foot below the ground at its touchdown
  std::vector<std::string> lambda_names_;
  ForceAlternation alternation_;
};

std::vector<std::string> drop_header(const Model &model, const ContactSet &feet) {
  std::vector<std::string> h = trajectory_header(model);
  for (const auto &name : feet.names) {
    h.push_back(fmt::format("z[{}]", name));
    h.push_back(fmt::format("vz[{}]", name));
    h.push_back(fmt::format("lambda[{}][fz]", name));
  }
  return h;
}

// Two panels: the base height, and the vertical force of each foot.
std::vector<Plot> drop_plots(const Model &model, const ContactSet &feet, const DropOptions &o,
                             const DropRecord &r) {
  Plot height;
  height.title = fmt::format("Drop test: {} from {:g} m", model.name, o.height);
  height.subtitle = fmt::format(
      "flight, impact (e = 0) at t = {:g} s, stance on held feet (Kp = {:g}, Kd = {:g}); h = {:g} "
      "s",
      r.touchdown_t, o.Kp, o.Kd, o.h);
  height.x_label = "t [s]";
  height.y_label = "base height z [m]";
  height.series.push_back({"base z", plot_color(0), false, r.t, r.base_z});
  Plot forces;
  forces.title = "Vertical contact forces";
  forces.x_label = "t [s]";
  forces.y_label = "lambda_z [N]";
  for (int k = 0; k < feet.count(); ++k)
    forces.series.push_back({feet.names[k], plot_color(k + 1), k % 2 == 1, r.t, r.foot_fz[k]});
  return {height, forces};
}

// The end state's conditions of rest: the vertical forces carry the weight (within 1 %), every
// held foot is on the ground (within 1 mm), and nothing moves: the base and every foot slower
// than 1e-3 m/s vertically, every joint slower than 1e-2 rad/s, and the base height changed by
// less than 1 mm over the last tenth of the run. Returns "at rest" or what does not hold.
std::string rest_verdict(const ContactSet &feet, const DropRecord &r, const geolin::State &x,
                         double weight) {
  double foot_vz = 0.0, force = 0.0, depth = 0.0;
  for (int k = 0; k < feet.count(); ++k) {
    foot_vz = std::max(foot_vz, std::abs(r.foot_vz[k].back()));
    force += r.foot_fz[k].back();
    depth = std::max(depth, std::abs(r.foot_z[k].back()));
  }
  const double base_vz = (x.H.R * x.v.head<3>()).z();
  const double joint_r = x.r.size() > 0 ? x.r.cwiseAbs().maxCoeff() : 0.0;
  const std::size_t last = r.base_z.size() - 1, tenth = last - last / 10;
  const double drift = std::abs(r.base_z[last] - r.base_z[tenth]);
  std::vector<std::string> fails;
  if (!(std::abs(force - weight) <= 0.01 * weight))
    fails.push_back(
        fmt::format("the vertical forces {:.6g} N are not the weight {:.6g} N within "
                    "1 % ({:.4f} x)",
                    force, weight, force / weight));
  if (!(depth <= 1e-3))
    fails.push_back(fmt::format("a foot is {:.3e} m off the ground (allowed: 1 mm)", depth));
  if (!(std::abs(base_vz) < 1e-3 && foot_vz < 1e-3 && joint_r < 1e-2 && drift < 1e-3))
    fails.push_back(
        fmt::format("still moving (base vz {:.3e} m/s, max |foot vz| {:.3e} m/s, max "
                    "|r| {:.3e} rad/s, base z change over the last tenth {:.3e} m; "
                    "at rest: < 1e-3 m/s, 1e-2 rad/s, 1 mm)",
                    base_vz, foot_vz, joint_r, drift));
  return fails.empty() ? "at rest" : fmt::format("NOT at rest: {}", fmt::join(fails, "; "));
}

// The impact against the free fall's momentum m sqrt(2 g HEIGHT) (the feet stop the whole robot
// when the legs cannot yield, e.g. straight; less otherwise), and the end state (rest_verdict).
void print_drop_summary(std::FILE *msg, const Model &model, const ContactSet &feet,
                        const DropOptions &o, const DropRecord &r, const geolin::State &x,
                        double g) {
  fmt::print(msg, "simulate --drop: {} from {:g} m, {}, {} steps of h = {:g} s (t = 0 .. {:g} s)\n",
             model.name, o.height, o.method_name, o.steps, o.h, static_cast<double>(o.steps) * o.h);
  if (r.touchdown_t < 0.0) {
    fmt::print(msg, "  no touchdown: the feet did not reach the ground (run longer)\n");
    return;
  }
  const double mass = model.total_mass(), fall = mass * std::sqrt(2.0 * g * o.height);
  fmt::print(msg,
             "  touchdown at t = {:g} s: {} (base z = {:.6f} m); vertical impulse {:.6g} N s = "
             "{:.3f} x m sqrt(2 g HEIGHT) = {:.6g} N s\n",
             r.touchdown_t, fmt::join(r.touched, ", "), r.impact_z, r.impulse_z,
             fall > 0.0 ? r.impulse_z / fall : 0.0, fall);
  double force = 0.0, depth = 0.0;
  for (int k = 0; k < feet.count(); ++k) {
    force += r.foot_fz[k].back();
    depth = std::max(depth, std::abs(r.foot_z[k].back()));
  }
  fmt::print(msg, "  final: base z = {:.6f} m, max |foot z| = {:.3e} m, max |r| = {:.3e} rad/s\n",
             r.base_z.back(), depth, x.r.size() > 0 ? x.r.cwiseAbs().maxCoeff() : 0.0);
  fmt::print(msg, "  final vertical forces: {:.6g} N = {:.4f} x the weight m |g| = {:.6g} N\n",
             force, force / (mass * g), mass * g);
  fmt::print(msg, "  end state: {}\n", rest_verdict(feet, r, x, mass * g));
}

}  // namespace

int simulate_drop(const Args &args, long steps, double h) {
  const DropOptions o = parse_drop_options(args, steps, h);
  std::unique_ptr<OutputFile> csv, plot;
  if (args.has("--output")) csv = std::make_unique<OutputFile>("--output", args.get("--output"));
  if (args.has("--plot")) plot = std::make_unique<OutputFile>("--plot", args.get("--plot"));
  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  const ContactSet feet = drop_feet(model, args);
  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, feet));
  State st;
  geolin::State x0 = drop_start(model, ws, args, feet, o.height, st);
  ws.gravity = st.gravity;
  Drop drop(model, ws, o, feet, std::move(x0), st.tau);
  std::FILE *msg = csv ? stdout : stderr;
  std::string text = csv_line(drop_header(model, feet)) + "\n", line;
  auto sink = [&](const std::string &s) { csv ? csv->write(s) : (void)fmt::print("{}", s); };
  sink(text);
  auto row = [&](double t, const geolin::State &x, const std::vector<double> &columns) {
    trajectory_row(model, ws, t, x, line);
    line.pop_back();
    for (double c : columns) line += fmt::format(",{:.17g}", c);
    sink(line + "\n");
  };
  try {
    drop.run(row);
  } catch (const Error &) {
    // The CSV keeps the rows up to the failure, and the plot shows them.
    if (csv) csv->close();
    if (plot) plot->write(render_svg_panels(drop_plots(model, feet, o, drop.record())));
    throw;
  }
  if (csv) csv->close();
  print_drop_summary(msg, model, feet, o, drop.record(), drop.state(), st.gravity.norm());
  if (plot) {
    plot->write(render_svg_panels(drop_plots(model, feet, o, drop.record())));
    plot->close();
    fmt::print(msg, "  plot: {}\n", args.get("--plot"));
  }
  return kExitOk;
}

}  // namespace geolin::cli
