// Contact-constrained dynamics and its linearization (contact_dynamics.cpp,
// contact_linearize.cpp) against independent oracles: the unconstrained dynamics with λ applied
// as external wrenches, the frame Jacobian and its time derivative, the unconstrained
// functions for nc = 0, geometric central finite differences of contact_dynamics, and a
// quadruped standing still.
#include <gtest/gtest.h>

#include <random>

#include "geolin/algorithms.hpp"
#include "geolin/status.hpp"
#include "isa_util.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// A contact set for a model: the given frames and types, gains, and reference poses near the
// frames' current poses (so that Kp terms are non-zero but moderate).
struct ContactSet {
  std::vector<int> frames, types;
  std::vector<double> refs;
  Contacts view(unsigned flags, double Kp, double Kd) const {
    Contacts c;
    c.count = static_cast<int>(frames.size());
    c.frames = frames.data();
    c.types = types.data();
    c.flags = flags;
    c.Kp = Kp;
    c.Kd = Kd;
    c.refs = refs.empty() ? nullptr : refs.data();
    return c;
  }
};

ContactSet make_contacts(const Model &m, Workspace &ws, const State &x,
                         const std::vector<std::pair<const char *, int>> &spec) {
  ContactSet c;
  for (const auto &[name, type] : spec) {
    const int f = m.frame_index(name);
    EXPECT_GE(f, 0) << name;
    c.frames.push_back(f);
    c.types.push_back(type);
    Transform T = frame_pose(m, ws, x.H, x.s, f);
    T.o += Vec3(0.01, -0.02, 0.015);  // a little away from the reference
    T.R = T.R * rot_x(0.05) * rot_z(-0.03);
    const Mat4 Hm = T.matrix();
    for (int k = 0; k < 16; ++k) c.refs.push_back(Hm(k % 4, k / 4));
  }
  return c;
}

// The models and contact sets of the tests: the quadruped on its four feet (points), the
// humanoid on both feet (rigid) and one hand (point), the arm with its tool held (fixed base),
// and the humanoid held at frames that share a limb.
struct Scenario {
  const char *name;
  const char *file;
  unsigned load_flags;
  std::vector<std::pair<const char *, int>> spec;
};

std::vector<Scenario> scenarios() {
  return {
      {"quadruped_points",
       "quadruped.urdf",
       0u,
       {{"FL_foot", kContactPoint},
        {"FR_foot", kContactPoint},
        {"HL_foot", kContactPoint},
        {"HR_foot", kContactPoint}}},
      {"humanoid_feet_and_hand",
       "humanoid.urdf",
       0u,
       {{"L_foot", kContactRigid}, {"R_foot", kContactRigid}, {"L_hand", kContactPoint}}},
      {"arm_tool_rigid", "arm7.urdf", kFixedBase, {{"tool_tip", kContactRigid}}},
      // Contacts along one limb (the chest, an upper arm and its hand): rows that share
      // joints, which the contact solve pairs along their common path.
      {"humanoid_nested",
       "humanoid.urdf",
       0u,
       {{"L_foot", kContactRigid},
        {"R_foot", kContactPoint},
        {"chest", kContactPoint},
        {"L_upper_arm", kContactPoint},
        {"L_hand", kContactPoint}}},
  };
}

State scenario_state(const Model &m, unsigned seed) {
  std::mt19937 rng(seed);
  State x = random_state(m, rng, 0.5);
  return x;
}

int rows_of(const ContactSet &c) {
  int m = 0;
  for (int t : c.types) m += t;
  return m;
}

TEST(ContactDynamics, LambdaAsExternalWrenchesReproducesNuDot) {
  for (const Scenario &sc : scenarios()) {
    SCOPED_TRACE(sc.name);
    const Model m = load_urdf_file(model_path(sc.file), sc.load_flags);
    Workspace ws(m);
    for (unsigned seed : {1u, 2u, 3u}) {
      const State x = scenario_state(m, seed);
      const ContactSet cs = make_contacts(m, ws, x, sc.spec);
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        for (double Kp : {0.0, 30.0}) {
          const Contacts c = cs.view(flags, Kp, 0.5 * Kp);
          const int mr = rows_of(cs), n = m.num_dofs();
          VecX nu_dot(n), lambda(mr);
          ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu_dot, lambda));
          // λ as wrenches (points: zero torque) in the same axes.
          VecX w = VecX::Zero(6 * c.count);
          int row = 0;
          for (int k = 0; k < c.count; ++k) {
            w.segment(6 * k, cs.types[k]) = lambda.segment(row, cs.types[k]);
            row += cs.types[k];
          }
          const ExternalWrenches ext{c.count, cs.frames.data(), w.data(), flags};
          VecX nu_ext(n);
          aba(m, ws, x.H, x.s, x.v, x.r, x.tau, ext, nu_ext);
          EXPECT_LT((nu_ext - nu_dot).norm(), 1e-10 * std::max(1.0, nu_dot.norm()))
              << "flags " << flags << " Kp " << Kp;
        }
      }
    }
  }
}

