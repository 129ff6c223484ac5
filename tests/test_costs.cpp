// The quantities of MPC costs and constraints (center_of_mass.cpp, centroidal_momentum.cpp,
// frame_derivatives.cpp) against independent oracles: geometric central finite differences
// through x exp(z) at random states (base pitch ±90° included), the identities of
// docs/dynamics.md §9 (A_G ν = h_G, m ṗ_c, J_com ν, the frame Jacobian, the momentum balance
// of the contact-constrained dynamics, the prescribed contact acceleration).
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "geolin/algorithms.hpp"
#include "test_util.hpp"

namespace geolin::test {
namespace {

// x exp(z) (docs/conventions.md): z = [z_H; z_s; z_v; z_r], or [z_s; z_r] for a fixed base.
State perturb(const Model &m, const State &x, const VecX &z) {
  State y = x;
  state_integrate(m, x, z, y);
  return y;
}

// The geometric central difference of y(x exp(z)) at z = 0, one column per entry of z.
MatX central_differences(const Model &m, const State &x, int rows,
                         const std::function<VecX(const State &)> &y, double eps = 1e-6) {
  const int N = m.state_dim();
  MatX D(rows, N);
  for (int k = 0; k < N; ++k) {
    VecX z = VecX::Zero(N);
    z[k] = eps;
    const VecX p = y(perturb(m, x, z)), q = y(perturb(m, x, -z));
    D.col(k) = (p - q) / (2 * eps);
  }
  return D;
}

VecX nu_of(const Model &m, const State &x) {
  VecX nu(m.num_dofs());
  if (!m.fixed_base) nu.head<6>() = x.v;
  nu.tail(m.num_joints()) = x.r;
  return nu;
}

// Random states with the base pitched by +90° and −90° among them.
std::vector<State> test_states(const Model &m, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<State> xs;
  for (int k = 0; k < 4; ++k) {
    State x = random_state(m, rng);
    if (k == 1) x.H.R = rot_y(M_PI / 2);
    if (k == 2) x.H.R = rot_z(0.3) * rot_y(-M_PI / 2);
    xs.push_back(x);
  }
  return xs;
}

std::vector<int> test_frames(const Model &m) {
  const int nf = static_cast<int>(m.frames.size());
  std::vector<int> fs;
  for (int f : {nf - 1, nf / 2, 0})
    if (std::find(fs.begin(), fs.end(), f) == fs.end()) fs.push_back(f);
  return fs;
}

class Costs : public testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    model_ = GetParam().load();
    ws_ = std::make_unique<Workspace>(model_);
  }
  Model model_;
  std::unique_ptr<Workspace> ws_;
};

TEST_P(Costs, CenterOfMassJacobianMatchesFiniteDifferencesAndVelocity) {
  const Model &m = model_;
  const int n = m.num_dofs(), N = m.state_dim(), nj = m.num_joints(), nv = m.fixed_base ? 0 : 6;
  double worst = 0.0, worst_v = 0.0;
  for (const State &x : test_states(m, 3)) {
    Vec3 c, cv;
    MatX J(3, n);
    center_of_mass(m, *ws_, x.H, x.s, x.v, x.r, c, cv, J);
    const MatX D = central_differences(m, x, 3, [&](const State &y) {
      Vec3 cy, vy;
      MatX none;
      center_of_mass(m, *ws_, y.H, y.s, y.v, y.r, cy, vy, none);
      return VecX(cy);
    });
    // The position columns [z_H; z_s] are J_com's (the displacement of p_c), the velocity
    // columns zero.
    MatX expect = MatX::Zero(3, N);
    expect.leftCols(nv + nj) = J;
    worst = std::max(worst, rel_err(expect, D));
    worst_v = std::max(worst_v, rel_err(MatX(J * nu_of(m, x)), MatX(cv)));
    // The oracle of the centre of mass itself: the mass-weighted world centres of mass.
    forward_kinematics(m, *ws_, x.s);
    Vec3 sum = Vec3::Zero();
    for (int i = 0; i <= m.n_B; ++i) sum += m.mass[i] * body_pose(m, *ws_, x.H, i).apply(m.com[i]);
    EXPECT_LT((sum / m.total_mass() - c).norm(), 1e-12 * std::max(1.0, c.norm()));
  }
  EXPECT_LT(worst, 1e-7);
  EXPECT_LT(worst_v, 1e-12);
}

