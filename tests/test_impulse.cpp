// The impact map (impulse.cpp) against independent oracles: the frame Jacobians of frames.cpp
// (the contacts stop: J_c ν⁺ = −e J_c ν⁻), the mass matrix of crba.cpp (M Δν = J_cᵀ Λ), the
// kinetic energy of energy.cpp (never gained; kept when e = 1), a second impact of contacts
// already at rest, nc = 0, and geometric central finite differences through x exp(z) for
// impulse_linearize.
#include <gtest/gtest.h>

#include <random>

#include "geolin/algorithms.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

struct ImpactCase {
  const char *name, *file;
  unsigned load_flags;
  std::vector<std::pair<const char *, int>> spec;
};

// Landing on four points, on two soles (rigid) plus a hand, and a fixed-base arm whose tool
// hits a wall rigidly.
std::vector<ImpactCase> impact_cases() {
  return {
      {"quadruped_points",
       "quadruped.urdf",
       0u,
       {{"FL_foot", kContactPoint},
        {"FR_foot", kContactPoint},
        {"HL_foot", kContactPoint},
        {"HR_foot", kContactPoint}}},
      {"humanoid_soles_and_hand",
       "humanoid.urdf",
       0u,
       {{"L_foot", kContactRigid}, {"R_foot", kContactRigid}, {"L_hand", kContactPoint}}},
      {"arm_tool_rigid", "arm7.urdf", kFixedBase, {{"tool_tip", kContactRigid}}},
  };
}

struct Landing {
  Model m;
  std::vector<int> frames, types;
  int rows = 0;
  Contacts view(unsigned flags) const {
    Contacts c;
    c.count = static_cast<int>(frames.size());
    c.frames = frames.data();
    c.types = types.data();
    c.flags = flags;
    return c;
  }
};

Landing landing(const ImpactCase &ic) {
  Landing l{load_urdf_file(model_path(ic.file), ic.load_flags), {}, {}, 0};
  for (const auto &[name, type] : ic.spec) {
    l.frames.push_back(l.m.frame_index(name));
    EXPECT_GE(l.frames.back(), 0) << name;
    l.types.push_back(type);
    l.rows += type;
  }
  return l;
}

VecX nu_of(const Model &m, const Vec6 &v, const VecX &r) {
  VecX nu(m.num_dofs());
  if (!m.fixed_base) nu.head<6>() = v;
  nu.tail(m.num_joints()) = r;
  return nu;
}

// J_c (m x n) from frames.cpp: the frame Jacobians' rows (a point: the linear rows), turned to
// world-aligned axes by R_F for Mixed.
MatX contact_jacobian(const Landing &l, Workspace &ws, const State &x, unsigned flags) {
  const int n = l.m.num_dofs();
  MatX Jc(l.rows, n), J(6, n);
  int row = 0;
  for (size_t k = 0; k < l.frames.size(); ++k) {
    frame_jacobian(l.m, ws, x.H, x.s, l.frames[k], J);
    if (flags == kWrenchMixed) {
      const Mat3 R = frame_pose(l.m, ws, x.H, x.s, l.frames[k]).R;
      J.topRows<3>() = R * J.topRows<3>().eval();
      J.bottomRows<3>() = R * J.bottomRows<3>().eval();
    }
    Jc.middleRows(row, l.types[k]) = J.topRows(l.types[k]);
    row += l.types[k];
  }
  return Jc;
}

State impact_state(const Model &m, unsigned seed) {
  std::mt19937 rng(seed);
  State x = random_state(m, rng, 1.0);
  if (!m.fixed_base && seed % 3 == 0) x.H.R = rot_y(seed % 2 ? M_PI / 2 : -M_PI / 2);
  return x;
}

TEST(Impulse, ContactsStopAndMomentumJumpsByTheImpulse) {
  for (const ImpactCase &ic : impact_cases()) {
    SCOPED_TRACE(ic.name);
    const Landing l = landing(ic);
    Workspace ws(l.m);
    const int n = l.m.num_dofs();
    for (unsigned seed : {1u, 2u, 3u}) {
      const State x = impact_state(l.m, seed);
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        for (double e : {0.0, 0.4, 1.0}) {
          VecX nu_p(n), Lam(l.rows);
          ASSERT_TRUE(impulse(l.m, ws, x.H, x.s, x.v, x.r, l.view(flags), e, nu_p, Lam));
          const VecX nu_m = nu_of(l.m, x.v, x.r);
          const MatX Jc = contact_jacobian(l, ws, x, flags);
          const VecX Jm = Jc * nu_m, Jp = Jc * nu_p;
          EXPECT_LT((Jp + e * Jm).norm(), 1e-11 * (1.0 + Jm.norm()))
              << "flags " << flags << " e " << e;
          MatX M(n, n);
          crba(l.m, ws, x.s, M);
          const VecX lhs = M * (nu_p - nu_m), rhs = Jc.transpose() * Lam;
          EXPECT_LT((lhs - rhs).norm(), 1e-10 * (1.0 + rhs.norm()))
              << "flags " << flags << " e " << e;
        }
      }
    }
  }
}

