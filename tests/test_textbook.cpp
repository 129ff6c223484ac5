// Textbook models against closed forms derived by hand with Euler–Lagrange (docs/dynamics.md §6.5;
// models/README.md gives the parameters). The oracles below use no part of the library's
// kinematics: positions and velocities are written out for each model.
#include "test_util.hpp"

namespace geolin::test {
namespace {

constexpr double g = 9.81;

TEST(Textbook, SingleLinkArmMatchesItsEquationOfMotion) {
  // Rod m = 1, L = 1 about +y: (m L²/3) q̈ − m g (L/2) cos q = τ.
  const Model m = load_urdf_file(model_path("single_link_arm.urdf"), kFixedBase);
  Workspace ws(m);
  ASSERT_EQ(m.num_dofs(), 1);
  for (double q : {-2.0, -0.3, 0.0, 0.7, 1.5, 3.0}) {
    for (double qdd : {-1.0, 0.0, 2.5}) {
      VecX s(1), r(1), a(1), tau(1);
      s << q;
      r << 0.9;  // a single revolute joint: no velocity product terms
      a << qdd;
      rnea(m, ws, Transform{}, s, Vec6::Zero(), r, a, tau);
      EXPECT_NEAR(tau[0], qdd / 3.0 - g * 0.5 * std::cos(q), 1e-12) << "q = " << q;
    }
    MatX M(1, 1);
    VecX s(1);
    s << q;
    crba(m, ws, s, M);
    EXPECT_NEAR(M(0, 0), 1.0 / 3.0, 1e-14);
  }
}

TEST(Textbook, CartPendulumMatchesItsEquationsOfMotion) {
  // m_c = 1, m_p = 0.5, l = 0.8, J = 0.02; com of the pendulum at (x − l sin θ, 0, −l cos θ):
  //   (m_c + m_p) ẍ − m_p l cos θ θ̈ + m_p l sin θ θ̇² = F
  //   −m_p l cos θ ẍ + (J + m_p l²) θ̈ + m_p g l sin θ = τ
  const double mc = 1.0, mp = 0.5, l = 0.8, J = 0.02;
  const Model m = load_urdf_file(model_path("cart_pendulum.urdf"), kFixedBase);
  Workspace ws(m);
  ASSERT_EQ(m.num_dofs(), 2);
  ASSERT_EQ(m.joint_type[1], JointType::Prismatic);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  for (int k = 0; k < 20; ++k) {
    const double x = u(rng), th = u(rng), xd = u(rng), thd = u(rng), xdd = u(rng), thdd = u(rng);
    VecX s(2), r(2), a(2), out(2);
    s << x, th;
    r << xd, thd;
    a << xdd, thdd;
    rnea(m, ws, Transform{}, s, Vec6::Zero(), r, a, out);
    const double F =
        (mc + mp) * xdd - mp * l * std::cos(th) * thdd + mp * l * std::sin(th) * thd * thd;
    const double tau =
        -mp * l * std::cos(th) * xdd + (J + mp * l * l) * thdd + mp * g * l * std::sin(th);
    EXPECT_NEAR(out[0], F, 1e-12);
    EXPECT_NEAR(out[1], tau, 1e-12);
    MatX M(2, 2), Mexp(2, 2);
    crba(m, ws, s, M);
    Mexp << mc + mp, -mp * l * std::cos(th), -mp * l * std::cos(th), J + mp * l * l;
    EXPECT_LT(rel_err(M, Mexp), 1e-14);
  }
}

TEST(Textbook, SatelliteMassMatrixEqualsTheKineticEnergyOfBothBodies) {
  // K = ½ m_b |v + ω×c_b|² + ½ ωᵀ J_b ω + ½ m_p |v_p|² + ½ ω_pᵀ J_p ω_p in base-frame
  // coordinates (J(r) by the parallel-axis theorem is implicit in |v_p|²), with the panel hinged
  // about +y at h = (0.5, 0, 0) and its com at h + R_y(q) (1, 0, 0). M is the Hessian of K:
  // M_ij = K(e_i + e_j) − K(e_i) − K(e_j) (polarization, exact for a quadratic form).
  const double mb = 100, mp = 5;
  const Mat3 Jb = Vec3(100 * 2.44 / 12, 100 * 2.44 / 12, 100 * 2.0 / 12).asDiagonal();
  const Mat3 Jp = Vec3(5 * 1.0004 / 12, 5 * 4.0004 / 12, 5 * 5.0 / 12).asDiagonal();
  const Vec3 hinge(0.5, 0, 0), ey(0, 1, 0);
  const Model m = load_urdf_file(model_path("satellite_panel.urdf"));
  Workspace ws(m);
  ASSERT_EQ(m.num_dofs(), 7);
  EXPECT_NEAR(m.total_mass(), 105.0, 1e-12);
  for (double q : {-1.2, 0.0, 0.4, 1.5}) {
    const Mat3 Rq = rot_y(q);
    const Vec3 arm = Rq * Vec3(1.0, 0, 0);
    auto K = [&](const VecX &nu) {
      const Vec3 v = nu.head<3>(), w = nu.segment<3>(3);
      const double qd = nu[6];
      const Vec3 vp = v + w.cross(hinge + arm) + qd * ey.cross(arm);
      const Vec3 wp = w + qd * ey;
      return 0.5 * mb * v.squaredNorm() + 0.5 * w.dot(Jb * w) + 0.5 * mp * vp.squaredNorm() +
             0.5 * wp.dot(Rq * Jp * Rq.transpose() * wp);
    };
    MatX Mexp(7, 7);
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 7; ++j) {
        const VecX ei = VecX::Unit(7, i), ej = VecX::Unit(7, j);
        Mexp(i, j) = (i == j) ? 2.0 * K(ei) : K(ei + ej) - K(ei) - K(ej);
      }
    MatX M(7, 7);
    VecX s(1);
    s << q;
    crba(m, ws, s, M);
    EXPECT_LT(rel_err(M, Mexp), 1e-13) << "q = " << q;
    // The panel's inertia about its hinge, the classic design-study number.
    EXPECT_NEAR(M(6, 6), 5 * 4.0004 / 12 + 5 * 1.0, 1e-12);
  }
}

}  // namespace
}  // namespace geolin::test
