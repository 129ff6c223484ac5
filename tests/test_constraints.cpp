// Constraint sets (constrained_dynamics.cpp, constrained_linearize.cpp, constrained_impulse.cpp,
// constraint_rows.cpp)
// against independent oracles: geometric central finite differences of the dynamics, steps and
// impact maps through x exp(z) for every linearization; the rows themselves (J_c ν̇ + k = −mu λ at
// the solution); the contact functions for contacts-only sets.
#include <gtest/gtest.h>

#include <random>

#include "geolin/constraints.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

Constraint contact(const Model &m, const char *frame, int type) {
  const Constraint c = Constraint::contact(m.frame_index(frame), type);
  EXPECT_GE(c.frame, 0) << frame;
  return c;
}

Constraint loop(const Model &m, const char *a, const char *b, int type) {
  const Constraint c = Constraint::loop(m.frame_index(a), m.frame_index(b), type);
  EXPECT_GE(c.frame, 0) << a;
  EXPECT_GE(c.frame_b, 0) << b;
  return c;
}

Constraint coupling(const Model &m, const char *joint, const char *source, double ratio,
                    double offset) {
  const Constraint c =
      Constraint::coupling(m.joint_index(joint), m.joint_index(source), ratio, offset);
  EXPECT_GE(c.joint, 0) << joint;
  EXPECT_GE(c.source, 0) << source;
  return c;
}

Constraint wheel(const Model &m, const char *frame, const Vec3 &axis, double radius) {
  const Constraint c = Constraint::wheel(m.frame_index(frame), axis.normalized(), radius);
  EXPECT_GE(c.frame, 0) << frame;
  return c;
}

// A named scenario: a model, a set and the regularization it is solved with.
struct Scenario {
  const char *name;
  Model m;
  ConstraintSet set;
  double mu = 0.0;
};

ConstraintSet make_set(std::vector<Constraint> items, double Kp, double Kd, unsigned flags) {
  ConstraintSet set;
  set.items = std::move(items);
  set.Kp = Kp;
  set.Kd = Kd;
  set.flags = flags;
  set.update();
  return set;
}

std::vector<Scenario> scenarios() {
  std::vector<Scenario> out;
  {
    Model m = load_urdf_file(model_path("quadruped.urdf"));
    // Every kind at once: a foot held, a foot on a wheel, two hind feet tied, two knees coupled.
    std::vector<Constraint> items = {
        contact(m, "FL_foot", kContactPoint), wheel(m, "FR_foot", Vec3(0.1, 1.0, 0.05), 0.04),
        loop(m, "HL_foot", "HR_foot", kLoopPoint), coupling(m, "HL_KFE", "FL_KFE", 0.7, 0.1)};
    for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
      Scenario s{flags == kWrenchLocal ? "quadruped_all_local" : "quadruped_all_mixed", m,
                 make_set(items, 20.0, 5.0, flags)};
      s.set.items[0].has_ref = true;
      s.set.items[0].ref = Transform{rot_z(0.2), Vec3(0.3, 0.2, -0.4)};
      out.push_back(s);
    }
  }
  {
    Model m = load_urdf_file(model_path("humanoid.urdf"));
    std::vector<Constraint> items = {loop(m, "L_hand", "R_hand", kLoopRigid),
                                     loop(m, "L_foot", "R_foot", kLoopHinge)};
    out.push_back({"humanoid_rigid_hinge_local", m, make_set(items, 30.0, 4.0, kWrenchLocal)});
    out.push_back({"humanoid_rigid_hinge_mixed", m, make_set(items, 30.0, 4.0, kWrenchMixed)});
    std::vector<Constraint> rigid = {contact(m, "L_foot", kContactRigid),
                                     loop(m, "L_hand", "R_foot", kLoopPoint)};
    Scenario s{"humanoid_sole_and_loop_regularized", m, make_set(rigid, 10.0, 2.0, kWrenchMixed),
               1e-3};
    s.set.items[0].has_ref = true;
    s.set.items[0].ref = Transform{rot_x(0.3), Vec3(0.1, 0.1, -0.9)};
    out.push_back(s);
  }
  {
    Model m = load_urdf_file(model_path("arm7.urdf"), kFixedBase);
    const int nj = m.num_joints();
    std::vector<Constraint> items;
    items.push_back(Constraint::coupling(nj - 1, 1, -1.5, 0.2));
    items.push_back(wheel(m, "tool_tip", Vec3(1.0, 0.0, 0.0), 0.05));
    out.push_back({"arm_coupling_and_wheel", m, make_set(items, 4.0, 1.0, kWrenchLocal)});
  }
  {
    // The test robots of models/: the four-bar closed by its POINT loop, the gripper's <mimic>
    // finger as a coupling, the quadruped on four wheels, the two-wheeled cart (its coaxial wheels'
    // lateral rows are identical: regularized).
    Model bar = load_urdf_file(model_path("four_bar.urdf"), kFixedBase);
    out.push_back(
        {"four_bar_point_loop", bar,
         make_set({loop(bar, "loop_a", "loop_b", kLoopPoint)}, 50.0, 10.0, kWrenchLocal)});
    Model grip = load_urdf_file(model_path("gripper.urdf"), kFixedBase);
    std::vector<Constraint> mimics;
    for (int i = 1; i <= grip.n_B; ++i)
      if (!grip.mimic_of[i].empty()) {
        mimics.push_back(Constraint::coupling(i - 1, grip.joint_index(grip.mimic_of[i]),
                                              grip.mimic_multiplier[i], grip.mimic_offset[i]));
      }
    EXPECT_EQ(mimics.size(), 1u);
    out.push_back({"gripper_mimic", grip, make_set(mimics, 10.0, 2.0, kWrenchLocal)});
    Model wq = load_urdf_file(model_path("quadruped_wheels.urdf"));
    std::vector<Constraint> wheels;
    for (const char *w : {"FL_wheel", "FR_wheel", "HL_wheel", "HR_wheel"})
      wheels.push_back(wheel(wq, w, Vec3::UnitY(), 0.05));
    out.push_back({"quadruped_on_wheels", wq, make_set(wheels, 30.0, 6.0, kWrenchMixed)});
    Model cart = load_urdf_file(model_path("cart.urdf"));
    Scenario s{"cart_regularized", cart,
               make_set({wheel(cart, "left_wheel", Vec3::UnitY(), 0.1),
                         wheel(cart, "right_wheel", Vec3::UnitY(), 0.1)},
                        20.0, 4.0, kWrenchLocal),
               1e-4};
    out.push_back(s);
  }
  return out;
}

