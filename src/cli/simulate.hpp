// geolin simulate's pieces shared by cmd_simulate.cpp and simulate_drop.cpp.
#pragma once

#include <string>
#include <vector>

#include "args.hpp"
#include "contacts.hpp"
#include "geolin/algorithms.hpp"
#include "geolin/model.hpp"
#include "geolin/outcome.hpp"
#include "geolin/state.hpp"
#include "geolin/status.hpp"
#include "geolin/workspace.hpp"

namespace geolin::cli {

/// One step of simulate: geolin::step without contacts, contact_step with them held (their
/// gains and refs; lambda: the step's forces), with the joint feedback evaluated inside the step
/// (implicit in its kd with StepMethod::ImplicitEuler). Returns the outcome of step or
/// contact_step.
Outcome simulation_step(const Model &model, Workspace &ws, StepMethod method, double h,
                        const geolin::State &x, const VecX &tau, const ContactSet &contacts,
                        geolin::State &next, VecX &lambda,
                        const JointFeedback &feedback = JointFeedback{});

/// --method (simulate, and check --step): "euler" (semi-implicit), "rk4" or "implicit"
/// (ImplicitEuler); `fallback` without it. name: the method's name.
StepMethod parse_step_method(const Args &args, const std::string &fallback, std::string &name);

/// The columns of simulate's trajectory CSV: t, the base pose, s, v, r, energies, momentum.
std::vector<std::string> trajectory_header(const Model &model);
/// One row of it (ending in a newline) into line; returns the total energy.
double trajectory_row(const Model &model, Workspace &ws, double t, const geolin::State &x,
                      std::string &line);

// --- divergence (simulate_divergence.cpp) -------------------------------------------------------
// A run that grows without bound stops at the step where one of these criteria first holds, with
// an error naming what diverged, the step and time, and what to change.

/// What diverged at a step, with its numbers ("" while nothing did).
struct Divergence {
  std::string what;
  explicit operator bool() const { return !what.empty(); }
};

/// A state or forces that are not finite.
Divergence check_finite(const geolin::State &x, const VecX &lambda);
/// An energy that rose by `rise` above its reference `since` (e.g. "its initial value"), beyond
/// `limit` > 0, where the dynamics do no positive work.
Divergence check_energy_rise(double rise, double limit, const std::string &since);
/// A joint speed beyond joint_bound (rad/s or m/s) or a base speed beyond base_bound (m/s).
Divergence check_speed(const Model &model, const geolin::State &x, double joint_bound,
                       double base_bound);
/// A contact force component beyond `limit` in magnitude (N; `scale` names it, e.g. "10 x the
/// weight"); names: one per component (the CSV's lambda labels).
Divergence check_force_bound(const VecX &lambda, const std::vector<std::string> &names,
                             double limit, const std::string &scale);

/// Contact forces oscillating with period two and growing amplitude: a component whose step to
/// step change flips sign and grows in magnitude, above `floor` (N), at kAlternations steps in a
/// row (the mark of an explicitly treated stiff or damping term with h beyond its stability
/// limit; a decaying or bounded oscillation never triggers it).
class ForceAlternation {
 public:
  static constexpr int kAlternations = 8;
  Divergence check(const VecX &lambda, const std::vector<std::string> &names, double floor);
  void reset() { previous_.resize(0); }

 private:
  VecX previous_, change_;
  std::vector<int> count_;
};

/// The error of a run that diverged at step k (t = k h): what, where, and `advice` (what to
/// change). Status Numeric (exit status 1).
Error divergence_error(const Divergence &d, long k, double t, double h, const std::string &advice);

/// geolin simulate --drop HEIGHT (simulate_drop.cpp): the drop test, with the parsed --steps and
/// --dt; its --method defaults to implicit.
int simulate_drop(const Args &args, long steps, double h);

}  // namespace geolin::cli
