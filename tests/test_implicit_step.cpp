// The implicit-damping Euler step and the joint feedback held during a step (step.cpp;
// docs/dynamics.md (D55)-(D57)) against independent oracles: geometric central differences of
// the steps through x exp(z) (a damped humanoid and a damped fixed-base arm with feedback, the
// quadruped standing on its four feet), exact identities (no damping: the semi-implicit Euler
// step; Euler's feedback: the plain step at τ + feedback), the closed form of one damped joint,
// and the stability of stiff damping where the explicit step grows.
#include <gtest/gtest.h>

#include <random>

#include "geolin/algorithms.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

constexpr StepMethod kMethods[] = {StepMethod::SemiImplicitEuler, StepMethod::Rk4,
                                   StepMethod::ImplicitEuler};

// kp, kd, s_ref, r_ref for n_J joints, as the feedback's storage.
struct Gains {
  VecX kp, kd, s_ref, r_ref;
  JointFeedback view() const { return {kp.data(), kd.data(), s_ref.data(), r_ref.data()}; }
};

Gains random_gains(int nj, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Gains g{VecX(nj), VecX(nj), VecX(nj), VecX(nj)};
  for (int j = 0; j < nj; ++j) {
    g.kp[j] = 20.0 * u(rng);
    g.kd[j] = 2.0 * u(rng);
    g.s_ref[j] = 2.0 * u(rng) - 1.0;
    g.r_ref[j] = 2.0 * u(rng) - 1.0;
  }
  return g;
}

State state_of(const Model &m, unsigned seed, double scale) {
  std::mt19937 rng(seed);
  return random_state(m, rng, scale);
}

struct StepOut {
  State x;
  VecX lambda;
};

// One (contact) step with feedback; contacts.count == 0: the free step.
StepOut run_step(const Model &m, Workspace &ws, StepMethod method, double h, const State &x,
                 const Contacts &c, const JointFeedback &fb) {
  StepOut o{x, VecX(c.rows())};
  EXPECT_TRUE(contact_step(m, ws, method, h, x.H, x.s, x.v, x.r, x.tau, c, o.x.H, o.x.s, o.x.v,
                           o.x.r, o.lambda, fb));
  return o;
}

// The central differences of the step (columns of [A_d, B_d] and of [∂λ/∂z, ∂λ/∂w]) at ±eps.
void central_differences(const Model &m, Workspace &ws, StepMethod method, double h, const State &x,
                         const Contacts &c, const JointFeedback &fb, double eps, MatX &D, MatX &L) {
  const int N = m.state_dim(), nj = m.num_joints();
  D.resize(N, N + nj);
  L.resize(c.rows(), N + nj);
  const StepOut y0 = run_step(m, ws, method, h, x, c, fb);
  for (int k = 0; k < N + nj; ++k) {
    const StepOut p = run_step(m, ws, method, h, perturbed(m, x, k, eps), c, fb);
    const StepOut q = run_step(m, ws, method, h, perturbed(m, x, k, -eps), c, fb);
    D.col(k) = (state_difference(m, y0.x, p.x) - state_difference(m, y0.x, q.x)) / (2 * eps);
    L.col(k) = (p.lambda - q.lambda) / (2 * eps);
  }
}

// The largest relative error of A_d, B_d, ∂λ/∂z, ∂λ/∂w against central differences of the step,
// Richardson-extrapolated ((4 D(ε/2) − D(ε)) / 3 cancels the ε² term: the stiff feedback of a
// light humanoid makes RK4's third derivatives large).
double worst_fd_error(const Model &m, Workspace &ws, StepMethod method, double h, const State &x,
                      const Contacts &c, const JointFeedback &fb) {
  const int N = m.state_dim(), nj = m.num_joints(), mr = c.rows();
  MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj);
  EXPECT_TRUE(
      contact_step_linearize(m, ws, method, h, x.H, x.s, x.v, x.r, x.tau, c, A, B, dz, dw, fb));
  MatX D1, L1, D2, L2;
  central_differences(m, ws, method, h, x, c, fb, 2 * kFdEps, D1, L1);
  central_differences(m, ws, method, h, x, c, fb, kFdEps, D2, L2);
  const MatX D = (4 * D2 - D1) / 3, L = (4 * L2 - L1) / 3;
  double worst = std::max(rel_err(A, D.leftCols(N)), rel_err(B, D.rightCols(nj)));
  if (mr > 0) worst = std::max({worst, rel_err(dz, L.leftCols(N)), rel_err(dw, L.rightCols(nj))});
  return worst;
}

