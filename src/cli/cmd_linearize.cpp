// geolin linearize: A and B of z_dot = A z + B w (docs/dynamics.md §4) at a state, exact by
// default, geometric finite differences with --fd EPS.
#include <fmt/format.h>

#include <chrono>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {

double max_abs(const Eigen::Ref<const MatX> &m) {
  return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff();
}

// The summary of the text output: sizes, the block structure and the largest entry per block.
void print_summary(const Model &model, const Contacts &contacts, const MatX &A, const MatX &B) {
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
  const char *const B_dyn = nw == 0 ? "M^-1 S" : "M^-1 [S  J_F^T]";
  if (model.fixed_base) {
    fmt::print("A = [ 0  1 ; F_s  F_r ],  B = [ 0 ; {} ]\n\n", nw == 0 ? "M^-1" : B_dyn);
  } else {
    fmt::print(
        "A = [ -v×  0  1  0 ;  0  0  0  1 ;  F_H  F_s  F_v  F_r ],  B = [ 0 ; 0 ; {} ]\n"
        "(rows z_v, z_r together are the n = {} rows of F = dFD; F_H is zero below the base "
        "rows{})\n\n",
        B_dyn, model.num_dofs(),
        nw > 0 && contacts.mixed ? " unless mixed wrenches turn with the base" : "");
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

}  // namespace

int cmd_linearize(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert("--full");
  spec.flags.insert(kContactFlags.begin(), kContactFlags.end());
  spec.options = {"--state", "--random", "--format", "--fd", "--only"};
  spec.options.insert(kContactOptions.begin(), kContactOptions.end());
  const Args args = parse_args(argv, spec);
  const Format format = parse_format(args);
  const bool use_fd = args.has("--fd");
  const double eps = args.get_double("--fd", 0.0);
  if (use_fd && !(eps > 0.0 && eps < 1.0)) throw UsageError("--fd: EPS must be in (0, 1)");
  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  State st = state_from_args(model, args);
  const Contacts contacts = contacts_from_args(model, args, st);
  const ExternalWrenches ext = contacts.external();
  const Transform H = model.fixed_base ? model.H_A_0 : st.H;

  Workspace ws(model);
  ws.gravity = st.gravity;
  const int N = model.state_dim(), nj = model.num_joints();
  MatX A = MatX::Zero(N, N), B = MatX::Zero(N, nj + 6 * contacts.count());
  const auto t0 = std::chrono::steady_clock::now();
  if (use_fd) {
    linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, ext, eps, A, B);
  } else {
    linearize(model, ws, H, st.s, st.v, st.r, st.tau, ext, A, B);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const std::string method =
      use_fd ? fmt::format("geometric central finite differences (eps = {:g})", eps)
             : "analytical (exact, recursive)";

  const auto zl = z_labels(model);
  std::vector<std::string> wl = tau_labels(model);
  for (const auto &l : wrench_labels(contacts)) wl.push_back(l);
  std::vector<NamedMatrix> out = {
      {"A", "d z_dot / d z", A, zl, zl},
      {"B", contacts.count() > 0 ? "d z_dot / d [tau; f]" : "d z_dot / d tau", B, zl, wl}};
  out = select_matrices(std::move(out), args);

  if (format == Format::Json) {
    Json doc;
    doc["model"] = model_json(lm);
    doc["state"] = state_json(model, st);
    doc["state_description"] = st.description;
    doc["method"] = use_fd ? "finite_difference" : "analytical";
    if (use_fd) doc["eps"] = eps;
    if (contacts.count() > 0) {
      doc["contacts"] = {{"frames", contacts.names}, {"axes", contacts.axes_name()}};
    }
    doc["labels"] = {{"z", zl}, {"tau", tau_labels(model)}};
    if (contacts.count() > 0) doc["labels"]["f"] = wrench_labels(contacts);
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
  fmt::print("method: {}, computed in {:.3f} ms\n\n", method, ms);
  print_summary(model, contacts, A, B);
  if (args.flag("--full") || args.has("--only")) {
    print_matrices(format, out, {});
    return kExitOk;
  }
  if (!model.fixed_base) {
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
  if (!model.fixed_base && max_abs(A.bottomRightCorner(model.num_dofs(), N - 6)) <= 1e-12) {
    fmt::print(
        "Note: F_s, F_v and F_r vanish here: with v = r = tau = 0 a free-floating robot falls\n"
        "freely whatever its posture. Try --random SEED or a --state file.\n\n");
  }
  fmt::print(
      "The full A and B: --full (text), --format json or --format csv; rows and columns\n"
      "are labelled {}, B columns tau[joint]{}.\n",
      model.fixed_base ? "z_s[joint], z_r[joint]"
                       : "z_H[vx..wz], z_s[joint], z_v[vx..wz], z_r[joint]",
      contacts.count() > 0 ? " then f[frame][fx..tz]" : "");
  return kExitOk;
}

}  // namespace geolin::cli
