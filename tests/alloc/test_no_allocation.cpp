// Proof that the evaluation functions allocate nothing once the workspace exists (docs/c-api.md
// rule 4; brief: real-time safe). This binary replaces malloc, calloc, realloc and operator new
// with counting versions (glibc's __libc_* underneath) and runs every evaluation function with the
// counter armed. Not built under sanitizers, which interpose malloc themselves.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>

#include "../test_util.hpp"

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
}

namespace {
std::atomic<long> g_allocations{0};
thread_local bool g_counting = false;
inline void count() {
  if (g_counting) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" void *malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
extern "C" void *calloc(size_t a, size_t b) {
  count();
  return __libc_calloc(a, b);
}
extern "C" void *realloc(void *p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
extern "C" void free(void *p) {
  __libc_free(p);
}
void *operator new(size_t n) {
  count();
  if (void *p = __libc_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void *operator new[](size_t n) {
  return operator new(n);
}
void operator delete(void *p) noexcept {
  __libc_free(p);
}
void operator delete[](void *p) noexcept {
  __libc_free(p);
}
void operator delete(void *p, size_t) noexcept {
  __libc_free(p);
}
void operator delete[](void *p, size_t) noexcept {
  __libc_free(p);
}

namespace geolin::test {
namespace {

/// Number of heap allocations made by f.
template <class F>
long allocations_in(F &&f) {
  const long before = g_allocations.load();
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load() - before;
}

TEST(NoAllocation, CounterSeesAnAllocation) {
  // The counter itself works (otherwise every test below would pass vacuously).
  EXPECT_GE(allocations_in([] {
              volatile auto *p = new double[100];
              delete[] p;
            }),
            1);
  EXPECT_GE(allocations_in([] {
              VecX v(1000);
              v.setZero();
            }),
            1);
}

class NoAllocation : public testing::TestWithParam<ModelCase> {};

TEST_P(NoAllocation, EveryEvaluationFunctionIsAllocationFree) {
  const Model m = GetParam().load();
  Workspace ws(m);
  std::mt19937 rng(1);
  const State x = random_state(m, rng);
  const int n = m.num_dofs(), N = m.state_dim(), nj = m.num_joints();
  const int nf = std::min<int>(2, static_cast<int>(m.frames.size()));
  std::vector<int> frames;
  for (int f = 0; f < nf; ++f) frames.push_back(static_cast<int>(m.frames.size()) - 1 - f);
  VecX wrenches = VecX::Random(6 * nf);
  // Outputs and inputs are allocated here, outside the counted calls.
  VecX nu_dot(n), gen(n), s_next(nj), r_next(nj);
  MatX M(n, n), Minv(n, n), dS(n, nj), dN(n, n), A(N, N), B(N, nj), Bx(N, nj + 6 * nf);
  MatX J(6, n), dZ(n, N), Jc(3, n), Dz(6, N), none(0, 0);
  Vec3 com, com_velocity;
  Vec6 y6;
  const Transform H_ref = Transform::identity();
  Transform H_next;
  Vec6 v_next;
  struct Call {
    const char *name;
    std::function<void()> f;
  };
  const ExternalWrenches local{nf, frames.data(), wrenches.data(), kWrenchLocal};
  const ExternalWrenches mixed{nf, frames.data(), wrenches.data(), kWrenchMixed};
  // One point contact at the last frame (the impact map; OK or refused, never allocating).
  const int contact_type = kContactPoint;
  Contacts contact;
  contact.count = nf > 0 && n >= 3 ? 1 : 0;  // a workspace holds at most n rows
  contact.frames = frames.data();
  contact.types = &contact_type;
  contact.flags = kWrenchMixed;
  Contacts soft = contact;  // the same, regularized (C14)
  soft.mu = 1e-6;
  VecX nu_next(n), impulse_out(3);
  MatX dimpulse(3, N), dimpulse_w(3, nj);
  const VecX z = VecX::LinSpaced(N, -0.5, 0.7);  // the state algebra's tangent vector
  VecX z_out(N);
  MatX A2(N, N);
  // A joint feedback with damping: the implicit step writes its model into the workspace.
  const VecX kp = VecX::Constant(nj, 30.0), kd = VecX::Constant(nj, 2.0), ref = VecX::Zero(nj);
  const JointFeedback feedback{kp.data(), kd.data(), ref.data(), ref.data()};
  const std::vector<Call> calls = {
      {"aba", [&] { aba(m, ws, x.H, x.s, x.v, x.r, x.tau, nu_dot); }},
      {"aba_ext", [&] { aba(m, ws, x.H, x.s, x.v, x.r, x.tau, mixed, nu_dot); }},
      {"rnea", [&] { rnea(m, ws, x.H, x.s, x.v, x.r, nu_dot, gen); }},
      {"crba", [&] { crba(m, ws, x.s, M); }},
      {"minv", [&] { mass_matrix_inverse(m, ws, x.s, Minv); }},
      {"rnea_derivatives", [&] { rnea_derivatives(m, ws, x.H, x.s, x.v, x.r, nu_dot, dS, dN); }},
      {"inverse_dynamics_linearize",
       [&] {
         inverse_dynamics_linearize(m, ws, x.H, x.s, x.v, x.r, nu_dot, gen, dZ, M);
         inverse_dynamics_linearize(m, ws, x.H, x.s, x.v, x.r, nu_dot, gen, none, M);
       }},
      {"linearize", [&] { linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, A, B); }},
      {"linearize_ext_local", [&] { linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, local, A, Bx); }},
      {"linearize_ext_mixed", [&] { linearize(m, ws, x.H, x.s, x.v, x.r, x.tau, mixed, A, Bx); }},
      {"linearize_fd",
       [&] { linearize_finite_difference(m, ws, x.H, x.s, x.v, x.r, x.tau, 1e-6, A, B); }},
      {"linearize_fd_ext",
       [&] { linearize_finite_difference(m, ws, x.H, x.s, x.v, x.r, x.tau, mixed, 1e-6, A, Bx); }},
      {"frame_pose", [&] { H_next = frame_pose(m, ws, x.H, x.s, 0); }},
      {"frame_jacobian", [&] { frame_jacobian(m, ws, x.H, x.s, nf > 0 ? frames[0] : 0, J); }},
      {"center_of_mass", [&] { center_of_mass(m, ws, x.H, x.s, x.v, x.r, com, com_velocity, Jc); }},
      {"centroidal_momentum", [&] { centroidal_momentum(m, ws, x.H, x.s, x.v, x.r, y6, J, Dz); }},
      {"centroidal_momentum_value",
       [&] { centroidal_momentum(m, ws, x.H, x.s, x.v, x.r, y6, none, none); }},
      {"frame_pose_error",
       [&] { frame_pose_error(m, ws, x.H, x.s, nf > 0 ? frames[0] : 0, H_ref, y6, Dz); }},
      {"frame_velocity_mixed",
       [&] {
         frame_velocity(m, ws, x.H, x.s, x.v, x.r, nf > 0 ? frames[0] : 0, kWrenchMixed, y6, Dz);
       }},
      {"frame_acceleration_mixed",
       [&] {
         frame_acceleration(m, ws, x.H, x.s, x.v, x.r, nu_dot, nf > 0 ? frames[0] : 0, kWrenchMixed,
                            y6, Dz, J);
       }},
      {"state_integrate",
       [&] {
         state_integrate(m, x.H, x.s, x.v, x.r, z, H_next, s_next, v_next, r_next);
         EXPECT_TRUE(state_integrate_finite(m, x.H, x.s, x.v, x.r, z));
       }},
      {"state_difference",
       [&] {
         state_difference(m, x.H, x.s, x.v, x.r, H_ref, s_next, v_next, r_next, z_out);
         EXPECT_TRUE(state_difference_finite(m, x.H, x.s, x.v, x.r, H_ref, s_next, v_next, r_next));
       }},
      {"state_derivatives",
       [&] {
         state_integrate_derivatives(m, z, A, A2);
         state_difference_derivatives(m, x.H, H_ref, A, A2);
       }},
      {"step_euler",
       [&] {
         step(m, ws, StepMethod::SemiImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau, H_next, s_next,
              v_next, r_next);
       }},
      {"step_rk4",
       [&] {
         step(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, H_next, s_next, v_next,
              r_next);
       }},
      {"step_linearize_euler",
       [&] {
         step_linearize(m, ws, StepMethod::SemiImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau, A,
                        B);
       }},
      {"step_linearize_rk4",
       [&] { step_linearize(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, A, B); }},
      {"step_implicit_feedback",
       [&] {
         step(m, ws, StepMethod::ImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau, H_next, s_next,
              v_next, r_next, feedback);
       }},
      {"step_linearize_implicit_feedback",
       [&] {
         step_linearize(m, ws, StepMethod::ImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau, A, B,
                        feedback);
       }},
      {"contact_step_implicit_feedback",
       [&] {
         contact_step(m, ws, StepMethod::ImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau, contact,
                      H_next, s_next, v_next, r_next, impulse_out, feedback);
       }},
      {"contact_step_linearize_rk4_feedback",
       [&] {
         contact_step_linearize(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, contact, A,
                                B, dimpulse, dimpulse_w, feedback);
       }},
      {"impulse", [&] { impulse(m, ws, x.H, x.s, x.v, x.r, contact, 0.5, nu_next, impulse_out); }},
      {"impulse_linearize",
       [&] { impulse_linearize(m, ws, x.H, x.s, x.v, x.r, contact, 0.5, A, dimpulse); }},
      {"contact_step_euler",
       [&] {
         contact_step(m, ws, StepMethod::SemiImplicitEuler, 0.01, x.H, x.s, x.v, x.r, x.tau,
                      contact, H_next, s_next, v_next, r_next, impulse_out);
       }},
      {"contact_step_rk4",
       [&] {
         contact_step(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, contact, H_next,
                      s_next, v_next, r_next, impulse_out);
       }},
      {"contact_step_linearize_euler",
       [&] {
         contact_step_linearize(m, ws, StepMethod::SemiImplicitEuler, 0.01, x.H, x.s, x.v, x.r,
                                x.tau, contact, A, B, dimpulse, dimpulse_w);
       }},
      {"contact_step_linearize_rk4",
       [&] {
         contact_step_linearize(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, contact, A,
                                B, dimpulse, dimpulse_w);
       }},
      {"impulse_regularized",
       [&] { impulse(m, ws, x.H, x.s, x.v, x.r, soft, 0.5, nu_next, impulse_out); }},
      {"impulse_linearize_regularized",
       [&] { impulse_linearize(m, ws, x.H, x.s, x.v, x.r, soft, 0.5, A, dimpulse); }},
      {"contact_step_linearize_rk4_regularized",
       [&] {
         contact_step_linearize(m, ws, StepMethod::Rk4, 0.01, x.H, x.s, x.v, x.r, x.tau, soft, A, B,
                                dimpulse, dimpulse_w);
       }},
      {"energies",
       [&] {
         kinetic_energy(m, ws, x.s, x.v, x.r);
         potential_energy(m, ws, x.H, x.s);
         spatial_momentum(m, ws, x.s, x.v, x.r);
       }},
  };
  for (const Call &c : calls) {
    c.f();  // a first call, in case of any lazy initialization (there should be none)
    EXPECT_EQ(allocations_in(c.f), 0) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, NoAllocation, testing::ValuesIn(all_model_cases()), case_name);

}  // namespace
}  // namespace geolin::test
