// geolin linearize: A and B of z_dot = A z + B w (docs/dynamics.md §4) at a state, exact by
// default, geometric finite differences with --fd EPS; with given wrenches as inputs
// (--wrenches), or of the contact-constrained dynamics with dlambda/dz and dlambda/dw
// (--contacts: geolin::contact_linearize).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {

double max_abs(const Eigen::Ref<const MatX> &m) {
  return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff();
}

// The summary of the text output: sizes, the block structure and the largest entry per block.
void print_summary(const Model &model, const Wrenches &contacts, bool constrained, const MatX &A,
                   const MatX &B) {
  const int nj = model.num_joints(), nw = 6 * contacts.count();
  std::vector<Block> blocks;  // the non-empty blocks of z
  for (const auto &b : z_blocks(model)) {
    if (b.size > 0) blocks.push_back(b);
  }
  std::string layout;
  for (const auto &b : z_blocks(model))
    layout += fmt::format("{}{} ({})", layout.empty() ? "" : "; ", b.name, b.size);
  if (nw == 0) {
    fmt::print("z = [{}], N = {}; w = tau ({})\n", layout, model.state_dim(), nj);
  } else {
    fmt::print("z = [{}], N = {}; w = [tau ({}); f ({} = 6 x {} wrenches)]\n", layout,
               model.state_dim(), nj, nw, contacts.count());
  }
  const char *const B_dyn = constrained ? "d nu_dot/d tau" : nw == 0 ? "M^-1 S" : "M^-1 [S  J_F^T]";
  if (model.fixed_base) {
    fmt::print("A = [ 0  1 ; F_s  F_r ],  B = [ 0 ; {} ]\n\n",
               !constrained && nw == 0 ? "M^-1" : B_dyn);
  } else {
    fmt::print(
        "A = [ -v×  0  1  0 ;  0  0  0  1 ;  F_H  F_s  F_v  F_r ],  B = [ 0 ; 0 ; {} ]\n"
        "(rows z_v, z_r together are the n = {} rows of F = dFD{}{})\n\n",
        B_dyn, model.num_dofs(), constrained ? " of the constrained dynamics" : "",
        constrained ? ""
        : nw > 0 && contacts.mixed
            ? "; F_H is zero below the base rows unless mixed wrenches turn with the base"
            : "; F_H is zero below the base rows");
  }
  fmt::print("max |entry| per block (row: component of z_dot; column: of z, {}):\n",
             nw > 0 ? "tau or f" : "or tau");
  std::vector<std::string> header = {""};
  for (const auto &b : blocks) header.push_back(b.name);
  header.push_back("tau");
  if (nw > 0) header.push_back("f");
  std::vector<std::vector<std::string>> rows;
  std::set<int> right;
  for (std::size_t j = 1; j < header.size(); ++j) right.insert(static_cast<int>(j));
  for (const auto &rb : blocks) {
    std::vector<std::string> row = {rb.name};
    for (const auto &cb : blocks) {
      row.push_back(format_number(max_abs(A.block(rb.offset, cb.offset, rb.size, cb.size)), 3));
    }
    row.push_back(format_number(max_abs(B.block(rb.offset, 0, rb.size, nj)), 3));
    if (nw > 0) row.push_back(format_number(max_abs(B.block(rb.offset, nj, rb.size, nw)), 3));
    rows.push_back(std::move(row));
  }
  print_table(header, rows, right);
  fmt::print("\n");
}