State some_state(const Model &m, unsigned seed) {
  std::mt19937 rng(seed);
  State x;
  static_cast<geolin::State &>(x) = random_state(m, rng, 0.8);
  x.tau = random_state(m, rng, 2.0).tau;
  return x;
}

// ν̇ and λ of the set at x.
void dynamics_at(const Scenario &sc, Workspace &ws, const State &x, VecX &nu_dot, VecX &lambda) {
  nu_dot.resize(sc.m.num_dofs());
  lambda.resize(sc.set.rows());
  const Outcome o =
      constrained_dynamics(sc.m, ws, x.H, x.s, x.v, x.r, x.tau, sc.set, sc.mu, nu_dot, lambda);
  ASSERT_TRUE(o.ok()) << sc.name;
}

class ConstraintScenario : public testing::TestWithParam<int> {
 protected:
  Scenario sc = scenarios()[GetParam()];
};

std::string scenario_name(const testing::TestParamInfo<int> &info) {
  return scenarios()[info.param].name;
}

// The solution satisfies the equations of motion with its forces: M ν̇ + C ν + G = S τ + J_cᵀ λ
// (inverse dynamics). (That it satisfies the rows is checked by the closure, slip and rolling
// tests of test_constrained_motion.cpp.)
TEST_P(ConstraintScenario, SolutionSatisfiesDynamicsAndRows) {
  Workspace ws(sc.m);
  const State x = some_state(sc.m, 3);
  VecX nu_dot, lambda;
  dynamics_at(sc, ws, x, nu_dot, lambda);
  // M ν̇ + h − S τ = J_cᵀ λ, the dynamics' sparse solve (J_c as terms along the paths) against
  // J_c written out row by row from the frames' Jacobians (ws.cs_J of the reference
  // linearization).
  VecX id(sc.m.num_dofs());
  rnea(sc.m, ws, x.H, x.s, x.v, x.r, nu_dot, id);
  id.tail(sc.m.num_joints()) -= x.tau;
  const int N = sc.m.state_dim(), nj = sc.m.num_joints(), m = sc.set.rows();
  MatX A(N, N), B(N, nj), dlz(m, N), dlw(m, nj);
  ASSERT_TRUE(constrained_linearize_reference(sc.m, ws, x.H, x.s, x.v, x.r, x.tau, sc.set, sc.mu, A,
                                              B, dlz, dlw)
                  .ok());
  const MatX J = ws.cs_J.topRows(m);
  const VecX Jtl = J.transpose() * lambda;
  EXPECT_LT(rel_err(id, Jtl), 1e-9) << sc.name;
}

