// geolin check --costs: the derivatives of the cost functions (center_of_mass,
// centroidal_momentum, frame_pose_error, frame_velocity, frame_acceleration) against geometric
// finite differences through x exp(z) (docs/dynamics.md §11) at the check's sample states, for
// every frame of the model (Local and Mixed axes). Kept apart from the dynamics check so that
// other cost derivatives join it here.
#include "check_costs.hpp"

#include <fmt/format.h>

#include <functional>

#include "state_io.hpp"

namespace geolin::cli {
namespace {

// x exp(z) for the coordinate k of z = [z_H; z_s; z_v; z_r] (docs/conventions.md) scaled by e.
State moved(const Model &model, const State &x, int k, double e) {
  State y = x;
  state_integrate_coordinate(model, k, e, y);
  return y;
}

using Value = std::function<Vec6(const State &)>;

// Central differences of value through x exp(±eps e_k), with Richardson's extrapolation
// (4 D(eps/2) − D(eps)) / 3 when asked.
MatX differences(const Model &model, const State &x, const Value &value, double eps,
                 bool richardson) {
  const int N = model.state_dim();
  auto central = [&](double h) {
    MatX D(6, N);
    for (int k = 0; k < N; ++k)
      D.col(k) = (value(moved(model, x, k, h)) - value(moved(model, x, k, -h))) / (2.0 * h);
    return D;
  };
  if (!richardson) return central(eps);
  return (4.0 * central(0.5 * eps) - central(eps)) / 3.0;
}

double relative(const MatX &an, const MatX &fd) {
  return (an - fd).cwiseAbs().maxCoeff() / std::max(1.0, fd.cwiseAbs().maxCoeff());
}

// The worst error of each function over the frames at one state.
void check_state(const Model &model, Workspace &ws, const State &x, const VecX &nu_dot, double eps,
                 bool richardson, CostCheck &out) {
  const int n = model.num_dofs(), N = model.state_dim();
  const Transform H = base_pose(model, x);
  auto worst = [&](const std::string &name, double e) {
    double &w = out.worst[name];
    w = std::max(w, e);
  };
  MatX D(6, N), D3(3, n), none;
  Vec3 c, cv;
  Vec6 y;
  center_of_mass(model, ws, H, x.s, x.v, x.r, c, cv, D3);
  MatX Dc = MatX::Zero(6, N);
  Dc.topLeftCorner(3, N - n) = D3.leftCols(N - n);
  worst("center_of_mass", relative(Dc, differences(
                                           model, x,
                                           [&](const State &z) {
                                             Vec6 out6 = Vec6::Zero();
                                             Vec3 p, pv;
                                             center_of_mass(model, ws, base_pose(model, z), z.s,
                                                            z.v, z.r, p, pv, none);
                                             out6.head<3>() = p;
                                             return out6;
                                           },
                                           eps, richardson)));
  centroidal_momentum(model, ws, H, x.s, x.v, x.r, y, none, D);
  worst("centroidal_momentum", relative(D, differences(
                                               model, x,
                                               [&](const State &z) {
                                                 Vec6 h;
                                                 centroidal_momentum(model, ws, base_pose(model, z),
                                                                     z.s, z.v, z.r, h, none, none);
                                                 return h;
                                               },
                                               eps, richardson)));
  for (int f = 0; f < static_cast<int>(model.frames.size()); ++f) {
    const Transform ref = frame_pose(model, ws, H, x.s, f) *
                          exp_se3((Vec6() << 0.1, -0.05, 0.08, 0.2, -0.3, 0.25).finished());
    frame_pose_error(model, ws, H, x.s, f, ref, y, D);
    worst("frame_pose_error", relative(D, differences(
                                              model, x,
                                              [&](const State &z) {
                                                Vec6 e;
                                                frame_pose_error(model, ws, base_pose(model, z),
                                                                 z.s, f, ref, e, none);
                                                return e;
                                              },
                                              eps, richardson)));
    for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
      frame_velocity(model, ws, H, x.s, x.v, x.r, f, flags, y, D);
      worst("frame_velocity", relative(D, differences(
                                              model, x,
                                              [&](const State &z) {
                                                Vec6 t;
                                                frame_velocity(model, ws, base_pose(model, z), z.s,
                                                               z.v, z.r, f, flags, t, none);
                                                return t;
                                              },
                                              eps, richardson)));
      frame_acceleration(model, ws, H, x.s, x.v, x.r, nu_dot, f, flags, y, D, none);
      worst("frame_acceleration", relative(D, differences(
                                                  model, x,
                                                  [&](const State &z) {
                                                    Vec6 a;
                                                    frame_acceleration(
                                                        model, ws, base_pose(model, z), z.s, z.v,
                                                        z.r, nu_dot, f, flags, a, none, none);
                                                    return a;
                                                  },
                                                  eps, richardson)));
    }
  }
}

}  // namespace

CostCheck check_kinematic_costs(const Model &model, const std::vector<State> &states, double eps,
                                bool richardson, double tol) {
  CostCheck out;
  out.tol = tol;
  if (!(model.total_mass() > 0.0)) return out;  // no centre of mass: nothing to compare
  Workspace ws(model);
  for (const char *name : {"center_of_mass", "centroidal_momentum", "frame_pose_error",
                           "frame_velocity", "frame_acceleration"})
    out.worst[name] = 0.0;
  for (const State &x : states) {
    ws.gravity = x.gravity;
    VecX nu_dot(model.num_dofs());
    aba(model, ws, base_pose(model, x), x.s, x.v, x.r, x.tau, nu_dot);  // a realistic ν̇
    check_state(model, ws, x, nu_dot, eps, richardson, out);
  }
  return out;
}

bool CostCheck::pass() const {
  for (const auto &[name, w] : worst)
    if (!(w <= tol)) return false;
  return true;
}

}  // namespace geolin::cli
