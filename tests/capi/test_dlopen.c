/* Loads libgeolin.so.0 at run time with dlopen(), resolves every function of geolin.h with
 * dlsym(), and runs a model through forward dynamics and the linearization: what a robot stack
 * that plugs the library in at run time does.
 *
 * usage: test_dlopen <path/to/libgeolin.so.0> <robot.urdf>
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geolin.h" /* for the types and constants only: nothing is linked */

/* Every function of the ABI (capi/abi_functions.txt). */
static const char *const k_functions[] = {
    "geolin_version",
    "geolin_last_error",
    "geolin_status_string",
    "geolin_model_load_urdf",
    "geolin_model_load_urdf_string",
    "geolin_model_free",
    "geolin_model_num_joints",
    "geolin_model_num_dofs",
    "geolin_model_state_dim",
    "geolin_model_num_bodies",
    "geolin_model_is_fixed_base",
    "geolin_model_parent",
    "geolin_model_num_children",
    "geolin_model_child",
    "geolin_model_body_name",
    "geolin_model_joint_name",
    "geolin_model_joint_index",
    "geolin_model_total_mass",
    "geolin_workspace_new",
    "geolin_workspace_free",
    "geolin_workspace_set_gravity",
    "geolin_workspace_set_contact_regularization",
    "geolin_forward_dynamics",
    "geolin_inverse_dynamics",
    "geolin_mass_matrix",
    "geolin_mass_matrix_inverse",
    "geolin_linearize",
    "geolin_linearize_finite_difference",
    "geolin_model_num_frames",
    "geolin_model_frame_name",
    "geolin_model_frame_index",
    "geolin_frame_pose",
    "geolin_frame_jacobian",
    "geolin_forward_dynamics_ext",
    "geolin_linearize_ext",
    "geolin_step",
    "geolin_step_linearize",
    "geolin_state_integrate",
    "geolin_state_difference",
    "geolin_state_integrate_derivatives",
    "geolin_state_difference_derivatives",
    "geolin_model_with_armature",
    "geolin_model_armature",
    "geolin_model_with_srdf_rotor_params",
};
#define NUM_FUNCTIONS (sizeof k_functions / sizeof k_functions[0])

/* Function pointer types, checked against the header's declarations below. */
typedef void (*version_fn)(int *, int *, int *);
typedef const char *(*last_error_fn)(void);
typedef int (*load_fn)(const char *, unsigned, geolin_model **);
typedef int (*with_armature_fn)(const geolin_model *, const double *, geolin_model **);
typedef int (*armature_fn)(const geolin_model *, double *);
typedef int (*srdf_fn)(const geolin_model *, const char *, geolin_model **);
typedef void (*model_free_fn)(geolin_model *);
typedef int (*model_int_fn)(const geolin_model *);
typedef int (*ws_new_fn)(const geolin_model *, geolin_workspace **);
typedef void (*ws_free_fn)(geolin_workspace *);
typedef int (*fd_fn)(geolin_workspace *, const double *, const double *, const double *,
                     const double *, const double *, double *);
typedef int (*lin_fn)(geolin_workspace *, const double *, const double *, const double *,
                      const double *, const double *, double *, double *);
typedef int (*frame_index_fn)(const geolin_model *, const char *);
typedef const char *(*frame_name_fn)(const geolin_model *, int);
typedef int (*frame_pose_fn)(geolin_workspace *, const double *, const double *, int, double *);
typedef int (*fd_ext_fn)(geolin_workspace *, const double *, const double *, const double *,
                         const double *, const double *, int, const int *, const double *, unsigned,
                         double *);
typedef int (*lin_ext_fn)(geolin_workspace *, const double *, const double *, const double *,
                          const double *, const double *, int, const int *, const double *,
                          unsigned, double *, double *);
typedef int (*step_fn)(geolin_workspace *, int, double, const double *, const double *,
                       const double *, const double *, const double *, double *, double *, double *,
                       double *);
typedef int (*step_lin_fn)(geolin_workspace *, int, double, const double *, const double *,
                           const double *, const double *, const double *, double *, double *);
typedef int (*state_integrate_fn)(const geolin_model *, const double *, const double *,
                                  const double *, const double *, const double *, double *,
                                  double *, double *, double *);
typedef int (*state_difference_fn)(const geolin_model *, const double *, const double *,
                                   const double *, const double *, const double *, const double *,
                                   const double *, const double *, double *);
typedef int (*state_integrate_derivatives_fn)(const geolin_model *, const double *, const double *,
                                              const double *, const double *, const double *,
                                              double *, double *);
typedef int (*state_difference_derivatives_fn)(const geolin_model *, const double *, const double *,
                                               const double *, const double *, const double *,
                                               const double *, const double *, const double *,
                                               double *, double *);

