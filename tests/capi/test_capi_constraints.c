/* Constraint sets through the C ABI (C99): the setters refuse every misuse naming the argument and
 * leave the set as it was; the evaluation functions refuse a NULL set, a set of another model, a
 * set beyond the workspace's capacity, a gain without a held pose, naming 'set', and write
 * nothing; an empty set equals the unconstrained functions and a set of contacts only equals the
 * geolin_contact_* / geolin_impulse* call with the same arguments, bit for bit; the URDF's
 * <mimic> joints become couplings.
 *
 * usage: test_capi_constraints <models_dir>   (uses quadruped.urdf, humanoid.urdf, arm7.urdf)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define MAXN 40
#define MAXNN (2 * MAXN)
#define MAXM 24
#define SENTINEL (-3.5)
#define untouched(x, count) all_equal((x), (count), SENTINEL)
#define NAMES(word) (strstr(geolin_last_error(), (word)) != NULL)

typedef struct {
  geolin_model *model;
  geolin_workspace *ws;
  int nj, n, N, fixed;
  double H[16], s[MAXN], v[6], r[MAXN], tau[MAXN];
} Robot;

static int load(Robot *x, const char *dir, const char *file, unsigned flags) {
  char path[1024];
  int i, st;
  memset(x, 0, sizeof *x);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  st = geolin_model_load_urdf(path, flags, &x->model);
  CHECK(st == GEOLIN_OK, "load %s -> %d", path, st);
  if (st != GEOLIN_OK) return 0;
  CHECK(geolin_workspace_new(x->model, &x->ws) == GEOLIN_OK, "workspace");
  x->nj = geolin_model_num_joints(x->model);
  x->n = geolin_model_num_dofs(x->model);
  x->N = geolin_model_state_dim(x->model);
  x->fixed = geolin_model_is_fixed_base(x->model);
  /* A regular state: the base turned about z and lifted, legs bent, small velocities. */
  memset(x->H, 0, sizeof x->H);
  x->H[0] = cos(0.3), x->H[1] = sin(0.3), x->H[4] = -sin(0.3), x->H[5] = cos(0.3);
  x->H[10] = 1.0, x->H[12] = 0.1, x->H[13] = -0.2, x->H[14] = 0.45, x->H[15] = 1.0;
  for (i = 0; i < 6; ++i) x->v[i] = 0.1 * sin(1.0 + i);
  for (i = 0; i < x->nj && i < MAXN; ++i) {
    static const double bend[3] = {0.1, 0.6, -1.2};
    x->s[i] = bend[i % 3] + 0.01 * i;
    x->r[i] = 0.2 * sin(1.0 + i);
    x->tau[i] = 1.5 * cos(2.0 + i);
  }
  return x->n <= MAXN;
}

static void unload(Robot *x) {
  geolin_workspace_free(x->ws);
  geolin_model_free(x->model);
}

static int frame(const Robot *x, const char *name) {
  const int k = geolin_model_frame_index(x->model, name);
  CHECK(k >= 0, "frame %s", name);
  return k;
}

static int joint(const Robot *x, const char *name) {
  const int k = geolin_model_joint_index(x->model, name);
  CHECK(k >= 0, "joint %s", name);
  return k;
}

