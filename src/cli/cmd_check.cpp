// geolin check: the analytical A, B against geometric finite differences (docs/dynamics.md §5,
// §6.7) over several states, including pitch ±90° and large velocities. Exit status 1 above --tol.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cli.hpp"
#include "geolin/algorithms.hpp"

namespace geolin::cli {

namespace {

constexpr double kHalfPi = 1.57079632679489661923;

// A block of A (or B, when in_B) compared between the two methods.
struct CheckBlock {
  std::string name;
  bool in_B = false;
  int row, rows, col, cols;
  double worst = 0.0;  // worst relative error over the samples
  int worst_sample = -1;
  double scale = 0.0;  // max|X_an| at the worst sample
};

std::vector<CheckBlock> check_blocks(const Model &model) {
  const int nj = model.num_joints(), n = model.num_dofs(), N = model.state_dim();
  const int dyn = model.fixed_base ? nj : 6 + nj;  // first dynamics row (z_v, or z_r)
  std::vector<CheckBlock> out;
  out.push_back({"kinematic rows", false, 0, dyn, 0, N});
  if (!model.fixed_base) out.push_back({"F_H", false, dyn, n, 0, 6});
  out.push_back({"F_s", false, dyn, n, model.fixed_base ? 0 : 6, nj});
  if (!model.fixed_base) out.push_back({"F_v", false, dyn, n, 6 + nj, 6});
  out.push_back({"F_r", false, dyn, n, model.fixed_base ? nj : 12 + nj, nj});
  out.push_back({"B", true, 0, N, 0, nj});
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

}  // namespace

int cmd_check(const std::vector<std::string> &argv) {
  ArgSpec spec;
  spec.flags = kModelFlags;
  spec.options = {"--samples", "--tol", "--eps", "--seed", "--format"};
  const Args args = parse_args(argv, spec);
  const Format format = parse_format(args, {Format::Text, Format::Json});
  const long samples_asked = args.get_int("--samples", 20);
  const double tol = args.get_double("--tol", 1e-5);
  // 1e-5 balances truncation and round-off best on the bundled and shared models (measured).
  const double eps = args.get_double("--eps", 1e-5);
  const long seed = args.get_int("--seed", 1);
  if (samples_asked < 1) throw UsageError("--samples: K must be at least 1");
  if (!(tol > 0.0)) throw UsageError("--tol: T must be positive");
  if (!(eps > 0.0 && eps < 1.0)) throw UsageError("--eps: EPS must be in (0, 1)");
  if (seed < 0) throw UsageError("--seed: SEED must be >= 0");
  // The three special states are always checked.
  const int count = static_cast<int>(std::max<long>(samples_asked, 3));

  const LoadedModel lm = load_model(args);
  const Model &model = lm.model;
  const int N = model.state_dim(), nj = model.num_joints();
  Workspace ws(model);
  MatX A_an(N, N), B_an(N, nj), A_fd(N, N), B_fd(N, nj);
  auto blocks = check_blocks(model);
  const auto samples = make_samples(model, count, static_cast<unsigned long long>(seed));

  if (format == Format::Text) {
    fmt::print("model: {}\n", model_summary(lm));
    fmt::print("checking {} states: analytical vs finite differences (eps = {:g}), tol = {:g}\n\n",
               count, eps, tol);
  }
  std::vector<std::vector<std::string>> sample_rows;
  Json sample_json = Json::array();
  for (int k = 0; k < count; ++k) {
    const State &st = samples[k].state;
    const Transform H = model.fixed_base ? model.H_A_0 : st.H;
    ws.gravity = st.gravity;
    A_an.setZero();
    B_an.setZero();
    A_fd.setZero();
    B_fd.setZero();
    linearize(model, ws, H, st.s, st.v, st.r, st.tau, A_an, B_an);
    linearize_finite_difference(model, ws, H, st.s, st.v, st.r, st.tau, eps, A_fd, B_fd);
    double sample_worst = 0.0;
    std::string sample_block;
    for (auto &b : blocks) {
      const MatX &an = b.in_B ? B_an : A_an;
      const MatX &fd = b.in_B ? B_fd : A_fd;
      double scale = 0.0;
      const double err = relative_error(an.block(b.row, b.col, b.rows, b.cols),
                                        fd.block(b.row, b.col, b.rows, b.cols), scale);
      if (err > b.worst || b.worst_sample < 0) {
        b.worst = err;
        b.worst_sample = k;
        b.scale = scale;
      }
      if (err > sample_worst || sample_block.empty()) {
        sample_worst = err;
        sample_block = b.name;
      }
    }
    sample_rows.push_back(
        {std::to_string(k), samples[k].label, format_number(sample_worst, 2), sample_block});
    sample_json.push_back({{"index", k},
                           {"label", samples[k].label},
                           {"worst_error", sample_worst},
                           {"worst_block", sample_block}});
  }

  bool pass = true;
  std::vector<std::vector<std::string>> rows;
  Json block_json = Json::array();
  for (const auto &b : blocks) {
    const bool ok = b.worst <= tol;  // false for NaN and infinity too
    pass = pass && ok;
    rows.push_back({b.name, fmt::format("{} x {}", b.rows, b.cols), format_number(b.worst, 2),
                    format_number(b.scale, 3), std::to_string(b.worst_sample), ok ? "ok" : "FAIL"});
    block_json.push_back({{"block", b.name},
                          {"rows", b.rows},
                          {"cols", b.cols},
                          {"relative_error", b.worst},
                          {"max_abs_analytical", b.scale},
                          {"worst_sample", b.worst_sample},
                          {"ok", ok}});
  }

  if (format == Format::Json) {
    Json doc;
    doc["model"] = model_json(lm);
    doc["eps"] = eps;
    doc["tol"] = tol;
    doc["samples"] = sample_json;
    doc["blocks"] = block_json;
    doc["pass"] = pass;
    print_json(doc);
  } else {
    fmt::print("per state (worst relative error over the blocks):\n");
    print_table({"#", "state", "error", "block"}, sample_rows, {0, 2});
    fmt::print("\nper block (worst over the states; error = max|an - fd| / max(1, max|an|)):\n");
    print_table({"block", "size", "error", "max|an|", "state", ""}, rows, {2, 3, 4});
    fmt::print("\n{}: worst relative error {} tolerance {:g}\n", pass ? "PASS" : "FAIL",
               pass ? "within" : "above", tol);
  }
  return pass ? kExitOk : kExitFailure;
}

}  // namespace geolin::cli