/* Compile-time check that the typedefs match the header (assignment of the real functions). */
static void type_check(void) {
  version_fn a = &geolin_version;
  last_error_fn b = &geolin_last_error;
  load_fn c = &geolin_model_load_urdf;
  model_free_fn d = &geolin_model_free;
  model_int_fn e = &geolin_model_num_joints;
  ws_new_fn f = &geolin_workspace_new;
  ws_free_fn g = &geolin_workspace_free;
  fd_fn h = &geolin_forward_dynamics;
  lin_fn i = &geolin_linearize;
  model_int_fn j = &geolin_model_num_frames;
  frame_name_fn k = &geolin_model_frame_name;
  frame_index_fn l = &geolin_model_frame_index;
  frame_pose_fn m1 = &geolin_frame_pose, m2 = &geolin_frame_jacobian;
  fd_ext_fn n = &geolin_forward_dynamics_ext;
  lin_ext_fn o = &geolin_linearize_ext;
  step_fn p = &geolin_step;
  step_lin_fn q = &geolin_step_linearize;
  state_integrate_fn si = &geolin_state_integrate;
  state_difference_fn sd = &geolin_state_difference;
  state_integrate_derivatives_fn sid = &geolin_state_integrate_derivatives;
  state_difference_derivatives_fn sdd = &geolin_state_difference_derivatives;
  with_armature_fn wa = &geolin_model_with_armature;
  armature_fn ar = &geolin_model_armature;
  srdf_fn sr = &geolin_model_with_srdf_rotor_params;
  (void)wa, (void)ar, (void)sr;
  (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
  (void)j, (void)k, (void)l, (void)m1, (void)m2, (void)n, (void)o, (void)p, (void)q;
  (void)si, (void)sd, (void)sid, (void)sdd;
}

/* dlsym returns void*; converting it to a function pointer goes through memcpy (ISO C). */
static void *sym(void *lib, const char *name) {
  void *p;
  dlerror();
  p = dlsym(lib, name);
  if (p == NULL) fprintf(stderr, "dlsym(%s) failed: %s\n", name, dlerror());
  return p;
}
#define RESOLVE(type, var, name)   \
  type var;                        \
  do {                             \
    void *p_ = sym(lib, name);     \
    memcpy(&var, &p_, sizeof var); \
  } while (0)

int main(int argc, char **argv) {
  void *lib;
  size_t k;
  int failures = 0, st, nj, n, N, i, major = -1, minor = -1, patch = -1;
  geolin_model *m = NULL;
  geolin_workspace *ws = NULL;
  double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.1, 0.2, 0.3, 1};
  double v[6] = {0.1, -0.2, 0.3, 0.4, -0.5, 0.6};
  double *s, *r, *tau, *nu_dot, *A, *B;
  double H_frame[16], H_next[16], v_next[6], *s_next, *r_next;

  (void)type_check;
  if (argc < 3) {
    fprintf(stderr, "usage: %s <libgeolin.so.0> <robot.urdf>\n", argv[0]);
    return 2;
  }
  lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "dlopen(%s) failed: %s\n", argv[1], dlerror());
    return 1;
  }
  for (k = 0; k < NUM_FUNCTIONS; ++k) {
    if (sym(lib, k_functions[k]) == NULL) ++failures;
  }
  printf("resolved %d of %d functions\n", (int)(NUM_FUNCTIONS - (size_t)failures),
         (int)NUM_FUNCTIONS);
  if (failures) return 1;
  {
    RESOLVE(version_fn, version, "geolin_version");
    RESOLVE(last_error_fn, last_error, "geolin_last_error");
    RESOLVE(load_fn, load, "geolin_model_load_urdf");
    RESOLVE(model_free_fn, model_free, "geolin_model_free");
    RESOLVE(model_int_fn, num_joints, "geolin_model_num_joints");
    RESOLVE(model_int_fn, num_dofs, "geolin_model_num_dofs");
    RESOLVE(model_int_fn, state_dim, "geolin_model_state_dim");
    RESOLVE(ws_new_fn, ws_new, "geolin_workspace_new");
    RESOLVE(ws_free_fn, ws_free, "geolin_workspace_free");
    RESOLVE(fd_fn, forward_dynamics, "geolin_forward_dynamics");
    RESOLVE(lin_fn, linearize, "geolin_linearize");
    RESOLVE(model_int_fn, num_frames, "geolin_model_num_frames");
    RESOLVE(frame_name_fn, frame_name, "geolin_model_frame_name");
    RESOLVE(frame_index_fn, frame_index, "geolin_model_frame_index");
    RESOLVE(frame_pose_fn, frame_pose, "geolin_frame_pose");
    RESOLVE(step_fn, step, "geolin_step");
    RESOLVE(state_integrate_fn, state_integrate, "geolin_state_integrate");
    RESOLVE(state_difference_fn, state_difference, "geolin_state_difference");

    version(&major, &minor, &patch);
    printf("libgeolin %d.%d.%d\n", major, minor, patch);
    if (major != GEOLIN_VERSION_MAJOR) ++failures;

    st = load(argv[2], 0, &m);
    if (st != GEOLIN_OK) {
      fprintf(stderr, "load failed (%d): %s\n", st, last_error());
      return 1;
    }
    nj = num_joints(m);
    n = num_dofs(m);
    N = state_dim(m);
    s = (double *)calloc((size_t)nj + 1, sizeof(double));
    r = (double *)calloc((size_t)nj + 1, sizeof(double));
    tau = (double *)calloc((size_t)nj + 1, sizeof(double));
    nu_dot = (double *)calloc((size_t)n, sizeof(double));
    A = (double *)calloc((size_t)N * (size_t)N, sizeof(double));
    B = (double *)calloc((size_t)N * (size_t)nj + 1, sizeof(double));
    s_next = (double *)calloc((size_t)nj + 1, sizeof(double));
    r_next = (double *)calloc((size_t)nj + 1, sizeof(double));
    for (i = 0; i < nj; ++i) {
      s[i] = 0.1 * (i + 1);
      r[i] = -0.05 * i;
      tau[i] = 0.5;
    }
    st = ws_new(m, &ws);
    if (st == GEOLIN_OK) st = forward_dynamics(ws, H, s, v, r, tau, nu_dot);
    if (st == GEOLIN_OK) st = linearize(ws, H, s, v, r, tau, A, B);
    if (st != GEOLIN_OK) {
      fprintf(stderr, "evaluation failed (%d): %s\n", st, last_error());
      ++failures;
    } else {
      /* A's kinematic rows: dz_s/dt = z_r */
      for (i = 0; i < nj; ++i) {
        if (A[(n - nj + i) + N * (n + n - nj + i)] != 1.0) ++failures;
      }
      for (i = 0; i < n; ++i) {
        if (!isfinite(nu_dot[i])) ++failures;
      }
      printf("nu_dot[0] = %g, A(N-1, 0) = %g\n", nu_dot[0], A[N - 1]);
    }
    /* frames: the root link's pose is H; one step moves the base by about h R v_linear */
    if (num_frames(m) < 1 || frame_index(m, frame_name(m, 0)) != 0) ++failures;
    st = frame_pose(ws, H, s, frame_index(m, "base"), H_frame);
    for (i = 0; i < 16 && st == GEOLIN_OK; ++i) {
      if (fabs(H_frame[i] - H[i]) > 1e-12) st = -1;
    }
    if (st != GEOLIN_OK) {
      fprintf(stderr, "frame_pose of the root link (%d): %s\n", st, last_error());
      ++failures;
    }
    st = step(ws, GEOLIN_STEP_RK4, 1e-3, H, s, v, r, tau, H_next, s_next, v_next, r_next);
    if (st != GEOLIN_OK || fabs(H_next[12] - H[12] - 1e-3 * v[0]) > 1e-5) {
      fprintf(stderr, "step (%d): %s\n", st, last_error());
      ++failures;
    }
    /* the state algebra: log(x^-1 x+) of the step, integrated back onto x (in place), is x+ */
    if (st == GEOLIN_OK) {
      double *z = (double *)calloc((size_t)N, sizeof(double)), H_back[16];
      st = state_difference(m, H, s, v, r, H_next, s_next, v_next, r_next, z);
      if (st == GEOLIN_OK) st = state_integrate(m, H, s, v, r, z, H_back, s, v, r);
      for (i = 0; i < 16 && st == GEOLIN_OK; ++i) {
        if (fabs(H_back[i] - H_next[i]) > 1e-12) st = -1;
      }
      for (i = 0; i < nj && st == GEOLIN_OK; ++i) {
        if (fabs(s[i] - s_next[i]) > 1e-12 || fabs(r[i] - r_next[i]) > 1e-12) st = -1;
      }
      if (st != GEOLIN_OK) {
        fprintf(stderr, "state_difference / state_integrate (%d): %s\n", st, last_error());
        ++failures;
      }
      free(z);
    }
    ws_free(ws);
    ws = NULL;
    { /* a copy with armature outlives its original and reports the armature it was given */
      RESOLVE(with_armature_fn, with_armature, "geolin_model_with_armature");
      RESOLVE(armature_fn, armature_of, "geolin_model_armature");
      geolin_model *geared = NULL;
      for (i = 0; i < nj; ++i) tau[i] = 0.01 * (i + 1); /* tau holds the armature here */
      st = with_armature(m, tau, &geared);
      model_free(m);
      m = NULL;
      if (st == GEOLIN_OK) st = armature_of(geared, r);
      for (i = 0; i < nj && st == GEOLIN_OK; ++i)
        if (r[i] != 0.01 * (i + 1)) st = -1;
      if (st == GEOLIN_OK) st = ws_new(geared, &ws);
      for (i = 0; i < nj; ++i) tau[i] = 0.5, r[i] = -0.05 * i;
      if (st == GEOLIN_OK) st = forward_dynamics(ws, H, s, v, r, tau, nu_dot);
      if (st != GEOLIN_OK) {
        fprintf(stderr, "armature (%d): %s\n", st, last_error());
        ++failures;
      }
      ws_free(ws);
      model_free(geared);
    }
    model_free(m);
    free(s);
    free(r);
    free(tau);
    free(nu_dot);
    free(A);
    free(B);
    free(s_next);
    free(r_next);
  }
  if (dlclose(lib) != 0) {
    fprintf(stderr, "dlclose failed: %s\n", dlerror());
    ++failures;
  }
  printf("%s\n", failures ? "FAILED" : "dlopen test passed");
  return failures ? 1 : 0;
}
