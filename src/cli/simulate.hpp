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
#include "geolin/workspace.hpp"

namespace geolin::cli {

/// One step of simulate: geolin::step without contacts, contact_step with them held (their
/// gains and refs; lambda: the step's forces). Returns the outcome of step or contact_step.
Outcome simulation_step(const Model &model, Workspace &ws, StepMethod method, double h,
                        const geolin::State &x, const VecX &tau, const ContactSet &contacts,
                        geolin::State &next, VecX &lambda);

/// The columns of simulate's trajectory CSV: t, the base pose, s, v, r, energies, momentum.
std::vector<std::string> trajectory_header(const Model &model);
/// One row of it (ending in a newline) into line; returns the total energy.
double trajectory_row(const Model &model, Workspace &ws, double t, const geolin::State &x,
                      std::string &line);

/// geolin simulate --drop HEIGHT (simulate_drop.cpp): the drop test, with the parsed --steps,
/// --dt and --method.
int simulate_drop(const Args &args, long steps, double h, StepMethod method);

}  // namespace geolin::cli