// dlambda/dz and dlambda/dw in text: sizes, norms, the largest entry per contact and block of
// z (or w), and the largest entries with their labels.
void print_lambda_summary(const Model &model, const ContactSet &contacts, const MatX &dz,
                          const MatX &dw) {
  const auto ll = lambda_labels(contacts);
  fmt::print(
      "how the contact forces change with z and with tau: dlambda/dz ({} x {}, Frobenius norm "
      "{}),\n"
      "dlambda/dw ({} x {}, Frobenius norm {})\n",
      dz.rows(), dz.cols(), format_number(dz.norm(), 3), dw.rows(), dw.cols(),
      format_number(dw.norm(), 3));
  fmt::print("max |entry| per contact (rows) and block of z or tau (columns):\n");
  std::vector<Block> blocks;
  for (const auto &b : z_blocks(model)) {
    if (b.size > 0) blocks.push_back(b);
  }
  std::vector<std::string> header = {"contact"};
  for (const auto &b : blocks) header.push_back(b.name);
  header.push_back("tau");
  std::vector<std::vector<std::string>> rows;
  std::set<int> right;
  for (std::size_t j = 1; j < header.size(); ++j) right.insert(static_cast<int>(j));
  int row0 = 0;
  for (int k = 0; k < contacts.count(); ++k) {
    const int t = contacts.types[k];
    std::vector<std::string> row = {
        fmt::format("{} ({})", contacts.names[k], ContactSet::type_name(contacts.types[k]))};
    for (const auto &b : blocks) {
      row.push_back(format_number(max_abs(dz.block(row0, b.offset, t, b.size)), 3));
    }
    row.push_back(format_number(max_abs(dw.block(row0, 0, t, dw.cols())), 3));
    rows.push_back(std::move(row));
    row0 += t;
  }
  print_table(header, rows, right);
  // The largest entries of each matrix, with their row and column labels.
  const auto zl = z_labels(model), tl = tau_labels(model);
  for (int which = 0; which < 2; ++which) {
    const MatX &X = which == 0 ? dz : dw;
    const auto &cols = which == 0 ? zl : tl;
    std::vector<std::pair<double, std::pair<int, int>>> entries;
    for (int j = 0; j < X.cols(); ++j) {
      for (int i = 0; i < X.rows(); ++i) entries.push_back({std::abs(X(i, j)), {i, j}});
    }
    const std::size_t top = std::min<std::size_t>(5, entries.size());
    std::partial_sort(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(top),
                      entries.end(),
                      [](const auto &a, const auto &b) { return a.first > b.first; });
    fmt::print("largest entries of {}:", which == 0 ? "dlambda/dz" : "dlambda/dw");
    for (std::size_t e = 0; e < top; ++e) {
      const auto [i, j] = entries[e].second;
      fmt::print("{}d {} / d {} = {}", e == 0 ? "\n  " : "\n  ", ll[i], cols[j],
                 format_number(X(i, j), 4));
    }
    fmt::print("\n");
  }
  fmt::print("\n");
}

}  // namespace