TEST_P(Costs, CentroidalMomentumIdentitiesAndDerivative) {
  const Model &m = model_;
  const int n = m.num_dofs(), N = m.state_dim();
  double worst = 0.0, worst_id = 0.0;
  for (const State &x : test_states(m, 5)) {
    Vec6 h;
    MatX A(6, n), D(6, N);
    centroidal_momentum(m, *ws_, x.H, x.s, x.v, x.r, h, A, D);
    const VecX nu = nu_of(m, x);
    worst_id = std::max(worst_id, rel_err(MatX(A * nu), MatX(h)));
    Vec3 c, cv;
    MatX none;
    center_of_mass(m, *ws_, x.H, x.s, x.v, x.r, c, cv, none);
    worst_id = std::max(worst_id, rel_err(MatX(h.head<3>()), MatX(m.total_mass() * cv)));
    const MatX fd = central_differences(m, x, 6, [&](const State &y) {
      Vec6 hy;
      MatX e1, e2;
      centroidal_momentum(m, *ws_, y.H, y.s, y.v, y.r, hy, e1, e2);
      return VecX(hy);
    });
    worst = std::max(worst, rel_err(D, fd));
    EXPECT_LT(rel_err(MatX(D.rightCols(n)), A), 1e-14);  // h_G is linear in ν
  }
  EXPECT_LT(worst, 1e-6);
  EXPECT_LT(worst_id, 1e-12);
}

// h_G alone is summed body by body from the twists, h_G with A_G from the composite inertias:
// two algorithms, which must agree with each other (A_G ν) and with m ṗ_c, and asking for dh_dz
// must not change h_G or A_G.
TEST_P(Costs, CentroidalMomentumAloneAgreesWithAGTimesNuAndTheCentreOfMassVelocity) {
  const Model &m = model_;
  const int n = m.num_dofs(), N = m.state_dim();
  double worst = 0.0;
  for (const State &x : test_states(m, 5)) {
    Vec6 h_alone, h_A, h_D;
    MatX none, A(6, n), A_D(6, n), D(6, N);
    centroidal_momentum(m, *ws_, x.H, x.s, x.v, x.r, h_alone, none, none);
    centroidal_momentum(m, *ws_, x.H, x.s, x.v, x.r, h_A, A, none);
    centroidal_momentum(m, *ws_, x.H, x.s, x.v, x.r, h_D, A_D, D);
    const VecX nu = nu_of(m, x);
    worst = std::max(worst, rel_err(MatX(h_alone), MatX(A * nu)));
    worst = std::max(worst, rel_err(MatX(h_alone), MatX(h_A)));
    Vec3 c, cv;
    center_of_mass(m, *ws_, x.H, x.s, x.v, x.r, c, cv, none);
    worst = std::max(worst, rel_err(MatX(h_alone.head<3>()), MatX(m.total_mass() * cv)));
    EXPECT_EQ(h_A, h_D);
    EXPECT_EQ(A, A_D);
  }
  EXPECT_LT(worst, 1e-12);
}

TEST_P(Costs, PoseErrorIsZeroAtItsOwnPoseWithTheJacobianAsDerivative) {
  const Model &m = model_;
  const int n = m.num_dofs(), N = m.state_dim(), nj = m.num_joints(), nv = m.fixed_base ? 0 : 6;
  double worst = 0.0, worst_fd = 0.0;
  for (const State &x : test_states(m, 7))
    for (int f : test_frames(m)) {
      const Transform HF = frame_pose(m, *ws_, x.H, x.s, f);
      Vec6 e;
      MatX D(6, N), J(6, n);
      frame_pose_error(m, *ws_, x.H, x.s, f, HF, e, D);
      EXPECT_LT(e.norm(), 1e-12);
      frame_jacobian(m, *ws_, x.H, x.s, f, J);
      MatX expect = MatX::Zero(6, N);
      expect.leftCols(nv + nj) = J;
      worst = std::max(worst, rel_err(D, expect));
      // Away from the reference: finite differences.
      const Transform ref = HF * exp_se3((Vec6() << 0.1, -0.2, 0.05, 0.4, -0.3, 0.6).finished());
      frame_pose_error(m, *ws_, x.H, x.s, f, ref, e, D);
      const MatX fd = central_differences(m, x, 6, [&](const State &y) {
        Vec6 ey;
        MatX none;
        frame_pose_error(m, *ws_, y.H, y.s, f, ref, ey, none);
        return VecX(ey);
      });
      worst_fd = std::max(worst_fd, rel_err(D, fd));
    }
  EXPECT_LT(worst, 1e-14);
  EXPECT_LT(worst_fd, 1e-7);
}

