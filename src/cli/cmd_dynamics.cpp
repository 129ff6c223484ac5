// geolin dynamics: forward dynamics nu_dot (ABA) at a state, with given external wrenches
// (--wrenches) or with contact constraints and their forces lambda (--contacts:
// geolin::contact_dynamics); M and M^-1 with --mass-matrix; the centre of mass, its velocity and
// J_com with --com; the centroidal momentum h_G and A_G with --centroidal.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "args.hpp"
#include "commands.hpp"
#include "contacts.hpp"
#include "geolin/algorithms.hpp"
#include "labels.hpp"
#include "model_load.hpp"
#include "output.hpp"
#include "state_io.hpp"

namespace geolin::cli {

namespace {

// --- options --------------------------------------------------------------------------------

struct DynamicsOptions {
  Args args;
  Format format = Format::Text;
  bool constrained = false;  // --contacts
  bool mass_matrix = false;  // --mass-matrix
  bool com = false;          // --com
  bool centroidal = false;   // --centroidal
};

DynamicsOptions parse_dynamics_options(const std::vector<std::string> &argv) {
  ArgSpec spec = evaluation_arg_spec();
  spec.add_flags({"--mass-matrix", "--com", "--centroidal"});
  DynamicsOptions o;
  o.args = parse_args(argv, spec);
  o.format = parse_format(o.args);
  o.constrained = constrained_mode(o.args);
  o.mass_matrix = o.args.flag("--mass-matrix");
  o.com = o.args.flag("--com");
  o.centroidal = o.args.flag("--centroidal");
  return o;
}

// --- run ------------------------------------------------------------------------------------

struct DynamicsResult {
  VecX nu_dot;
  VecX lambda;                     // with contacts: the contact forces
  Vec3 lambda_sum = Vec3::Zero();  // ... their forces summed in world axes
  MatX M, Minv;                    // with --mass-matrix
  Vec3 com, com_velocity;          // with --com
  MatX J_com;                      // ...
  Vec6 h_G;                        // with --centroidal
  MatX A_G;                        // ...
};

// --com and --centroidal (center_of_mass.cpp, centroidal_momentum.cpp).
void run_centroidal(const DynamicsOptions &o, const Evaluation &ev, Workspace &ws,
                    DynamicsResult &r) {
  const Model &model = ev.lm.model;
  const State &st = ev.st;
  const int n = model.num_dofs();
  if ((o.com || o.centroidal) && !(model.total_mass() > 0.0))
    throw Error(Status::InvalidArgument, "--com, --centroidal: the model has no mass");
  if (o.com) {
    r.J_com = MatX::Zero(3, n);
    center_of_mass(model, ws, ev.H, st.s, st.v, st.r, r.com, r.com_velocity, r.J_com);
  }
  if (o.centroidal) {
    r.A_G = MatX::Zero(6, n);
    MatX none;
    centroidal_momentum(model, ws, ev.H, st.s, st.v, st.r, r.h_G, r.A_G, none);
  }
}

// The forces of lambda summed in world axes (the sum a robot standing still carries).
Vec3 contact_force_sum(const Model &model, Workspace &ws, const Evaluation &ev,
                       const VecX &lambda) {
  Vec3 total = Vec3::Zero();
  int row0 = 0;
  for (const ConstraintEntry &e : constraint_entries(ev.contacts)) {  // contacts and wheels
    const Vec3 f = lambda.segment<3>(row0);
    if (e.ground_force)
      total += e.world_axes ? f : Vec3(frame_pose(model, ws, ev.H, ev.st.s, e.frame).R * f);
    row0 += e.rows;
  }
  return total;
}

// contact_dynamics: nu_dot and lambda.
void run_contact_dynamics(Workspace &ws, Evaluation &ev, DynamicsResult &r) {
  const Model &model = ev.lm.model;
  const State &st = ev.st;
  set_contact_refs(model, ws, ev.H, st.s, ev.contacts);
  const std::string function = held_function(ev.contacts, "contact_dynamics");
  check_outcome(
      model,
      held_dynamics(model, ws, ev.H, st.s, st.v, st.r, st.tau, ev.contacts, r.nu_dot, r.lambda),
      function, "nu_dot", &ev.contacts);
  check_finite(r.nu_dot, function, "nu_dot");
  check_finite(r.lambda, function, "lambda");
}

// M (CRBA) and M^-1 (direct recursion).
void run_mass_matrix(const Model &model, Workspace &ws, const State &st, DynamicsResult &r) {
  const int n = model.num_dofs();
  r.M = MatX::Zero(n, n);
  r.Minv = MatX::Zero(n, n);
  crba(model, ws, st.s, r.M);
  check_outcome(model, mass_matrix_inverse(model, ws, st.s, r.Minv), "mass_matrix_inverse", "Minv");
}

DynamicsResult run_dynamics(const DynamicsOptions &o, Evaluation &ev) {
  const Model &model = ev.lm.model;
  const State &st = ev.st;
  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, ev.contacts));
  ws.gravity = st.gravity;
  DynamicsResult r;
  r.nu_dot = VecX::Zero(model.num_dofs());
  r.lambda = VecX::Zero(ev.contacts.rows());
  if (o.constrained) {
    run_contact_dynamics(ws, ev, r);
  } else {
    check_outcome(model,
                  aba(model, ws, ev.H, st.s, st.v, st.r, st.tau, ev.wrenches.external(), r.nu_dot),
                  "aba", "nu_dot");
    check_finite(r.nu_dot, "aba", "nu_dot");
  }
  if (o.mass_matrix) run_mass_matrix(model, ws, st, r);
  run_centroidal(o, ev, ws, r);
  if (o.constrained && o.format == Format::Text) {
    r.lambda_sum = contact_force_sum(model, ws, ev, r.lambda);
  }
  return r;
}