/* A setter's failure: its status, the message names `word`, and the set's rows are unchanged. */
#define SETTER_FAILS(expected, word, set, call)                                                \
  do {                                                                                         \
    const int rows_before = geolin_constraints_num_rows(set);                                  \
    const int status_ = (call);                                                                \
    CHECK(status_ == (expected), "%s -> %d (expected %d)", #call, status_, (expected));        \
    CHECK(NAMES(word), "%s: the message names '%s'", #call, (word));                           \
    CHECK(geolin_constraints_num_rows(set) == rows_before, "%s: the set is unchanged", #call); \
  } while (0)

/* Every setter's misuse on the quadruped (and the empty-set getters). */
static void check_setters(const Robot *x) {
  geolin_constraints *set = NULL;
  const int nf = geolin_model_num_frames(x->model), nj = x->nj;
  const int fl = frame(x, "FL_foot"), fr = frame(x, "FR_foot");
  double ref[16], bad[16];
  const double y_axis[3] = {0.0, 1.0, 0.0}, z_axis[3] = {0.0, 0.0, 2.0}, zero[3] = {0, 0, 0};
  const double nan_axis[3] = {0.0, NAN, 1.0};
  int status;
  status = geolin_constraints_new(NULL, &set);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && NAMES("'model'") && set == NULL, "new(NULL)");
  status = geolin_constraints_new(x->model, NULL);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && NAMES("'out'"), "new(model, NULL)");
  geolin_constraints_free(NULL);
  CHECK(geolin_constraints_num_rows(NULL) == -1 && NAMES("'set'"), "num_rows(NULL) = -1");
  CHECK(geolin_constraints_new(x->model, &set) == GEOLIN_OK && set != NULL, "new");
  CHECK(geolin_constraints_num_rows(set) == 0, "an empty set has no rows");

  /* add_contact */
  CHECK(geolin_frame_pose(x->ws, x->H, x->s, fl, ref) == GEOLIN_OK, "pose");
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_add_contact(NULL, fl, GEOLIN_CONTACT_POINT, NULL));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'frame' = -1", set,
               geolin_constraints_add_contact(set, -1, GEOLIN_CONTACT_POINT, NULL));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'frame'", set,
               geolin_constraints_add_contact(set, nf, GEOLIN_CONTACT_POINT, NULL));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'type'", set,
               geolin_constraints_add_contact(set, fl, GEOLIN_LOOP_HINGE, NULL));
  memcpy(bad, ref, sizeof bad);
  bad[0] *= 1.01, bad[1] *= 1.01, bad[2] *= 1.01; /* scaled: not a rotation */
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'ref'", set,
               geolin_constraints_add_contact(set, fl, GEOLIN_CONTACT_RIGID, bad));
  memcpy(bad, ref, sizeof bad);
  bad[13] = NAN;
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'ref'", set,
               geolin_constraints_add_contact(set, fl, GEOLIN_CONTACT_POINT, bad));
  memcpy(bad, ref, sizeof bad);
  bad[0] = 2.0; /* a point contact reads the translation only, as geolin_contact_dynamics */
  CHECK(geolin_constraints_add_contact(set, fl, GEOLIN_CONTACT_POINT, bad) == GEOLIN_OK,
        "a point's ref with any rotation");
  CHECK(geolin_constraints_num_rows(set) == 3, "a point contact: 3 rows");

  /* add_loop */
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_add_loop(NULL, fl, fr, GEOLIN_LOOP_POINT));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'frame_a'", set,
               geolin_constraints_add_loop(set, -2, fr, GEOLIN_LOOP_POINT));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'frame_b'", set,
               geolin_constraints_add_loop(set, fl, nf, GEOLIN_LOOP_POINT));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'frame_b'", set,
               geolin_constraints_add_loop(set, fl, fl, GEOLIN_LOOP_POINT));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "two bodies", set,
               geolin_constraints_add_loop(set, fl, frame(x, "FL_shank"), GEOLIN_LOOP_HINGE));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'type'", set,
               geolin_constraints_add_loop(set, fl, fr, 4));
  CHECK(geolin_constraints_add_loop(set, fl, fr, GEOLIN_LOOP_HINGE) == GEOLIN_OK, "hinge loop");
  CHECK(geolin_constraints_num_rows(set) == 8, "a hinge loop: 5 rows");

  /* add_coupling */
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_add_coupling(NULL, 1, 0, 1.0, 0.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'joint'", set,
               geolin_constraints_add_coupling(set, nj, 0, 1.0, 0.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'source'", set,
               geolin_constraints_add_coupling(set, 1, -1, 1.0, 0.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "itself", set,
               geolin_constraints_add_coupling(set, 4, 4, 1.0, 0.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'ratio'", set,
               geolin_constraints_add_coupling(set, 1, 0, 0.0, 0.0));
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'ratio'", set,
               geolin_constraints_add_coupling(set, 1, 0, NAN, 0.0));
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'offset'", set,
               geolin_constraints_add_coupling(set, 1, 0, 1.0, INFINITY));
  CHECK(geolin_constraints_add_coupling(set, 1, 0, 0.5, 0.1) == GEOLIN_OK, "coupling 1 <- 0");
  CHECK(geolin_constraints_add_coupling(set, 2, 1, -2.0, 0.0) == GEOLIN_OK, "coupling 2 <- 1");
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "cycle", set,
               geolin_constraints_add_coupling(set, 0, 2, 1.0, 0.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "cycle", set,
               geolin_constraints_add_coupling(set, 1, 2, 1.0, 0.0));
  CHECK(geolin_constraints_add_coupling(set, 0, 5, 1.0, 0.0) == GEOLIN_OK,
        "coupling 0 <- 5 (a chain, no cycle)");
  CHECK(geolin_constraints_num_rows(set) == 11, "couplings: 1 row each");

  /* add_wheel */
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_add_wheel(NULL, fr, y_axis, 0.05));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'frame'", set,
               geolin_constraints_add_wheel(set, nf + 3, y_axis, 0.05));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'axis'", set,
               geolin_constraints_add_wheel(set, fr, NULL, 0.05));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'axis'", set,
               geolin_constraints_add_wheel(set, fr, zero, 0.05));
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'axis'", set,
               geolin_constraints_add_wheel(set, fr, nan_axis, 0.05));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'radius'", set,
               geolin_constraints_add_wheel(set, fr, y_axis, 0.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'radius'", set,
               geolin_constraints_add_wheel(set, fr, y_axis, -0.05));
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'radius'", set,
               geolin_constraints_add_wheel(set, fr, y_axis, NAN));
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'radius'", set,
               geolin_constraints_add_wheel(set, fr, y_axis, INFINITY));
  /* The feet's axes are the world's at s = 0: a spin axis along z is normal to the plane. */
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "wheel at frame 'FR_foot'", set,
               geolin_constraints_add_wheel(set, fr, z_axis, 0.05));
  CHECK(NAMES("'axis'") && NAMES("normal"), "the normal axis: names 'axis'");
  CHECK(geolin_constraints_add_wheel(set, fr, y_axis, 0.05) == GEOLIN_OK, "wheel");
  CHECK(geolin_constraints_num_rows(set) == 14, "a wheel: 3 rows");

  /* set_gains, set_axes, set_ref */
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_set_gains(NULL, 1.0, 1.0));
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'kp'", set, geolin_constraints_set_gains(set, NAN, 1.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'kd'", set,
               geolin_constraints_set_gains(set, 1.0, -1.0));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'wrench_flags'", set,
               geolin_constraints_set_axes(set, 7u));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_set_axes(NULL, GEOLIN_WRENCH_MIXED));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'k'", set, geolin_constraints_set_ref(set, 6, ref));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'k'", set, geolin_constraints_set_ref(set, -1, ref));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "not a contact", set,
               geolin_constraints_set_ref(set, 1, ref));
  memcpy(bad, ref, sizeof bad);
  bad[14] = INFINITY;
  SETTER_FAILS(GEOLIN_ERR_NONFINITE, "'ref'", set, geolin_constraints_set_ref(set, 0, bad));
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set, geolin_constraints_set_ref(NULL, 0, ref));
  CHECK(geolin_constraints_set_ref(set, 0, ref) == GEOLIN_OK, "set_ref");
  CHECK(geolin_constraints_set_ref(set, 0, NULL) == GEOLIN_OK, "clear the ref");
  CHECK(geolin_constraints_set_gains(set, 10.0, 2.0) == GEOLIN_OK, "set_gains");
  CHECK(geolin_constraints_set_axes(set, GEOLIN_WRENCH_MIXED) == GEOLIN_OK, "set_axes");
  SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "'set'", set,
               geolin_constraints_add_mimic_joints(NULL));
  CHECK(geolin_constraints_add_mimic_joints(set) == 0 && geolin_constraints_num_rows(set) == 14,
        "the quadruped has no <mimic>: none added");
  geolin_constraints_free(set);
}