// The body twist of frame F in its own axes along x(t), with s(t) = s + t r, H(t) = H exp(t v):
// the frame Jacobian at s(t) times ν (twists do not depend on H).
Vec6 frame_twist(const Model &m, Workspace &ws, const State &x, int frame, double t) {
  const int n = m.num_dofs();
  MatX J(6, n);
  const VecX s = x.s + t * x.r;
  frame_jacobian(m, ws, x.H, s, frame, J);
  VecX nu(n);
  if (!m.fixed_base) nu.head<6>() = x.v;
  nu.tail(m.num_joints()) = x.r;
  return J * nu;
}

TEST(ContactDynamics, ConstraintHoldsAtTheFrames) {
  // J_F ν̇ + J̇_F ν = the prescribed acceleration, with J̇_F ν from central differences of the
  // frame Jacobian in time (an independent path: frames.cpp) and J_F ν̇ exact.
  for (const Scenario &sc : scenarios()) {
    SCOPED_TRACE(sc.name);
    const Model m = load_urdf_file(model_path(sc.file), sc.load_flags);
    Workspace ws(m);
    const State x = scenario_state(m, 4u);
    const ContactSet cs = make_contacts(m, ws, x, sc.spec);
    const double Kp = 20.0, Kd = 7.0;
    const Contacts c = cs.view(kWrenchLocal, Kp, Kd);
    const int n = m.num_dofs();
    VecX nu_dot(n), lambda(rows_of(cs));
    ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu_dot, lambda));
    const double h = 1e-5;
    for (int k = 0; k < c.count; ++k) {
      const int f = cs.frames[k];
      MatX J(6, n);
      frame_jacobian(m, ws, x.H, x.s, f, J);
      const Vec6 Jdot_nu = (frame_twist(m, ws, x, f, h) - frame_twist(m, ws, x, f, -h)) / (2.0 * h);
      const Vec6 aF = J * nu_dot + Jdot_nu;  // d/dt ^F v_F
      const Vec6 vF = frame_twist(m, ws, x, f, 0.0);
      const Transform HF = frame_pose(m, ws, x.H, x.s, f);
      Transform Href;
      Href.R = Eigen::Map<const Mat4>(cs.refs.data() + 16 * k).topLeftCorner<3, 3>();
      Href.o = Eigen::Map<const Mat4>(cs.refs.data() + 16 * k).topRightCorner<3, 1>();
      if (cs.types[k] == kContactRigid) {
        const Vec6 target = -Kd * vF - Kp * log_se3(Href.inverse() * HF);
        EXPECT_LT((aF - target).norm(), 1e-7 * (1.0 + target.norm())) << "contact " << k;
      } else {
        // p̈ = R (a_lin + ω × v_lin) = −Kd ṗ − Kp (p − p_ref)
        const Vec3 p_dd = HF.R * (aF.head<3>() + vF.tail<3>().cross(vF.head<3>()));
        const Vec3 target = -Kd * (HF.R * vF.head<3>()) - Kp * (HF.o - Href.o);
        EXPECT_LT((p_dd - target).norm(), 1e-7 * (1.0 + target.norm())) << "contact " << k;
      }
    }
  }
}

TEST(ContactDynamics, WithoutContactsEqualsTheUnconstrainedFunctions) {
  for (const Scenario &sc : scenarios()) {
    SCOPED_TRACE(sc.name);
    const Model m = load_urdf_file(model_path(sc.file), sc.load_flags);
    Workspace ws(m);
    const State x = scenario_state(m, 5u);
    const int n = m.num_dofs(), N = m.state_dim(), nj = m.num_joints();
    Contacts none;
    VecX nu_c(n), nu(n), lambda(0);
    ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, none, nu_c, lambda));
    aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu);
    EXPECT_EQ(nu_c, nu);
    MatX A(N, N), B(N, nj), Ac(N, N), Bc(N, nj), dz(0, N), dw(0, nj);
    ASSERT_TRUE(contact_linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, none, Ac, Bc, dz, dw));
    linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, A, B);
    EXPECT_LT(rel_err(Ac, A), 1e-14);
    EXPECT_LT(rel_err(Bc, B), 1e-14);
  }
}