TEST_P(Costs, FrameVelocityMatchesTheJacobianAndFiniteDifferences) {
  const Model &m = model_;
  const int n = m.num_dofs(), N = m.state_dim();
  double worst = 0.0, worst_id = 0.0;
  for (const State &x : test_states(m, 11))
    for (int f : test_frames(m))
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        Vec6 t;
        MatX D(6, N), J(6, n);
        frame_velocity(m, *ws_, x.H, x.s, x.v, x.r, f, flags, t, D);
        frame_jacobian(m, *ws_, x.H, x.s, f, J);
        Vec6 expect = J * nu_of(m, x);
        if (flags == kWrenchMixed) {
          const Mat3 R = frame_pose(m, *ws_, x.H, x.s, f).R;
          expect.head<3>() = R * expect.head<3>().eval();
          expect.tail<3>() = R * expect.tail<3>().eval();
        }
        worst_id = std::max(worst_id, rel_err(MatX(t), MatX(expect)));
        const MatX fd = central_differences(m, x, 6, [&](const State &y) {
          Vec6 ty;
          MatX none;
          frame_velocity(m, *ws_, y.H, y.s, y.v, y.r, f, flags, ty, none);
          return VecX(ty);
        });
        worst = std::max(worst, rel_err(D, fd));
      }
  EXPECT_LT(worst_id, 1e-12);
  EXPECT_LT(worst, 1e-7);
}