int cmd_linearize(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert("--full");
  spec.flags.insert(kMixedFlags.begin(), kMixedFlags.end());
  spec.options = {"--state", "--random", "--format", "--fd", "--only"};
  spec.options.insert(kWrenchOptions.begin(), kWrenchOptions.end());
  spec.options.insert(kContactOptions.begin(), kContactOptions.end());
  const Args args = parse_args(argv, spec);
  const Format format = parse_format(args);
  const bool use_fd = args.has("--fd");
  const double eps = args.get_double("--fd", 0.0);
  if (use_fd && !(eps > 0.0 && eps < 1.0)) throw UsageError("--fd: EPS must be in (0, 1)");
  const bool constrained = constrained_mode(args);
  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  State st = state_from_args(model, args);
  Wrenches contacts;  // the given wrenches (--wrenches)
  ContactSet cs;      // the contact constraints (--contacts)
  forces_from_args(model, args, constrained, st, contacts, cs);
  const ExternalWrenches ext = contacts.external();
  const Transform H = model.fixed_base ? model.H_A_0 : st.H;

  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, cs));
  ws.gravity = st.gravity;
  const int N = model.state_dim(), nj = model.num_joints(), m = cs.rows();
  MatX A = MatX::Zero(N, N), B = MatX::Zero(N, nj + 6 * contacts.count());
  MatX dz = MatX::Zero(m, N), dw = MatX::Zero(m, nj);
  const char *const fn =
      constrained ? (use_fd ? "contact_linearize_finite_difference" : "contact_linearize")
                  : (use_fd ? "linearize_finite_difference" : "linearize");
  const auto t0 = std::chrono::steady_clock::now();
  ws.singular = -1;
  if (constrained) {
    set_contact_refs(model, ws, H, st.s, cs);
    const Contacts c = cs.library();
    const bool ok =
        use_fd ? contact_linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, c, eps,
                                                     A, B, dz, dw)
               : contact_linearize(model, ws, H, st.s, st.v, st.r, st.tau, c, A, B, dz, dw);
    if (!ok) throw_contact_failure(model, ws, cs, fn, "A");
  } else if (use_fd) {
    linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, ext, eps, A, B);
  } else {
    linearize(model, ws, H, st.s, st.v, st.r, st.tau, ext, A, B);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  check_singular(model, ws, fn, "A");
  check_finite(A, fn, "A");
  check_finite(B, fn, "B");
  check_finite(dz, fn, "dlambda_dz");
  check_finite(dw, fn, "dlambda_dw");
  const std::string method =
      use_fd ? fmt::format("geometric central finite differences (eps = {:g})", eps)
             : "analytical (exact, recursive)";

  const auto zl = z_labels(model);
  std::vector<std::string> wl = tau_labels(model);
  for (const auto &l : wrench_labels(contacts)) wl.push_back(l);
  std::vector<NamedMatrix> out = {
      {"A", constrained ? "d z_dot / d z (contact-constrained)" : "d z_dot / d z", A, zl, zl},
      {"B", contacts.count() > 0 ? "d z_dot / d [tau; f]" : "d z_dot / d tau", B, zl, wl}};
  if (constrained) {
    const auto ll = lambda_labels(cs);
    out.push_back({"dlambda_dz", "d lambda / d z (contact forces)", dz, ll, zl});
    out.push_back({"dlambda_dw", "d lambda / d tau (contact forces)", dw, ll, tau_labels(model)});
  }
  out = select_matrices(std::move(out), args);

  if (format == Format::Json) {
    Json doc;
    doc["model"] = model_json(lm);
    doc["state"] = state_json(model, st);
    doc["state_description"] = st.description;
    doc["method"] = use_fd ? "finite_difference" : "analytical";
    if (use_fd) doc["eps"] = eps;
    if (contacts.count() > 0) {
      doc["wrenches"] = {{"frames", contacts.names}, {"axes", contacts.axes_name()}};
    }
    if (constrained) doc["contacts"] = cs.json();
    doc["labels"] = {{"z", zl}, {"tau", tau_labels(model)}};
    if (contacts.count() > 0) doc["labels"]["f"] = wrench_labels(contacts);
    if (constrained) doc["labels"]["lambda"] = lambda_labels(cs);
    Json blocks = Json::object();
    for (const auto &b : z_blocks(model)) blocks[b.name] = {b.offset, b.size};
    doc["blocks"] = blocks;
    print_matrices(format, out, doc);
    return kExitOk;
  }
  if (format == Format::Csv) {
    print_matrices(format, out, {});
    return kExitOk;
  }

  fmt::print("model: {}\n", model_summary(lm));
  fmt::print("state: {}\n", st.description);
  if (contacts.count() > 0) fmt::print("external wrenches: {}\n", contacts.describe());
  if (constrained) {
    fmt::print("contacts: {}\n", cs.describe());
    if (cs.Kp != 0.0) {
      fmt::print("references: the frames' poses at this state (the constraint error is zero)\n");
    }
  }
  fmt::print("method: {}, computed in {:.3f} ms\n\n", method, ms);
  print_summary(model, contacts, constrained, A, B);
  if (constrained) print_lambda_summary(model, cs, dz, dw);
  if (args.flag("--full") || args.has("--only")) {
    print_matrices(format, out, {});
    return kExitOk;
  }
  if (!model.fixed_base && !constrained) {
    // The gravity block: base rows of F_H, only its angular columns are non-zero.
    const int row = 6 + nj;
    NamedMatrix FH{"F_H",
                   contacts.mixed ? "its base rows: gravity and the mixed wrenches"
                                  : "its base rows, the gravity block [[0, (R^T g)^], [0, 0]]",
                   A.block(row, 0, 6, 6),
                   std::vector<std::string>(zl.begin() + row, zl.begin() + row + 6),
                   std::vector<std::string>(zl.begin(), zl.begin() + 6)};
    print_matrix_text(FH);
  }
  if (!model.fixed_base && !constrained &&
      max_abs(A.bottomRightCorner(model.num_dofs(), N - 6)) <= 1e-12) {
    fmt::print(
        "Note: F_s, F_v and F_r vanish here: with v = r = tau = 0 a free-floating robot falls\n"
        "freely whatever its posture. Try --random SEED or a --state file.\n\n");
  }
  fmt::print(
      "The full {}: --full (text), --format json or --format csv; rows and columns\n"
      "are labelled {}, B columns tau[joint]{}.\n",
      constrained ? "A, B, dlambda_dz and dlambda_dw" : "A and B",
      model.fixed_base ? "z_s[joint], z_r[joint]"
                       : "z_H[vx..wz], z_s[joint], z_v[vx..wz], z_r[joint]",
      contacts.count() > 0 ? " then f[frame][fx..tz]"
      : constrained        ? ",\nthose of dlambda lambda[frame][fx..]"
                           : "");
  return kExitOk;
}

}  // namespace geolin::cli