// The impact map's jump and impulse satisfy (K14) with J_c written out row by row (the reference
// linearization's ws.cs_J) and M from crba: M Δν = J_cᵀ Λ and J_c ν⁺ + E J_c ν⁻ = −mu Λ, E = e
// on contact rows and a wheel's normal row, 0 on loops and couplings.
TEST_P(ConstraintScenario, ImpulseSatisfiesTheImpactMap) {
  Workspace ws(sc.m);
  const int n = sc.m.num_dofs(), N = sc.m.state_dim(), nj = sc.m.num_joints(), m = sc.set.rows();
  const State x = some_state(sc.m, 7);
  const double e = 0.4;
  VecX nu_plus(n), L(m);
  ASSERT_TRUE(constrained_impulse(sc.m, ws, x.H, x.s, x.v, x.r, sc.set, sc.mu, e, nu_plus, L).ok());
  MatX A(N, N), B(N, nj), dlz(m, N), dlw(m, nj);
  ASSERT_TRUE(constrained_linearize_reference(sc.m, ws, x.H, x.s, x.v, x.r, x.tau, sc.set, sc.mu, A,
                                              B, dlz, dlw)
                  .ok());
  const MatX J = ws.cs_J.topRows(m);
  MatX M(n, n);
  crba(sc.m, ws, x.s, M);
  VecX nu_minus(n);
  nu_minus << (sc.m.fixed_base ? VecX() : VecX(x.v)), x.r;
  EXPECT_LT(rel_err(M * (nu_plus - nu_minus), J.transpose() * L), 1e-9) << sc.name;
  VecX E(m);
  int row0 = 0;
  for (const Constraint &c : sc.set.items) {
    for (int k = 0; k < c.rows(); ++k) {
      const bool bounces =
          c.kind == Constraint::Kind::contact || (c.kind == Constraint::Kind::wheel && k == 2);
      E[row0 + k] = bounces ? e : 0.0;
    }
    row0 += c.rows();
  }
  const VecX rows = J * nu_plus + E.asDiagonal() * (J * nu_minus) + sc.mu * L;
  EXPECT_LT(rows.cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, (J * nu_minus).cwiseAbs().maxCoeff()))
      << sc.name;
}

// A, B, ∂λ/∂z, ∂λ/∂w against central differences of constrained_dynamics through x exp(z).
TEST_P(ConstraintScenario, LinearizationMatchesFiniteDifferences) {
  Workspace ws(sc.m);
  const int n = sc.m.num_dofs(), N = sc.m.state_dim(), nj = sc.m.num_joints(), m = sc.set.rows();
  for (unsigned seed : {1u, 2u}) {
    const State x = some_state(sc.m, seed);
    MatX A(N, N), B(N, nj), dlz(m, N), dlw(m, nj);
    const Outcome o =
        constrained_linearize(sc.m, ws, x.H, x.s, x.v, x.r, x.tau, sc.set, sc.mu, A, B, dlz, dlw);
    ASSERT_TRUE(o.ok()) << sc.name;
    MatX Fd(n, N + nj), Ld(m, N + nj);
    for (int k = 0; k < N + nj; ++k) {
      VecX np, lp, nm, lm;
      dynamics_at(sc, ws, perturbed(sc.m, x, k, kFdEps), np, lp);
      dynamics_at(sc, ws, perturbed(sc.m, x, k, -kFdEps), nm, lm);
      Fd.col(k) = (np - nm) / (2 * kFdEps);
      Ld.col(k) = (lp - lm) / (2 * kFdEps);
    }
    EXPECT_LT(rel_err(A.bottomRows(n), Fd.leftCols(N)), 1e-6) << sc.name << " A, seed " << seed;
    EXPECT_LT(rel_err(B.bottomRows(n), Fd.rightCols(nj)), 1e-6) << sc.name << " B";
    EXPECT_LT(rel_err(dlz, Ld.leftCols(N)), 1e-6) << sc.name << " dlambda_dz";
    EXPECT_LT(rel_err(dlw, Ld.rightCols(nj)), 1e-6) << sc.name << " dlambda_dw";
    EXPECT_TRUE(B.topRows(n).isZero(0.0));
  }
}