/* Runs one evaluation function `which` (0..7) with the set and the outputs out[] (big enough);
 * the feedback variants with kp, kd on every joint. */
static int evaluate(const Robot *x, geolin_workspace *ws, const geolin_constraints *set, int which,
                    double *out, double *lambda) {
  static double kp[MAXN], kd[MAXN];
  double *A = out, *B = out + x->N * x->N;
  int j;
  for (j = 0; j < x->nj; ++j) kp[j] = 20.0, kd[j] = 2.0;
  switch (which) {
    case 0:
      return geolin_constrained_dynamics(ws, set, x->H, x->s, x->v, x->r, x->tau, out, lambda);
    case 1:
      return geolin_constrained_linearize(ws, set, x->H, x->s, x->v, x->r, x->tau, A, B, lambda,
                                          NULL);
    case 2:
      return geolin_constrained_step(ws, set, GEOLIN_STEP_RK4, 1e-3, x->H, x->s, x->v, x->r, x->tau,
                                     out, out + 16, out + 16 + MAXN, out + 22 + MAXN, lambda);
    case 3:
      return geolin_constrained_step_linearize(ws, set, GEOLIN_STEP_SEMI_IMPLICIT_EULER, 1e-3, x->H,
                                               x->s, x->v, x->r, x->tau, A, B, lambda, NULL);
    case 4:
      return geolin_constrained_step_feedback(ws, set, GEOLIN_STEP_IMPLICIT_EULER, 1e-3, x->H, x->s,
                                              x->v, x->r, x->tau, kp, kd, NULL, NULL, out, out + 16,
                                              out + 16 + MAXN, out + 22 + MAXN, lambda);
    case 5:
      return geolin_constrained_step_feedback_linearize(ws, set, GEOLIN_STEP_RK4, 1e-3, x->H, x->s,
                                                        x->v, x->r, x->tau, kp, kd, NULL, NULL, A,
                                                        B, lambda, NULL);
    case 6:
      return geolin_constrained_impulse(ws, set, 0.3, x->H, x->s, x->v, x->r, out, out + 6, lambda);
    default:
      return geolin_constrained_impulse_linearize(ws, set, 0.3, x->H, x->s, x->v, x->r, A, lambda);
  }
}
static const char *const k_names[8] = {"dynamics",      "linearize",
                                       "step",          "step_linearize",
                                       "step_feedback", "step_feedback_linearize",
                                       "impulse",       "impulse_linearize"};

/* Every evaluation function refuses the set (expected status, message names `word`) and writes
 * nothing (every output a sentinel before and after). */
static void check_refused(const Robot *x, geolin_workspace *ws, const geolin_constraints *set,
                          int expected, const char *word, const char *label) {
  static double out[MAXNN * MAXNN + MAXNN * MAXN], lambda[MAXM * MAXNN];
  const int size = x->N * x->N + x->N * x->nj;
  int which, status;
  for (which = 0; which < 8; ++which) {
    fill(out, size, SENTINEL);
    fill(lambda, MAXM * MAXNN, SENTINEL);
    status = evaluate(x, ws, set, which, out, lambda);
    CHECK(status == expected, "%s: %s -> %d (expected %d)", label, k_names[which], status,
          expected);
    CHECK(NAMES(word), "%s: %s names '%s'", label, k_names[which], word);
    CHECK(untouched(out, size) && untouched(lambda, MAXM * MAXNN), "%s: %s wrote nothing", label,
          k_names[which]);
  }
}

