// Regularized contacts (docs/contacts.md §4, (C14)): redundant contact sets solved as the damped
// least-squares problem (J_c M⁻¹ J_cᵀ + mu 1) λ = −c. Oracles: the dense J_c, M (frames.cpp,
// crba) and their pseudo-inverse solution (the minimum-norm forces), the weight of a robot
// standing still, the constraint error c = −mu λ recomputed from J_c ν̇, and geometric central
// finite differences of the regularized calls.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <limits>
#include <random>

#include "geolin/algorithms.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// A redundant contact set on a model.
struct Corners {
  Model m;
  std::vector<int> frames, types;
  std::vector<double> refs;
  int rows() const {
    int r = 0;
    for (int t : types) r += t;
    return r;
  }
  Contacts view(unsigned flags, double mu, double Kp = 0.0, double Kd = 0.0) const {
    Contacts c;
    c.count = static_cast<int>(frames.size());
    c.frames = frames.data();
    c.types = types.data();
    c.flags = flags;
    c.Kp = Kp;
    c.Kd = Kd;
    c.refs = refs.data();
    c.mu = mu;
    return c;
  }
};

// The bundled humanoid with four corner frames added under each sole (the foot is a
// 0.22 x 0.10 m box): 8 point contacts, 24 rows for 12 constrained directions.
Corners humanoid_corners() {
  Corners h{load_urdf_file(model_path("humanoid.urdf")), {}, {}, {}};
  for (const char *sole : {"L_sole", "R_sole"}) {
    const Frame f = h.m.frames[h.m.frame_index(sole)];
    for (int k = 0; k < 4; ++k) {
      Transform offset;
      offset.o = Vec3(k < 2 ? 0.1 : -0.1, k % 2 ? 0.05 : -0.05, 0.0);
      h.frames.push_back(static_cast<int>(h.m.frames.size()));
      h.types.push_back(kContactPoint);
      h.m.frames.push_back(
          Frame{std::string(sole) + "_corner" + std::to_string(k), f.body, f.H * offset});
    }
  }
  return h;
}

// The bundled quadruped with a rigid front-left foot that is also held as a point, and three
// point feet: 15 rows for 12 directions.
Corners quadruped_rigid_plus_point() {
  Corners q{load_urdf_file(model_path("quadruped.urdf")), {}, {}, {}};
  for (const auto &[name, type] :
       std::vector<std::pair<const char *, int>>{{"FL_foot", kContactRigid},
                                                 {"FL_foot", kContactPoint},
                                                 {"FR_foot", kContactPoint},
                                                 {"HL_foot", kContactPoint},
                                                 {"HR_foot", kContactPoint}}) {
    q.frames.push_back(q.m.frame_index(name));
    q.types.push_back(type);
  }
  return q;
}

// References (for Kp) a few millimetres away from the corners' positions at x.
void set_refs(Corners &h, Workspace &ws, const State &x) {
  h.refs.clear();
  for (int f : h.frames) {
    Transform T = frame_pose(h.m, ws, x.H, x.s, f);
    T.o += Vec3(0.004, -0.003, 0.002);
    const Mat4 H = T.matrix();
    for (int k = 0; k < 16; ++k) h.refs.push_back(H(k % 4, k / 4));
  }
}

// J_c (m x n) in world-aligned axes (Mixed): the corners' linear Jacobian rows turned by R_F.
MatX corner_jacobian(const Corners &h, Workspace &ws, const State &x) {
  const int n = h.m.num_dofs();
  MatX Jc(h.rows(), n), J(6, n);
  for (size_t k = 0; k < h.frames.size(); ++k) {
    frame_jacobian(h.m, ws, x.H, x.s, h.frames[k], J);
    const Mat3 R = frame_pose(h.m, ws, x.H, x.s, h.frames[k]).R;
    Jc.middleRows(3 * k, 3) = R * J.topRows<3>();
  }
  return Jc;
}

// Standing at rest, knees bent, base upright; arms and head as random. The quadruped: legs
// bent as in ContactDynamics.QuadrupedStandingOnItsFeetStaysStill.
State standing(const Model &m) {
  std::mt19937 rng(11u);
  State x = random_state(m, rng, 0.0);
  x.H.R = Mat3::Identity();
  x.H.o = Vec3(0.1, -0.2, 0.9);
  x.v.setZero();
  if (m.joint_index("L_knee") < 0) {
    for (int leg = 0; leg < 4; ++leg) x.s[3 * leg + 1] = 0.6, x.s[3 * leg + 2] = -1.2;
    return x;
  }
  for (const char *side : {"L_", "R_"}) {
    const std::string s(side);
    for (const auto &[joint, angle] :
         std::vector<std::pair<std::string, double>>{{"hip_yaw", 0.0},
                                                     {"hip_roll", 0.0},
                                                     {"hip_pitch", -0.4},
                                                     {"knee", 0.8},
                                                     {"ankle_pitch", -0.4},
                                                     {"ankle_roll", 0.0}})
      x.s[m.joint_index(s + joint)] = angle;
  }
  return x;
}

