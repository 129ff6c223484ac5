// geolin check: the analytical A, B against geometric finite differences (docs/dynamics.md §5,
// §6.7) over several states, including pitch ±90° and large velocities; with --contacts the
// contact-constrained A, B, dlambda/dz and dlambda/dw (contact_linearize against
// contact_linearize_finite_difference). Exit status 1 above the tolerance.
//
// The reference is a Richardson extrapolation of central differences (Richardson 1911; e.g.
// Nocedal & Wright, Numerical Optimization, §8.1): a central difference D(eps) = D + c eps^2 +
// O(eps^4), so (4 D(eps/2) - D(eps)) / 3 = D + O(eps^4), which allows a step large enough to keep
// the round-off small. That round-off, and the accuracy of the analytical A itself, are those of
// nu_dot = M^-1 (...): about u cond(M) relative (u = 2^-53). The tolerance at a state is
// therefore max(T, 10 u cond(M)) (capped at max(T, 1e-3)); cond(M) = lambda_max / lambda_min of
// the CRBA mass matrix (Eigen's SelfAdjointEigenSolver).
#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {

constexpr double kHalfPi = 1.57079632679489661923;

// The matrices compared: A, B, and with contacts dlambda/dz, dlambda/dw.
enum Matrix { kA, kB, kDz, kDw };

// A block of one matrix compared between the two methods.
struct CheckBlock {
  std::string name;
  Matrix matrix = kA;
  int row, rows, col, cols;
  double max_error = 0.0;  // the largest relative error over the samples
  int max_error_sample = -1;
  double scale = 0.0;      // max|X_an| at max_error_sample
  double worst = 0.0;      // the relative error at worst_sample
  double worst_tol = 0.0;  // the tolerance at worst_sample
  int worst_sample = -1;   // the sample of the largest error / tolerance (decides pass or fail)
};

std::vector<CheckBlock> check_blocks(const Model &model, int contact_rows) {
  const int nj = model.num_joints(), n = model.num_dofs(), N = model.state_dim();
  const int dyn = model.fixed_base ? nj : 6 + nj;  // first dynamics row (z_v, or z_r)
  std::vector<CheckBlock> out;
  out.push_back({"kinematic rows", kA, 0, dyn, 0, N});
  if (!model.fixed_base) out.push_back({"F_H", kA, dyn, n, 0, 6});
  out.push_back({"F_s", kA, dyn, n, model.fixed_base ? 0 : 6, nj});
  if (!model.fixed_base) out.push_back({"F_v", kA, dyn, n, 6 + nj, 6});
  out.push_back({"F_r", kA, dyn, n, model.fixed_base ? nj : 12 + nj, nj});
  out.push_back({"B", kB, 0, N, 0, nj});
  if (contact_rows > 0) {
    out.push_back({"dlambda/dz", kDz, 0, contact_rows, 0, N});
    out.push_back({"dlambda/dw", kDw, 0, contact_rows, 0, nj});
  }
  std::vector<CheckBlock> nonempty;  // n_J = 0 (a single rigid body) leaves some blocks empty
  for (const auto &b : out) {
    if (b.rows > 0 && b.cols > 0) nonempty.push_back(b);
  }
  return nonempty;
}

// max|an - fd| / max(1, max|an|); infinite if anything is not finite.
double relative_error(const Eigen::Ref<const MatX> &an, const Eigen::Ref<const MatX> &fd,
                      double &scale) {
  scale = an.size() == 0 ? 0.0 : an.cwiseAbs().maxCoeff();
  if (an.size() == 0) return 0.0;
  if (!an.allFinite() || !fd.allFinite()) return std::numeric_limits<double>::infinity();
  return (an - fd).cwiseAbs().maxCoeff() / std::max(1.0, scale);
}

struct Sample {
  State state;
  std::string label;
};

std::vector<Sample> make_samples(const Model &model, int count, unsigned long long seed) {
  std::vector<Sample> out;
  for (int k = 0; k < count; ++k) {
    State st = random_state(model, seed + static_cast<unsigned long long>(k));
    std::string label = fmt::format("random (seed {})", seed + k);
    if ((k == 0 || k == 1) && !model.fixed_base) {
      const double pitch = k == 0 ? kHalfPi : -kHalfPi;
      st.H.R = rotation_y(pitch);
      label = fmt::format("pitch {}90 deg, seed {}", k == 0 ? "+" : "-", seed + k);
    } else if (k == 2) {
      if (st.v.norm() > 0.0) st.v *= 10.0 / st.v.norm();
      st.r *= 10.0;
      label = fmt::format("|v| = 10, r in [-10, 10], seed {}", seed + k);
    }
    st.description = label;
    out.push_back({st, label});
  }
  return out;
}

