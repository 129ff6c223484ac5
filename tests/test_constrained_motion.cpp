// Constraint sets in motion, against closed forms and conservation laws (docs/constraints.md
// §7): a rolling cart's acceleration down an incline, zero acceleration when rolling straight, no
// slip while turning, a four-bar's closure under gains and its energy without them, couplings as
// the reduced dynamics G^T M G, and the steps' linearizations against finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "geolin/constraints.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

std::string data_path(const char *file) {
  return std::string(GEOLIN_TEST_DATA_DIR) + "/" + file;
}

// The rolling cart (tests/data/rolling_cart.urdf) with both wheels, radius 0.1 m, spin axis y.
struct Cart {
  Model m = load_urdf_file(data_path("rolling_cart.urdf"));
  ConstraintSet set;
  static constexpr double R = 0.1, b = 0.2, mass = 5.0, I_spin = 0.0025;
  Cart() {
    for (const char *w : {"left_wheel", "right_wheel"}) {
      set.items.push_back(Constraint::wheel(m.frame_index(w), Vec3::UnitY(), R));
    }
    set.update();
  }
  // Upright on the ground, moving forward at speed u and turning at yaw rate wz, no slip.
  State rolling(double u, double wz) const {
    State x;
    x.H = Transform::identity();
    x.H.o = Vec3(0.0, 0.0, R);
    x.s = VecX::Zero(2);
    x.v << u, 0.0, 0.0, 0.0, 0.0, wz;
    x.r.resize(2);
    x.r << (u - wz * b) / R, (u + wz * b) / R;
    x.tau = VecX::Zero(2);
    return x;
  }
  // The largest velocity along the plane of a wheel's material point at its contact.
  double slip(Workspace &ws, const State &x) const {
    double worst = 0.0;
    for (const Constraint &c : set.items) {
      Vec6 tw;
      MatX none;
      frame_velocity(m, ws, x.H, x.s, x.v, x.r, c.frame, kWrenchMixed, tw, none);
      const Transform T = frame_pose(m, ws, x.H, x.s, c.frame);
      const Vec3 a = T.R * c.axis;
      const Vec3 wv = Vec3::UnitZ() - a.z() * a;
      const Vec3 rho = -R * wv.normalized();
      const Vec3 vP = tw.head<3>() + tw.tail<3>().cross(rho);
      worst = std::max(worst, vP.head<2>().norm());
    }
    return worst;
  }
};

// Two coaxial wheels have the same lateral row: the cart is solved with a small regularization.
constexpr double kAxleMu = 1e-12;

TEST(RollingWheels, CartRollsDownAnInclineWithTheClosedFormAcceleration) {
  Cart cart;
  Workspace ws(cart.m);
  const double theta = 0.2;
  ws.gravity = 9.81 * Vec3(std::sin(theta), 0.0, -std::cos(theta));
  const State x = cart.rolling(0.0, 0.0);
  VecX nu_dot(8), lambda(6);
  ASSERT_TRUE(
      constrained_dynamics(cart.m, ws, x.H, x.s, x.v, x.r, x.tau, cart.set, kAxleMu, nu_dot, lambda)
          .ok());
  // m a = m g sin θ − Σ I_w a / R²: a = g sin θ m / (m + Σ I_w / R²).
  const double expected =
      9.81 * std::sin(theta) * Cart::mass / (Cart::mass + 2 * Cart::I_spin / (Cart::R * Cart::R));
  EXPECT_NEAR(nu_dot[0], expected, 1e-9);
  EXPECT_NEAR(nu_dot[6], expected / Cart::R, 1e-8);  // rolling: α = a / R
  EXPECT_NEAR(nu_dot[7], expected / Cart::R, 1e-8);
  EXPECT_NEAR(nu_dot.segment<5>(1).norm(), 0.0, 1e-9);
}