struct FdCase {
  const char *name, *file;
  unsigned flags;
  bool feet;  // the quadruped's four feet held
};

TEST(ImplicitStepLinearize, MatchesGeometricFiniteDifferencesWithFeedback) {
  const FdCase cases[] = {
      {"humanoid_damped_floating", "humanoid.urdf", kJointDamping, false},
      {"arm7_damped_fixed", "arm7.urdf", kFixedBase | kJointDamping, false},
      {"quadruped_four_feet", "quadruped.urdf", 0u, true},
  };
  double worst_all = 0.0;
  for (const FdCase &cs : cases) {
    SCOPED_TRACE(cs.name);
    const Model m0 = load_urdf_file(model_path(cs.file), cs.flags);
    const State x = state_of(m0, 7u, 0.5);
    const Held fixture =
        cs.feet ? held("quadruped.urdf", 0u, kQuadrupedFeet, x) : Held{m0, {}, {}, {}, 0};
    const Model &m = fixture.m;
    Workspace ws(m);
    const Contacts c = fixture.view(kWrenchMixed, 25.0, 7.0);
    const Gains g = random_gains(m.num_joints(), 11u);
    for (StepMethod method : kMethods) {
      for (const JointFeedback &fb : {JointFeedback{}, g.view()}) {
        const double err = worst_fd_error(m, ws, method, 0.01, x, c, fb);
        worst_all = std::max(worst_all, err);
        EXPECT_LT(err, 1e-6) << "method " << static_cast<int>(method) << " feedback " << fb.any();
      }
    }
  }
  RecordProperty("worst_fd_rel_error", sci(worst_all));
}

TEST(ImplicitStep, WithoutDampingEqualsSemiImplicitEulerExactly) {
  const State x0 = state_of(load_urdf_file(model_path("quadruped.urdf")), 3u, 0.5);
  const Held h = held("quadruped.urdf", 0u, kQuadrupedFeet, x0);
  Workspace ws(h.m);
  const int N = h.m.state_dim(), nj = h.m.num_joints();
  const VecX zeros = VecX::Zero(nj);
  const Gains g = random_gains(nj, 5u);
  // kd = 0 given as an array, kp and the references non-zero: still no damping.
  const JointFeedback fb{g.kp.data(), zeros.data(), g.s_ref.data(), g.r_ref.data()};
  for (const Contacts &c : {Contacts{}, h.view(kWrenchMixed, 20.0, 5.0)}) {
    for (const JointFeedback &f : {JointFeedback{}, fb}) {
      const StepOut a = run_step(h.m, ws, StepMethod::ImplicitEuler, 0.01, x0, c, f);
      const StepOut b = run_step(h.m, ws, StepMethod::SemiImplicitEuler, 0.01, x0, c, f);
      EXPECT_EQ(a.x.s, b.x.s);
      EXPECT_EQ(a.x.r, b.x.r);
      EXPECT_EQ(a.x.v, b.x.v);
      EXPECT_EQ(a.x.H.matrix(), b.x.H.matrix());
      EXPECT_EQ(a.lambda, b.lambda);
      const int mr = c.rows();
      MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj), A0(N, N), B0(N, nj), dz0(mr, N), dw0(mr, nj);
      ASSERT_TRUE(contact_step_linearize(h.m, ws, StepMethod::ImplicitEuler, 0.01, x0.H, x0.s, x0.v,
                                         x0.r, x0.tau, c, A, B, dz, dw, f));
      ASSERT_TRUE(contact_step_linearize(h.m, ws, StepMethod::SemiImplicitEuler, 0.01, x0.H, x0.s,
                                         x0.v, x0.r, x0.tau, c, A0, B0, dz0, dw0, f));
      EXPECT_EQ(A, A0);
      EXPECT_EQ(B, B0);
      EXPECT_EQ(dz, dz0);
      EXPECT_EQ(dw, dw0);
    }
  }
}

