/* docs/c-api.md rule 4: evaluation calls do not allocate. This program replaces the C library's
 * malloc family (glibc supports replacing malloc by defining these functions in the program;
 * the shared libraries, libstdc++'s operator new included, then use them) with a counting bump
 * allocator, and checks that no evaluation call allocates once the model and the workspace
 * exist. Error paths are checked too, after one warm-up failure per thread (the thread-local
 * message keeps its capacity).
 *
 * usage: test_noalloc <robot.urdf>
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "geolin.h"

/* ---------------------------------------------------------------------------------------------
 * a counting bump allocator (free is a no-op; the program is short-lived)
 * ------------------------------------------------------------------------------------------- */

#define ARENA_SIZE ((size_t)256 << 20)
#define HEADER 16u
static unsigned char g_arena[ARENA_SIZE] __attribute__((aligned(64)));
static size_t g_used = 0;
static unsigned long g_count = 0;

static void *arena_alloc(size_t size, size_t align) {
  size_t start, offset, end;
  unsigned char *p;
  if (align < HEADER) align = HEADER;
  __atomic_fetch_add(&g_count, 1ul, __ATOMIC_RELAXED);
  for (;;) {
    start = __atomic_load_n(&g_used, __ATOMIC_RELAXED);
    offset = (start + HEADER + align - 1) / align * align; /* user pointer offset */
    end = offset + size;
    if (end > ARENA_SIZE || size > ARENA_SIZE) return NULL;
    if (__atomic_compare_exchange_n(&g_used, &start, end, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      break;
  }
  p = g_arena + offset;
  memcpy(p - sizeof(size_t), &size, sizeof(size_t)); /* the size, for realloc */
  return p;
}

/* The replacements must be visible to the shared libraries (the build hides symbols by
 * default). */
#define EXPORT __attribute__((visibility("default")))

static size_t block_size(void *ptr) {
  size_t size;
  memcpy(&size, (unsigned char *)ptr - sizeof(size_t), sizeof(size_t));
  return size;
}

EXPORT void *malloc(size_t size) {
  return arena_alloc(size, HEADER);
}
EXPORT void free(void *ptr) {
  (void)ptr;
}
EXPORT void *calloc(size_t count, size_t size) {
  void *p;
  if (size != 0 && count > ARENA_SIZE / size) return NULL;
  p = arena_alloc(count * size, HEADER);
  if (p != NULL) memset(p, 0, count * size); /* the arena may be reused memory: clear it */
  return p;
}
EXPORT void *realloc(void *ptr, size_t size) {
  void *p = arena_alloc(size, HEADER);
  if (p != NULL && ptr != NULL) {
    size_t old = block_size(ptr);
    memcpy(p, ptr, old < size ? old : size);
  }
  return p;
}
EXPORT int posix_memalign(void **out, size_t align, size_t size) {
  void *p = arena_alloc(size, align);
  if (p == NULL) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
EXPORT void *aligned_alloc(size_t align, size_t size) {
  return arena_alloc(size, align);
}
EXPORT void *memalign(size_t align, size_t size) {
  return arena_alloc(size, align);
}
EXPORT void *valloc(size_t size) {
  return arena_alloc(size, 4096);
}
EXPORT void *pvalloc(size_t size) {
  return arena_alloc((size + 4095) / 4096 * 4096, 4096);
}
EXPORT size_t malloc_usable_size(void *ptr) {
  return ptr ? block_size(ptr) : 0;
}

/* ---------------------------------------------------------------------------------------------
 * the test
 * ------------------------------------------------------------------------------------------- */

#define MAXN 64
static double g_A[4 * MAXN * MAXN], g_B[2 * MAXN * (MAXN + 12)], g_M[MAXN * MAXN];
static double g_J[6 * MAXN], g_Hf[16];
static int g_num_frames = 1;
static const geolin_model *g_model = NULL;
/* Constraint sets (built in main): the last frame held (a point, Mixed, gains and ref), and the
 * same with the second joint coupled to the first. */
static geolin_constraints *g_held = NULL, *g_coupled = NULL;

/* Every evaluation function once; with bad != 0, each also once with a NaN and once with NULL. */
static int evaluate_all(geolin_workspace *ws, int nj, int n, int bad) {
  static double s[MAXN], r[MAXN], tau[MAXN], nu_dot[MAXN], f[MAXN], s_nan[MAXN];
  static double s_next[MAXN], r_next[MAXN], H_next[16], v_next[6], kp[MAXN], kd[MAXN];
  const int frames[2] = {0, g_num_frames - 1};
  const double wrenches[12] = {1, 2, 3, 0.1, 0.2, 0.3, -1, 0, 2, 0, 0.5, 0};
  const double H[16] = {0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0.5, 0.2, 1.0, 1};
  const double v[6] = {0.1, 0.2, -0.3, 0.05, -0.1, 0.2};
  const double g[3] = {0.1, 0.0, -9.8};
  const int point_types[2] = {GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT};
  const int rigid_types[2] = {GEOLIN_CONTACT_RIGID, GEOLIN_CONTACT_RIGID};
  const double gains[2] = {20.0, 5.0};
  static double refs[32], lambda[12], g_dz[12 * 2 * MAXN], g_dw[12 * MAXN];
  int i, st = 0;
  for (i = 0; i < 32; ++i) refs[i] = (i % 16) % 5 == 0 ? 1.0 : 0.0; /* two identities */
  refs[12] = 0.3, refs[28] = -0.2;
  for (i = 0; i < nj; ++i) {
    s[i] = 0.1 * i;
    r[i] = -0.2 + 0.1 * i;
    tau[i] = 0.3;
    s_nan[i] = s[i];
    kp[i] = 30.0;
    kd[i] = 2.0;
  }
  if (nj > 0) s_nan[nj - 1] = 0.0 / 0.0;
  (void)n;
  if (!bad) {
    st |= geolin_workspace_set_gravity(ws, g);
    st |= geolin_forward_dynamics(ws, H, s, v, r, tau, nu_dot);
    st |= geolin_inverse_dynamics(ws, H, s, v, r, nu_dot, f);
    st |= geolin_mass_matrix(ws, s, g_M);
    st |= geolin_inverse_dynamics_linearize(ws, H, s, v, r, nu_dot, f, g_A, g_M);
    st |= geolin_mass_matrix_inverse(ws, s, g_M);
    st |= geolin_linearize(ws, H, s, v, r, tau, g_A, g_B);
    st |= geolin_linearize_finite_difference(ws, H, s, v, r, tau, 1e-6, g_A, g_B);
    st |= geolin_frame_pose(ws, H, s, g_num_frames - 1, g_Hf);
    st |= geolin_frame_jacobian(ws, H, s, g_num_frames - 1, g_J);
    st |= geolin_center_of_mass(ws, H, s, v, r, g_Hf, g_Hf + 3, g_J);
    st |= geolin_centroidal_momentum(ws, H, s, v, r, g_Hf, g_J, g_A);
    st |= geolin_frame_pose_error(ws, H, s, g_num_frames - 1, H, g_Hf, g_A);
    st |= geolin_frame_velocity(ws, H, s, v, r, g_num_frames - 1, GEOLIN_WRENCH_MIXED, g_Hf, g_A);
    st |= geolin_frame_acceleration(ws, H, s, v, r, nu_dot, g_num_frames - 1, GEOLIN_WRENCH_MIXED,
                                    g_Hf, g_A, g_J);
    st |= geolin_forward_dynamics_ext(ws, H, s, v, r, tau, 2, frames, wrenches, GEOLIN_WRENCH_LOCAL,
                                      nu_dot);
    st |= geolin_forward_dynamics_ext(ws, H, s, v, r, tau, 2, frames, wrenches, GEOLIN_WRENCH_MIXED,
                                      nu_dot);
    st |= geolin_linearize_ext(ws, H, s, v, r, tau, 2, frames, wrenches, GEOLIN_WRENCH_LOCAL, g_A,
                               g_B);
    st |= geolin_linearize_ext(ws, H, s, v, r, tau, 2, frames, wrenches, GEOLIN_WRENCH_MIXED, g_A,
                               g_B);
    st |= geolin_step(ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, H_next, s_next,
                      v_next, r_next);
    st |= geolin_step(ws, GEOLIN_STEP_RK4, 1e-3, H, s, v, r, tau, H_next, s_next, v_next, r_next);
    st |=
        geolin_step_linearize(ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, g_A, g_B);
    st |= geolin_step_linearize(ws, GEOLIN_STEP_RK4, 1e-3, H, s, v, r, tau, g_A, g_B);
    /* the implicit step with a joint feedback (its model written into the workspace) */
    st |= geolin_step(ws, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, H_next, s_next, v_next,
                      r_next);
    st |= geolin_step_feedback(ws, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, kp, kd, s, r,
                               H_next, s_next, v_next, r_next);
    st |= geolin_step_feedback_linearize(ws, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, kp,
                                         kd, NULL, NULL, g_A, g_B);
    st |= geolin_contact_step_feedback(ws, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, kp,
                                       kd, s, NULL, 2, frames, point_types, GEOLIN_WRENCH_MIXED,
                                       gains, refs, H_next, s_next, v_next, r_next, lambda);
    st |= geolin_contact_step_feedback_linearize(ws, GEOLIN_STEP_RK4, 1e-3, H, s, v, r, tau, kp, kd,
                                                 s, r, 2, frames, point_types, GEOLIN_WRENCH_MIXED,
                                                 gains, refs, g_A, g_B, g_dz, g_dw);
    st |= geolin_contact_dynamics(ws, H, s, v, r, tau, 2, frames, point_types, GEOLIN_WRENCH_LOCAL,
                                  gains, refs, nu_dot, lambda);
    st |= geolin_contact_dynamics(ws, H, s, v, r, tau, 1, frames + 1, rigid_types,
                                  GEOLIN_WRENCH_MIXED, gains, refs, nu_dot, lambda);
    st |= geolin_contact_linearize(ws, H, s, v, r, tau, 2, frames, point_types, GEOLIN_WRENCH_MIXED,
                                   gains, refs, g_A, g_B, g_dz, g_dw);
    st |= geolin_contact_linearize(ws, H, s, v, r, tau, 1, frames + 1, rigid_types,
                                   GEOLIN_WRENCH_LOCAL, NULL, NULL, g_A, g_B, NULL, NULL);
    if (n >= 6) { /* the last frame held twice, solved with a contact regularization */
      const int twice[2] = {g_num_frames - 1, g_num_frames - 1};
      st |= geolin_workspace_set_contact_regularization(ws, 1e-6);
      st |= geolin_contact_dynamics(ws, H, s, v, r, tau, 2, twice, point_types, GEOLIN_WRENCH_MIXED,
                                    gains, refs, nu_dot, lambda);
      st |= geolin_contact_linearize(ws, H, s, v, r, tau, 2, twice, point_types,
                                     GEOLIN_WRENCH_LOCAL, gains, refs, g_A, g_B, g_dz, g_dw);
      st |= geolin_workspace_set_contact_regularization(ws, 0.0);
    }
    /* constraint sets: every geolin_constrained_* function, contacts only and with a coupling */
    for (i = 0; i < 2; ++i) {
      const geolin_constraints *set = i == 0 ? g_held : g_coupled;
      st |= geolin_constrained_dynamics(ws, set, H, s, v, r, tau, nu_dot, lambda);
      st |= geolin_constrained_linearize(ws, set, H, s, v, r, tau, g_A, g_B, g_dz, g_dw);
      st |= geolin_constrained_step(ws, set, GEOLIN_STEP_RK4, 1e-3, H, s, v, r, tau, H_next, s_next,
                                    v_next, r_next, lambda);
      st |= geolin_constrained_step_linearize(ws, set, GEOLIN_STEP_SEMI_IMPLICIT_EULER, 1e-3, H, s,
                                              v, r, tau, g_A, g_B, g_dz, g_dw);
      st |= geolin_constrained_step_feedback(ws, set, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, H, s, v, r,
                                             tau, kp, kd, s, NULL, H_next, s_next, v_next, r_next,
                                             lambda);
      st |= geolin_constrained_step_feedback_linearize(ws, set, GEOLIN_STEP_RK4, 1e-3, H, s, v, r,
                                                       tau, kp, kd, NULL, r, g_A, g_B, g_dz, g_dw);
      st |= geolin_constrained_impulse(ws, set, 0.5, H, s, v, r, v_next, r_next, lambda);
      st |= geolin_constrained_impulse_linearize(ws, set, 0.5, H, s, v, r, g_A, g_dz);
    }
    /* the state algebra (model only): z = log(x^-1 x+), x exp(z) in place, the Jacobians */
    st |= geolin_state_difference(g_model, H, s, v, r, H_next, s_next, v_next, r_next, g_dz);
    st |= geolin_state_integrate(g_model, H, s, v, r, g_dz, H_next, s_next, v_next, r_next);
    st |= geolin_state_integrate_derivatives(g_model, H, s, v, r, g_dz, g_A, NULL);
    st |= geolin_state_difference_derivatives(g_model, H, s, v, r, H_next, s_next, v_next, r_next,
                                              NULL, g_A);
    return st;
  }
  /* error paths: each must fail (and report) without allocating */
  st += geolin_forward_dynamics(ws, H, s_nan, v, r, tau, nu_dot) == GEOLIN_ERR_NONFINITE;
  st += geolin_forward_dynamics(ws, H, s, v, r, NULL, nu_dot) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_linearize(ws, H, s_nan, v, r, tau, g_A, g_B) == GEOLIN_ERR_NONFINITE;
  st += geolin_linearize(ws, NULL, s, v, r, tau, g_A, g_B) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_mass_matrix(ws, s, NULL) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_model_parent(NULL, 0) == -1;
  st += geolin_frame_pose(ws, H, s, -1, g_Hf) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_frame_jacobian(ws, H, s_nan, 0, g_J) == GEOLIN_ERR_NONFINITE;
  st += geolin_frame_velocity(ws, H, s, v, r, 0, 5u, g_Hf, g_A) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_frame_pose_error(ws, H, s, 0, NULL, g_Hf, g_A) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_forward_dynamics_ext(ws, H, s, v, r, tau, 2, frames, wrenches, 7u, nu_dot) ==
        GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_linearize_ext(ws, H, s, v, r, tau, -1, frames, wrenches, 0u, g_A, g_B) ==
        GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_step(ws, GEOLIN_STEP_RK4, 0.0 / 0.0, H, s, v, r, tau, H_next, s_next, v_next,
                    r_next) == GEOLIN_ERR_NONFINITE;
  st +=
      geolin_step_linearize(ws, 3, 1e-3, H, s, v, r, tau, g_A, g_B) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_step_feedback(ws, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, H, s, v, r, tau, NULL, s_nan,
                             NULL, NULL, H_next, s_next, v_next, r_next) == GEOLIN_ERR_NONFINITE;
  st += geolin_model_frame_index(g_model, "no such frame") == -1;
  st += geolin_contact_dynamics(ws, H, s, v, r, tau, 2, frames, point_types, 9u, NULL, NULL, nu_dot,
                                lambda) == GEOLIN_ERR_INVALID_ARGUMENT;
  {
    const int twice[2] = {g_num_frames - 1, g_num_frames - 1}; /* redundant: NUMERIC */
    st += geolin_contact_dynamics(ws, H, s, v, r, tau, 2, twice, rigid_types, 0u, NULL, NULL,
                                  nu_dot, lambda) == GEOLIN_ERR_NUMERIC;
  }
  st += geolin_workspace_set_contact_regularization(ws, -1.0) == GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_constrained_dynamics(ws, NULL, H, s, v, r, tau, nu_dot, lambda) ==
        GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_constrained_linearize(ws, g_coupled, H, s_nan, v, r, tau, g_A, g_B, NULL, NULL) ==
        GEOLIN_ERR_NONFINITE;
  st += geolin_state_difference(g_model, NULL, s, v, r, H, s, v, r, g_dz) ==
        GEOLIN_ERR_INVALID_ARGUMENT;
  st += geolin_state_integrate(g_model, H, s_nan, v, r, g_dz, H_next, s_next, v_next, r_next) ==
        GEOLIN_ERR_NONFINITE;
  return st == 23 ? 0 : 1; /* the number of checks above: each counts 1 when it fails as it must */
}

int main(int argc, char **argv) {
  geolin_model *model = NULL;
  geolin_workspace *ws = NULL;
  unsigned long before, after_ok, after_bad;
  int nj, n, failures = 0, rep;

  if (argc < 2) {
    fprintf(stderr, "usage: %s robot.urdf\n", argv[0]);
    return 2;
  }
  if (geolin_model_load_urdf(argv[1], 0, &model) != GEOLIN_OK ||
      geolin_workspace_new(model, &ws) != GEOLIN_OK) {
    fprintf(stderr, "setup failed: %s\n", geolin_last_error());
    return 1;
  }
  nj = geolin_model_num_joints(model);
  n = geolin_model_num_dofs(model);
  g_num_frames = geolin_model_num_frames(model);
  g_model = model;
  if (n > MAXN || nj > MAXN || g_num_frames < 1) {
    fprintf(stderr, "model too large for this test\n");
    return 1;
  }
  {
    double ref[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.3, 0.1, 0.2, 1};
    const int last = g_num_frames - 1;
    if (nj < 2 || geolin_constraints_new(model, &g_held) != GEOLIN_OK ||
        geolin_constraints_add_contact(g_held, last, GEOLIN_CONTACT_POINT, ref) != GEOLIN_OK ||
        geolin_constraints_set_gains(g_held, 20.0, 5.0) != GEOLIN_OK ||
        geolin_constraints_set_axes(g_held, GEOLIN_WRENCH_MIXED) != GEOLIN_OK ||
        geolin_constraints_new(model, &g_coupled) != GEOLIN_OK ||
        geolin_constraints_add_contact(g_coupled, last, GEOLIN_CONTACT_POINT, NULL) != GEOLIN_OK ||
        geolin_constraints_add_coupling(g_coupled, 1, 0, 0.5, 0.1) != GEOLIN_OK) {
      fprintf(stderr, "constraint sets: %s\n", geolin_last_error());
      return 1;
    }
  }
  printf("setup: %lu allocations\n", g_count);

  /* warm-up: first use (lazy initializations) and the first failure of this thread */
  if (evaluate_all(ws, nj, n, 0) != GEOLIN_OK) {
    fprintf(stderr, "evaluation failed: %s\n", geolin_last_error());
    return 1;
  }
  evaluate_all(ws, nj, n, 1);

  before = g_count;
  for (rep = 0; rep < 3; ++rep) failures += evaluate_all(ws, nj, n, 0) != GEOLIN_OK;
  after_ok = g_count;
  for (rep = 0; rep < 3; ++rep) failures += evaluate_all(ws, nj, n, 1);
  after_bad = g_count;

  printf("evaluations: %lu allocations (expected 0)\n", after_ok - before);
  printf("failing calls after warm-up: %lu allocations (expected 0)\n", after_bad - after_ok);
  if (after_ok != before || after_bad != after_ok) ++failures;
  geolin_constraints_free(g_held);
  geolin_constraints_free(g_coupled);
  geolin_workspace_free(ws);
  geolin_model_free(model);
  printf("%s\n", failures ? "FAILED" : "no allocation in evaluation calls: passed");
  return failures ? 1 : 0;
}
