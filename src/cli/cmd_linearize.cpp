// geolin linearize: A and B of z_dot = A z + B w (docs/dynamics.md §4) at a state, exact by
// default, geometric finite differences with --fd EPS; with given wrenches as inputs
// (--wrenches), or of the contact-constrained dynamics with dlambda/dz and dlambda/dw
// (--contacts: geolin::contact_linearize); with --frame F the derivatives of that frame's
// velocity and classical acceleration (LOCAL axes, or MIXED with --mixed) at the state's ν̇.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

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

struct LinearizeOptions {
  Args args;
  Format format = Format::Text;
  bool use_fd = false;  // --fd EPS
  double eps = 0.0;
  bool constrained = false;  // --contacts
  bool full = false;         // --full, or --only: the matrices themselves in text
  std::string frame;         // --frame F: the frame velocity/acceleration derivatives
};

LinearizeOptions parse_linearize_options(const std::vector<std::string> &argv) {
  ArgSpec spec = evaluation_arg_spec();
  spec.add_flags({"--full"}).add_options({"--fd", "--frame"});
  LinearizeOptions o;
  o.args = parse_args(argv, spec);
  o.format = parse_format(o.args);
  o.use_fd = o.args.has("--fd");
  o.eps = o.args.get_double("--fd", 0.0);
  if (o.use_fd && !(o.eps > 0.0 && o.eps < 1.0)) throw UsageError("--fd: EPS must be in (0, 1)");
  o.constrained = constrained_mode(o.args);
  o.full = o.args.flag("--full") || o.args.has("--only");
  o.frame = o.args.get("--frame", "");
  return o;
}

// --- run ------------------------------------------------------------------------------------

// A and B, and with contacts dlambda/dz and dlambda/dw; the library function that computed
// them and how long it took.
struct Linearization {
  MatX A, B, dz, dw;
  // --frame: the frame's twist and classical acceleration at ν̇ and their derivatives
  int frame = -1;
  MatX twist, dtwist_dz, acc, dacc_dz, dacc_dnudot;
  std::string function;
  double ms = 0.0;
};

// --frame F: the frame's velocity and classical acceleration (frame_derivatives.cpp) at the
// state's ν̇ (the contact-constrained one with --contacts), with their derivatives in z and ν̇.
void run_frame_derivatives(const LinearizeOptions &o, Evaluation &ev, Workspace &ws,
                           Linearization &l) {
  const Model &model = ev.lm.model;
  const State &st = ev.st;
  const int n = model.num_dofs(), N = model.state_dim();
  l.frame = find_frame(model, o.frame, "--frame");
  const unsigned flags = o.args.flag("--mixed") ? kWrenchMixed : kWrenchLocal;
  VecX nu_dot = VecX::Zero(n), lambda = VecX::Zero(ev.contacts.rows());
  if (o.constrained)
    check_outcome(
        model,
        held_dynamics(model, ws, ev.H, st.s, st.v, st.r, st.tau, ev.contacts, nu_dot, lambda),
        held_function(ev.contacts, "contact_dynamics"), "nu_dot", &ev.contacts);
  else
    check_outcome(model,
                  aba(model, ws, ev.H, st.s, st.v, st.r, st.tau, ev.wrenches.external(), nu_dot),
                  "aba", "nu_dot");
  Vec6 t, a;
  l.dtwist_dz = MatX::Zero(6, N);
  l.dacc_dz = MatX::Zero(6, N);
  l.dacc_dnudot = MatX::Zero(6, n);
  frame_velocity(model, ws, ev.H, st.s, st.v, st.r, l.frame, flags, t, l.dtwist_dz);
  frame_acceleration(model, ws, ev.H, st.s, st.v, st.r, nu_dot, l.frame, flags, a, l.dacc_dz,
                     l.dacc_dnudot);
  l.twist = t;
  l.acc = a;
  for (const MatX *m : {&l.twist, &l.dtwist_dz, &l.acc, &l.dacc_dz, &l.dacc_dnudot})
    check_finite(*m, "frame_acceleration", "dacc_dz");
}