TEST(ContactRegularization, FourCornerSolesStandStillOnTheMinimumNormForces) {
  Corners h = humanoid_corners();
  Workspace ws(h.m);
  const int n = h.m.num_dofs(), nj = h.m.num_joints(), mr = h.rows();
  State x = standing(h.m);
  const MatX Jc = corner_jacobian(h, ws, x);
  // 24 rows, rank 12: the set is redundant, and with mu = 0 it is refused.
  EXPECT_EQ(Eigen::FullPivLU<MatX>(Jc).rank(), 12);
  // τ balancing gravity with the minimum-norm forces f on the base rows (J_c,0ᵀ f = G_0): the
  // exact problem then has ν̇ = 0, and its minimum-norm forces are f (f is in the range of J_c).
  VecX G(n);
  rnea(h.m, ws, x.H, x.s, x.v, x.r, VecX::Zero(n), G);
  const MatX JcT = Jc.transpose();
  const VecX f = JcT.topRows(6).completeOrthogonalDecomposition().solve(G.head<6>());
  x.tau = (G - JcT * f).tail(nj);
  VecX nu_dot(n), lambda(mr);
  const Outcome o = contact_dynamics(h.m, ws, x.H, x.s, x.v, x.r, x.tau, h.view(kWrenchMixed, 0.0),
                                     nu_dot, lambda);
  EXPECT_EQ(o.kind, Outcome::Kind::dependent_contact_row);
  EXPECT_GE(o.index, 0);
  // The smallest non-zero eigenvalue of Λ⁻¹ = J_c M⁻¹ J_cᵀ bounds the distance to f:
  // λ_mu − f = −Σ mu / (σ_i + mu) (u_iᵀ f) u_i over σ_i > 0, so |λ_mu − f| ≤ mu / σ_min |f|.
  MatX M(n, n);
  crba(h.m, ws, x.s, M);
  const MatX Li = Jc * M.ldlt().solve(JcT);
  const Eigen::SelfAdjointEigenSolver<MatX> eig(Li);
  double sigma_min = eig.eigenvalues().maxCoeff();
  for (int k = 0; k < mr; ++k)
    if (eig.eigenvalues()[k] > 1e-9 * eig.eigenvalues().maxCoeff())
      sigma_min = std::min(sigma_min, eig.eigenvalues()[k]);
  const double sigma_max = eig.eigenvalues().maxCoeff();
  const double weight = h.m.total_mass() * 9.81;
  for (double mu : {1e-8, 1e-4}) {
    SCOPED_TRACE(mu);
    ASSERT_TRUE(contact_dynamics(h.m, ws, x.H, x.s, x.v, x.r, x.tau, h.view(kWrenchMixed, mu),
                                 nu_dot, lambda));
    ASSERT_TRUE(lambda.allFinite() && nu_dot.allFinite());
    // (C14): the corners' acceleration error is −mu λ (at rest J̇_c ν = 0), to round-off
    // (relative 1e-12 of the accelerations at stake, of the order of g).
    const VecX c = Jc * nu_dot;
    EXPECT_LT((c + mu * lambda).norm(), 1e-9 * mu * lambda.norm() + 1e-12 * 9.81) << c.transpose();
    // Plus the round-off of −c(ν̇_free), about ε |Λ⁻¹| |f|, which the ridge amplifies by 1 / mu
    // off the range of J_c (docs/contacts.md §4).
    const double eps = std::numeric_limits<double>::epsilon();
    const double bound = (mu / sigma_min + eps * sigma_max / mu) * f.norm();
    EXPECT_LT((lambda - f).norm(), bound);
    double Fz = 0.0;  // the total vertical force, Mixed axes: the weight, to within the bound
    for (int k = 0; k < 8; ++k) Fz += lambda[3 * k + 2];
    EXPECT_LT(std::abs(Fz - weight), std::sqrt(8.0) * bound);
    RecordProperty(
        "mu_" + sci(mu) + "_residual_force_error_bound",
        sci((c + mu * lambda).norm()) + " " + sci((lambda - f).norm()) + " " + sci(bound));
  }
  EXPECT_LT(sigma_min, 1.0);  // a meaningful bound: mu / σ_min is small for both
}