TEST(ImplicitStep, NoFeedbackEqualsThePlainFunctionsExactly) {
  const Model m = load_urdf_file(model_path("humanoid.urdf"), kJointDamping);
  Workspace ws(m);
  const State x = state_of(m, 4u, 0.5);
  const int N = m.state_dim(), nj = m.num_joints();
  for (StepMethod method : kMethods) {
    State a = x, b = x;
    step(m, ws, method, 0.01, x.H, x.s, x.v, x.r, x.tau, a.H, a.s, a.v, a.r, JointFeedback{});
    step(m, ws, method, 0.01, x.H, x.s, x.v, x.r, x.tau, b.H, b.s, b.v, b.r);
    EXPECT_EQ(a.s, b.s);
    EXPECT_EQ(a.r, b.r);
    EXPECT_EQ(a.v, b.v);
    MatX A(N, N), B(N, nj), A0(N, N), B0(N, nj);
    step_linearize(m, ws, method, 0.01, x.H, x.s, x.v, x.r, x.tau, A, B, JointFeedback{});
    step_linearize(m, ws, method, 0.01, x.H, x.s, x.v, x.r, x.tau, A0, B0);
    EXPECT_EQ(A, A0);
    EXPECT_EQ(B, B0);
  }
}

// The definition of the feedback for the one-stage explicit step: the plain step at
// τ + kp∘(s_ref − s) + kd∘(r_ref − r), exactly.
TEST(ImplicitStep, EulerFeedbackIsThePlainStepAtTheFeedbackTorque) {
  const Model m = load_urdf_file(model_path("humanoid.urdf"), kJointDamping);
  Workspace ws(m);
  const State x = state_of(m, 6u, 0.5);
  const Gains g = random_gains(m.num_joints(), 8u);
  State with_tau = x;
  for (int j = 0; j < m.num_joints(); ++j) {  // in the order of (D57): (τ + kp term) + kd term
    with_tau.tau[j] += g.kp[j] * (g.s_ref[j] - x.s[j]);
    with_tau.tau[j] += g.kd[j] * (g.r_ref[j] - x.r[j]);
  }
  State a = x, b = x;
  step(m, ws, StepMethod::SemiImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau, a.H, a.s, a.v, a.r,
       g.view());
  step(m, ws, StepMethod::SemiImplicitEuler, 0.01, x.H, x.s, x.v, x.r, with_tau.tau, b.H, b.s, b.v,
       b.r);
  EXPECT_EQ(a.s, b.s);
  EXPECT_EQ(a.r, b.r);
  EXPECT_EQ(a.v, b.v);
  EXPECT_EQ(a.H.matrix(), b.H.matrix());
  // RK4 evaluates the feedback at each stage: not the plain step at the first stage's torque.
  step(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, a.H, a.s, a.v, a.r, g.view());
  step(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, with_tau.tau, b.H, b.s, b.v, b.r);
  EXPECT_GT((a.r - b.r).norm(), 1e-9);
}

// One revolute joint about z through the link's centre of mass, no gravity: the effective
// inertia is I = izz + armature, and the joint's only force is τ + feedback − d r.
const char *kOneJoint = R"(<robot name='one'>
  <link name='base'/>
  <link name='link'><inertial><origin xyz='0 0 0'/><mass value='2'/>
    <inertia ixx='0.03' iyy='0.03' izz='0.02' ixy='0' ixz='0' iyz='0'/></inertial></link>
  <joint name='j' type='continuous'><parent link='base'/><child link='link'/>
    <axis xyz='0 0 1'/><dynamics damping='0.7'/></joint>