// The --frame outputs, labelled.
std::vector<NamedMatrix> frame_matrices(const LinearizeOptions &o, const Evaluation &ev,
                                        const Linearization &l) {
  if (l.frame < 0) return {};
  const Model &model = ev.lm.model;
  const std::string axes = o.args.flag("--mixed") ? "MIXED: inertial axes" : "LOCAL: frame axes";
  const std::string name = model.frames[l.frame].name;
  const auto zl = z_labels(model);
  const std::vector<std::string> lin_ang = {"x", "y", "z", "wx", "wy", "wz"};
  return {{"frame_twist",
           fmt::format("velocity of frame {} ({})", name, axes),
           l.twist,
           lin_ang,
           {"twist"},
           true},
          {"dtwist_dz", "d twist / d z", l.dtwist_dz, lin_ang, zl},
          {"frame_acc",
           fmt::format("classical acceleration [p_ddot; omega_dot] of frame {} at nu_dot ({})",
                       name, axes),
           l.acc,
           lin_ang,
           {"acc"},
           true},
          {"dacc_dz", "d acc / d z (at fixed nu_dot)", l.dacc_dz, lin_ang, zl},
          {"dacc_dnudot", "d acc / d nu_dot (the frame Jacobian in these axes)", l.dacc_dnudot,
           lin_ang, nu_labels(model, "v_dot", "r_dot")}};
}

Linearization run_linearize(const LinearizeOptions &o, Evaluation &ev) {
  const Model &model = ev.lm.model;
  const State &st = ev.st;
  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, ev.contacts));
  ws.gravity = st.gravity;
  const int N = model.state_dim(), nj = model.num_joints(), m = ev.contacts.rows();
  Linearization l;
  l.A = MatX::Zero(N, N);
  l.B = MatX::Zero(N, nj + 6 * ev.wrenches.count());
  l.dz = MatX::Zero(m, N);
  l.dw = MatX::Zero(m, nj);
  l.function = o.constrained
                   ? held_function(ev.contacts, o.use_fd ? "contact_linearize_finite_difference"
                                                         : "contact_linearize")
                   : (o.use_fd ? "linearize_finite_difference" : "linearize");
  const ExternalWrenches ext = ev.wrenches.external();
  const auto t0 = std::chrono::steady_clock::now();
  Outcome outcome;
  if (o.constrained) {
    set_contact_refs(model, ws, ev.H, st.s, ev.contacts);
    const ContactSet &c = ev.contacts;
    outcome = o.use_fd ? held_linearize_finite_difference(model, ws, ev.H, st.s, st.v, st.r, st.tau,
                                                          c, o.eps, l.A, l.B, l.dz, l.dw)
                       : held_linearize(model, ws, ev.H, st.s, st.v, st.r, st.tau, c, l.A, l.B,
                                        l.dz, l.dw);
  } else if (o.use_fd) {
    outcome = linearize_finite_difference(model, ws, ev.H, st.s, st.v, st.r, st.tau, ext, o.eps,
                                          l.A, l.B);
  } else {
    outcome = linearize(model, ws, ev.H, st.s, st.v, st.r, st.tau, ext, l.A, l.B);
  }
  l.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  check_outcome(model, outcome, l.function, "A", o.constrained ? &ev.contacts : nullptr);
  check_finite(l.A, l.function, "A");
  check_finite(l.B, l.function, "B");
  check_finite(l.dz, l.function, "dlambda_dz");
  check_finite(l.dw, l.function, "dlambda_dw");
  if (!o.frame.empty()) run_frame_derivatives(o, ev, ws, l);
  return l;
}