TEST(Impulse, KineticEnergyIsNeverGainedAndKeptWhenPerfectlyElastic) {
  for (const ImpactCase &ic : impact_cases()) {
    SCOPED_TRACE(ic.name);
    const Landing l = landing(ic);
    Workspace ws(l.m);
    const int n = l.m.num_dofs(), o = l.m.joint_offset(), nj = l.m.num_joints();
    for (unsigned seed : {4u, 5u, 6u}) {
      const State x = impact_state(l.m, seed);
      const double T_minus = kinetic_energy(l.m, ws, x.s, x.v, x.r);
      for (double e : {0.0, 0.3, 0.8, 1.0}) {
        VecX nu_p(n), Lam(l.rows);
        ASSERT_TRUE(impulse(l.m, ws, x.H, x.s, x.v, x.r, l.view(kWrenchMixed), e, nu_p, Lam));
        const Vec6 vp = l.m.fixed_base ? Vec6::Zero() : Vec6(nu_p.head<6>());
        const double T_plus = kinetic_energy(l.m, ws, x.s, vp, nu_p.segment(o, nj));
        if (e == 1.0) {
          EXPECT_NEAR(T_plus, T_minus, 1e-11 * T_minus);
        } else {
          EXPECT_LT(T_plus, T_minus * (1.0 + 1e-13)) << "e " << e;
        }
        if (e == 0.0) {  // a plastic impact with moving feet loses energy
          EXPECT_LT(T_plus, T_minus);
        }
      }
    }
  }
}

TEST(Impulse, ContactsAlreadyAtRestFeelNoImpulse) {
  // After a plastic impact the contacts are at rest (J_c ν⁺ = 0): a second impact of the same
  // contacts, with any restitution, leaves ν alone.
  for (const ImpactCase &ic : impact_cases()) {
    SCOPED_TRACE(ic.name);
    const Landing l = landing(ic);
    Workspace ws(l.m);
    const int n = l.m.num_dofs(), o = l.m.joint_offset(), nj = l.m.num_joints();
    State x = impact_state(l.m, 7u);
    VecX nu_p(n), Lam(l.rows), nu_pp(n), Lam2(l.rows);
    ASSERT_TRUE(impulse(l.m, ws, x.H, x.s, x.v, x.r, l.view(kWrenchLocal), 0.0, nu_p, Lam));
    if (!l.m.fixed_base) x.v = nu_p.head<6>();
    x.r = nu_p.segment(o, nj);
    ASSERT_TRUE(impulse(l.m, ws, x.H, x.s, x.v, x.r, l.view(kWrenchLocal), 0.7, nu_pp, Lam2));
    EXPECT_LT(Lam2.norm(), 1e-10 * Lam.norm());
    EXPECT_LT((nu_pp - nu_p).norm(), 1e-12 * (1.0 + nu_p.norm()));
  }
}

TEST(Impulse, WithoutContactsNothingChangesExactly) {
  for (const ImpactCase &ic : impact_cases()) {
    SCOPED_TRACE(ic.name);
    const Landing l = landing(ic);
    Workspace ws(l.m);
    const int n = l.m.num_dofs(), N = l.m.state_dim();
    const State x = impact_state(l.m, 8u);
    Contacts none;
    VecX nu_p(n), Lam(0);
    ASSERT_TRUE(impulse(l.m, ws, x.H, x.s, x.v, x.r, none, 0.5, nu_p, Lam));
    EXPECT_EQ(nu_p, nu_of(l.m, x.v, x.r));
    MatX A = MatX::Constant(N, N, 3.0), dz(0, N);
    ASSERT_TRUE(impulse_linearize(l.m, ws, x.H, x.s, x.v, x.r, none, 0.5, A, dz));
    EXPECT_EQ(A, MatX::Identity(N, N));
  }
}

TEST(ImpulseLinearize, MatchesGeometricFiniteDifferences) {
  for (const ImpactCase &ic : impact_cases()) {
    SCOPED_TRACE(ic.name);
    const Landing l = landing(ic);
    Workspace ws(l.m);
    const int n = l.m.num_dofs(), N = l.m.state_dim();
    double worst_A = 0.0, worst_dz = 0.0;
    for (unsigned seed : {9u, 10u, 12u}) {  // 12: base pitched +90 degrees
      const State x = impact_state(l.m, seed);
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        for (double e : {0.0, 0.6}) {
          const Contacts c = l.view(flags);
          MatX A(N, N), dz(l.rows, N);
          ASSERT_TRUE(impulse_linearize(l.m, ws, x.H, x.s, x.v, x.r, c, e, A, dz));
          // The pose rows keep z exactly.
          EXPECT_EQ(A.topRows(n), MatX::Identity(N, N).topRows(n));
          MatX Af(n, N), dzf(l.rows, N);
          for (int k = 0; k < N; ++k) {
            VecX nu_p(n), nu_m(n), L_p(l.rows), L_m(l.rows);
            const State yp = perturbed(l.m, x, k, kFdEps), ym = perturbed(l.m, x, k, -kFdEps);
            ASSERT_TRUE(impulse(l.m, ws, yp.H, yp.s, yp.v, yp.r, c, e, nu_p, L_p));
            ASSERT_TRUE(impulse(l.m, ws, ym.H, ym.s, ym.v, ym.r, c, e, nu_m, L_m));
            Af.col(k) = (nu_p - nu_m) / (2.0 * kFdEps);
            dzf.col(k) = (L_p - L_m) / (2.0 * kFdEps);
          }
          const double eA = rel_err(A.bottomRows(n), Af), ed = rel_err(dz, dzf);
          worst_A = std::max(worst_A, eA);
          worst_dz = std::max(worst_dz, ed);
          EXPECT_LT(eA, 1e-6) << "seed " << seed << " flags " << flags << " e " << e;
          EXPECT_LT(ed, 1e-6) << "seed " << seed << " flags " << flags << " e " << e;
        }
      }
    }
    RecordProperty(std::string(ic.name) + "_worst_A_dz", sci(worst_A) + " " + sci(worst_dz));
  }
}

}  // namespace
}  // namespace geolin::test