TEST_P(Costs, FrameAccelerationMatchesFiniteDifferencesAndTheJacobian) {
  const Model &m = model_;
  const int n = m.num_dofs(), N = m.state_dim();
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0, worst_nd = 0.0, worst_t = 0.0;
  for (const State &x : test_states(m, 13)) {
    VecX nd(n);
    for (int k = 0; k < n; ++k) nd[k] = u(rng);
    for (int f : test_frames(m))
      for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
        Vec6 a;
        MatX D(6, N), Dn(6, n), J(6, n);
        frame_acceleration(m, *ws_, x.H, x.s, x.v, x.r, nd, f, flags, a, D, Dn);
        frame_jacobian(m, *ws_, x.H, x.s, f, J);
        if (flags == kWrenchMixed) {
          const Mat3 R = frame_pose(m, *ws_, x.H, x.s, f).R;
          J.topRows<3>() = R * J.topRows<3>().eval();
          J.bottomRows<3>() = R * J.bottomRows<3>().eval();
        }
        worst_nd = std::max(worst_nd, rel_err(Dn, J));
        const MatX fd = central_differences(m, x, 6, [&](const State &y) {
          Vec6 ay;
          MatX e1, e2;
          frame_acceleration(m, *ws_, y.H, y.s, y.v, y.r, nd, f, flags, ay, e1, e2);
          return VecX(ay);
        });
        worst = std::max(worst, rel_err(D, fd));
        // The classical acceleration is the time derivative of the Mixed velocity [ṗ; ω] along
        // ẋ = x (v, r, ν̇): the derivative of the Local/Mixed twist along the flow, rotated.
        if (flags == kWrenchMixed) {
          Vec6 t;
          MatX Dt(6, N);
          frame_velocity(m, *ws_, x.H, x.s, x.v, x.r, f, flags, t, Dt);
          VecX flow(N);
          flow << nu_of(m, x), nd;
          worst_t = std::max(worst_t, rel_err(MatX(Dt * flow), MatX(a)));
        }
      }
  }
  EXPECT_LT(worst_nd, 1e-14);
  EXPECT_LT(worst, 1e-7);
  EXPECT_LT(worst_t, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(AllModels, Costs, testing::ValuesIn(all_model_cases()), case_name);

// With contacts held by contact_dynamics: the centroidal momentum changes at m g + Σ of the
// contact wrenches about the centre of mass (Newton–Euler for the whole robot), and each
// contact frame's classical acceleration is the prescribed −Kd ṗ − Kp (p − p_ref).
TEST(CostsWithContacts, MomentumRateIsGravityPlusContactWrenchesAndContactsFollowTheirLaw) {
  const Model m = load_urdf_file(model_path("quadruped.urdf"), 0);
  Workspace ws(m);
  std::mt19937 rng(17);
  const State x = random_state(m, rng, 0.5);
  const int n = m.num_dofs(), N = m.state_dim();
  std::vector<int> frames, types;
  std::vector<double> refs;
  for (const char *name : {"FL_foot", "FR_foot", "HL_foot", "HR_foot"}) {
    const int f = m.frame_index(name);
    frames.push_back(f);
    types.push_back(kContactPoint);
    Transform T = frame_pose(m, ws, x.H, x.s, f);
    T.o += Vec3(0.01, -0.02, 0.015);
    const Mat4 Hm = T.matrix();
    for (int k = 0; k < 16; ++k) refs.push_back(Hm(k % 4, k / 4));
  }
  for (unsigned flags : {kWrenchLocal, kWrenchMixed}) {
    Contacts c;
    c.count = 4;
    c.frames = frames.data();
    c.types = types.data();
    c.flags = flags;
    c.Kp = 30.0;
    c.Kd = 7.0;
    c.refs = refs.data();
    VecX nd(n), lambda(12);
    ASSERT_TRUE(contact_dynamics(m, ws, x.H, x.s, x.v, x.r, x.tau, c, nd, lambda));
    // ḣ_G from two close states along the flow ẋ = x (v, r, ν̇).
    VecX flow(N);
    flow << nu_of(m, x), nd;
    const double dt = 1e-6;
    auto h_at = [&](double t) {
      State y = x;
      y.H = x.H * exp_se3(t * x.v);
      y.s = x.s + t * x.r;
      y.v = x.v + t * nd.head<6>();
      y.r = x.r + t * nd.tail(m.num_joints());
      Vec6 h;
      MatX e1, e2;
      centroidal_momentum(m, ws, y.H, y.s, y.v, y.r, h, e1, e2);
      return h;
    };
    const Vec6 h_dot = (h_at(dt) - h_at(-dt)) / (2 * dt);
    Vec3 pc, vc;
    MatX none;
    center_of_mass(m, ws, x.H, x.s, x.v, x.r, pc, vc, none);
    Vec6 expect = Vec6::Zero();
    expect.head<3>() = m.total_mass() * ws.gravity;
    for (int k = 0; k < 4; ++k) {
      const Transform HF = frame_pose(m, ws, x.H, x.s, frames[k]);
      Vec3 f = lambda.segment<3>(3 * k);
      if (flags == kWrenchLocal) f = HF.R * f;
      expect.head<3>() += f;
      expect.tail<3>() += (HF.o - pc).cross(f);
    }
    EXPECT_LT((h_dot - expect).norm(), 1e-6 * std::max(1.0, expect.norm())) << flags;
    // The same from dh_dz along the flow.
    Vec6 h;
    MatX A(6, n), D(6, N);
    centroidal_momentum(m, ws, x.H, x.s, x.v, x.r, h, A, D);
    EXPECT_LT((D * flow - expect).norm(), 1e-9 * std::max(1.0, expect.norm())) << flags;
    // Each held point: p̈ = −Kd ṗ − Kp (p − p_ref), in the flags' axes.
    for (int k = 0; k < 4; ++k) {
      Vec6 acc, t;
      MatX e1, e2;
      frame_acceleration(m, ws, x.H, x.s, x.v, x.r, nd, frames[k], kWrenchMixed, acc, e1, e2);
      frame_velocity(m, ws, x.H, x.s, x.v, x.r, frames[k], kWrenchMixed, t, e1);
      const Transform HF = frame_pose(m, ws, x.H, x.s, frames[k]);
      const Vec3 p_ref(refs[16 * k + 12], refs[16 * k + 13], refs[16 * k + 14]);
      const Vec3 target = -c.Kd * t.head<3>() - c.Kp * (HF.o - p_ref);
      EXPECT_LT((acc.head<3>() - target).norm(), 1e-9 * std::max(1.0, target.norm()));
      frame_acceleration(m, ws, x.H, x.s, x.v, x.r, nd, frames[k], kWrenchLocal, acc, e1, e2);
      EXPECT_LT((acc.head<3>() - HF.R.transpose() * target).norm(),
                1e-9 * std::max(1.0, target.norm()));
    }
  }
}

}  // namespace
}  // namespace geolin::test
