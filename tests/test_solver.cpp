// The solver's building blocks that the contact functions rely on (src/articulated_solve.cpp,
// src/solve_kernels.inc), checked against plain dense arithmetic on every instruction set the
// processor has: the taps of the articulated solve (J_b X for chosen bodies), the register-blocked
// products and the Cholesky substitution.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../src/internal.hpp"  // the solver and its instruction-set switch
#include "geolin/algorithms.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// The instruction sets this processor can run (baseline always).
std::vector<const char *> available_isas() {
  std::vector<const char *> out;
  for (const char *isa : {"baseline", "avx2+fma", "avx512"})
    if (detail::force_solve_isa(isa)) out.push_back(isa);
  detail::force_solve_isa(nullptr);
  return out;
}

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// J_b X for body b from the rows of X: the base rows (moving base) plus S_j x_j over b's path.
RowMat body_jacobian_times(const Model &model, const Workspace &ws, int b, const RowMat &X) {
  RowMat out = RowMat::Zero(6, X.cols());
  if (!model.fixed_base) out = X.topRows(6);
  for (int j = b; j >= 1; j = model.parent[j]) out += ws.S0[j] * X.row(model.dof(j));
  return out;
}

class SolverTaps : public testing::TestWithParam<const char *> {};

TEST_P(SolverTaps, TapsAreTheBodyAccelerationsOfTheSolution) {
  const std::string file = GetParam();
  const Model model = load_urdf_file(model_path(file), file == "arm7.urdf" ? kFixedBase : 0u);
  Workspace ws(model);
  std::mt19937 rng(7);
  const int n = model.num_dofs(), cols = 10, ld = detail::solve_stride(cols);
  const State x = random_state(model, rng);
  VecX nu_dot(n);
  aba(model, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);  // factorizes M
  // Taps on a leaf, on a body with children, on the base (moving base only), and one body twice.
  std::vector<int> bodies = {model.num_bodies() - 1, 1, model.num_bodies() - 1};
  if (!model.fixed_base) bodies.push_back(0);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  RowMat R = RowMat::Zero(n, ld);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < cols; ++c) R(i, c) = u(rng);
  for (const char *isa : available_isas()) {
    ASSERT_TRUE(detail::force_solve_isa(isa));
    std::vector<RowMat> out(bodies.size(), RowMat::Constant(6, ld, 7.0));  // stale on purpose
    std::vector<SolveTap> taps;
    for (std::size_t t = 0; t < bodies.size(); ++t) taps.push_back({bodies[t], out[t].data()});
    std::copy_n(R.data(), n * ld, ws.rhs.data());
    const RhsBlock block{RhsBlock::kDense, 0, cols};
    detail::articulated_solve(model, ws, &block, 1, cols, taps.data(),
                              static_cast<int>(taps.size()));
    const RowMat X = Eigen::Map<RowMat>(ws.rhs.data(), n, ld);
    // X solves M X = R (M from the CRBA, an independent recursion).
    MatX M(n, n);
    crba(model, ws, x.s, M);
    EXPECT_LT((M * X.leftCols(cols) - R.leftCols(cols)).cwiseAbs().maxCoeff(), 1e-9) << isa;
    for (std::size_t t = 0; t < bodies.size(); ++t) {
      const RowMat expect = body_jacobian_times(model, ws, bodies[t], X);
      EXPECT_LT((out[t].leftCols(cols) - expect.leftCols(cols)).cwiseAbs().maxCoeff(),
                1e-12 * (1.0 + expect.cwiseAbs().maxCoeff()))
          << isa << " tap on body " << bodies[t];
    }
    for (int i = 0; i < model.num_bodies(); ++i) EXPECT_EQ(ws.tap_slot[i], -1) << "reset";
  }
  detail::force_solve_isa(nullptr);
}

INSTANTIATE_TEST_SUITE_P(MovingAndFixedBase, SolverTaps,
                         testing::Values("quadruped.urdf", "humanoid.urdf", "arm7.urdf"),
                         [](const testing::TestParamInfo<const char *> &info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

TEST(SolverKernels, ProductsMatchADenseReference) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const char *isa : available_isas()) {
    ASSERT_TRUE(detail::force_solve_isa(isa));
    for (int rows = 1; rows <= 9; ++rows)
      for (int cols = 4; cols <= 36; cols += 4)
        for (int depth = 0; depth <= 13; depth += 13 / 3 + 1)
          for (bool assign : {false, true}) {
            RowMat A(rows, depth + 1), B(depth + 1, cols + 4), C(rows, cols + 4);
            for (auto *m : {&A, &B, &C})
              for (int i = 0; i < m->size(); ++i) m->data()[i] = u(rng);
            RowMat expect = C;
            if (assign) expect.leftCols(cols).setZero();
            expect.leftCols(cols) +=
                A.leftCols(depth) * B.topRows(depth).leftCols(cols);  // column cols+: untouched
            detail::product_add(rows, cols, depth, A.data(), A.cols(), B.data(), B.cols(), C.data(),
                                C.cols(), assign);
            EXPECT_LT((C - expect).cwiseAbs().maxCoeff(), 1e-13)
                << isa << " rows " << rows << " cols " << cols << " depth " << depth;
          }
  }
  detail::force_solve_isa(nullptr);
}

TEST(SolverKernels, CholeskyApplyInvertsTheFactoredMatrix) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (const char *isa : available_isas()) {
    ASSERT_TRUE(detail::force_solve_isa(isa));
    for (int m = 1; m <= 13; ++m)
      for (int cols : {4, 8, 12, 20, 52}) {
        MatX G(m, m + 2);
        for (int i = 0; i < G.size(); ++i) G.data()[i] = u(rng);
        const MatX S = G * G.transpose() + 0.1 * MatX::Identity(m, m);  // positive definite
        const MatX Lc = S.llt().matrixL();
        const int ldl = m + 3;  // a stride wider than m
        RowMat L = RowMat::Zero(m, ldl);
        L.leftCols(m) = Lc;
        VecX dinv = Lc.diagonal().cwiseInverse();
        RowMat K(m, cols + 4);
        for (int i = 0; i < K.size(); ++i) K.data()[i] = u(rng);
        const RowMat K0 = K;
        detail::cholesky_apply(m, cols, L.data(), ldl, dinv.data(), K.data(), K.cols());
        EXPECT_LT((S * K.leftCols(cols) - K0.leftCols(cols)).cwiseAbs().maxCoeff(), 1e-11)
            << isa << " m " << m << " cols " << cols;
        EXPECT_EQ(K.rightCols(4), K0.rightCols(4)) << "columns past cols are left alone";
      }
  }
  detail::force_solve_isa(nullptr);
}

}  // namespace
}  // namespace geolin::test
