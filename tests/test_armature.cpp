// Reflected rotor inertias (Model::armature, with_armature; docs/dynamics.md (D50)-(D54)) against
// identities with the same model without them: the mass matrix gains exactly diag(0_6, armature),
// the inverse dynamics armature ⊙ ṙ, the forward dynamics inverts the inverse dynamics, and
// what must not change (centre of mass, centroidal momentum, frames, ∂τ/∂z) does not. The
// contact, impulse and contact-step linearizations of a geared model against geometric central
// finite differences of its own functions. (The dense twin, the unconstrained linearization,
// the steps and energy conservation run on the *_armature cases of all_model_cases.)
#include <dirent.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "geolin/algorithms.hpp"
#include "geolin/state.hpp"
#include "geolin/status.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// Every bundled model, moving and fixed base, and the URDFs of GEOLIN_EXTRA_MODELS_DIR when it is
// configured.
std::vector<std::pair<std::string, Model>> bundled_and_extra_models() {
  std::vector<std::pair<std::string, Model>> out;
  for (const ModelCase &c : all_model_cases())
    if (c.armature == 0.0) out.emplace_back(c.name, c.load());
  const std::string dir = GEOLIN_EXTRA_MODELS_DIR;
  if (DIR *d = dir.empty() ? nullptr : opendir(dir.c_str())) {
    while (const dirent *e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.size() < 5 || f.substr(f.size() - 5) != ".urdf") continue;
      try {
        out.emplace_back(f, load_urdf_file(dir + "/" + f));
      } catch (const Error &) {  // a robot geolin refuses is not this test's subject
      }
    }
    closedir(d);
  }
  return out;
}

// A Go2-like gearing with varied entries (zero on every fourth joint): 0.01 · (1 + k mod 3)
// kg m² (kg for a prismatic joint).
VecX go2_like_armature(int nj) {
  VecX a(nj);
  for (int k = 0; k < nj; ++k) a[k] = k % 4 == 3 ? 0.0 : 0.01 * (1 + k % 3);
  return a;
}

VecX joint_part(const Model &m, const VecX &x) {
  return x.tail(m.num_joints());
}

TEST(Armature, MassMatrixGainsExactlyDiagArmatureOnEveryModel) {
  for (const auto &[name, m] : bundled_and_extra_models()) {
    SCOPED_TRACE(name);
    const int n = m.num_dofs(), nj = m.num_joints(), o = m.joint_offset();
    const VecX a = go2_like_armature(nj);
    const Model g = with_armature(m, a);
    Workspace ws(m), wg(g);
    std::mt19937 rng(3);
    const State x = random_state(m, rng);
    MatX M(n, n), Mg(n, n);
    crba(m, ws, x.s, M);
    crba(g, wg, x.s, Mg);
    MatX D = Mg - M;
    for (int k = 0; k < nj; ++k) {  // the diagonal entry is (M_kk + a_k) rounded
      EXPECT_NEAR(D(o + k, o + k), a[k], 1e-15 * (M(o + k, o + k) + a[k])) << "joint " << k;
      D(o + k, o + k) = 0.0;
    }
    EXPECT_EQ(D, MatX::Zero(n, n)) << "every other entry is the same number";
    // The bounded direct-write form agrees to the bit.
    MatX Mb(n, n);
    ASSERT_TRUE(crba_if_bounded(g, wg, x.s, Mb));
    EXPECT_EQ(Mb, Mg);
  }
}

TEST(Armature, InverseDynamicsGainsArmatureTimesJointAccelerations) {
  for (const ModelCase &c : all_model_cases()) {
    if (c.armature != 0.0) continue;
    SCOPED_TRACE(c.name);
    const Model m = c.load(), g = with_armature(m, go2_like_armature(m.num_joints()));
    const int n = m.num_dofs(), N = m.state_dim(), o = m.joint_offset();
    Workspace ws(m), wg(g);
    std::mt19937 rng(5);
    const State x = random_state(m, rng);
    VecX nu_dot = VecX::Random(n), tau(n), tau_g(n);
    rnea(m, ws, x.H, x.s, x.v, x.r, nu_dot, tau);
    rnea(g, wg, x.H, x.s, x.v, x.r, nu_dot, tau_g);
    const VecX expected = joint_part(m, tau) + g.armature.cwiseProduct(joint_part(m, nu_dot));
    EXPECT_LT(rel_err(joint_part(m, tau_g), expected), 1e-15);
    EXPECT_EQ(tau_g.head(o), tau.head(o)) << "the base wrench is the links' alone";
    // inverse_dynamics_linearize: the same τ, M with the armature, ∂τ/∂z unchanged.
    VecX t1(n), t2(n);
    MatX dz1(n, N), dz2(n, N), M1(n, n), M2(n, n), Mc(n, n);
    inverse_dynamics_linearize(m, ws, x.H, x.s, x.v, x.r, nu_dot, t1, dz1, M1);
    inverse_dynamics_linearize(g, wg, x.H, x.s, x.v, x.r, nu_dot, t2, dz2, M2);
    crba(g, wg, x.s, Mc);
    EXPECT_LT(rel_err(t2, tau_g), 1e-14);
    EXPECT_EQ(dz2, dz1) << "the armature term is linear in ν̇ with a constant coefficient";
    EXPECT_EQ(M2, Mc);
    VecX t3(n);
    MatX dz3(n, N), M3(n, n);
    ASSERT_TRUE(
        inverse_dynamics_linearize_if_bounded(g, wg, x.H, x.s, x.v, x.r, nu_dot, t3, dz3, M3));
    EXPECT_EQ(t3, t2);
    EXPECT_EQ(dz3, dz2);
    EXPECT_EQ(M3, M2);
  }
}