// The labelled outputs, as selected by --only.
std::vector<NamedMatrix> linearize_matrices(const LinearizeOptions &o, const Evaluation &ev,
                                            const Linearization &l) {
  const Model &model = ev.lm.model;
  const auto zl = z_labels(model);
  std::vector<std::string> wl = tau_labels(model);
  for (const auto &label : wrench_labels(ev.wrenches)) wl.push_back(label);
  std::vector<NamedMatrix> out = {
      {"A", o.constrained ? "d z_dot / d z (contact-constrained)" : "d z_dot / d z", l.A, zl, zl},
      {"B", ev.wrenches.count() > 0 ? "d z_dot / d [tau; f]" : "d z_dot / d tau", l.B, zl, wl}};
  if (o.constrained) {
    const auto ll = lambda_labels(ev.contacts);
    out.push_back({"dlambda_dz", "d lambda / d z (contact forces)", l.dz, ll, zl});
    out.push_back({"dlambda_dw", "d lambda / d tau (contact forces)", l.dw, ll, tau_labels(model)});
  }
  return select_matrices(std::move(out), o.args);
}

// --- JSON -----------------------------------------------------------------------------------

void print_linearize_json(const LinearizeOptions &o, const Evaluation &ev,
                          const std::vector<NamedMatrix> &out) {
  const Model &model = ev.lm.model;
  Json doc = state_document(ev.lm, ev.st);
  doc["method"] = o.use_fd ? "finite_difference" : "analytical";
  if (o.use_fd) doc["eps"] = o.eps;
  add_forces_json(doc, ev.wrenches, ev.contacts);
  doc["labels"] = {{"z", z_labels(model)}, {"tau", tau_labels(model)}};
  if (ev.wrenches.count() > 0) doc["labels"]["f"] = wrench_labels(ev.wrenches);
  if (o.constrained) doc["labels"]["lambda"] = lambda_labels(ev.contacts);
  Json blocks = Json::object();
  for (const auto &b : z_blocks(model)) blocks[b.name] = {b.offset, b.size};
  doc["blocks"] = blocks;
  print_matrices(Format::Json, out, doc);
}

// --- text -----------------------------------------------------------------------------------

double max_abs(const Eigen::Ref<const MatX> &m) {
  return m.size() == 0 ? 0.0 : m.cwiseAbs().maxCoeff();
}

// The blocks of z with at least one component.
std::vector<Block> nonempty_z_blocks(const Model &model) {
  std::vector<Block> out;
  for (const auto &b : z_blocks(model)) {
    if (b.size > 0) out.push_back(b);
  }
  return out;
}

// A table of block maxima: a label column, then numbers (right-aligned).
void print_maxima_table(const std::vector<std::string> &header,
                        const std::vector<std::vector<std::string>> &rows) {
  std::set<int> right;
  for (std::size_t j = 1; j < header.size(); ++j) right.insert(static_cast<int>(j));
  print_table(header, rows, right);
}

// The layout of z and w, and the block structure of A and B.
void print_structure(const Model &model, const Wrenches &wrenches, bool constrained) {
  const int nj = model.num_joints(), nw = 6 * wrenches.count();
  std::string layout;
  for (const auto &b : z_blocks(model))
    layout += fmt::format("{}{} ({})", layout.empty() ? "" : "; ", b.name, b.size);
  if (nw == 0) {
    fmt::print("z = [{}], N = {}; w = tau ({})\n", layout, model.state_dim(), nj);
  } else {
    fmt::print("z = [{}], N = {}; w = [tau ({}); f ({} = 6 x {} wrenches)]\n", layout,
               model.state_dim(), nj, nw, wrenches.count());
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
        : nw > 0 && wrenches.mixed
            ? "; F_H is zero below the base rows unless mixed wrenches turn with the base"
            : "; F_H is zero below the base rows");
  }
}