/* The evaluation functions' own checks of the set. */
static void check_evaluation_misuse(const Robot *x, const char *dir) {
  geolin_constraints *set = NULL, *other_set = NULL;
  geolin_workspace *small = NULL, *bare = NULL;
  Robot other;
  static double out[MAXNN * MAXNN + MAXNN * MAXN];
  const int fl = frame(x, "FL_foot"), fr = frame(x, "FR_foot"), hl = frame(x, "HL_foot");
  int status;
  check_refused(x, x->ws, NULL, GEOLIN_ERR_INVALID_ARGUMENT, "'set' is NULL", "NULL set");
  /* another model's set (a second load of the same file: another handle) */
  if (load(&other, dir, "quadruped.urdf", 0u)) {
    CHECK(geolin_constraints_new(other.model, &other_set) == GEOLIN_OK, "other set");
    check_refused(x, x->ws, other_set, GEOLIN_ERR_INVALID_ARGUMENT, "'set'", "another model's set");
    CHECK(NAMES("another model"), "another model's set: says so");
    geolin_constraints_free(other_set);
    unload(&other);
  }
  /* the workspace's capacity: max_wrenches 2 holds a loop (two) but not a loop and a contact */
  CHECK(geolin_workspace_new_ex(x->model, GEOLIN_WORKSPACE_ALL, 2, &small) == GEOLIN_OK, "small");
  CHECK(geolin_constraints_new(x->model, &set) == GEOLIN_OK, "set");
  CHECK(geolin_constraints_add_loop(set, fl, hl, GEOLIN_LOOP_POINT) == GEOLIN_OK, "loop");
  status = geolin_constrained_dynamics(small, set, x->H, x->s, x->v, x->r, x->tau, out, out + 100);
  CHECK(status != GEOLIN_ERR_INVALID_ARGUMENT, "a loop fits in max_wrenches = 2 -> %d", status);
  CHECK(geolin_constraints_add_contact(set, fr, GEOLIN_CONTACT_POINT, NULL) == GEOLIN_OK,
        "contact");
  check_refused(x, small, set, GEOLIN_ERR_INVALID_ARGUMENT, "max_wrenches", "capacity");
  CHECK(NAMES("'set'") && NAMES("the 2 the workspace"), "capacity: names the set and capacity");
  /* a workspace without GEOLIN_WORKSPACE_CONTACTS */
  CHECK(geolin_workspace_new_ex(x->model, GEOLIN_WORKSPACE_LINEARIZE, 4, &bare) == GEOLIN_OK,
        "bare");
  status = geolin_constrained_dynamics(bare, set, x->H, x->s, x->v, x->r, x->tau, out, out + 100);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && NAMES("GEOLIN_WORKSPACE_CONTACTS"),
        "no contacts feature -> %d", status);
  /* Kp != 0 with a contact that has no ref: refused naming the set and the constraint */
  CHECK(geolin_constraints_set_gains(set, 30.0, 4.0) == GEOLIN_OK, "gains");
  check_refused(x, x->ws, set, GEOLIN_ERR_INVALID_ARGUMENT, "constraint 1", "Kp without ref");
  CHECK(NAMES("'set'") && NAMES("FR_foot") && NAMES("geolin_constraints_set_ref"),
        "Kp without ref: names the set, the frame and the remedy");
  /* lambda NULL with m > 0 */
  CHECK(geolin_constraints_set_gains(set, 0.0, 0.0) == GEOLIN_OK, "no gains");
  fill(out, x->n, SENTINEL);
  status = geolin_constrained_dynamics(x->ws, set, x->H, x->s, x->v, x->r, x->tau, out, NULL);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && NAMES("'lambda'") && untouched(out, x->n),
        "lambda NULL -> %d", status);
  geolin_constraints_free(set);
  geolin_workspace_free(small);
  geolin_workspace_free(bare);
}

/* Numeric failures name the set's constraints: a foot held twice (dependent rows) is NUMERIC
 * naming the constraint, its frame and the remedy, and is solved with mu > 0; a step whose h
 * overflows the states is NUMERIC naming 'h' (classified with the set at the input state, where
 * the dynamics is regular); nothing is written. */
static void check_numeric_failures(const Robot *x) {
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN];
  geolin_constraints *set = NULL;
  const int fl = frame(x, "FL_foot");
  double nu[MAXN], lam[MAXM], H1[16], s1[MAXN], v1[6], r1[MAXN];
  int status;
  CHECK(geolin_constraints_new(x->model, &set) == GEOLIN_OK, "set");
  CHECK(geolin_constraints_add_contact(set, frame(x, "HR_foot"), GEOLIN_CONTACT_POINT, NULL) ==
            GEOLIN_OK,
        "HR");
  CHECK(geolin_constraints_add_contact(set, fl, GEOLIN_CONTACT_RIGID, NULL) == GEOLIN_OK, "FL");
  fill(H1, 16, SENTINEL);
  fill(s1, x->nj, SENTINEL);
  fill(lam, 9, SENTINEL);
  status = geolin_constrained_step(x->ws, set, GEOLIN_STEP_RK4, 1e300, x->H, x->s, x->v, x->r,
                                   x->tau, H1, s1, v1, r1, lam);
  CHECK(status == GEOLIN_ERR_NUMERIC && NAMES("argument 'h'") && untouched(H1, 16) &&
            untouched(s1, x->nj) && untouched(lam, 9),
        "h = 1e300 overflows the step: NUMERIC naming 'h', nothing written (%d)", status);
  CHECK(geolin_constraints_add_contact(set, fl, GEOLIN_CONTACT_POINT, NULL) == GEOLIN_OK, "twice");
  fill(nu, x->n, SENTINEL);
  fill(lam, 12, SENTINEL);
  status = geolin_constrained_dynamics(x->ws, set, x->H, x->s, x->v, x->r, x->tau, nu, lam);
  CHECK(status == GEOLIN_ERR_NUMERIC && untouched(nu, x->n) && untouched(lam, 12),
        "a foot held twice: NUMERIC, nothing written (%d)", status);
  CHECK(NAMES("constraint 2") && NAMES("FL_foot") &&
            NAMES("geolin_workspace_set_contact_regularization"),
        "a foot held twice: names the constraint, its frame and the remedy");
  fill(A, x->N * x->N, SENTINEL);
  status = geolin_constrained_step_linearize(x->ws, set, GEOLIN_STEP_RK4, 1e-3, x->H, x->s, x->v,
                                             x->r, x->tau, A, B, NULL, NULL);
  CHECK(status == GEOLIN_ERR_NUMERIC && NAMES("constraint 2") && untouched(A, x->N * x->N),
        "a foot held twice: step_linearize NUMERIC naming the constraint (%d)", status);
  CHECK(geolin_workspace_set_contact_regularization(x->ws, 1e-8) == GEOLIN_OK, "mu");
  status = geolin_constrained_dynamics(x->ws, set, x->H, x->s, x->v, x->r, x->tau, nu, lam);
  CHECK(status == GEOLIN_OK, "a foot held twice, mu = 1e-8: solved (%d)", status);
  CHECK(geolin_workspace_set_contact_regularization(x->ws, 0.0) == GEOLIN_OK, "mu = 0");
  geolin_constraints_free(set);
}

