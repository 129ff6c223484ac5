// The solver's building blocks that the contact functions rely on
// (src/solver/articulated_solve.cpp, src/solver/solve_kernels.inc), checked against plain dense
// arithmetic on every instruction set the processor has: the articulated solve's backward and
// forward passes run apart (the innovations that contact_dynamics and contact_linearize use), the
// register-blocked products and the Cholesky substitution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "../src/solver/solver.hpp"  // the solver
#include "geolin/algorithms.hpp"
#include "isa_util.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class SolverPasses : public testing::TestWithParam<const char *> {};

// The backward pass alone gives the innovations of the factorization M⁻¹ = Lᵀ D⁻¹ L: for two
// sets of right-hand sides, R_bᵀ M⁻¹ R_a = Σ_i D_i X_b,i X_a,i + X_b,0ᵀ I^A_0 X_a,0 from their
// innovations, and changing the innovations before the forward pass solves for the changed
// right-hand sides (innovations are linear in R). M comes from the CRBA, an independent
// recursion.
TEST_P(SolverPasses, BackwardPassInnovationsGiveQuadraticFormsAndResume) {
  const std::string file = GetParam();
  const Model model = load_urdf_file(model_path(file), file == "arm7.urdf" ? kFixedBase : 0u);
  Workspace ws(model);
  std::mt19937 rng(7);
  const int n = model.num_dofs(), cols = 10, ld = detail::solve_stride(cols), cols_b = 3;
  const State x = random_state(model, rng);
  VecX nu_dot(n);
  aba(model, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);  // factorizes M
  MatX M(n, n);
  crba(model, ws, x.s, M);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  RowMat Ra = RowMat::Zero(n, ld), Rb = RowMat::Zero(n, ld), K = RowMat::Zero(cols_b, cols);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < cols; ++c) Ra(i, c) = u(rng);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < cols_b; ++c) Rb(i, c) = u(rng);
  for (int p = 0; p < cols_b; ++p)
    for (int c = 0; c < cols; ++c) K(p, c) = u(rng);
  const int nv = n - model.n_B;  // base rows
  const RestoreAutomaticIsa restore;
  for (const char *isa : available_isas()) {
    ASSERT_TRUE(detail::force_solve_isa(isa));
    const RhsBlock block{RhsBlock::kDense, 0, cols};
    auto innovations = [&](const RowMat &R) {
      std::copy_n(R.data(), n * ld, ws.rhs.data());
      detail::articulated_solve_backward(model, ws, &block, 1, cols);
      return RowMat(Eigen::Map<RowMat>(ws.rhs.data(), n, ld));
    };
    const RowMat Ib = innovations(Rb), Ia = innovations(Ra);
    // Quadratic forms.
    MatX form = MatX::Zero(cols_b, cols);
    if (nv > 0)
      form += Ib.topRows(6).leftCols(cols_b).transpose() * ws.IA[0] * Ia.topRows(6).leftCols(cols);
    for (int i = 1; i <= model.n_B; ++i)
      form += (1.0 / ws.D_inv[i]) * Ib.row(model.dof(i)).leftCols(cols_b).transpose() *
              Ia.row(model.dof(i)).leftCols(cols);
    const MatX expect = Rb.leftCols(cols_b).transpose() * M.ldlt().solve(MatX(Ra.leftCols(cols)));
    EXPECT_LT((form - expect).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + expect.cwiseAbs().maxCoeff()))
        << isa;
    // Resume: the innovations of R_a plus those of R_b K, then the forward pass alone.
    Eigen::Map<RowMat>(ws.rhs.data(), n, ld).leftCols(cols) =
        Ia.leftCols(cols) + Ib.leftCols(cols_b) * K;
    detail::articulated_solve_forward(model, ws, &block, 1, cols);
    const RowMat X = Eigen::Map<RowMat>(ws.rhs.data(), n, ld);
    const MatX rhs = Ra.leftCols(cols) + Rb.leftCols(cols_b) * K;
    EXPECT_LT((M * X.leftCols(cols) - rhs).cwiseAbs().maxCoeff(), 1e-9) << isa;
    // And the whole solve in one call.
    std::copy_n(Ra.data(), n * ld, ws.rhs.data());
    detail::articulated_solve(model, ws, &block, 1, cols);
    const RowMat Xa = Eigen::Map<RowMat>(ws.rhs.data(), n, ld);
    EXPECT_LT((M * Xa.leftCols(cols) - Ra.leftCols(cols)).cwiseAbs().maxCoeff(), 1e-9) << isa;
  }
}

INSTANTIATE_TEST_SUITE_P(MovingAndFixedBase, SolverPasses,
                         testing::Values("quadruped.urdf", "humanoid.urdf", "arm7.urdf"),
                         [](const testing::TestParamInfo<const char *> &info) {
                           std::string s = info.param;
                           return s.substr(0, s.find('.'));
                         });

TEST(SolverKernels, ProductsMatchADenseReference) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const RestoreAutomaticIsa restore;
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
}

TEST(SolverKernels, CholeskyApplyInvertsTheFactoredMatrix) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const RestoreAutomaticIsa restore;
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
}

// sincos_all against the C library's sin and cos, which are correctly rounded or within an ulp:
// within two ulps of either result (one for the reduction to [−π/4, π/4], one for the series),
// on every instruction set, at the quadrant boundaries and beyond kSincosMax (the library's
// values there), with NaN and ±Inf giving NaN.
TEST(SolverKernels, SincosIsWithinTwoUlpsOfTheLibrary) {
  std::mt19937_64 rng(7);
  const RestoreAutomaticIsa restore;
  auto ulp_error = [](double got, double want) {
    const double ulp = std::nextafter(std::abs(want), INFINITY) - std::abs(want);
    return std::abs(got - want) / ulp;
  };
  for (const char *isa : available_isas()) {
    ASSERT_TRUE(detail::force_solve_isa(isa));
    for (double range : {0.8, 4.0, 100.0, detail::kSincosMax, 1e9}) {
      std::uniform_real_distribution<double> u(-range, range);
      std::vector<double> x(20000);
      for (double &xi : x) xi = u(rng);
      const double edges[] = {0.0,
                              -0.0,
                              1e-300,
                              M_PI / 4,
                              M_PI / 2,
                              -M_PI,
                              3 * M_PI / 2,
                              2 * M_PI,
                              detail::kSincosMax,
                              std::nextafter(detail::kSincosMax, INFINITY)};
      std::copy(std::begin(edges), std::end(edges), x.begin());
      std::vector<double> c(x.size()), s(x.size());
      detail::sincos_all(x.data(), static_cast<std::ptrdiff_t>(x.size()), c.data(), s.data());
      double worst = 0.0;
      for (std::size_t i = 0; i < x.size(); ++i)
        worst = std::max({worst, ulp_error(c[i], std::cos(x[i])), ulp_error(s[i], std::sin(x[i]))});
      EXPECT_LE(worst, 2.0) << isa << " |x| up to " << range;
    }
    const double bad[] = {NAN, INFINITY, -INFINITY};
    double c[3], s[3];
    detail::sincos_all(bad, 3, c, s);
    for (int i = 0; i < 3; ++i)
      EXPECT_TRUE(std::isnan(c[i]) && std::isnan(s[i])) << isa << " " << i;
  }
}

}  // namespace
}  // namespace geolin::test