// The condition number lambda_max / lambda_min of the mass matrix M(s) (CRBA, symmetric positive
// definite); infinite if M is numerically singular.
double mass_matrix_condition(const Model &model, Workspace &ws, const VecX &s, MatX &M) {
  crba(model, ws, s, M);
  if (M.size() == 0) return 1.0;
  const Eigen::SelfAdjointEigenSolver<MatX> eig(M, Eigen::EigenvaluesOnly);
  if (eig.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
  const double lo = eig.eigenvalues().minCoeff(), hi = eig.eigenvalues().maxCoeff();
  return lo > 0.0 ? hi / lo : std::numeric_limits<double>::infinity();
}

constexpr double kUnitRoundoff = 0x1.0p-53;
constexpr double kCondMargin = 10.0;  // tolerance >= kCondMargin u cond(M)
constexpr double kMaxWidened = 1e-3;  // ... but never widened above this

enum class FdMethod { Richardson, Central };

}  // namespace

int cmd_check(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.flags.insert(kMixedFlags.begin(), kMixedFlags.end());
  spec.options = {"--samples", "--tol", "--eps", "--seed", "--format", "--fd"};
  spec.options.insert(kContactOptions.begin(), kContactOptions.end());
  const Args args = parse_args(argv, spec);
  if (args.flag("--mixed") && !args.has("--contacts")) throw UsageError("--mixed needs --contacts");
  const bool constrained = constrained_mode(args);
  const Format format = parse_format(args, {Format::Text, Format::Json});
  const long samples_asked = args.get_int("--samples", 20);
  const double tol = args.get_double("--tol", 1e-5);
  const std::string fd_name = args.get("--fd", "richardson");
  FdMethod method;
  if (fd_name == "richardson") {
    method = FdMethod::Richardson;
  } else if (fd_name == "central") {
    method = FdMethod::Central;
  } else {
    throw UsageError(fmt::format("--fd: unknown method '{}' (richardson or central)", fd_name));
  }
  // Default steps measured on the bundled and the shared models (README): a central difference
  // is best near 1e-5 (truncation eps^2 against round-off 1/eps); Richardson's O(eps^4)
  // truncation allows 2e-4, which divides the round-off by 10 (on iCub, 200 states: worst 8e-6).
  const double eps = args.get_double("--eps", method == FdMethod::Richardson ? 2e-4 : 1e-5);
  const long seed = args.get_int("--seed", 1);
  if (samples_asked < 1 || samples_asked > 100000) {
    throw UsageError("--samples: K must be in [1, 100000]");
  }
  if (!(tol > 0.0)) throw UsageError("--tol: T must be positive");
  if (!(eps > 0.0 && eps < 1.0)) throw UsageError("--eps: EPS must be in (0, 1)");
  if (seed < 0) throw UsageError("--seed: SEED must be >= 0");
  const int count = static_cast<int>(samples_asked);

  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  const int N = model.state_dim(), n = model.num_dofs(), nj = model.num_joints();
  ContactSet contacts;
  if (constrained) contacts = contacts_from_args(model, args);
  const int m = contacts.rows();
  Workspace ws(model, kWorkspaceAll, workspace_capacity(model, contacts));
  // Per matrix (A, B, dlambda/dz, dlambda/dw): analytical, finite differences, and D(eps/2).
  const int mat_rows[4] = {N, N, m, m}, mat_cols[4] = {N, nj, N, nj};
  MatX an[4], fd[4], half[4];
  for (int i = 0; i < 4; ++i) {
    an[i].resize(mat_rows[i], mat_cols[i]);
    fd[i].resize(mat_rows[i], mat_cols[i]);
    if (method == FdMethod::Richardson) half[i].resize(mat_rows[i], mat_cols[i]);
  }
  MatX M(n, n);
  auto blocks = check_blocks(model, m);
  const auto samples = make_samples(model, count, static_cast<unsigned long long>(seed));

  const std::string fd_text =
      method == FdMethod::Richardson
          ? fmt::format(
                "Richardson-extrapolated central differences (4 D(eps/2) - D(eps)) / 3, "
                "eps = {:g}",
                eps)
          : fmt::format("central differences, eps = {:g}", eps);
  if (format == Format::Text) {
    fmt::print("model: {}\n", model_summary(lm));
    if (constrained) fmt::print("contacts: {}\n", contacts.describe());
    fmt::print("checking {} state{}: analytical {} against {}\n\n", count, count == 1 ? "" : "s",
               constrained ? "contact-constrained A, B, dlambda/dz, dlambda/dw" : "A, B", fd_text);
  }
  std::vector<std::vector<std::string>> sample_rows;
  Json sample_json = Json::array();
  double worst_cond = 0.0;
  int worst_cond_sample = 0;
  int widened = 0;  // states whose tolerance is above T
  for (int k = 0; k < count; ++k) {
    const State &st = samples[k].state;
    const Transform H = model.fixed_base ? model.H_A_0 : st.H;
    ws.gravity = st.gravity;
    const double cond = mass_matrix_condition(model, ws, st.s, M);
    if (!(cond <= worst_cond)) {
      worst_cond = cond;
      worst_cond_sample = k;
    }
    // Not finite (M singular): no widening, the state fails unless everything agrees within T.
    const double tol_k = std::isfinite(cond)
                             ? std::min(std::max(tol, kCondMargin * kUnitRoundoff * cond),
                                        std::max(tol, kMaxWidened))
                             : tol;
    widened += tol_k > tol;
    for (int i = 0; i < 4; ++i) {
      an[i].setZero();
      fd[i].setZero();
    }
    // A state where M is singular, or the contacts redundant: the library's message, naming the
    // joint or the contact, and the state (nothing to compare).
    auto fail_at = [&](const Error &e) {
      throw Error(e.status(), fmt::format("state {} ({}): {}", k, samples[k].label, e.what()));
    };
    if (constrained) {
      set_contact_refs(model, ws, H, st.s, contacts);
      const Contacts c = contacts.library();
      try {
        ws.singular = -1;
        if (!contact_linearize(model, ws, H, st.s, st.v, st.r, st.tau, c, an[kA], an[kB], an[kDz],
                               an[kDw]))
          throw_contact_failure(model, ws, contacts, "contact_linearize", "A");
        check_singular(model, ws, "contact_linearize", "A");
        const double steps[2] = {eps, eps / 2.0};
        for (int h = 0; h < (method == FdMethod::Richardson ? 2 : 1); ++h) {
          MatX *X = h == 0 ? fd : half;
          ws.singular = -1;
          if (!contact_linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, c,
                                                   steps[h], X[kA], X[kB], X[kDz], X[kDw]))
            throw_contact_failure(model, ws, contacts, "contact_linearize_finite_difference", "A");
        }
      } catch (const Error &e) {
        fail_at(e);
      }
    } else {
      try {
        ws.singular = -1;
        linearize(model, ws, H, st.s, st.v, st.r, st.tau, an[kA], an[kB]);
        check_singular(model, ws, "linearize", "A");
        ws.singular = -1;
        linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, eps, fd[kA], fd[kB]);
        check_singular(model, ws, "linearize_finite_difference", "A");
        if (method == FdMethod::Richardson) {
          ws.singular = -1;
          linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, eps / 2.0, half[kA],
                                      half[kB]);
          check_singular(model, ws, "linearize_finite_difference", "A");
        }
      } catch (const Error &e) {
        fail_at(e);
      }
    }
    if (method == FdMethod::Richardson) {
      // D(eps) is even in eps: D + c eps^2 + O(eps^4); this cancels the eps^2 term.
      for (int i = 0; i < 4; ++i) fd[i] = (4.0 * half[i] - fd[i]) / 3.0;
    }
    double sample_worst = 0.0;
    std::string sample_block;
    for (auto &b : blocks) {
      double scale = 0.0;
      const double err = relative_error(an[b.matrix].block(b.row, b.col, b.rows, b.cols),
                                        fd[b.matrix].block(b.row, b.col, b.rows, b.cols), scale);
      if (b.max_error_sample < 0 || !(err <= b.max_error)) {
        b.max_error = err;
        b.max_error_sample = k;
        b.scale = scale;
      }
      // The worst state of a block is the one closest to (or furthest above) its tolerance.
      if (b.worst_sample < 0 || !(err / tol_k <= b.worst / b.worst_tol)) {
        b.worst = err;
        b.worst_tol = tol_k;
        b.worst_sample = k;
      }
      if (sample_block.empty() || !(err <= sample_worst)) {
        sample_worst = err;
        sample_block = b.name;
      }
    }
    const bool ok = sample_worst <= tol_k;  // false for NaN and infinity too
    sample_rows.push_back({std::to_string(k), samples[k].label, format_number(cond, 2),
                           format_number(tol_k, 2), format_number(sample_worst, 2), sample_block,
                           ok ? "ok" : "FAIL"});
    sample_json.push_back({{"index", k},
                           {"label", samples[k].label},
                           {"cond_M", std::isfinite(cond) ? Json(cond) : Json()},
                           {"tolerance", tol_k},
                           {"worst_error", sample_worst},
                           {"worst_block", sample_block},
                           {"ok", ok}});
  }

  bool pass = true;
  std::vector<std::vector<std::string>> rows;
  Json block_json = Json::array();
  for (const auto &b : blocks) {
    const bool ok = b.worst <= b.worst_tol;  // false for NaN and infinity too
    pass = pass && ok;
    rows.push_back({b.name, fmt::format("{} x {}", b.rows, b.cols), format_number(b.max_error, 2),
                    format_number(b.scale, 3), std::to_string(b.max_error_sample),
                    format_number(b.worst / b.worst_tol, 2), std::to_string(b.worst_sample),
                    ok ? "ok" : "FAIL"});
    block_json.push_back({{"block", b.name},
                          {"rows", b.rows},
                          {"cols", b.cols},
                          {"relative_error", b.max_error},
                          {"max_abs_analytical", b.scale},
                          {"max_error_sample", b.max_error_sample},
                          {"worst_ratio", b.worst / b.worst_tol},
                          {"worst_ratio_error", b.worst},
                          {"worst_ratio_tolerance", b.worst_tol},
                          {"worst_sample", b.worst_sample},
                          {"ok", ok}});
  }

  // Why this tolerance, in the output itself.
  std::string why = fmt::format(
      "tolerance: T = {:g}, or 10 u cond(M) where larger (u = 2^-53, at most {:g}): A and its "
      "finite differences both go through nu_dot = M^-1 (...), which round-off determines only "
      "to about u cond(M) relative, so no comparison can be stricter at an ill-conditioned "
      "state. cond(M) reaches {} here (state {}); {} of {} state{} had a wider tolerance.",
      tol, std::max(tol, kMaxWidened), format_number(worst_cond, 2), worst_cond_sample, widened,
      count, count == 1 ? "" : "s");
  why += method == FdMethod::Richardson
             ? " The reference is Richardson-extrapolated: it cancels the O(eps^2) truncation of "
               "a central difference, so a step large enough to keep the round-off (~ u cond(M) "
               "/ eps) small is still accurate."
             : " The reference is a plain central difference: truncation O(eps^2), round-off "
               "~ u cond(M) / eps; on an ill-conditioned model no eps makes both small "
               "(the default --fd richardson does).";

  if (format == Format::Json) {
    Json doc;
    doc["model"] = model_json(lm);
    if (constrained) doc["contacts"] = contacts.json();
    doc["fd_method"] = fd_name;
    doc["eps"] = eps;
    doc["tol"] = tol;
    doc["max_cond_M"] = std::isfinite(worst_cond) ? Json(worst_cond) : Json();
    doc["tolerance_note"] = why;
    doc["samples"] = sample_json;
    doc["blocks"] = block_json;
    doc["pass"] = pass;
    print_json(doc);
  } else {
    fmt::print(
        "per state (cond(M) of the mass matrix, the tolerance there, the worst relative error "
        "over the blocks):\n");
    print_table({"#", "state", "cond(M)", "tol", "error", "block", ""}, sample_rows, {0, 2, 3, 4});
    fmt::print(
        "\nper block (error = max|an - fd| / max(1, max|an|): the largest over the states, and "
        "the largest error / tol):\n");
    print_table({"block", "size", "error", "max|an|", "state", "error/tol", "state", ""}, rows,
                {2, 3, 4, 5, 6});
    fmt::print("\n{}\n", wrap_text(why, 100));
    fmt::print("\n{}: {}\n", pass ? "PASS" : "FAIL",
               pass ? "every error within its tolerance" : "an error above its tolerance");
  }
  return pass ? kExitOk : kExitFailure;
}

}  // namespace geolin::cli