/* More rows than degrees of freedom (two rigid frames on a 7-joint arm): NUMERIC, as the
 * contact functions. */
static void check_too_many_rows(const char *dir) {
  Robot x;
  geolin_constraints *set = NULL;
  if (!load(&x, dir, "arm7.urdf", GEOLIN_FIXED_BASE)) return;
  CHECK(geolin_constraints_new(x.model, &set) == GEOLIN_OK, "set");
  CHECK(geolin_constraints_add_contact(set, frame(&x, "tool_tip"), GEOLIN_CONTACT_RIGID, NULL) ==
            GEOLIN_OK,
        "rigid tool");
  CHECK(geolin_constraints_add_loop(set, frame(&x, "link4"), frame(&x, "link2"),
                                    GEOLIN_LOOP_RIGID) == GEOLIN_OK,
        "rigid loop");
  CHECK(geolin_constraints_num_rows(set) == 12, "12 rows");
  check_refused(&x, x.ws, set, GEOLIN_ERR_NUMERIC, "12 rows", "12 rows on 7 joints");
  geolin_constraints_free(set);
  unload(&x);
}

static int same(const double *a, const double *b, int count) {
  return count == 0 || memcmp(a, b, sizeof(double) * (size_t)count) == 0;
}

/* An empty set: each function equals its unconstrained counterpart, bit for bit. */
static void check_empty_set(const Robot *x, const char *label) {
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN], A0[MAXNN * MAXNN], B0[MAXNN * MAXN];
  static double kp[MAXN], kd[MAXN];
  double nu[MAXN], nu0[MAXN], H1[16], s1[MAXN], v1[6], r1[MAXN], H0[16], s0[MAXN], v0[6], r0[MAXN];
  const int n = x->n, N = x->N, nj = x->nj;
  geolin_constraints *set = NULL;
  int method, i, ok, status;
  for (i = 0; i < nj; ++i) kp[i] = 20.0 + i, kd[i] = 2.0;
  CHECK(geolin_constraints_new(x->model, &set) == GEOLIN_OK, "set");
  status = geolin_constrained_dynamics(x->ws, set, x->H, x->s, x->v, x->r, x->tau, nu, NULL);
  CHECK(geolin_forward_dynamics(x->ws, x->H, x->s, x->v, x->r, x->tau, nu0) == GEOLIN_OK, "fd");
  CHECK(status == GEOLIN_OK && same(nu, nu0, n), "%s: empty set = forward_dynamics (%d)", label,
        status);
  status =
      geolin_constrained_linearize(x->ws, set, x->H, x->s, x->v, x->r, x->tau, A, B, NULL, NULL);
  CHECK(geolin_linearize(x->ws, x->H, x->s, x->v, x->r, x->tau, A0, B0) == GEOLIN_OK, "lin");
  CHECK(status == GEOLIN_OK && same(A, A0, N * N) && same(B, B0, N * nj),
        "%s: empty set = linearize (%d)", label, status);
  for (method = 0; method < 3; ++method) {
    status = geolin_constrained_step(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, H1,
                                     s1, v1, r1, NULL);
    CHECK(geolin_step(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, H0, s0, v0, r0) ==
              GEOLIN_OK,
          "step");
    ok =
        same(s1, s0, nj) && same(r1, r0, nj) && (x->fixed || (same(H1, H0, 16) && same(v1, v0, 6)));
    CHECK(status == GEOLIN_OK && ok, "%s: empty set = step (method %d, %d)", label, method, status);
    status = geolin_constrained_step_feedback(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r,
                                              x->tau, kp, kd, x->r, NULL, H1, s1, v1, r1, NULL);
    CHECK(geolin_step_feedback(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, kp, kd, x->r,
                               NULL, H0, s0, v0, r0) == GEOLIN_OK,
          "step_feedback");
    ok =
        same(s1, s0, nj) && same(r1, r0, nj) && (x->fixed || (same(H1, H0, 16) && same(v1, v0, 6)));
    CHECK(status == GEOLIN_OK && ok, "%s: empty set = step_feedback (method %d, %d)", label, method,
          status);
    status = geolin_constrained_step_linearize(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r,
                                               x->tau, A, B, NULL, NULL);
    CHECK(geolin_step_linearize(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, A0, B0) ==
              GEOLIN_OK,
          "step_linearize");
    CHECK(status == GEOLIN_OK && same(A, A0, N * N) && same(B, B0, N * nj),
          "%s: empty set = step_linearize (method %d, %d)", label, method, status);
    status =
        geolin_constrained_step_feedback_linearize(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r,
                                                   x->tau, kp, kd, NULL, x->r, A, B, NULL, NULL);
    CHECK(geolin_step_feedback_linearize(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, kp,
                                         kd, NULL, x->r, A0, B0) == GEOLIN_OK,
          "step_feedback_linearize");
    CHECK(status == GEOLIN_OK && same(A, A0, N * N) && same(B, B0, N * nj),
          "%s: empty set = step_feedback_linearize (method %d, %d)", label, method, status);
  }
  status = geolin_constrained_impulse(x->ws, set, 0.5, x->H, x->s, x->v, x->r, v1, r1, NULL);
  CHECK(status == GEOLIN_OK && same(r1, x->r, nj) && (x->fixed || same(v1, x->v, 6)),
        "%s: an empty set's impulse leaves nu alone (%d)", label, status);
  status = geolin_constrained_impulse_linearize(x->ws, set, 0.5, x->H, x->s, x->v, x->r, A, NULL);
  for (ok = 1, i = 0; i < N * N; ++i) ok = ok && A[i] == (i % (N + 1) == 0 ? 1.0 : 0.0);
  CHECK(status == GEOLIN_OK && ok, "%s: an empty set's impulse_linearize is I (%d)", label, status);
  geolin_constraints_free(set);
}