TEST(ContactLinearize, MatchesGeometricFiniteDifferences) {
  for (const Scenario &sc : scenarios()) {
    SCOPED_TRACE(sc.name);
    const Model m = load_urdf_file(model_path(sc.file), sc.load_flags);
    Workspace ws(m);
    const int N = m.state_dim(), nj = m.num_joints();
    double worst[4] = {0, 0, 0, 0};
    for (unsigned seed : {6u, 7u}) {
      State x = scenario_state(m, seed);
      if (seed == 7u && !m.fixed_base) x.H.R = rot_y(M_PI / 2);  // Euler angles singular
      const ContactSet cs = make_contacts(m, ws, x, sc.spec);
      const int mr = rows_of(cs);
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        for (double Kp : {0.0, 25.0}) {
          const Contacts c = cs.view(flags, Kp, 0.4 * Kp + 1.0);
          MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj);
          MatX Af(N, N), Bf(N, nj), dzf(mr, N), dwf(mr, nj);
          ASSERT_TRUE(contact_linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, c, A, B, dz, dw));
          ASSERT_TRUE(contact_linearize_finite_difference(m, ws, x.H, x.s, x.v, x.r, x.tau, c,
                                                          kFdEps, Af, Bf, dzf, dwf));
          const double e[4] = {rel_err(A, Af), rel_err(B, Bf), rel_err(dz, dzf), rel_err(dw, dwf)};
          for (int k = 0; k < 4; ++k) worst[k] = std::max(worst[k], e[k]);
          EXPECT_LT(e[0], 1e-6) << "A, flags " << flags << " Kp " << Kp;
          EXPECT_LT(e[1], 1e-6) << "B, flags " << flags << " Kp " << Kp;
          EXPECT_LT(e[2], 1e-6) << "dlambda/dz, flags " << flags << " Kp " << Kp;
          EXPECT_LT(e[3], 1e-6) << "dlambda/dw, flags " << flags << " Kp " << Kp;
        }
      }
    }
    RecordProperty(std::string(sc.name) + "_worst_A_B_dz_dw",
                   sci(worst[0]) + " " + sci(worst[1]) + " " + sci(worst[2]) + " " + sci(worst[3]));
  }
}

TEST(ContactLinearize, EveryInstructionSetGivesTheSameResult) {
  // contact_solve and contact_linearize run their small products compiled for AVX2+FMA where
  // the solver's loops do; the baseline build must agree to round-off.
  const std::vector<const char *> isas = wider_isas();
  if (isas.empty()) GTEST_SKIP() << "this processor has only the baseline instruction set";
  const RestoreAutomaticIsa restore;
  for (const char *isa : isas) {
    for (const Scenario &sc : scenarios()) {
      SCOPED_TRACE(std::string(sc.name) + " " + isa);
      const Model m = load_urdf_file(model_path(sc.file), sc.load_flags);
      Workspace ws(m);
      const int n = m.num_dofs(), N = m.state_dim(), nj = m.num_joints();
      const State x = scenario_state(m, 8u);
      const ContactSet cs = make_contacts(m, ws, x, sc.spec);
      const int mr = rows_of(cs);
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        const Contacts c = cs.view(flags, 25.0, 11.0);
        VecX nu[2] = {VecX(n), VecX(n)}, lam[2] = {VecX(mr), VecX(mr)};
        MatX A[2], B[2], dz[2], dw[2];
        for (int k = 0; k < 2; ++k) {
          ASSERT_TRUE(detail::force_solve_isa(k == 0 ? "baseline" : isa));
          A[k].resize(N, N), B[k].resize(N, nj), dz[k].resize(mr, N), dw[k].resize(mr, nj);
          ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu[k], lam[k]));
          ASSERT_TRUE(
              contact_linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, c, A[k], B[k], dz[k], dw[k]));
        }
        EXPECT_LT(rel_err(nu[1], nu[0]), 1e-12);
        EXPECT_LT(rel_err(lam[1], lam[0]), 1e-12);
        EXPECT_LT(rel_err(A[1], A[0]), 1e-12);
        EXPECT_LT(rel_err(B[1], B[0]), 1e-12);
        EXPECT_LT(rel_err(dz[1], dz[0]), 1e-12);
        EXPECT_LT(rel_err(dw[1], dw[0]), 1e-12);
      }
    }
  }
}