TEST(Armature, ForwardDynamicsInvertsInverseDynamicsAndMinvInvertsM) {
  for (const ModelCase &c : all_model_cases()) {
    if (c.armature != 0.0) continue;
    SCOPED_TRACE(c.name);
    const Model m = c.load(), g = with_armature(m, go2_like_armature(m.num_joints()));
    const int n = m.num_dofs();
    Workspace wg(g);
    std::mt19937 rng(7);
    const State x = random_state(g, rng);
    const VecX nu_dot = VecX::Random(n);
    VecX id(n), back(n);
    rnea(g, wg, x.H, x.s, x.v, x.r, nu_dot, id);
    Vec6 f0 = Vec6::Zero();
    if (!g.fixed_base) f0 = id.head<6>();
    aba_with_base_wrench(g, wg, x.H, x.s, x.v, x.r, id.tail(g.num_joints()), f0, back);
    EXPECT_LT(rel_err(back, nu_dot), 1e-11);
    MatX M(n, n), Minv(n, n);
    crba(g, wg, x.s, M);
    mass_matrix_inverse(g, wg, x.s, Minv);
    EXPECT_LT(rel_err(M * Minv, MatX::Identity(n, n)), 1e-11);
  }
}

TEST(Armature, CentreOfMassCentroidalMomentumAndFramesDoNotChange) {
  const Model m = load_urdf_file(model_path("humanoid.urdf"));
  const Model g = with_armature(m, go2_like_armature(m.num_joints()));
  const int n = m.num_dofs(), N = m.state_dim();
  Workspace ws(m), wg(g);
  std::mt19937 rng(11);
  const State x = random_state(m, rng);
  Vec3 c1, c2, cv1, cv2;
  MatX J1(3, n), J2(3, n), A1(6, n), A2(6, n), Fj1(6, n), Fj2(6, n);
  center_of_mass(m, ws, x.H, x.s, x.v, x.r, c1, cv1, J1);
  center_of_mass(g, wg, x.H, x.s, x.v, x.r, c2, cv2, J2);
  EXPECT_EQ(c1, c2);
  EXPECT_EQ(cv1, cv2);
  EXPECT_EQ(J1, J2);
  Vec6 h1, h2;
  MatX dh1(6, N), dh2(6, N);
  centroidal_momentum(m, ws, x.H, x.s, x.v, x.r, h1, A1, dh1);
  centroidal_momentum(g, wg, x.H, x.s, x.v, x.r, h2, A2, dh2);
  EXPECT_EQ(h1, h2);
  EXPECT_EQ(A1, A2);
  EXPECT_EQ(dh1, dh2);
  const int f = m.frame_index("L_hand");
  frame_jacobian(m, ws, x.H, x.s, f, Fj1);
  frame_jacobian(g, wg, x.H, x.s, f, Fj2);
  EXPECT_EQ(Fj1, Fj2);
  EXPECT_EQ(spatial_momentum(m, ws, x.s, x.v, x.r), spatial_momentum(g, wg, x.s, x.v, x.r));
  // The kinetic energy gains the rotors' ½ Σ a_j r_j² (D53).
  const double K1 = kinetic_energy(m, ws, x.s, x.v, x.r), K2 = kinetic_energy(g, wg, x.s, x.v, x.r);
  EXPECT_NEAR(K2 - K1, 0.5 * x.r.dot(g.armature.cwiseProduct(x.r)), 1e-14 * K2);
}

