// geolin dynamics: forward dynamics nu_dot (ABA) at a state, with given external wrenches
// (--wrenches) or with contact constraints and their forces lambda (--contacts:
// geolin::contact_dynamics); M and M^-1 with --mass-matrix.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {
void print_state_header(const LoadedModel &lm, const State &st, const Wrenches &wrenches,
                        const ContactSet &contacts) {
  fmt::print("model: {}\n", model_summary(lm));
  fmt::print("state: {}\n", st.description);
  if (wrenches.count() > 0) {
    fmt::print("external wrenches: {}\n", wrenches.describe());
    for (const auto &[name, w] : st.wrenches) {
      fmt::print("  {}: [{}]\n", name, fmt::join(w.data(), w.data() + 6, ", "));
    }
  }
  if (!contacts.empty()) {
    fmt::print("contacts: {}\n", contacts.describe());
    if (contacts.Kp != 0.0) {
      fmt::print("references: the frames' poses at this state (the constraint error is zero)\n");
    }
  }
  fmt::print("gravity: [{}, {}, {}] m/s^2 (inertial frame)\n\n", st.gravity[0], st.gravity[1],
             st.gravity[2]);
}

// The contact forces as a table, one row per contact, and their sum in world axes against the
// weight (a robot standing still carries its weight on its contacts).
void print_lambda_text(const Model &model, Workspace &ws, const Transform &H, const State &st,
                       const ContactSet &contacts, const VecX &lambda) {
  static const char *const kNames[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
  fmt::print(
      "lambda: the contact forces [N] (and torques [N m]) on the robot at each frame "
      "origin, {} axes\n",
      contacts.mixed ? "world-aligned (MIXED)" : "the frame's own (LOCAL)");
  std::vector<std::string> header = {"#", "frame", "type", "axes"};
  header.insert(header.end(), std::begin(kNames), std::end(kNames));
  std::vector<std::vector<std::string>> rows;
  Vec3 total = Vec3::Zero();
  int row0 = 0;
  for (int k = 0; k < contacts.count(); ++k) {
    const int t = contacts.types[k];
    std::vector<std::string> row = {std::to_string(k), contacts.names[k], ContactSet::type_name(t),
                                    contacts.mixed ? "MIXED" : "LOCAL"};
    for (int i = 0; i < 6; ++i) row.push_back(i < t ? format_number(lambda[row0 + i], 6) : "");
    rows.push_back(std::move(row));
    const Vec3 f = lambda.segment<3>(row0);
    total += contacts.mixed ? f : Vec3(frame_pose(model, ws, H, st.s, contacts.frames[k]).R * f);
    row0 += t;
  }
  print_table(header, rows, {0, 4, 5, 6, 7, 8, 9});
  const double mass = model.total_mass();
  fmt::print("sum of the contact forces, world axes: [{}, {}, {}] N; weight m |g| = {} N\n\n",
             format_number(total[0], 6), format_number(total[1], 6), format_number(total[2], 6),
             format_number(mass * st.gravity.norm(), 6));
}
}  // namespace

int cmd_dynamics(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert("--mass-matrix");
  spec.flags.insert(kMixedFlags.begin(), kMixedFlags.end());
  spec.options = {"--state", "--random", "--format", "--only"};
  spec.options.insert(kWrenchOptions.begin(), kWrenchOptions.end());
  spec.options.insert(kContactOptions.begin(), kContactOptions.end());
  const Args args = parse_args(argv, spec);
  const Format format = parse_format(args);
  const bool constrained = constrained_mode(args);
  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  State st = state_from_args(model, args);
  Wrenches wrenches;
  ContactSet contacts;
  forces_from_args(model, args, constrained, st, wrenches, contacts);
  const Transform H = model.fixed_base ? model.H_A_0 : st.H;

  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, contacts));
  ws.gravity = st.gravity;
  const int n = model.num_dofs();
  std::vector<NamedMatrix> out;

  VecX nu_dot = VecX::Zero(n);
  VecX lambda = VecX::Zero(contacts.rows());
  const std::string parts = model.fixed_base ? "r_dot" : "[v_dot; r_dot]";
  ws.singular = -1;
  if (constrained) {
    set_contact_refs(model, ws, H, st.s, contacts);
    if (!contact_dynamics(model, ws, H, st.s, st.v, st.r, st.tau, contacts.library(), nu_dot,
                          lambda)) {
      throw_contact_failure(model, ws, contacts, "contact_dynamics", "nu_dot");
    }
    check_singular(model, ws, "contact_dynamics", "nu_dot");
    check_finite(nu_dot, "contact_dynamics", "nu_dot");
    check_finite(lambda, "contact_dynamics", "lambda");
    out.push_back({"nu_dot",
                   "contact-constrained forward dynamics: " + parts,
                   nu_dot,
                   nu_labels(model, "v_dot", "r_dot"),
                   {"nu_dot"},
                   true});
    out.push_back({"lambda",
                   fmt::format("contact forces on the robot at the frame origins ({} axes)",
                               contacts.mixed ? "MIXED: world-aligned" : "LOCAL: the frame's own"),
                   lambda,
                   lambda_labels(contacts),
                   {"lambda"},
                   true});
  } else {
    aba(model, ws, H, st.s, st.v, st.r, st.tau, wrenches.external(), nu_dot);
    check_singular(model, ws, "aba", "nu_dot");
    check_finite(nu_dot, "aba", "nu_dot");
    out.push_back({"nu_dot",
                   wrenches.count() > 0 ? "forward dynamics (ABA) with external wrenches: " + parts
                                        : "forward dynamics (ABA): " + parts,
                   nu_dot,
                   nu_labels(model, "v_dot", "r_dot"),
                   {"nu_dot"},
                   true});
  }

  if (args.flag("--mass-matrix")) {
    const auto labels = nu_labels(model, "v", "r");
    MatX M = MatX::Zero(n, n), Minv = MatX::Zero(n, n);
    crba(model, ws, st.s, M);
    ws.singular = -1;
    mass_matrix_inverse(model, ws, st.s, Minv);
    check_singular(model, ws, "mass_matrix_inverse", "Minv");
    out.push_back({"M", "mass matrix M(s) (CRBA)", M, labels, labels});
    out.push_back({"Minv", "inverse mass matrix M(s)^-1 (direct recursion)", Minv, labels, labels});
  }
  out = select_matrices(std::move(out), args);

  Json doc;
  if (format == Format::Text) {
    print_state_header(lm, st, wrenches, contacts);
    if (constrained) {
      // lambda as a labelled table per contact; the other matrices as usual.
      std::vector<NamedMatrix> rest;
      bool has_lambda = false;
      for (auto &m : out) {
        if (m.name == "lambda") {
          has_lambda = true;
        } else {
          rest.push_back(std::move(m));
        }
      }
      print_matrices(format, rest, doc, 6);
      if (has_lambda) print_lambda_text(model, ws, H, st, contacts, lambda);
      return kExitOk;
    }
  } else if (format == Format::Json) {
    doc["model"] = model_json(lm);
    doc["state"] = state_json(model, st);
    doc["state_description"] = st.description;
    if (wrenches.count() > 0)
      doc["wrenches"] = {{"frames", wrenches.names}, {"axes", wrenches.axes_name()}};
    if (constrained) doc["contacts"] = contacts.json();
    doc["labels"] = {{"nu", nu_labels(model, "v", "r")}};
    if (constrained) doc["labels"]["lambda"] = lambda_labels(contacts);
  }
  print_matrices(format, out, doc, 6);
  return kExitOk;
}

}  // namespace geolin::cli