// The labelled outputs, as selected by --only.
std::vector<NamedMatrix> dynamics_matrices(const DynamicsOptions &o, const Evaluation &ev,
                                           const DynamicsResult &r) {
  const Model &model = ev.lm.model;
  const std::string parts = model.fixed_base ? "r_dot" : "[v_dot; r_dot]";
  const std::string title = ev.contacts.general() ? "constrained forward dynamics: "
                            : o.constrained       ? "contact-constrained forward dynamics: "
                            : ev.wrenches.count() > 0
                                ? "forward dynamics (ABA) with external wrenches: "
                                : "forward dynamics (ABA): ";
  std::vector<NamedMatrix> out;
  out.push_back(
      {"nu_dot", title + parts, r.nu_dot, nu_labels(model, "v_dot", "r_dot"), {"nu_dot"}, true});
  if (o.constrained) {
    out.push_back(
        {"lambda",
         ev.contacts.general()
             ? fmt::format("constraint forces (contacts, loops: at the frame origins, {} axes; "
                           "couplings: on the joint; wheels: the ground's force, world axes)",
                           ev.contacts.mixed ? "MIXED: world-aligned" : "LOCAL: the frame's own")
             : fmt::format("contact forces on the robot at the frame origins ({} axes)",
                           ev.contacts.mixed ? "MIXED: world-aligned" : "LOCAL: the frame's own"),
         r.lambda,
         lambda_labels(ev.contacts),
         {"lambda"},
         true});
  }
  if (o.mass_matrix) {
    const auto labels = nu_labels(model, "v", "r");
    out.push_back({"M", "mass matrix M(s) (CRBA)", r.M, labels, labels});
    out.push_back(
        {"Minv", "inverse mass matrix M(s)^-1 (direct recursion)", r.Minv, labels, labels});
  }
  if (o.com) {
    const std::vector<std::string> xyz = {"x", "y", "z"};
    out.push_back({"com", "centre of mass p_c [m] (inertial frame)", r.com, xyz, {"com"}, true});
    out.push_back({"com_velocity",
                   "its velocity [m/s] = J_com nu",
                   r.com_velocity,
                   xyz,
                   {"com_velocity"},
                   true});
    out.push_back({"J_com", "J_com: p_c(x exp(z)) = p_c + J_com [z_H; z_s]; p_c_dot = J_com nu",
                   r.J_com, xyz, nu_labels(model, "v", "r")});
  }
  if (o.centroidal) {
    out.push_back({"h_G",
                   "centroidal momentum h_G [N s; N m s] (about the centre of mass, inertial axes)",
                   r.h_G,
                   twist_labels("h"),
                   {"h_G"},
                   true});
    out.push_back({"A_G", "centroidal momentum matrix A_G: h_G = A_G nu", r.A_G, twist_labels("h"),
                   nu_labels(model, "v", "r")});
  }
  return select_matrices(std::move(out), o.args);
}

// --- print ----------------------------------------------------------------------------------

void print_dynamics_header(const Evaluation &ev) {
  const State &st = ev.st;
  fmt::print("model: {}\n", model_summary(ev.lm));
  fmt::print("state: {}\n", st.description);
  if (ev.wrenches.count() > 0) {
    fmt::print("external wrenches: {}\n", ev.wrenches.describe());
    for (const auto &[name, w] : st.wrenches) {
      fmt::print("  {}: [{}]\n", name, fmt::join(w.data(), w.data() + 6, ", "));
    }
  }
  print_contacts_text(ev.contacts);
  fmt::print("gravity: [{}, {}, {}] m/s^2 (inertial frame)\n\n", st.gravity[0], st.gravity[1],
             st.gravity[2]);
}