</robot>)";

TEST(ImplicitStep, OneDampedJointFollowsTheBackwardEulerClosedForm) {
  const double armature = 0.005, I = 0.02 + armature;
  const Model m = with_armature(load_urdf_string(kOneJoint, kFixedBase | kJointDamping),
                                VecX::Constant(1, armature));
  Workspace ws(m);
  ws.gravity.setZero();
  const double h = 0.02, s = 0.3, r = -1.2, tau = 0.4, kp = 3.0, kd = 0.9, s_ref = 0.5, r_ref = 0.2;
  const double d = 0.7 + kd;
  // I r⁺ = I r + h (τ + kp (s_ref − s) + kd r_ref − d r⁺): backward Euler in the damping (D55).
  const double r_plus = (I * r + h * (tau + kp * (s_ref - s) + kd * r_ref)) / (I + h * d);
  const JointFeedback fb{&kp, &kd, &s_ref, &r_ref};
  Transform Hn;
  Vec6 vn;
  VecX s1(1), r1(1), sv(1), rv(1), tv(1);
  sv << s;
  rv << r;
  tv << tau;
  ASSERT_TRUE(step(m, ws, StepMethod::ImplicitEuler, h, Transform(), sv, Vec6::Zero(), rv, tv, Hn,
                   s1, vn, r1, fb));
  EXPECT_NEAR(r1[0], r_plus, 1e-14);
  EXPECT_NEAR(s1[0], s + h * r_plus, 1e-14);
  // The explicit step: r⁺ = r + h (τ + kp (s_ref − s) + kd (r_ref − r) − 0.7 r) / I.
  ASSERT_TRUE(step(m, ws, StepMethod::SemiImplicitEuler, h, Transform(), sv, Vec6::Zero(), rv, tv,
                   Hn, s1, vn, r1, fb));
  EXPECT_NEAR(r1[0], r + h * (tau + kp * (s_ref - s) + kd * (r_ref - r) - 0.7 * r) / I, 1e-14);
  // The energy keeps the model's own armature after an implicit step with the same workspace.
  EXPECT_NEAR(kinetic_energy(m, ws, sv, Vec6::Zero(), rv), 0.5 * I * r * r, 1e-15);
}

TEST(ImplicitStep, StiffDampingDecaysWhereTheExplicitStepGrows) {
  const double I = 0.02;
  const Model m = load_urdf_string(kOneJoint, kFixedBase);  // no model damping: kd alone
  Workspace ws(m);
  ws.gravity.setZero();
  const double h = 0.01, kd = 3.0 * I / h;  // h kd / I = 3 > 2
  const JointFeedback fb{nullptr, &kd, nullptr, nullptr};
  auto run = [&](StepMethod method) {
    VecX s = VecX::Zero(1), r = VecX::Constant(1, 1.0), tau = VecX::Zero(1), s1(1), r1(1);
    Transform Hn;
    Vec6 vn;
    for (int k = 0; k < 50; ++k) {
      EXPECT_TRUE(step(m, ws, method, h, Transform(), s, Vec6::Zero(), r, tau, Hn, s1, vn, r1, fb));
      s = s1;
      r = r1;
    }
    return std::abs(r[0]);
  };
  const double explicit_r = run(StepMethod::SemiImplicitEuler);
  const double implicit_r = run(StepMethod::ImplicitEuler);
  RecordProperty("explicit_r_after_50", sci(explicit_r));
  RecordProperty("implicit_r_after_50", sci(implicit_r));
  EXPECT_GT(explicit_r, 1e10);   // |1 − h kd / I| = 2 per step
  EXPECT_LT(implicit_r, 1e-20);  // 1 / (1 + h kd / I) = 1/4 per step
  EXPECT_NEAR(implicit_r, std::pow(0.25, 50), 1e-12 * std::pow(0.25, 50));
}

}  // namespace
}  // namespace geolin::test
