// The discrete step x⁺ = Φ_h(x, τ) and its exact linearization z⁺ = A_d z + B_d w, against
// geometric finite differences of Φ_h and against the continuous-time A, B as h → 0.
#include <memory>

#include "test_util.hpp"

namespace geolin::test {
namespace {

State phi(const Model &m, Workspace &ws, StepMethod method, double h, const State &x) {
  State y = x;
  geolin::step(m, ws, method, h, x.H, x.s, x.v, x.r, x.tau, y.H, y.s, y.v, y.r);
  return y;
}

/// x exp(ε e_k).
State perturb(const Model &m, const State &x, int k, double e) {
  State y = x;
  state_integrate_coordinate(m, k, e, y);
  return y;
}

class Step : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
  }
  std::vector<State> states() {
    std::vector<State> xs;
    for (int k = 0; k < 3; ++k) xs.push_back(random_state(model_, rng_));
    State g = random_state(model_, rng_, 5.0);
    g.H.R = rot_y(M_PI / 2) * rot_x(0.3);
    xs.push_back(g);
    return xs;
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
  std::mt19937 rng_{77};
};

TEST_P(Step, LinearizationMatchesGeometricFiniteDifferences) {
  const int N = model_.state_dim(), nj = model_.num_joints();
  const double eps = kFdEps;
  for (StepMethod method : {StepMethod::SemiImplicitEuler, StepMethod::Rk4}) {
    double worst_A = 0.0, worst_B = 0.0;
    for (const State &x : states()) {
      const double h = 0.002;
      MatX Ad(N, N), Bd(N, nj), Afd(N, N), Bfd(N, nj);
      step_linearize(model_, *ws_, method, h, x.H, x.s, x.v, x.r, x.tau, Ad, Bd);
      const State y0 = phi(model_, *ws_, method, h, x);
      for (int k = 0; k < N; ++k) {
        const VecX zp =
            state_difference(model_, y0, phi(model_, *ws_, method, h, perturb(model_, x, k, eps)));
        const VecX zm =
            state_difference(model_, y0, phi(model_, *ws_, method, h, perturb(model_, x, k, -eps)));
        Afd.col(k) = (zp - zm) / (2 * eps);
      }
      for (int k = 0; k < nj; ++k) {
        State xp = x, xm = x;
        xp.tau[k] += eps;
        xm.tau[k] -= eps;
        Bfd.col(k) = (state_difference(model_, y0, phi(model_, *ws_, method, h, xp)) -
                      state_difference(model_, y0, phi(model_, *ws_, method, h, xm))) /
                     (2 * eps);
      }
      worst_A = std::max(worst_A, rel_err(Ad, Afd));
      if (nj > 0) worst_B = std::max(worst_B, rel_err(Bd, Bfd));
    }
    const char *name = method == StepMethod::Rk4 ? "rk4" : "euler";
    RecordProperty(std::string("A_d_") + name, sci(worst_A));
    RecordProperty(std::string("B_d_") + name, sci(worst_B));
    EXPECT_LT(worst_A, 1e-6) << name;
    EXPECT_LT(worst_B, 1e-6) << name;
  }
}

TEST_P(Step, DiscreteLinearizationTendsToContinuousAsStepShrinks) {
  const int N = model_.state_dim(), nj = model_.num_joints();
  const State x = states().back();
  MatX A(N, N), B(N, nj);
  linearize(model_, *ws_, x.H, x.s, x.v, x.r, x.tau, A, B);
  for (StepMethod method : {StepMethod::SemiImplicitEuler, StepMethod::Rk4}) {
    double previous = 1e300;
    for (double h : {1e-3, 1e-4, 1e-5}) {
      MatX Ad(N, N), Bd(N, nj);
      step_linearize(model_, *ws_, method, h, x.H, x.s, x.v, x.r, x.tau, Ad, Bd);
      const MatX Ac = (Ad - MatX::Identity(N, N)) / h;
      double err = rel_err(Ac, A);
      if (nj > 0) err = std::max(err, rel_err(Bd / h, B));
      EXPECT_LT(err, previous * 0.5) << "h = " << h;  // O(h) convergence
      previous = err;
    }
    EXPECT_LT(previous, 1e-2);
  }
}

TEST_P(Step, Rk4AndEulerIntegrateTheSameFlow) {
  // Both methods integrate the same ODE: after the same time T they agree to O(h_euler T).
  const State x = states().front();
  State a = x, b = x;
  for (int k = 0; k < 20; ++k) a = phi(model_, *ws_, StepMethod::Rk4, 1e-3, a);
  for (int k = 0; k < 2000; ++k) b = phi(model_, *ws_, StepMethod::SemiImplicitEuler, 1e-5, b);
  const double T = 0.02;
  EXPECT_LT(state_difference(model_, a, b).norm(),
            1e-3 * state_difference(model_, x, a).norm() + 1e-9)
      << "distance travelled " << state_difference(model_, x, a).norm() << " over T = " << T;
}

INSTANTIATE_TEST_SUITE_P(AllModels, Step, testing::ValuesIn(all_model_cases()), case_name);

}  // namespace
}  // namespace geolin::test