// The contact forces as a table, one row per contact, and their sum in world axes against the
// weight (a robot standing still carries its weight on its contacts).
void print_lambda_text(const Evaluation &ev, const DynamicsResult &r) {
  const ContactSet &contacts = ev.contacts;
  if (contacts.general()) {
    fmt::print(
        "lambda: the constraint forces [N] (and torques [N m]): on the robot at each contact "
        "frame's origin and, for a loop, on frame a's body from frame b's at frame a's origin "
        "({} axes); a coupling's generalized force on its joint (in column fx); a wheel's ground "
        "force at its contact point (world axes)\n",
        contacts.mixed ? "world-aligned (MIXED)" : "the frame's own (LOCAL)");
  } else {
    fmt::print(
        "lambda: the contact forces [N] (and torques [N m]) on the robot at each frame "
        "origin, {} axes\n",
        contacts.mixed ? "world-aligned (MIXED)" : "the frame's own (LOCAL)");
  }
  std::vector<std::string> header = {"#", "frame", "type", "axes"};
  header.insert(header.end(), std::begin(kWrenchComponents), std::end(kWrenchComponents));
  std::vector<std::vector<std::string>> rows;
  int row0 = 0, k = 0;
  for (const ConstraintEntry &e : constraint_entries(contacts)) {
    const int t = e.rows;
    std::vector<std::string> row = {std::to_string(k++), e.name, e.kind, e.axes};
    for (int i = 0; i < 6; ++i) row.push_back(i < t ? format_number(r.lambda[row0 + i], 6) : "");
    rows.push_back(std::move(row));
    row0 += t;
  }
  print_table(header, rows, {0, 4, 5, 6, 7, 8, 9});
  bool ground = false;  // contacts or wheels: forces from the world to sum
  for (const ConstraintEntry &e : constraint_entries(contacts)) ground = ground || e.ground_force;
  if (!ground) {
    fmt::print("\n");
    return;
  }
  const Vec3 &total = r.lambda_sum;
  fmt::print("sum of the {} forces, world axes: [{}, {}, {}] N; weight m |g| = {} N\n\n",
             contacts.general() ? "contact and wheel" : "contact", format_number(total[0], 6),
             format_number(total[1], 6), format_number(total[2], 6),
             format_number(ev.lm.model.total_mass() * ev.st.gravity.norm(), 6));
}

// Text: the header, the matrices, and with contacts lambda as a labelled table per contact.
void print_dynamics_text(const DynamicsOptions &o, const Evaluation &ev, const DynamicsResult &r,
                         std::vector<NamedMatrix> out) {
  print_dynamics_header(ev);
  if (!o.constrained) {
    print_matrices(Format::Text, out, {}, 6);
    return;
  }
  std::vector<NamedMatrix> rest;
  bool has_lambda = false;
  for (auto &m : out) {
    if (m.name == "lambda") {
      has_lambda = true;
    } else {
      rest.push_back(std::move(m));
    }
  }
  print_matrices(Format::Text, rest, {}, 6);
  if (has_lambda) print_lambda_text(ev, r);
}

void print_dynamics_json(const DynamicsOptions &o, const Evaluation &ev,
                         const std::vector<NamedMatrix> &out) {
  Json doc = state_document(ev.lm, ev.st);
  add_forces_json(doc, ev.wrenches, ev.contacts);
  doc["labels"] = {{"nu", nu_labels(ev.lm.model, "v", "r")}};
  if (o.constrained) doc["labels"]["lambda"] = lambda_labels(ev.contacts);
  print_matrices(Format::Json, out, doc, 6);
}

}  // namespace

int cmd_dynamics(const std::vector<std::string> &argv) {
  const DynamicsOptions o = parse_dynamics_options(argv);
  Evaluation ev = evaluation_from_args(o.args, o.constrained);
  const DynamicsResult r = run_dynamics(o, ev);
  std::vector<NamedMatrix> out = dynamics_matrices(o, ev, r);
  if (o.format == Format::Text) {
    print_dynamics_text(o, ev, r, std::move(out));
  } else if (o.format == Format::Json) {
    print_dynamics_json(o, ev, out);
  } else {
    print_matrices(Format::Csv, out, {}, 6);
  }
  return kExitOk;
}

}  // namespace geolin::cli
