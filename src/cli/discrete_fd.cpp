// Geometric central finite differences of the discrete maps of `geolin check --step / --impulse`
// (contact_step, impulse): the independent reference of contact_step_linearize and
// impulse_linearize. Column k of A_d is (log(x+^-1 x+(x exp(eps e_k))) - log(x+^-1
// x+(x exp(-eps e_k)))) / 2 eps, the left-trivialized difference of docs/dynamics.md §5 applied
// to the map's output (the right perturbation (D15) at the input, the same coordinates at the
// output; docs/contacts.md §9-§10); the columns of B_d perturb tau, those of dlambda the map's
// forces.
#include "cli.hpp"

namespace geolin::cli {

namespace {

// x exp(e eps_k) for coordinate k of z = [z_H; z_s; z_v; z_r] (fixed base: [z_s; z_r]).
StatePoint perturbed(const Model &model, const StatePoint &x, int k, double e) {
  const int n = model.num_dofs(), off = model.joint_offset();
  StatePoint y = x;
  if (!model.fixed_base && k < 6) {
    Vec6 z = Vec6::Zero();
    z[k] = e;
    y.H = x.H * exp_se3(z);
  } else if (k < n) {
    y.s[k - off] += e;
  } else if (!model.fixed_base && k < n + 6) {
    y.v[k - n] += e;
  } else {
    y.r[k - n - off] += e;
  }
  return y;
}

// z with y = x exp(z) (the left-trivialized difference; docs/dynamics.md §5).
void state_difference(const Model &model, const StatePoint &x, const StatePoint &y, RefVec z) {
  const int n = model.num_dofs(), off = model.joint_offset(), nj = model.num_joints();
  if (!model.fixed_base) {
    z.head<6>() = log_se3(x.H.inverse() * y.H);
    z.segment<6>(n) = y.v - x.v;
  }
  z.segment(off, nj) = y.s - x.s;
  z.segment(n + off, nj) = y.r - x.r;
}

}  // namespace

bool discrete_finite_difference(const Model &model, const DiscreteMap &map, const StatePoint &x,
                                const VecX &tau, double eps, MatX &A, MatX &B, MatX &dlambda_dz,
                                MatX &dlambda_dw) {
  const int N = model.state_dim(), m = static_cast<int>(dlambda_dz.rows());
  StatePoint nominal = x, plus = x, minus = x;
  VecX lambda(m), lambda_plus(m), lambda_minus(m), z_plus(N), z_minus(N);
  if (!map(x, tau, nominal, lambda)) return false;
  const double inv2e = 1.0 / (2.0 * eps);
  // Column k of the state (k < N) or of tau (k >= N).
  auto column = [&](const StatePoint &xp, const StatePoint &xm, const VecX &tp, const VecX &tm,
                    MatX &X, MatX &D, int col) {
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
