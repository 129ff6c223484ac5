// geolin dynamics: forward dynamics nu_dot (ABA) at a state; M and M^-1 with --mass-matrix.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {
void print_state_header(const LoadedModel &lm, const State &st, const Contacts &contacts) {
  fmt::print("model: {}\n", model_summary(lm));
  fmt::print("state: {}\n", st.description);
  if (contacts.count() > 0) {
    fmt::print("external wrenches: {}\n", contacts.describe());
    for (const auto &[name, w] : st.wrenches) {
      fmt::print("  {}: [{}]\n", name, fmt::join(w.data(), w.data() + 6, ", "));
    }
  }
  fmt::print("gravity: [{}, {}, {}] m/s^2 (inertial frame)\n\n", st.gravity[0], st.gravity[1],
             st.gravity[2]);
}
}  // namespace

int cmd_dynamics(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert("--mass-matrix");
  spec.flags.insert(kContactFlags.begin(), kContactFlags.end());
  spec.options = {"--state", "--random", "--format", "--only"};
  spec.options.insert(kContactOptions.begin(), kContactOptions.end());
  const Args args = parse_args(argv, spec);
  const Format format = parse_format(args);
  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  State st = state_from_args(model, args);
  const Contacts contacts = contacts_from_args(model, args, st);
  const Transform H = model.fixed_base ? model.H_A_0 : st.H;

  Workspace ws(model);
  ws.gravity = st.gravity;
  const int n = model.num_dofs();
  std::vector<NamedMatrix> out;

  VecX nu_dot = VecX::Zero(n);
  aba(model, ws, H, st.s, st.v, st.r, st.tau, contacts.external(), nu_dot);
  const std::string parts = model.fixed_base ? "r_dot" : "[v_dot; r_dot]";
  out.push_back({"nu_dot",
                 contacts.count() > 0 ? "forward dynamics (ABA) with external wrenches: " + parts
                                      : "forward dynamics (ABA): " + parts,
                 nu_dot,
                 nu_labels(model, "v_dot", "r_dot"),
                 {"nu_dot"},
                 true});

  if (args.flag("--mass-matrix")) {
    const auto labels = nu_labels(model, "v", "r");
    MatX M = MatX::Zero(n, n), Minv = MatX::Zero(n, n);
    crba(model, ws, st.s, M);
    mass_matrix_inverse(model, ws, st.s, Minv);
    out.push_back({"M", "mass matrix M(s) (CRBA)", M, labels, labels});
    out.push_back({"Minv", "inverse mass matrix M(s)^-1 (direct recursion)", Minv, labels, labels});
  }
  out = select_matrices(std::move(out), args);

  Json doc;
  if (format == Format::Text) {
    print_state_header(lm, st, contacts);
  } else if (format == Format::Json) {
    doc["model"] = model_json(lm);
    doc["state"] = state_json(model, st);
    doc["state_description"] = st.description;
    if (contacts.count() > 0)
      doc["contacts"] = {{"frames", contacts.names}, {"axes", contacts.axes_name()}};
    doc["labels"] = {{"nu", nu_labels(model, "v", "r")}};
  }
  print_matrices(format, out, doc, 6);
  return kExitOk;
}

}  // namespace geolin::cli