TEST(ContactDynamics, QuadrupedStandingOnItsFeetStaysStill) {
  // Four point feet, base at rest; τ from inverse dynamics with contact forces that balance the
  // base (min-norm): the constrained dynamics must give ν̇ = 0 and return those forces.
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  Workspace ws(m);
  const int n = m.num_dofs(), nj = m.num_joints();
  State x;
  x.s = VecX::Zero(nj);
  for (int leg = 0; leg < 4; ++leg) {
    x.s[3 * leg + 1] = 0.6;
    x.s[3 * leg + 2] = -1.2;
  }
  x.r = VecX::Zero(nj);
  x.H.o = Vec3(0.2, -0.1, 0.4);
  x.H.R = rot_z(0.3);
  ContactSet cs = make_contacts(m, ws, x,
                                {{"FL_foot", kContactPoint},
                                 {"FR_foot", kContactPoint},
                                 {"HL_foot", kContactPoint},
                                 {"HR_foot", kContactPoint}});
  VecX G(n);
  rnea(m, ws, x.H, x.s, x.v, x.r, VecX::Zero(n), G);
  // J_cᵀ (Mixed: world axes) from the frame Jacobians: J_cᵀ = J_linᵀ R_Fᵀ.
  MatX JcT(n, 12);
  for (int k = 0; k < 4; ++k) {
    MatX J(6, n);
    frame_jacobian(m, ws, x.H, x.s, cs.frames[k], J);
    const Mat3 R = frame_pose(m, ws, x.H, x.s, cs.frames[k]).R;
    JcT.middleCols(3 * k, 3) = (R * J.topRows<3>()).transpose();
  }
  const VecX f = JcT.topRows(6).completeOrthogonalDecomposition().solve(G.head<6>());
  x.tau = (G - JcT * f).tail(nj);
  VecX nu_dot(n), lambda(12);
  ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, cs.view(kWrenchMixed, 0.0, 0.0),
                               nu_dot, lambda));
  EXPECT_LT(nu_dot.norm(), 1e-10) << nu_dot.transpose();
  EXPECT_LT((lambda - f).norm(), 1e-9 * f.norm()) << lambda.transpose() << "\n" << f.transpose();
  EXPECT_NEAR(lambda[2] + lambda[5] + lambda[8] + lambda[11], m.total_mass() * 9.81,
              1e-9 * m.total_mass());
}

TEST(ContactDynamics, RedundantContactsAreReportedNotSolved) {
  // Two rigid contacts on one frame, or a point and a rigid contact on one foot: J_c has
  // dependent rows; contact_dynamics returns false naming the second contact.
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  Workspace ws(m);
  const State x = scenario_state(m, 8u);
  for (const auto &spec : std::vector<std::vector<std::pair<const char *, int>>>{
           {{"FL_foot", kContactRigid}, {"FL_foot", kContactRigid}},
           {{"FL_foot", kContactRigid}, {"FL_foot", kContactPoint}},
           {{"FL_foot", kContactPoint}, {"FL_shank", kContactRigid}}}) {
    const ContactSet cs = make_contacts(m, ws, x, spec);
    VecX nu_dot(m.num_dofs()), lambda(rows_of(cs));
    const Outcome o = contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau,
                                       cs.view(kWrenchLocal, 0.0, 0.0), nu_dot, lambda);
    EXPECT_EQ(o.kind, Outcome::Kind::dependent_contact_row);
    EXPECT_EQ(o.index, 1);
  }
}

TEST(ContactDynamics, MoreRowsThanTheWorkspaceHoldsThrowInsteadOfOverrunning) {
  // Four rigid contacts on a fixed-base quadruped: 24 rows > n = 12, beyond any workspace.
  const Model m = load_urdf_file(model_path("quadruped.urdf"), kFixedBase);
  Workspace ws(m);
  const State x = scenario_state(m, 3u);
  const ContactSet cs = make_contacts(m, ws, x,
                                      {{"FL_foot", kContactRigid},
                                       {"FR_foot", kContactRigid},
                                       {"HL_foot", kContactRigid},
                                       {"HR_foot", kContactRigid}});
  VecX nu_dot(m.num_dofs()), lambda(rows_of(cs));
  try {
    contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, cs.view(kWrenchLocal, 0.0, 0.0), nu_dot,
                     lambda);
    ADD_FAILURE() << "no exception for 24 rows in a workspace of 12";
  } catch (const Error &e) {
    EXPECT_EQ(e.status(), Status::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("24 rows"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace geolin::test