// The largest entry of A and B per block (row: component of z_dot; column: of z, tau or f).
void print_block_maxima(const Model &model, const Wrenches &wrenches, const MatX &A,
                        const MatX &B) {
  const int nj = model.num_joints(), nw = 6 * wrenches.count();
  const std::vector<Block> blocks = nonempty_z_blocks(model);
  fmt::print("max |entry| per block (row: component of z_dot; column: of z, {}):\n",
             nw > 0 ? "tau or f" : "or tau");
  std::vector<std::string> header = {""};
  for (const auto &b : blocks) header.push_back(b.name);
  header.push_back("tau");
  if (nw > 0) header.push_back("f");
  std::vector<std::vector<std::string>> rows;
  for (const auto &rb : blocks) {
    std::vector<std::string> row = {rb.name};
    for (const auto &cb : blocks) {
      row.push_back(format_number(max_abs(A.block(rb.offset, cb.offset, rb.size, cb.size)), 3));
    }
    row.push_back(format_number(max_abs(B.block(rb.offset, 0, rb.size, nj)), 3));
    if (nw > 0) row.push_back(format_number(max_abs(B.block(rb.offset, nj, rb.size, nw)), 3));
    rows.push_back(std::move(row));
  }
  print_maxima_table(header, rows);
  fmt::print("\n");
}

// The largest entry of dlambda/dz and dlambda/dw per contact (rows) and block of z or tau.
void print_lambda_maxima(const Model &model, const ContactSet &contacts, const MatX &dz,
                         const MatX &dw) {
  fmt::print("max |entry| per {} (rows) and block of z or tau (columns):\n",
             contacts.general() ? "constraint" : "contact");
  const std::vector<Block> blocks = nonempty_z_blocks(model);
  std::vector<std::string> header = {contacts.general() ? "constraint" : "contact"};
  for (const auto &b : blocks) header.push_back(b.name);
  header.push_back("tau");
  std::vector<std::vector<std::string>> rows;
  int row0 = 0;
  for (const ConstraintEntry &e : constraint_entries(contacts)) {
    const int t = e.rows;
    std::vector<std::string> row = {fmt::format("{} ({})", e.name, e.kind)};
    for (const auto &b : blocks) {
      row.push_back(format_number(max_abs(dz.block(row0, b.offset, t, b.size)), 3));
    }
    row.push_back(format_number(max_abs(dw.block(row0, 0, t, dw.cols())), 3));
    rows.push_back(std::move(row));
    row0 += t;
  }
  print_maxima_table(header, rows);
}