/* A set of contacts only equals the contact functions with the same arguments, bit for bit: every
 * output, including lambda and its derivatives. */
static void check_contacts_only(const Robot *x, int nc, const int *frames, const int *types,
                                unsigned flags, const double *gains, const char *label) {
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN], A0[MAXNN * MAXNN], B0[MAXNN * MAXN];
  static double dz[MAXM * MAXNN], dw[MAXM * MAXN], dz0[MAXM * MAXNN], dw0[MAXM * MAXN];
  static double kp[MAXN], kd[MAXN];
  double refs[16 * 4], nu[MAXN], nu0[MAXN], lam[MAXM], lam0[MAXM];
  double H1[16], s1[MAXN], v1[6], r1[MAXN], H0[16], s0[MAXN], v0[6], r0[MAXN];
  const int N = x->N, nj = x->nj;
  geolin_constraints *set = NULL;
  int k, m = 0, method, ok, status, status0;
  for (k = 0; k < nj; ++k) kp[k] = 15.0, kd[k] = 1.0 + 0.1 * k;
  CHECK(geolin_constraints_new(x->model, &set) == GEOLIN_OK, "set");
  for (k = 0; k < nc; ++k) {
    double *ref = refs + 16 * k;
    CHECK(geolin_frame_pose(x->ws, x->H, x->s, frames[k], ref) == GEOLIN_OK, "pose");
    ref[12] += 0.01 * (k + 1), ref[13] -= 0.02, ref[14] += 0.005;
    CHECK(geolin_constraints_add_contact(set, frames[k], types[k], ref) == GEOLIN_OK, "contact");
    m += types[k];
  }
  CHECK(geolin_constraints_num_rows(set) == m, "%s: num_rows = %d", label, m);
  CHECK(geolin_constraints_set_axes(set, flags) == GEOLIN_OK, "axes");
  CHECK(geolin_constraints_set_gains(set, gains ? gains[0] : 0.0, gains ? gains[1] : 0.0) ==
            GEOLIN_OK,
        "gains");
  status = geolin_constrained_dynamics(x->ws, set, x->H, x->s, x->v, x->r, x->tau, nu, lam);
  status0 = geolin_contact_dynamics(x->ws, x->H, x->s, x->v, x->r, x->tau, nc, frames, types, flags,
                                    gains, refs, nu0, lam0);
  CHECK(status == GEOLIN_OK && status0 == GEOLIN_OK && same(nu, nu0, x->n) && same(lam, lam0, m),
        "%s: = contact_dynamics (%d, %d)", label, status, status0);
  status = geolin_constrained_linearize(x->ws, set, x->H, x->s, x->v, x->r, x->tau, A, B, dz, dw);
  status0 = geolin_contact_linearize(x->ws, x->H, x->s, x->v, x->r, x->tau, nc, frames, types,
                                     flags, gains, refs, A0, B0, dz0, dw0);
  CHECK(status == GEOLIN_OK && status0 == GEOLIN_OK && same(A, A0, N * N) && same(B, B0, N * nj) &&
            same(dz, dz0, m * N) && same(dw, dw0, m * nj),
        "%s: = contact_linearize (%d, %d)", label, status, status0);
  for (method = 0; method < 3; ++method) {
    status = geolin_constrained_step(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, H1,
                                     s1, v1, r1, lam);
    status0 = geolin_contact_step(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, nc, frames,
                                  types, flags, gains, refs, H0, s0, v0, r0, lam0);
    ok = same(s1, s0, nj) && same(r1, r0, nj) && same(lam, lam0, m) &&
         (x->fixed || (same(H1, H0, 16) && same(v1, v0, 6)));
    CHECK(status == status0 && ok, "%s: = contact_step (method %d: %d, %d)", label, method, status,
          status0);
    status = geolin_constrained_step_feedback(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r,
                                              x->tau, kp, kd, x->s, NULL, H1, s1, v1, r1, lam);
    status0 = geolin_contact_step_feedback(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, kp,
                                           kd, x->s, NULL, nc, frames, types, flags, gains, refs,
                                           H0, s0, v0, r0, lam0);
    ok = same(s1, s0, nj) && same(r1, r0, nj) && same(lam, lam0, m) &&
         (x->fixed || (same(H1, H0, 16) && same(v1, v0, 6)));
    CHECK(status == status0 && ok, "%s: = contact_step_feedback (method %d: %d, %d)", label, method,
          status, status0);
    status = geolin_constrained_step_linearize(x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r,
                                               x->tau, A, B, dz, dw);
    status0 = geolin_contact_step_linearize(x->ws, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, nc,
                                            frames, types, flags, gains, refs, A0, B0, dz0, dw0);
    CHECK(status == status0 && same(A, A0, N * N) && same(B, B0, N * nj) && same(dz, dz0, m * N) &&
              same(dw, dw0, m * nj),
          "%s: = contact_step_linearize (method %d: %d, %d)", label, method, status, status0);
    status = geolin_constrained_step_feedback_linearize(
        x->ws, set, method, 2e-3, x->H, x->s, x->v, x->r, x->tau, kp, kd, NULL, NULL, A, B, dz, dw);
    status0 = geolin_contact_step_feedback_linearize(x->ws, method, 2e-3, x->H, x->s, x->v, x->r,
                                                     x->tau, kp, kd, NULL, NULL, nc, frames, types,
                                                     flags, gains, refs, A0, B0, dz0, dw0);
    CHECK(status == status0 && same(A, A0, N * N) && same(B, B0, N * nj) && same(dz, dz0, m * N) &&
              same(dw, dw0, m * nj),
          "%s: = contact_step_feedback_linearize (method %d: %d, %d)", label, method, status,
          status0);
  }
  status = geolin_constrained_impulse(x->ws, set, 0.4, x->H, x->s, x->v, x->r, v1, r1, lam);
  status0 =
      geolin_impulse(x->ws, x->H, x->s, x->v, x->r, nc, frames, types, flags, 0.4, v0, r0, lam0);
  CHECK(status == GEOLIN_OK && status0 == GEOLIN_OK && same(r1, r0, nj) && same(lam, lam0, m) &&
            (x->fixed || same(v1, v0, 6)),
        "%s: = impulse (%d, %d)", label, status, status0);
  status = geolin_constrained_impulse_linearize(x->ws, set, 0.4, x->H, x->s, x->v, x->r, A, dz);
  status0 = geolin_impulse_linearize(x->ws, x->H, x->s, x->v, x->r, nc, frames, types, flags, 0.4,
                                     A0, dz0);
  CHECK(status == GEOLIN_OK && status0 == GEOLIN_OK && same(A, A0, N * N) && same(dz, dz0, m * N),
        "%s: = impulse_linearize (%d, %d)", label, status, status0);
  /* in place: v_next, r_next aliasing v, r give the same */
  memcpy(v0, x->v, sizeof v0);
  memcpy(r0, x->r, sizeof(double) * (size_t)nj);
  status = geolin_constrained_impulse(x->ws, set, 0.4, x->H, x->s, v0, r0, v0, r0, NULL);
  CHECK(status == GEOLIN_OK && same(r0, r1, nj) && (x->fixed || same(v0, v1, 6)),
        "%s: impulse in place (%d)", label, status);
  geolin_constraints_free(set);
}