// The linearization along the paths ((K17), (K18), the innovations of J_cᵀ) equals the reference
// that writes J_c, ∂c/∂z and M⁻¹ J_cᵀ out (docs/constraints.md §4), to round-off, on every set
// with and without gains.
TEST_P(ConstraintScenario, PathLinearizationEqualsTheReference) {
  Workspace ws(sc.m);
  const int N = sc.m.state_dim(), nj = sc.m.num_joints(), m = sc.set.rows();
  for (const auto &[Kp, Kd] : {std::pair{0.0, 0.0}, std::pair{40.0, 9.0}}) {
    ConstraintSet set = sc.set;
    set.Kp = set.Kp != 0.0 ? set.Kp : Kp;
    set.Kd = set.Kd != 0.0 ? set.Kd : Kd;
    set.update();
    for (unsigned seed : {4u, 5u}) {
      const State x = some_state(sc.m, seed);
      MatX A(N, N), B(N, nj), dlz(m, N), dlw(m, nj), A0(N, N), B0(N, nj), dlz0(m, N), dlw0(m, nj);
      ASSERT_TRUE(
          constrained_linearize(sc.m, ws, x.H, x.s, x.v, x.r, x.tau, set, sc.mu, A, B, dlz, dlw)
              .ok());
      ASSERT_TRUE(constrained_linearize_reference(sc.m, ws, x.H, x.s, x.v, x.r, x.tau, set, sc.mu,
                                                  A0, B0, dlz0, dlw0)
                      .ok());
      EXPECT_LT(rel_err(A, A0), 1e-11) << sc.name << " A, Kp " << Kp << ", seed " << seed;
      EXPECT_LT(rel_err(B, B0), 1e-11) << sc.name << " B";
      EXPECT_LT(rel_err(dlz, dlz0), 1e-11) << sc.name << " dlambda_dz";
      EXPECT_LT(rel_err(dlw, dlw0), 1e-11) << sc.name << " dlambda_dw";
    }
  }
}

// The impact map's A_imp and ∂Λ/∂z against central differences of constrained_impulse.
TEST_P(ConstraintScenario, ImpulseLinearizationMatchesFiniteDifferences) {
  Workspace ws(sc.m);
  const int n = sc.m.num_dofs(), N = sc.m.state_dim(), m = sc.set.rows();
  const State x = some_state(sc.m, 5);
  const auto impact = [&](const State &y, VecX &nu, VecX &L) {
    nu.resize(n);
    L.resize(m);
    const Outcome o = constrained_impulse(sc.m, ws, y.H, y.s, y.v, y.r, sc.set, sc.mu, 0.4, nu, L);
    ASSERT_TRUE(o.ok()) << sc.name;
  };
  MatX A(N, N), dL(m, N);
  ASSERT_TRUE(
      constrained_impulse_linearize(sc.m, ws, x.H, x.s, x.v, x.r, sc.set, sc.mu, 0.4, A, dL).ok());
  MatX Fd(n, N), Ld(m, N);
  for (int k = 0; k < N; ++k) {
    VecX np, lp, nm, lm;
    impact(perturbed(sc.m, x, k, kFdEps), np, lp);
    impact(perturbed(sc.m, x, k, -kFdEps), nm, lm);
    Fd.col(k) = (np - nm) / (2 * kFdEps);
    Ld.col(k) = (lp - lm) / (2 * kFdEps);
  }
  EXPECT_LT(rel_err(A.bottomRows(n), Fd), 1e-6) << sc.name;
  EXPECT_LT(rel_err(dL, Ld), 1e-6) << sc.name;
  EXPECT_TRUE(A.topRows(n).isApprox(MatX::Identity(N, N).topRows(n)));
}