TEST(Armature, CopyReplacesTheArmatureAndLeavesTheOriginalUnchanged) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  const int nj = m.num_joints(), n = m.num_dofs();
  EXPECT_EQ(m.armature, VecX::Zero(nj)) << "URDF has no armature";
  const Model g = with_armature(m, VecX::Constant(nj, 0.5));
  const Model h = with_armature(g, go2_like_armature(nj));
  EXPECT_EQ(h.armature, go2_like_armature(nj)) << "replaced, not added";
  EXPECT_EQ(m.armature, VecX::Zero(nj));
  Workspace ws(m), wh(h);
  MatX M(n, n), Mh(n, n);
  crba(m, ws, VecX::Zero(nj), M);
  crba(h, wh, VecX::Zero(nj), Mh);
  EXPECT_NEAR((Mh - M).trace(), go2_like_armature(nj).sum(), 1e-14 * Mh.trace());
}

TEST(Armature, NegativeNonFiniteOrMissizedEntriesAreRefusedNamingTheJoint) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"));
  const int nj = m.num_joints(), k = 4;
  const std::string joint = m.joint_name[k + 1];
  for (double bad : {-1e-9, std::nan(""), HUGE_VAL, -HUGE_VAL}) {
    VecX a = VecX::Constant(nj, 0.01);
    a[k] = bad;
    try {
      (void)with_armature(m, a);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), std::isfinite(bad) ? Status::InvalidArgument : Status::NonFinite);
      const std::string what = e.what();
      EXPECT_NE(what.find("armature[4]"), std::string::npos) << what;
      EXPECT_NE(what.find("'" + joint + "'"), std::string::npos) << what;
    }
  }
  EXPECT_THROW((void)with_armature(m, VecX::Zero(nj + 1)), Error);
}

// ---------------------------------------------------------------------------------------------
// Contacts, impulses and contact steps of a geared quadruped and arm against geometric central
// differences of the geared model's own functions.

using Geared = Held;  // a geared model with its held frames (test_util.hpp)

// The quadruped on its four feet (points, Mixed) and the fixed-base arm with its tool held
// (rigid, Local), geared, references a little away from the frames' poses at x.
// Two states each (seeds 6 and 7, where the arm's six rigid rows are well conditioned: at other
// states the arm is near a singular pose, where central differences lose digits with or without
// armature).
std::vector<std::pair<Geared, State>> geared_cases() {
  std::vector<std::pair<Geared, State>> out;
  const std::tuple<const char *, unsigned, unsigned> files[] = {{"quadruped.urdf", 0u, 6u},
                                                                {"quadruped.urdf", 0u, 7u},
                                                                {"arm7.urdf", kFixedBase, 6u},
                                                                {"arm7.urdf", kFixedBase, 7u}};
  for (const auto &[file, flags, seed] : files) {
    const Model base = load_urdf_file(model_path(file), flags);
    Geared g{with_armature(base, go2_like_armature(base.num_joints())), {}, {}, {}, 0};
    std::mt19937 rng(seed);
    const State x = random_state(g.m, rng, 0.5);
    Workspace ws(g.m);
    std::vector<std::string> names = {"tool_tip"};
    if (!g.m.fixed_base) names = {"FL_foot", "FR_foot", "HL_foot", "HR_foot"};
    for (const std::string &name : names) {
      g.frames.push_back(g.m.frame_index(name));
      g.types.push_back(g.m.fixed_base ? kContactRigid : kContactPoint);
      g.rows += g.types.back();
      Transform T = frame_pose(g.m, ws, x.H, x.s, g.frames.back());
      T.o += Vec3(0.01, -0.01, 0.005);
      const Mat4 Hm = T.matrix();
      for (int e = 0; e < 16; ++e) g.refs.push_back(Hm(e % 4, e / 4));
    }
    out.emplace_back(std::move(g), x);
  }
  return out;
}

// z with y = x exp(z): log(x⁻¹ y) of the state module (docs/dynamics.md (D42)).
VecX difference(const Model &m, const State &x, const State &y) {
  return state_difference(m, x, y);
}

TEST(ArmatureContacts, ContactLinearizeMatchesGeometricFiniteDifferences) {
  for (const auto &[g, x] : geared_cases()) {
    SCOPED_TRACE(g.m.name);
    Workspace ws(g.m);
    const int N = g.m.state_dim(), nj = g.m.num_joints(), mr = g.rows;
    const Contacts c = g.view(g.m.fixed_base ? kWrenchLocal : kWrenchMixed, 25.0, 7.0);
    MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj), Af(N, N), Bf(N, nj), dzf(mr, N), dwf(mr, nj);
    ASSERT_TRUE(contact_linearize(g.m, ws, x.H, x.s, x.v, x.r, x.tau, c, A, B, dz, dw));
    ASSERT_TRUE(contact_linearize_finite_difference(g.m, ws, x.H, x.s, x.v, x.r, x.tau, c, kFdEps,
                                                    Af, Bf, dzf, dwf));
    EXPECT_LT(rel_err(A, Af), 1e-6);
    EXPECT_LT(rel_err(B, Bf), 1e-6);
    EXPECT_LT(rel_err(dz, dzf), 1e-6);
    EXPECT_LT(rel_err(dw, dwf), 1e-6);
    RecordProperty(g.m.name + "_A_B_dz_dw", sci(rel_err(A, Af)) + " " + sci(rel_err(B, Bf)) + " " +
                                                sci(rel_err(dz, dzf)) + " " +
                                                sci(rel_err(dw, dwf)));
  }
}