/* The URDF's <mimic> joints as couplings: the humanoid's second finger mimics the first (-1);
 * a small gripper written here has two mimics, one with multiplier and offset. All or nothing:
 * a mimic that would close a cycle with a coupling already in the set adds none. */
static const char k_gripper[] =
    "<robot name='gripper'>"
    "<link name='palm'><inertial><mass value='1'/>"
    "<inertia ixx='0.01' iyy='0.01' izz='0.01' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    "<link name='a'><inertial><mass value='0.1'/>"
    "<inertia ixx='0.001' iyy='0.001' izz='0.001' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    "<link name='b'><inertial><mass value='0.1'/>"
    "<inertia ixx='0.001' iyy='0.001' izz='0.001' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    "<link name='c'><inertial><mass value='0.1'/>"
    "<inertia ixx='0.001' iyy='0.001' izz='0.001' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    "<joint name='ja' type='prismatic'><parent link='palm'/><child link='a'/>"
    "<origin xyz='0 0.02 0'/><axis xyz='0 1 0'/><limit lower='0' upper='0.04' effort='10' "
    "velocity='1'/></joint>"
    "<joint name='jb' type='prismatic'><parent link='palm'/><child link='b'/>"
    "<origin xyz='0 -0.02 0'/><axis xyz='0 1 0'/><limit lower='-0.04' upper='0' effort='10' "
    "velocity='1'/><mimic joint='ja' multiplier='-1'/></joint>"
    "<joint name='jc' type='revolute'><parent link='palm'/><child link='c'/>"
    "<origin xyz='0.03 0 0'/><axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='10' "
    "velocity='1'/><mimic joint='ja' multiplier='0.5' offset='0.1'/></joint>"
    "</robot>";