TEST(ContactRegularization, ZeroMuIsTheExactSolveBitForBit) {
  // A non-redundant set: mu = 0 takes the unregularized path, mu > 0 moves λ by O(mu).
  const Model m = load_urdf_file(model_path("humanoid.urdf"));
  Workspace ws(m);
  const State x = standing(m);
  const int frames[2] = {m.frame_index("L_sole"), m.frame_index("R_sole")};
  const int types[2] = {kContactRigid, kContactRigid};
  Contacts c;
  c.count = 2, c.frames = frames, c.types = types, c.flags = kWrenchLocal;
  const int n = m.num_dofs();
  VecX nu0(n), l0(12), nu1(n), l1(12);
  ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu0, l0));
  c.mu = 0.0;
  ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu1, l1));
  EXPECT_EQ(l0, l1);
  EXPECT_EQ(nu0, nu1);
  c.mu = 1e-6;
  ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nu1, l1));
  EXPECT_GT((l1 - l0).norm(), 0.0);
  EXPECT_LT((l1 - l0).norm(), 1e-3 * l0.norm());
}

// A moving robot on a redundant set, and references for Kp.
struct Moving {
  Corners h;
  State x;
  Moving(Corners set, unsigned seed) : h(std::move(set)) {
    std::mt19937 rng(seed);
    const State r = random_state(h.m, rng, 0.5);
    x = standing(h.m);
    x.v = r.v;
    x.r = r.r;
    x.tau = 20.0 * r.tau;
    x.H.R = r.H.R;
    Workspace ws(h.m);
    set_refs(h, ws, x);
  }
};

// The regularization of the derivative checks, and their differences' step and tolerance: the
// regularized Λ⁻¹ + mu 1 has a condition number near σ_max / mu ≈ 1e4 on these sets, which
// multiplies the round-off of the differences (measured: 1e-5 → 7e-6, 1e-4 → 1e-6 on
// ∂λ/∂w, while 1e-3 shows the O(ε²) truncation, 6e-6 on A); the analytic derivatives do not
// depend on ε. A missing term of the regularized derivative shows as 1e-1 (∂λ/∂z).
constexpr double kMuFd = 1e-4, kEps = 1e-4, kTol = 1e-5;

TEST(ContactRegularization, LinearizationIsTheDerivativeOfTheRegularizedDynamics) {
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE(set ? "quadruped_rigid_plus_point" : "humanoid_corners");
    Moving mv(set ? quadruped_rigid_plus_point() : humanoid_corners(), 21u);
    const Model &m = mv.h.m;
    const State &x = mv.x;
    Workspace ws(m);
    const int N = m.state_dim(), nj = m.num_joints(), mr = mv.h.rows();
    double worst = 0.0;
    for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
      for (double Kp : {0.0, 25.0}) {
        SCOPED_TRACE(::testing::Message() << "flags " << flags << " Kp " << Kp);
        const Contacts c = mv.h.view(flags, kMuFd, Kp, 0.4 * Kp + 1.0);
        MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj);
        MatX Af(N, N), Bf(N, nj), dzf(mr, N), dwf(mr, nj);
        ASSERT_TRUE(contact_linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, c, A, B, dz, dw));
        ASSERT_TRUE(contact_linearize_finite_difference(m, ws, x.H, x.s, x.v, x.r, x.tau, c, kEps,
                                                        Af, Bf, dzf, dwf));
        EXPECT_LT(rel_err(A, Af), kTol);
        EXPECT_LT(rel_err(B, Bf), kTol);
        EXPECT_LT(rel_err(dz, dzf), kTol);
        EXPECT_LT(rel_err(dw, dwf), kTol);
        worst =
            std::max({worst, rel_err(A, Af), rel_err(B, Bf), rel_err(dz, dzf), rel_err(dw, dwf)});
      }
    }
    RecordProperty(std::string(set ? "quadruped" : "humanoid") + "_worst", sci(worst));
  }
}

