// Geometric central finite differences of the discrete maps of `geolin check --step / --impulse`
// (contact_step, impulse): the independent reference of contact_step_linearize and
// impulse_linearize. Column k of A_d is (log(x+^-1 x+(x exp(eps e_k))) - log(x+^-1
// x+(x exp(-eps e_k)))) / 2 eps, the left-trivialized difference of docs/dynamics.md §5 applied
// to the map's output (the right perturbation (D15) at the input, the same coordinates at the
// output; docs/contacts.md §9-§10); the columns of B_d perturb tau, those of dlambda the map's
// forces.
#include "discrete_fd.hpp"

namespace geolin::cli {

namespace {

// x exp(e eps_k) for coordinate k of z = [z_H; z_s; z_v; z_r] (fixed base: [z_s; z_r]).
geolin::State perturbed(const Model &model, const geolin::State &x, int k, double e) {
  geolin::State y = x;
  state_integrate_coordinate(model, k, e, y);
  return y;
}

}  // namespace

bool discrete_finite_difference(const Model &model, const DiscreteMap &map, const geolin::State &x,
                                const VecX &tau, double eps, MatX &A, MatX &B, MatX &dlambda_dz,
                                MatX &dlambda_dw) {
  const int N = model.state_dim(), m = static_cast<int>(dlambda_dz.rows());
  geolin::State nominal = x, plus = x, minus = x;
  VecX lambda(m), lambda_plus(m), lambda_minus(m), z_plus(N), z_minus(N);
  if (!map(x, tau, nominal, lambda)) return false;
  const double inv2e = 1.0 / (2.0 * eps);
  // Column k of the state (k < N) or of tau (k >= N).
  auto column = [&](const geolin::State &xp, const geolin::State &xm, const VecX &tp,
                    const VecX &tm, MatX &X, MatX &D, int col) {
    if (!map(xp, tp, plus, lambda_plus) || !map(xm, tm, minus, lambda_minus)) return false;
    state_difference(model, nominal, plus, z_plus);
    state_difference(model, nominal, minus, z_minus);
    X.col(col) = (z_plus - z_minus) * inv2e;
    if (m > 0) D.col(col) = (lambda_plus - lambda_minus) * inv2e;
    return true;
  };
  for (int k = 0; k < N; ++k) {
    if (!column(perturbed(model, x, k, eps), perturbed(model, x, k, -eps), tau, tau, A, dlambda_dz,
                k))
      return false;
  }
  for (int k = 0; k < B.cols(); ++k) {
    VecX tp = tau, tm = tau;
    tp[k] += eps;
    tm[k] -= eps;
    if (!column(x, x, tp, tm, B, dlambda_dw, k)) return false;
  }
  return true;
}

}  // namespace geolin::cli