static void check_mimic(const char *dir) {
  Robot x;
  geolin_model *gripper = NULL;
  geolin_constraints *set = NULL;
  int a, b, status;
  if (load(&x, dir, "humanoid.urdf", 0u)) {
    a = joint(&x, "L_finger_a_joint");
    b = joint(&x, "L_finger_b_joint");
    CHECK(geolin_constraints_new(x.model, &set) == GEOLIN_OK, "set");
    /* a coupling a <- b first: the mimic b <- a would close a cycle, nothing is added */
    CHECK(geolin_constraints_add_coupling(set, a, b, 2.0, 0.0) == GEOLIN_OK, "a <- b");
    SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "cycle", set,
                 geolin_constraints_add_mimic_joints(set));
    CHECK(NAMES("<mimic>") && NAMES("L_finger_b_joint"), "the cycle names the mimic");
    geolin_constraints_free(set);
    CHECK(geolin_constraints_new(x.model, &set) == GEOLIN_OK, "set");
    status = geolin_constraints_add_mimic_joints(set);
    CHECK(status == 1 && geolin_constraints_num_rows(set) == 1, "humanoid: one mimic -> %d",
          status);
    /* the coupling is b <- a: a <- b now closes a cycle */
    SETTER_FAILS(GEOLIN_ERR_INVALID_ARGUMENT, "cycle", set,
                 geolin_constraints_add_coupling(set, a, b, 1.0, 0.0));
    geolin_constraints_free(set);
    unload(&x);
  }
  status = geolin_model_load_urdf_string(k_gripper, 0u, &gripper);
  CHECK(status == GEOLIN_OK, "gripper -> %d", status);
  if (status != GEOLIN_OK) return;
  CHECK(geolin_constraints_new(gripper, &set) == GEOLIN_OK, "set");
  status = geolin_constraints_add_mimic_joints(set);
  CHECK(status == 2 && geolin_constraints_num_rows(set) == 2, "gripper: two mimics -> %d", status);
  {
    /* At rest with no gains the couplings hold the accelerations: s_ddot[jb] = -s_ddot[ja],
     * s_ddot[jc] = 0.5 s_ddot[ja]. */
    geolin_workspace *ws = NULL;
    double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    double s[3] = {0.01, -0.01, 0.105}, v[6] = {0, 0, 0, 0, 0, 0}, r[3] = {0, 0, 0};
    double tau[3] = {1.0, 0.0, 0.0}, nu[9], lam[2];
    const int ja = geolin_model_joint_index(gripper, "ja");
    const int jb = geolin_model_joint_index(gripper, "jb");
    const int jc = geolin_model_joint_index(gripper, "jc");
    CHECK(geolin_workspace_new(gripper, &ws) == GEOLIN_OK, "ws");
    status = geolin_constrained_dynamics(ws, set, H, s, v, r, tau, nu, lam);
    CHECK(status == GEOLIN_OK, "gripper dynamics -> %d", status);
    if (status == GEOLIN_OK) {
      CHECK(fabs(nu[6 + jb] + nu[6 + ja]) <= 1e-9 * (1.0 + fabs(nu[6 + ja])) &&
                fabs(nu[6 + jc] - 0.5 * nu[6 + ja]) <= 1e-9 * (1.0 + fabs(nu[6 + ja])) &&
                fabs(nu[6 + ja]) > 1e-3,
            "the mimics hold: %g %g %g", nu[6 + ja], nu[6 + jb], nu[6 + jc]);
    }
    geolin_workspace_free(ws);
  }
  geolin_constraints_free(set);
  geolin_model_free(gripper);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "models";
  Robot x;
  if (load(&x, dir, "quadruped.urdf", 0u)) {
    const int feet[4] = {frame(&x, "FL_foot"), frame(&x, "FR_foot"), frame(&x, "HL_foot"),
                         frame(&x, "HR_foot")};
    const int points[4] = {GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT,
                           GEOLIN_CONTACT_POINT};
    const int rigid_first[4] = {GEOLIN_CONTACT_RIGID, GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT,
                                GEOLIN_CONTACT_POINT};
    const double gains[2] = {40.0, 9.0};
    check_setters(&x);
    check_evaluation_misuse(&x, dir);
    check_numeric_failures(&x);
    check_empty_set(&x, "quadruped");
    check_contacts_only(&x, 4, feet, points, GEOLIN_WRENCH_LOCAL, NULL, "4 points, local");
    check_contacts_only(&x, 4, feet, points, GEOLIN_WRENCH_MIXED, gains, "4 points, mixed, gains");
    check_contacts_only(&x, 4, feet, rigid_first, GEOLIN_WRENCH_LOCAL, gains,
                        "rigid + 3 points, local, gains");
    CHECK(geolin_workspace_set_contact_regularization(x.ws, 1e-6) == GEOLIN_OK, "mu");
    check_contacts_only(&x, 4, feet, rigid_first, GEOLIN_WRENCH_MIXED, gains,
                        "rigid + 3 points, mixed, gains, mu = 1e-6");
    unload(&x);
  }
  if (load(&x, dir, "arm7.urdf", GEOLIN_FIXED_BASE)) {
    const int tip[1] = {frame(&x, "tool_tip")};
    const int rigid[1] = {GEOLIN_CONTACT_RIGID};
    const double gains[2] = {20.0, 3.0};
    check_empty_set(&x, "arm7 (fixed base)");
    check_contacts_only(&x, 1, tip, rigid, GEOLIN_WRENCH_MIXED, gains, "arm7 rigid tool");
    unload(&x);
  }
  check_too_many_rows(dir);
  check_mimic(dir);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