// The five largest entries of X (by magnitude), with their row and column labels.
void print_largest_entries(const std::string &name, const MatX &X,
                           const std::vector<std::string> &rows,
                           const std::vector<std::string> &cols) {
  std::vector<std::pair<double, std::pair<int, int>>> entries;
  for (int j = 0; j < X.cols(); ++j) {
    for (int i = 0; i < X.rows(); ++i) entries.push_back({std::abs(X(i, j)), {i, j}});
  }
  const std::size_t top = std::min<std::size_t>(5, entries.size());
  std::partial_sort(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(top),
                    entries.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
  fmt::print("largest entries of {}:", name);
  for (std::size_t e = 0; e < top; ++e) {
    const auto [i, j] = entries[e].second;
    fmt::print("\n  d {} / d {} = {}", rows[i], cols[j], format_number(X(i, j), 4));
  }
  fmt::print("\n");
}

// dlambda/dz and dlambda/dw in text: sizes, norms, the largest entry per contact and block of
// z (or w), and the largest entries with their labels.
void print_lambda_summary(const Model &model, const ContactSet &contacts, const MatX &dz,
                          const MatX &dw) {
  fmt::print(
      "how the {} forces change with z and with tau: dlambda/dz ({} x {}, Frobenius norm "
      "{}),\n"
      "dlambda/dw ({} x {}, Frobenius norm {})\n",
      contacts.general() ? "constraint" : "contact", dz.rows(), dz.cols(),
      format_number(dz.norm(), 3), dw.rows(), dw.cols(), format_number(dw.norm(), 3));
  print_lambda_maxima(model, contacts, dz, dw);
  const auto ll = lambda_labels(contacts);
  print_largest_entries("dlambda/dz", dz, ll, z_labels(model));
  print_largest_entries("dlambda/dw", dw, ll, tau_labels(model));
  fmt::print("\n");
}

void print_linearize_header(const LinearizeOptions &o, const Evaluation &ev,
                            const Linearization &l) {
  fmt::print("model: {}\n", model_summary(ev.lm));
  fmt::print("state: {}\n", ev.st.description);
  if (ev.wrenches.count() > 0) fmt::print("external wrenches: {}\n", ev.wrenches.describe());
  print_contacts_text(ev.contacts);
  const std::string method =
      o.use_fd ? fmt::format("geometric central finite differences (eps = {:g})", o.eps)
               : "analytical (exact, recursive)";
  fmt::print("method: {}, computed in {:.3f} ms\n\n", method, l.ms);
}

// The gravity block (base rows of F_H: only its angular columns are non-zero) and a note where
// F_s, F_v and F_r vanish (moving base, no contacts).
void print_gravity_block(const Model &model, const Wrenches &wrenches, const MatX &A) {
  const int row = 6 + model.num_joints();
  const auto zl = z_labels(model);
  NamedMatrix FH{"F_H",
                 wrenches.mixed ? "its base rows: gravity and the mixed wrenches"
                                : "its base rows, the gravity block [[0, (R^T g)^], [0, 0]]",
                 A.block(row, 0, 6, 6),
                 std::vector<std::string>(zl.begin() + row, zl.begin() + row + 6),
                 std::vector<std::string>(zl.begin(), zl.begin() + 6)};
  print_matrix_text(FH);
  if (max_abs(A.bottomRightCorner(model.num_dofs(), model.state_dim() - 6)) <= 1e-12) {
    fmt::print(
        "Note: F_s, F_v and F_r vanish here: with v = r = tau = 0 a free-floating robot falls\n"
        "freely whatever its posture. Try --random SEED or a --state file.\n\n");
  }
}

// Where the full matrices are.
void print_full_output_hint(const Model &model, const Wrenches &wrenches, bool constrained) {
  fmt::print(
      "The full {}: --full (text), --format json or --format csv; rows and columns\n"
      "are labelled {}, B columns tau[joint]{}.\n",
      constrained ? "A, B, dlambda_dz and dlambda_dw" : "A and B",
      model.fixed_base ? "z_s[joint], z_r[joint]"
                       : "z_H[vx..wz], z_s[joint], z_v[vx..wz], z_r[joint]",
      wrenches.count() > 0 ? " then f[frame][fx..tz]"
      : constrained        ? ",\nthose of dlambda lambda[frame][fx..]"
                           : "");
}

void print_linearize_text(const LinearizeOptions &o, const Evaluation &ev, const Linearization &l,
                          const std::vector<NamedMatrix> &out) {
  const Model &model = ev.lm.model;
  print_linearize_header(o, ev, l);
  print_structure(model, ev.wrenches, o.constrained);
  print_block_maxima(model, ev.wrenches, l.A, l.B);
  if (o.constrained) print_lambda_summary(model, ev.contacts, l.dz, l.dw);
  if (o.full) {
    print_matrices(Format::Text, out, {});
    return;
  }
  if (!model.fixed_base && !o.constrained) print_gravity_block(model, ev.wrenches, l.A);
  print_full_output_hint(model, ev.wrenches, o.constrained);
}

}  // namespace

int cmd_linearize(const std::vector<std::string> &argv) {
  const LinearizeOptions o = parse_linearize_options(argv);
  Evaluation ev = evaluation_from_args(o.args, o.constrained);
  const Linearization l = run_linearize(o, ev);
  std::vector<NamedMatrix> out = linearize_matrices(o, ev, l);
  std::vector<NamedMatrix> frame_out = frame_matrices(o, ev, l);
  if (o.format == Format::Json) {
    for (auto &m : frame_out) out.push_back(std::move(m));
    print_linearize_json(o, ev, out);
  } else if (o.format == Format::Csv) {
    for (auto &m : frame_out) out.push_back(std::move(m));
    print_matrices(Format::Csv, out, {});
  } else {
    print_linearize_text(o, ev, l, out);
    if (!frame_out.empty()) print_matrices(Format::Text, frame_out, {});
  }
  return kExitOk;
}

}  // namespace geolin::cli