// A lone wheel (a free disc: the rolling cart's wheel inertia), upright, rolling straight at
// 1.3 m/s without torque: the ground carries its weight at the contact below the centre, and
// nothing accelerates, to round-off (no regularization: one wheel's rows are independent).
TEST(RollingWheels, UprightWheelRollingStraightDoesNotAccelerate) {
  const Model m = load_urdf_string(R"(<robot name="disc"><link name="disc"><inertial>
      <mass value="0.5"/><inertia ixx="0.0013" ixy="0" ixz="0" iyy="0.0025" iyz="0" izz="0.0013"/>
      </inertial></link></robot>)");
  ConstraintSet set;
  set.items.push_back(Constraint::wheel(m.frame_index("disc"), Vec3::UnitY(), 0.1));
  set.Kp = 50.0;
  set.Kd = 10.0;
  set.update();
  Workspace ws(m);
  Transform H = Transform::identity();
  H.o.z() = 0.1;
  Vec6 v;
  v << 1.3, 0.0, 0.0, 0.0, 13.0, 0.0;  // ω = u / R about y
  VecX nu_dot(6), lambda(3);
  const VecX none(0);
  ASSERT_TRUE(constrained_dynamics(m, ws, H, none, v, none, none, set, 0.0, nu_dot, lambda).ok());
  // ν̇ is the derivative of the body twist: the centre's classical acceleration is
  // v̇ + ω × v and the angular one ω̇.
  const Vec3 w = v.tail<3>();
  EXPECT_LT((nu_dot.head<3>() + w.cross(v.head<3>())).norm(), 1e-12) << nu_dot.transpose();
  EXPECT_LT(nu_dot.tail<3>().norm(), 1e-12) << nu_dot.transpose();
  EXPECT_NEAR(lambda[2], 0.5 * 9.81, 1e-12);
}

TEST(RollingWheels, UprightCartRollingStraightDoesNotAccelerate) {
  Cart cart;
  Workspace ws(cart.m);
  const State x = cart.rolling(1.3, 0.0);
  VecX nu_dot(8), lambda(6);
  ASSERT_TRUE(
      constrained_dynamics(cart.m, ws, x.H, x.s, x.v, x.r, x.tau, cart.set, kAxleMu, nu_dot, lambda)
          .ok());
  EXPECT_LT(nu_dot.norm(), 1e-9) << nu_dot.transpose();  // the axle's mu: c = −mu λ
  // The ground carries the weight, shared by the wheels, and pushes neither way along the plane.
  EXPECT_NEAR(lambda[2] + lambda[5], Cart::mass * 9.81, 1e-9);
  EXPECT_NEAR(lambda[0], 0.0, 1e-9);
}

// RK4 over 1 s: the wheels' contact points do not slip while the cart turns (the constraint is on
// the material point at the contact; a point contact's drift term would make them slip).
TEST(RollingWheels, TurningCartDoesNotSlip) {
  Cart cart;
  Workspace ws(cart.m);
  State x = cart.rolling(0.8, 1.5);
  x.tau << 0.3, -0.1;
  VecX lambda(6);
  double worst = 0.0, yaw = 0.0;
  for (int k = 0; k < 1000; ++k) {
    State y = x;
    ASSERT_TRUE(constrained_step(cart.m, ws, StepMethod::Rk4, 1e-3, x.H, x.s, x.v, x.r, x.tau,
                                 cart.set, kAxleMu, y.H, y.s, y.v, y.r, lambda)
                    .ok());
    x = y;
    worst = std::max(worst, cart.slip(ws, x));
  }
  yaw = std::atan2(x.H.R(1, 0), x.H.R(0, 0));
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(std::abs(yaw), 0.5);  // it turned
  EXPECT_NEAR(x.H.o.z(), Cart::R, 1e-9);
}