TEST(ContactRegularization, StepLinearizationIsTheDerivativeOfTheRegularizedStep) {
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE(set ? "quadruped_rigid_plus_point" : "humanoid_corners");
    Moving mv(set ? quadruped_rigid_plus_point() : humanoid_corners(), 22u);
    const Model &m = mv.h.m;
    Workspace ws(m);
    const int N = m.state_dim(), nj = m.num_joints(), mr = mv.h.rows();
    const Contacts c = mv.h.view(kWrenchMixed, kMuFd, 25.0, 11.0);
    auto step_of = [&](StepMethod method, const State &x, VecX &lambda) {
      State y = x;
      EXPECT_TRUE(contact_step(m, ws, method, 0.01, x.H, x.s, x.v, x.r, x.tau, c, y.H, y.s, y.v,
                               y.r, lambda));
      return y;
    };
    for (StepMethod method : {StepMethod::SemiImplicitEuler, StepMethod::Rk4}) {
      SCOPED_TRACE(static_cast<int>(method));
      MatX A(N, N), B(N, nj), dz(mr, N), dw(mr, nj);
      ASSERT_TRUE(contact_step_linearize(m, ws, method, 0.01, mv.x.H, mv.x.s, mv.x.v, mv.x.r,
                                         mv.x.tau, c, A, B, dz, dw));
      VecX l0(mr), lp(mr), lq(mr);
      const State y0 = step_of(method, mv.x, l0);
      MatX Af(N, N), Bf(N, nj), dzf(mr, N), dwf(mr, nj);
      for (int k = 0; k < N + nj; ++k) {
        const State p = step_of(method, perturbed(m, mv.x, k, kEps), lp);
        const State q = step_of(method, perturbed(m, mv.x, k, -kEps), lq);
        const VecX col = (state_difference(m, y0, p) - state_difference(m, y0, q)) / (2 * kEps);
        const VecX lcol = (lp - lq) / (2 * kEps);
        (k < N ? Af.col(k) : Bf.col(k - N)) = col;
        (k < N ? dzf.col(k) : dwf.col(k - N)) = lcol;
      }
      EXPECT_LT(rel_err(A, Af), kTol);
      EXPECT_LT(rel_err(B, Bf), kTol);
      EXPECT_LT(rel_err(dz, dzf), kTol);
      EXPECT_LT(rel_err(dw, dwf), kTol);
      RecordProperty(
          std::string(set ? "quadruped" : "humanoid") + "_method_" +
              std::to_string(static_cast<int>(method)) + "_worst",
          sci(std::max({rel_err(A, Af), rel_err(B, Bf), rel_err(dz, dzf), rel_err(dw, dwf)})));
    }
  }
}

TEST(ContactRegularization, ImpulseJacobianIsTheDerivativeOfTheRegularizedImpact) {
  for (int set = 0; set < 2; ++set) {
    SCOPED_TRACE(set ? "quadruped_rigid_plus_point" : "humanoid_corners");
    Moving mv(set ? quadruped_rigid_plus_point() : humanoid_corners(), 23u);
    const Model &m = mv.h.m;
    Workspace ws(m);
    const int n = m.num_dofs(), N = m.state_dim(), nj = m.num_joints(), mr = mv.h.rows();
    for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
      SCOPED_TRACE(flags);
      const Contacts c = mv.h.view(flags, kMuFd);
      const double e = 0.3;
      auto land = [&](const State &x, VecX &Lam) {
        VecX nu(n);
        EXPECT_TRUE(impulse(m, ws, x.H, x.s, x.v, x.r, c, e, nu, Lam));
        State y = x;
        y.v = nu.head<6>();
        y.r = nu.tail(nj);
        return y;
      };
      VecX L0(mr), Lp(mr), Lq(mr);
      const State y0 = land(mv.x, L0);
      if (flags == kWrenchMixed && set == 0) {  // (C14) for the impact on the corners (points):
        const MatX Jc = corner_jacobian(mv.h, ws, mv.x);  // J_c (ν⁺ + e ν⁻) = −mu Λ
        VecX nu_m(n), nu_p(n);
        nu_m << mv.x.v, mv.x.r;
        nu_p << y0.v, y0.r;
        EXPECT_LT((Jc * (nu_p + e * nu_m) + kMuFd * L0).norm(), 1e-9 * kMuFd * L0.norm());
      }
      MatX A(N, N), dz(mr, N), Af(N, N), dzf(mr, N);
      ASSERT_TRUE(impulse_linearize(m, ws, mv.x.H, mv.x.s, mv.x.v, mv.x.r, c, e, A, dz));
      for (int k = 0; k < N; ++k) {
        const State p = land(perturbed(m, mv.x, k, kEps), Lp);
        const State q = land(perturbed(m, mv.x, k, -kEps), Lq);
        Af.col(k) = (state_difference(m, y0, p) - state_difference(m, y0, q)) / (2 * kEps);
        dzf.col(k) = (Lp - Lq) / (2 * kEps);
      }
      EXPECT_LT(rel_err(A, Af), kTol);
      EXPECT_LT(rel_err(dz, dzf), kTol);
      RecordProperty(std::string(set ? "quadruped" : "humanoid") + "_flags_" +
                         std::to_string(flags) + "_worst",
                     sci(std::max(rel_err(A, Af), rel_err(dz, dzf))));
    }
  }
}

}  // namespace
}  // namespace geolin::test