// The step's A_d, B_d and ∂λ/∂(z, w) against central differences of constrained_step through
// x exp(z) and log(x₀⁻¹ x₁), for the three methods, with joint feedback on the implicit one.
TEST_P(ConstraintScenario, StepLinearizationMatchesFiniteDifferences) {
  Workspace ws(sc.m);
  const int N = sc.m.state_dim(), nj = sc.m.num_joints(), m = sc.set.rows();
  const State x = some_state(sc.m, 9);
  const VecX kp = VecX::Constant(nj, 3.0), kd = VecX::Constant(nj, 0.5), sref = x.s * 0.5;
  for (StepMethod method :
       {StepMethod::SemiImplicitEuler, StepMethod::Rk4, StepMethod::ImplicitEuler}) {
    JointFeedback fb;
    if (method == StepMethod::ImplicitEuler) fb = {kp.data(), kd.data(), sref.data(), nullptr};
    const double h = 2e-3;
    const auto step_at = [&](const State &y, State &next, VecX &lambda) {
      next = y;
      lambda.resize(m);
      const Outcome o = constrained_step(sc.m, ws, method, h, y.H, y.s, y.v, y.r, y.tau, sc.set,
                                         sc.mu, next.H, next.s, next.v, next.r, lambda, fb);
      ASSERT_TRUE(o.ok()) << sc.name;
    };
    MatX Ad(N, N), Bd(N, nj), dlz(m, N), dlw(m, nj);
    ASSERT_TRUE(constrained_step_linearize(sc.m, ws, method, h, x.H, x.s, x.v, x.r, x.tau, sc.set,
                                           sc.mu, Ad, Bd, dlz, dlw, fb)
                    .ok());
    State x1;
    VecX l1;
    step_at(x, x1, l1);
    MatX Fd(N, N + nj), Ld(m, N + nj);
    for (int k = 0; k < N + nj; ++k) {
      State p, q;
      VecX lp, lq, zp(N), zq(N);
      step_at(perturbed(sc.m, x, k, kFdEps), p, lp);
      step_at(perturbed(sc.m, x, k, -kFdEps), q, lq);
      state_difference(sc.m, x1.H, x1.s, x1.v, x1.r, p.H, p.s, p.v, p.r, zp);
      state_difference(sc.m, x1.H, x1.s, x1.v, x1.r, q.H, q.s, q.v, q.r, zq);
      Fd.col(k) = (zp - zq) / (2 * kFdEps);
      Ld.col(k) = (lp - lq) / (2 * kFdEps);
    }
    const int mi = static_cast<int>(method);
    EXPECT_LT(rel_err(Ad, Fd.leftCols(N)), 1e-6) << sc.name << " method " << mi;
    EXPECT_LT(rel_err(Bd, Fd.rightCols(nj)), 1e-6) << sc.name << " method " << mi;
    EXPECT_LT(rel_err(dlz, Ld.leftCols(N)), 1e-6) << sc.name << " method " << mi;
    EXPECT_LT(rel_err(dlw, Ld.rightCols(nj)), 1e-6) << sc.name << " method " << mi;
  }
}

// A set of contacts only is the contact functions' own: the same numbers, bit for bit.
TEST(ConstraintSets, ContactsOnlyEqualTheContactFunctions) {
  std::mt19937 rng(4);
  State x0;
  Model probe = load_urdf_file(model_path("quadruped.urdf"));
  static_cast<geolin::State &>(x0) = random_state(probe, rng, 0.5);
  x0.tau = random_state(probe, rng, 1.0).tau;
  const Held h = held("quadruped.urdf", 0u, kQuadrupedFeet, x0);
  ConstraintSet set;
  for (size_t k = 0; k < h.frames.size(); ++k) {
    Mat4 T;
    for (int e = 0; e < 16; ++e) T(e % 4, e / 4) = h.refs[16 * k + e];
    set.items.push_back(Constraint::contact(
        h.frames[k], h.types[k], Transform{T.topLeftCorner<3, 3>(), T.topRightCorner<3, 1>()}));
  }
  set.Kp = 10.0;
  set.Kd = 3.0;
  set.flags = kWrenchMixed;
  set.update();
  Contacts k = h.view(kWrenchMixed, 10.0, 3.0);
  k.mu = 1e-6;
  Workspace ws(h.m);
  const int n = h.m.num_dofs(), N = h.m.state_dim(), nj = h.m.num_joints(), m = h.rows;
  VecX a1(n), a2(n), l1(m), l2(m);
  ASSERT_TRUE(contact_dynamics(h.m, ws, x0.H, x0.s, x0.v, x0.r, x0.tau, k, a1, l1).ok());
  ASSERT_TRUE(
      constrained_dynamics(h.m, ws, x0.H, x0.s, x0.v, x0.r, x0.tau, set, 1e-6, a2, l2).ok());
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(l1, l2);
  MatX A1(N, N), B1(N, nj), A2(N, N), B2(N, nj), z1(m, N), z2(m, N), w1(m, nj), w2(m, nj);
  ASSERT_TRUE(contact_linearize(h.m, ws, x0.H, x0.s, x0.v, x0.r, x0.tau, k, A1, B1, z1, w1).ok());
  ASSERT_TRUE(
      constrained_linearize(h.m, ws, x0.H, x0.s, x0.v, x0.r, x0.tau, set, 1e-6, A2, B2, z2, w2)
          .ok());
  EXPECT_EQ(A1, A2);
  EXPECT_EQ(B1, B2);
  EXPECT_EQ(z1, z2);
  EXPECT_EQ(w1, w2);
}

INSTANTIATE_TEST_SUITE_P(Sets, ConstraintScenario, testing::Range(0, 10), scenario_name);

}  // namespace
}  // namespace geolin::test