TEST(RollingWheels, RollingDoesNoWork) {
  Cart cart;
  Workspace ws(cart.m);
  State x = cart.rolling(0.8, 1.5);
  const auto energy = [&](const State &y) {
    return kinetic_energy(cart.m, ws, y.s, y.v, y.r) + potential_energy(cart.m, ws, y.H, y.s);
  };
  const double E0 = energy(x);
  VecX lambda(6);
  double worst = 0.0;
  for (int k = 0; k < 1000; ++k) {
    State y = x;
    ASSERT_TRUE(constrained_step(cart.m, ws, StepMethod::Rk4, 1e-3, x.H, x.s, x.v, x.r, x.tau,
                                 cart.set, kAxleMu, y.H, y.s, y.v, y.r, lambda)
                    .ok());
    x = y;
    worst = std::max(worst, std::abs(energy(x) - E0));
  }
  EXPECT_LT(worst, 1e-9 * E0);
}

// The four-bar of tests/data/four_bar.urdf closed by a POINT loop. Its y row is identically zero
// in this planar linkage: solved with a regularization that leaves the other rows exact to
// round-off (their error is mu λ ~ 1e-15 m/s²; the zero row's force is −c_y / mu = 0).
constexpr double kPlanarMu = 1e-15;
struct FourBar {
  Model m = load_urdf_file(data_path("four_bar.urdf"), kFixedBase);
  ConstraintSet set;
  FourBar(double Kp, double Kd) {
    set.items.push_back(
        Constraint::loop(m.frame_index("loop_a"), m.frame_index("loop_b"), kLoopPoint));
    set.Kp = Kp;
    set.Kd = Kd;
    set.update();
  }
  State closed(double t, double w) const {
    State x;
    x.H = Transform::identity();
    x.s = Vec3(t, -t, t);
    x.v.setZero();
    x.r = Vec3(w, -w, w);
    x.tau = VecX::Zero(3);
    return x;
  }
  // |p_a − p_b| and |ṗ_a − ṗ_b|.
  void residual(Workspace &ws, const State &x, double &e, double &edot) const {
    const Transform A = frame_pose(m, ws, x.H, x.s, set.items[0].frame);
    const Transform B = frame_pose(m, ws, x.H, x.s, set.items[0].frame_b);
    Vec6 va, vb;
    MatX none;
    frame_velocity(m, ws, x.H, x.s, x.v, x.r, set.items[0].frame, kWrenchMixed, va, none);
    frame_velocity(m, ws, x.H, x.s, x.v, x.r, set.items[0].frame_b, kWrenchMixed, vb, none);
    e = (A.o - B.o).norm();
    edot = (va.head<3>() - vb.head<3>()).norm();
  }
};

// The cranks hanging down (s = (π, −π, π)): the linkage swings about this stable pose, away from
// the change points at ±π/2 where the cranks line up with the coupler and the loop's rows depend
// on each other.
constexpr double kHanging = M_PI;

TEST(LoopClosure, FourBarStaysClosedUnderGains) {
  FourBar bar(100.0, 20.0);
  Workspace ws(bar.m);
  State x = bar.closed(kHanging - 0.4, 1.0);
  x.tau << 0.2, 0.0, -0.1;
  VecX lambda(3);
  double e_max = 0.0, edot_max = 0.0;
  for (int k = 0; k < 1000; ++k) {
    State y = x;
    ASSERT_TRUE(constrained_step(bar.m, ws, StepMethod::Rk4, 1e-3, x.H, x.s, x.v, x.r, x.tau,
                                 bar.set, kPlanarMu, y.H, y.s, y.v, y.r, lambda)
                    .ok());
    x = y;
    double e, edot;
    bar.residual(ws, x, e, edot);
    e_max = std::max(e_max, e);
    edot_max = std::max(edot_max, edot);
  }
  EXPECT_LT(e_max, 1e-8);
  EXPECT_LT(edot_max, 2e-7);
  EXPECT_GT(std::abs(x.s[0] - (kHanging - 0.4)), 0.05);  // it moved
}