TEST(ArmatureContacts, ImpulseLinearizeMatchesGeometricFiniteDifferences) {
  for (const auto &[g, x] : geared_cases()) {
    SCOPED_TRACE(g.m.name);
    Workspace ws(g.m);
    const int n = g.m.num_dofs(), N = g.m.state_dim(), mr = g.rows;
    const Contacts c = g.view(kWrenchLocal, 0.0, 0.0);
    for (double e : {0.0, 0.6}) {
      MatX A(N, N), dz(mr, N), Af(n, N), dzf(mr, N);
      ASSERT_TRUE(impulse_linearize(g.m, ws, x.H, x.s, x.v, x.r, c, e, A, dz));
      for (int k = 0; k < N; ++k) {
        VecX nu_p(n), nu_m(n), L_p(mr), L_m(mr);
        const State yp = perturbed(g.m, x, k, kFdEps), ym = perturbed(g.m, x, k, -kFdEps);
        ASSERT_TRUE(impulse(g.m, ws, yp.H, yp.s, yp.v, yp.r, c, e, nu_p, L_p));
        ASSERT_TRUE(impulse(g.m, ws, ym.H, ym.s, ym.v, ym.r, c, e, nu_m, L_m));
        Af.col(k) = (nu_p - nu_m) / (2.0 * kFdEps);
        dzf.col(k) = (L_p - L_m) / (2.0 * kFdEps);
      }
      EXPECT_LT(rel_err(A.bottomRows(n), Af), 1e-6) << "e " << e;
      EXPECT_LT(rel_err(dz, dzf), 1e-6) << "e " << e;
      RecordProperty(g.m.name + "_impulse_A_dz_e" + std::to_string(e),
                     sci(rel_err(A.bottomRows(n), Af)) + " " + sci(rel_err(dz, dzf)));
    }
  }
}

TEST(ArmatureContacts, ContactStepLinearizeMatchesGeometricFiniteDifferences) {
  for (const auto &[g, x] : geared_cases()) {
    SCOPED_TRACE(g.m.name);
    Workspace ws(g.m);
    const int N = g.m.state_dim(), nj = g.m.num_joints(), mr = g.rows;
    const Contacts c = g.view(kWrenchMixed, 25.0, 7.0);
    const double h = 0.01;
    for (StepMethod method : {StepMethod::SemiImplicitEuler, StepMethod::Rk4}) {
      MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj);
      ASSERT_TRUE(
          contact_step_linearize(g.m, ws, method, h, x.H, x.s, x.v, x.r, x.tau, c, A, B, dz, dw));
      auto run = [&](const State &y, State &out, VecX &lambda) {
        out = y;
        lambda.resize(mr);
        EXPECT_TRUE(contact_step(g.m, ws, method, h, y.H, y.s, y.v, y.r, y.tau, c, out.H, out.s,
                                 out.v, out.r, lambda));
      };
      State y0, yp, ym;
      VecX l0, lp, lm;
      run(x, y0, l0);
      MatX Af(N, N), Bf(N, nj), dzf(mr, N), dwf(mr, nj);
      for (int k = 0; k < N + nj; ++k) {
        run(perturbed(g.m, x, k, kFdEps), yp, lp);
        run(perturbed(g.m, x, k, -kFdEps), ym, lm);
        const VecX col = (difference(g.m, y0, yp) - difference(g.m, y0, ym)) / (2 * kFdEps);
        const VecX lcol = (lp - lm) / (2 * kFdEps);
        (k < N ? Af.col(k) : Bf.col(k - N)) = col;
        (k < N ? dzf.col(k) : dwf.col(k - N)) = lcol;
      }
      const int mi = static_cast<int>(method);
      EXPECT_LT(rel_err(A, Af), 1e-6) << "A_d, method " << mi;
      EXPECT_LT(rel_err(B, Bf), 1e-6) << "B_d, method " << mi;
      EXPECT_LT(rel_err(dz, dzf), 1e-6) << "dlambda_dz, method " << mi;
      EXPECT_LT(rel_err(dw, dwf), 1e-6) << "dlambda_dw, method " << mi;
    }
  }
}

}  // namespace
}  // namespace geolin::test