// Without gains the closed linkage conserves energy up to RK4's error, which falls ~16x per
// halving of h.
TEST(LoopClosure, FourBarEnergyErrorIsFourthOrder) {
  FourBar bar(0.0, 0.0);
  Workspace ws(bar.m);
  double err[3];
  const double hs[3] = {4e-3, 2e-3, 1e-3};
  for (int i = 0; i < 3; ++i) {
    State x = bar.closed(kHanging - 0.3, 2.0);
    const auto energy = [&](const State &y) {
      return kinetic_energy(bar.m, ws, y.s, y.v, y.r) + potential_energy(bar.m, ws, y.H, y.s);
    };
    const double E0 = energy(x);
    VecX lambda(3);
    err[i] = 0.0;
    for (int k = 0; k < static_cast<int>(std::lround(1.0 / hs[i])); ++k) {
      State y = x;
      ASSERT_TRUE(constrained_step(bar.m, ws, StepMethod::Rk4, hs[i], x.H, x.s, x.v, x.r, x.tau,
                                   bar.set, kPlanarMu, y.H, y.s, y.v, y.r, lambda)
                      .ok());
      x = y;
      err[i] = std::max(err[i], std::abs(energy(x) - E0));
    }
  }
  RecordProperty("energy_errors", sci(err[0]) + " " + sci(err[1]) + " " + sci(err[2]));
  EXPECT_GT(err[0] / err[1], 10.0);
  EXPECT_GT(err[1] / err[2], 10.0);
  EXPECT_LT(err[2], 1e-8);
}

// Couplings: ν̇ = G ν̇_r with Gᵀ M G ν̇_r = Gᵀ (S τ − h), G the couplings' null-space basis, from
// crba and rnea alone (no gains, a velocity that satisfies the couplings).
TEST(Couplings, EqualTheReducedDynamics) {
  Model m = load_urdf_file(model_path("quadruped.urdf"));
  const int n = m.num_dofs(), nv = 6;
  ConstraintSet set;
  const std::vector<std::tuple<const char *, const char *, double, double>> pairs = {
      {"FR_KFE", "FL_KFE", -1.0, 0.2},
      {"HL_HFE", "FL_HFE", 0.5, 0.0},
      {"HR_HAA", "HL_HAA", 2.0, 0.1}};
  MatX G = MatX::Identity(n, n);
  std::vector<int> dropped;
  for (const auto &[j, src, ratio, offset] : pairs) {
    const Constraint c = Constraint::coupling(m.joint_index(j), m.joint_index(src), ratio, offset);
    set.items.push_back(c);
    G(nv + c.joint, nv + c.source) = ratio;  // ν_joint = ratio ν_source
    dropped.push_back(nv + c.joint);
  }
  set.update();
  MatX Gr(n, n - static_cast<int>(dropped.size()));
  for (int col = 0, k = 0; col < n; ++col)
    if (std::find(dropped.begin(), dropped.end(), col) == dropped.end()) Gr.col(k++) = G.col(col);
  std::mt19937 rng(7);
  State x;
  static_cast<geolin::State &>(x) = random_state(m, rng, 1.0);
  x.tau = random_state(m, rng, 3.0).tau;
  VecX nu = VecX::Zero(n);
  nu.head<6>() = x.v;
  nu.tail(m.num_joints()) = x.r;
  nu = Gr * (Gr.transpose() * Gr).ldlt().solve(Gr.transpose() * nu);  // onto the couplings
  x.v = nu.head<6>();
  x.r = nu.tail(m.num_joints());
  Workspace ws(m);
  VecX nu_dot(n), lambda(3);
  ASSERT_TRUE(
      constrained_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, set, 0.0, nu_dot, lambda).ok());
  MatX M(n, n);
  crba(m, ws, x.s, M);
  VecX h(n);
  rnea(m, ws, x.H, x.s, x.v, x.r, VecX::Zero(n), h);
  VecX Stau = VecX::Zero(n);
  Stau.tail(m.num_joints()) = x.tau;
  const VecX nr = (Gr.transpose() * M * Gr).ldlt().solve(Gr.transpose() * (Stau - h));
  EXPECT_LT(rel_err(nu_dot, Gr * nr), 1e-10);
}

}  // namespace
}  // namespace geolin::test
