/* Error paths of the contact functions (C99):
 *  1. geolin_workspace_set_contact_regularization refuses mu above
 *     GEOLIN_CONTACT_REGULARIZATION_MAX (1e300, DBL_MAX would make every contact force vanish
 *     while the calls return OK), naming 'mu' and leaving the setting as it was;
 *  2. geolin_contact_step and geolin_contact_step_linearize say "overflowed" (not "redundant or
 *     singular") for inputs whose computation overflows, as every other function does, and write
 *     nothing; a genuinely redundant set (the same foot twice) is still called redundant;
 *  3. a pose refused for det R != 1 (a rotation scaled by 1 + 4e-7) prints det R with the digits
 *     that show why.
 *
 * usage: test_capi_contact_errors <models_dir>   (uses quadruped.urdf, free_body.urdf)
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define MAXN 24
#define MAXNN (2 * MAXN)
#define MAXM 12
#define SENTINEL (-5.75)

typedef struct {
  geolin_model *model;
  geolin_workspace *ws;
  int nj, n, N;
  int nc, frames[4], types[4], m;
  double H[16], s[MAXN], v[6], r[MAXN], tau[MAXN];
  double gains[2], refs[16 * 4];
} Robot;

/* The model in dir/file with nc contacts of one type on the named frames, at a regular state
 * (the quadruped's legs bent), the references the frames' current poses moved 1 cm. */
static int load(Robot *x, const char *dir, const char *file, const char *const *names, int nc,
                int type) {
  char path[1024];
  int k, i;
  memset(x, 0, sizeof *x);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  if (geolin_model_load_urdf(path, 0u, &x->model) != GEOLIN_OK) {
    CHECK(0, "load %s", path);
    return 0;
  }
  CHECK(geolin_workspace_new(x->model, &x->ws) == GEOLIN_OK, "workspace");
  x->nj = geolin_model_num_joints(x->model);
  x->n = geolin_model_num_dofs(x->model);
  x->N = geolin_model_state_dim(x->model);
  x->nc = nc;
  for (k = 0; k < nc; ++k) {
    x->frames[k] = geolin_model_frame_index(x->model, names[k]);
    CHECK(x->frames[k] >= 0, "frame %s", names[k]);
    x->types[k] = type;
    x->m += type;
  }
  for (i = 0; i < 16; ++i) x->H[i] = (i % 5 == 0) ? 1.0 : 0.0;
  x->H[14] = 0.4;
  for (i = 0; i < 6; ++i) x->v[i] = 0.1 * (i + 1);
  for (i = 0; i < x->nj; ++i) {
    x->s[i] = i % 3 == 0 ? 0.1 : (i % 3 == 1 ? 0.6 : -1.2);
    x->r[i] = 0.1 * (i % 3);
    x->tau[i] = 0.5;
  }
  x->gains[0] = 100.0;
  x->gains[1] = 20.0;
  for (k = 0; k < nc; ++k) {
    CHECK(geolin_frame_pose(x->ws, x->H, x->s, x->frames[k], x->refs + 16 * k) == GEOLIN_OK,
          "pose of %s", names[k]);
    x->refs[16 * k + 12] += 0.01;
  }
  return x->n <= MAXN && x->m <= MAXM && x->frames[0] >= 0;
}

static void unload(Robot *x) {
  geolin_workspace_free(x->ws);
  geolin_model_free(x->model);
}

static int dynamics(Robot *x, unsigned flags, double *nu, double *lambda) {
  return geolin_contact_dynamics(x->ws, x->H, x->s, x->v, x->r, x->tau, x->nc, x->frames, x->types,
                                 flags, x->gains, x->refs, nu, lambda);
}

/* --- 1. the bound of the contact regularization --------------------------------------------- */

/* mu at the bound is accepted and in effect (it solves a redundant set, the same foot twice, that
 * mu = 0 refuses); just above it, 1e300, DBL_MAX are INVALID_ARGUMENT and inf NONFINITE, each
 * naming 'mu' and leaving the workspace's setting as it was: the next evaluation gives the same
 * bits as before the refused call. */
static void test_regularization_bound(const char *dir) {
  static const char *const twice[2] = {"FL_foot", "FL_foot"};
  const double above[4] = {0.0, 1e300, DBL_MAX, INFINITY};
  double nu0[MAXN], lam0[MAXM], nu[MAXN], lam[MAXM];
  Robot x;
  int i, st;
  if (!load(&x, dir, "quadruped.urdf", twice, 2, GEOLIN_CONTACT_POINT)) return;
  CHECK(dynamics(&x, 0u, nu, lam) == GEOLIN_ERR_NUMERIC, "mu = 0 refuses the foot held twice");

  st = geolin_workspace_set_contact_regularization(x.ws, GEOLIN_CONTACT_REGULARIZATION_MAX);
  CHECK(st == GEOLIN_OK, "mu = GEOLIN_CONTACT_REGULARIZATION_MAX = %g accepted -> %d",
        GEOLIN_CONTACT_REGULARIZATION_MAX, st);
  st = dynamics(&x, 0u, nu0, lam0);
  CHECK(st == GEOLIN_OK, "mu at the bound solves the redundant set -> %d", st);

  for (i = 0; i < 4; ++i) {
    const double mu = i == 0 ? nextafter(GEOLIN_CONTACT_REGULARIZATION_MAX, INFINITY) : above[i];
    const int expected = isinf(mu) ? GEOLIN_ERR_NONFINITE : GEOLIN_ERR_INVALID_ARGUMENT;
    st = geolin_workspace_set_contact_regularization(x.ws, mu);
    CHECK(st == expected, "mu = %.17g refused -> %d (expected %d)", mu, st, expected);
    CHECK(strstr(geolin_last_error(), "'mu'") != NULL, "mu = %g: the message names 'mu'", mu);
    st = dynamics(&x, 0u, nu, lam);
    CHECK(st == GEOLIN_OK && memcmp(nu, nu0, sizeof(double) * (size_t)x.n) == 0 &&
              memcmp(lam, lam0, sizeof(double) * (size_t)x.m) == 0,
          "after the refused mu = %g the workspace still has mu at the bound -> %d", mu, st);
  }

  /* From a small mu: the refused values leave that one, and 0 is still accepted. */
  CHECK(geolin_workspace_set_contact_regularization(x.ws, 1e-4) == GEOLIN_OK, "mu = 1e-4");
  CHECK(dynamics(&x, 0u, nu0, lam0) == GEOLIN_OK, "mu = 1e-4 solves the redundant set");
  CHECK(geolin_workspace_set_contact_regularization(x.ws, 1e300) == GEOLIN_ERR_INVALID_ARGUMENT,
        "mu = 1e300 refused");
  CHECK(dynamics(&x, 0u, nu, lam) == GEOLIN_OK &&
            memcmp(lam, lam0, sizeof(double) * (size_t)x.m) == 0,
        "mu still 1e-4 after the refused 1e300");
  CHECK(geolin_workspace_set_contact_regularization(x.ws, 0.0) == GEOLIN_OK, "mu = 0");
  CHECK(dynamics(&x, 0u, nu, lam) == GEOLIN_ERR_NUMERIC, "mu = 0 refuses the set again");
  unload(&x);
}

/* --- 2. overflow in the contact steps is called overflow ------------------------------------- */

static double g_out[5][MAXNN * MAXNN];

static void fill_outputs(void) {
  int k, i;
  for (k = 0; k < 5; ++k)
    for (i = 0; i < MAXNN * MAXNN; ++i) g_out[k][i] = SENTINEL;
}

static int outputs_untouched(void) {
  int k, i;
  for (k = 0; k < 5; ++k)
    for (i = 0; i < MAXNN * MAXNN; ++i)
      if (g_out[k][i] != SENTINEL) return 0;
  return 1;
}

/* Both contact step functions at these inputs: GEOLIN_ERR_NUMERIC, the message says
 * "overflowed" and not "redundant", nothing written; and it blames the step size h exactly when
 * geolin_contact_dynamics at the input state succeeds (the step, not the inputs, overflowed). */
static void expect_overflow(const Robot *x, int method, double h, const double *H, const double *v,
                            const double *r, const double *tau, const double *gains,
                            const double *refs, unsigned flags, const char *what) {
  const char *name = method == GEOLIN_STEP_RK4 ? "RK4" : "Euler";
  const char *wrench = flags ? "mixed" : "local";
  const char *msg;
  double nu[MAXN], lam[MAXM];
  int st, blames_h;
  st = geolin_contact_dynamics(x->ws, H, x->s, v, r, tau, x->nc, x->frames, x->types, flags, gains,
                               refs, nu, lam);
  CHECK(st == GEOLIN_OK || st == GEOLIN_ERR_NUMERIC, "contact_dynamics, %s -> %d", what, st);
  blames_h = st == GEOLIN_OK;
  fill_outputs();
  st = geolin_contact_step(x->ws, method, h, H, x->s, v, r, tau, x->nc, x->frames, x->types, flags,
                           gains, refs, g_out[0], g_out[1], g_out[2], g_out[3], g_out[4]);
  msg = geolin_last_error();
  CHECK(st == GEOLIN_ERR_NUMERIC && strstr(msg, "overflowed") != NULL &&
            strstr(msg, "redundant") == NULL,
        "contact_step (%s, %s), %s -> %d, says overflowed", name, wrench, what, st);
  CHECK(outputs_untouched(), "contact_step (%s, %s), %s: nothing written", name, wrench, what);
  CHECK((strstr(msg, "argument 'h'") != NULL) == blames_h,
        "contact_step (%s, %s), %s: names h iff the dynamics at the input is finite (%d)", name,
        wrench, what, blames_h);
  st = geolin_contact_step_linearize(x->ws, method, h, H, x->s, v, r, tau, x->nc, x->frames,
                                     x->types, flags, gains, refs, g_out[0], g_out[1], g_out[2],
                                     g_out[3]);
  msg = geolin_last_error();
  CHECK(st == GEOLIN_ERR_NUMERIC && strstr(msg, "overflowed") != NULL &&
            strstr(msg, "redundant") == NULL,
        "contact_step_linearize (%s, %s), %s -> %d, says overflowed", name, wrench, what, st);
  CHECK(outputs_untouched(), "contact_step_linearize (%s, %s), %s: nothing written", name, wrench,
        what);
  CHECK((strstr(msg, "argument 'h'") != NULL) == blames_h,
        "contact_step_linearize (%s, %s), %s: names h iff the dynamics at the input is finite (%d)",
        name, wrench, what, blames_h);
}

/* One input at a time made huge: the base's translation, its linear and angular velocity, a joint
 * rate and force, Kp, Kd, a reference's translation; then the step size. 1e200 and beyond
 * overflow a single evaluation (Euler); RK4 also from 1e150 (its stages carry the state there). */
static void test_step_overflow_table(const Robot *x0) {
  const double big[4] = {1e150, 1e200, 1e300, DBL_MAX};
  const double steps[3] = {1e154, 1e200, DBL_MAX};
  Robot x = *x0;
  double H[16], v[6], r[MAXN], tau[MAXN], gains[2], refs[16 * 4];
  char what[96];
  int b, input, method, i;
  unsigned flags;
  for (flags = 0; flags < 2; ++flags)
    for (method = GEOLIN_STEP_SEMI_IMPLICIT_EULER; method <= GEOLIN_STEP_RK4; ++method) {
      for (b = method == GEOLIN_STEP_RK4 ? 0 : 1; b < 4; ++b)
        for (input = 0; input < 8; ++input) {
          static const char *const names[8] = {"H translation", "v linear", "v angular", "r",
                                               "tau",           "Kp",       "Kd",        "refs"};
          if ((input == 3 || input == 4) && x.nj == 0) continue;
          memcpy(H, x.H, sizeof H);
          memcpy(v, x.v, sizeof v);
          memcpy(r, x.r, sizeof r);
          memcpy(tau, x.tau, sizeof tau);
          memcpy(gains, x.gains, sizeof gains);
          memcpy(refs, x.refs, sizeof refs);
          switch (input) {
            case 0:
              H[12] = big[b];
              break;
            case 1:
              v[0] = big[b];
              break;
            case 2:
              v[3] = big[b];
              break;
            case 3:
              r[1] = big[b];
              break;
            case 4:
              tau[1] = big[b];
              break;
            case 5:
              gains[0] = big[b];
              break;
            case 6:
              gains[1] = big[b];
              break;
            default:
              refs[12] = big[b];
              break;
          }
          snprintf(what, sizeof what, "%s = %g", names[input], big[b]);
          expect_overflow(&x, method, 1e-3, H, v, r, tau, gains, refs, flags, what);
        }
      for (i = 0; i < 3; ++i) {
        snprintf(what, sizeof what, "h = %g", steps[i]);
        expect_overflow(&x, method, steps[i], x.H, x.v, x.r, x.tau, x.gains, x.refs, flags, what);
      }
    }
}

/* The same foot held twice: the step functions still say redundant, both methods. */
static void test_redundant_still_redundant(const char *dir) {
  static const char *const twice[2] = {"FL_foot", "FL_foot"};
  Robot x;
  int method, st;
  if (!load(&x, dir, "quadruped.urdf", twice, 2, GEOLIN_CONTACT_POINT)) return;
  for (method = GEOLIN_STEP_SEMI_IMPLICIT_EULER; method <= GEOLIN_STEP_RK4; ++method) {
    fill_outputs();
    st = geolin_contact_step(x.ws, method, 1e-3, x.H, x.s, x.v, x.r, x.tau, x.nc, x.frames, x.types,
                             0u, x.gains, x.refs, g_out[0], g_out[1], g_out[2], g_out[3], g_out[4]);
    CHECK(st == GEOLIN_ERR_NUMERIC && strstr(geolin_last_error(), "redundant or singular") &&
              outputs_untouched(),
          "contact_step (method %d), foot held twice: redundant -> %d", method, st);
    st = geolin_contact_step_linearize(x.ws, method, 1e-3, x.H, x.s, x.v, x.r, x.tau, x.nc,
                                       x.frames, x.types, 0u, x.gains, x.refs, g_out[0], g_out[1],
                                       g_out[2], g_out[3]);
    CHECK(st == GEOLIN_ERR_NUMERIC && strstr(geolin_last_error(), "redundant or singular") &&
              outputs_untouched(),
          "contact_step_linearize (method %d), foot held twice: redundant -> %d", method, st);
  }
  unload(&x);
}

/* --- 3. the refused determinant is printed with its digits ----------------------------------- */

/* The number after `key` in the last error, or NAN. */
static double number_after(const char *key) {
  const char *p = strstr(geolin_last_error(), key);
  return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* A rotation scaled by 1 + 4e-7: R^T R - I = 8e-7 passes, det R = 1 + 1.2e-6 does not. The
 * printed det R must be the refused value (|det R - 1| > 1e-6), for the state's H (shared check,
 * geolin_impulse and geolin_contact_dynamics) and for a contact's reference (refs). */
static void test_det_digits(const char *dir) {
  static const char *const foot[1] = {"FL_foot"};
  const double c = 1.0 + 4e-7, det = c * c * c;
  double H[16], refs[16], out[2][MAXN];
  Robot x;
  int i, st;
  if (!load(&x, dir, "quadruped.urdf", foot, 1, GEOLIN_CONTACT_RIGID)) return;
  memcpy(H, x.H, sizeof H);
  for (i = 0; i < 3; ++i) H[5 * i] = c;
  st = geolin_impulse(x.ws, H, x.s, x.v, x.r, x.nc, x.frames, x.types, 0u, 0.0, out[0], out[0] + 6,
                      out[1]);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "impulse refuses det R = %.17g -> %d", det, st);
  CHECK(fabs(number_after("det R = ") - 1.0) > 1e-6 && fabs(number_after("det R = ") - det) < 1e-12,
        "impulse: the printed det R (%.17g) is the refused %.17g", number_after("det R = "), det);
  st = dynamics(&x, 0u, out[0], out[1]);
  CHECK(st == GEOLIN_OK, "the unscaled state is accepted -> %d", st);
  st = geolin_contact_dynamics(x.ws, H, x.s, x.v, x.r, x.tau, x.nc, x.frames, x.types, 0u, x.gains,
                               x.refs, out[0], out[1]);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && fabs(number_after("det R = ") - det) < 1e-12,
        "contact_dynamics: det R printed as %.17g -> %d", number_after("det R = "), st);
  memcpy(refs, x.refs, sizeof refs);
  for (i = 0; i < 12; ++i)
    if (i % 4 != 3) refs[i] *= c; /* the whole rotation block: c R, det c^3 */
  st = geolin_contact_dynamics(x.ws, x.H, x.s, x.v, x.r, x.tau, x.nc, x.frames, x.types, 0u,
                               x.gains, refs, out[0], out[1]);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'refs'"),
        "a scaled reference refused -> %d", st);
  CHECK(fabs(number_after("det R = ") - 1.0) > 1e-6 && fabs(number_after("det R = ") - det) < 1e-12,
        "refs: the printed det R (%.17g) is the refused %.17g", number_after("det R = "), det);
  /* A bottom row entry 1 + 2e-6: the printed entry shows it. */
  memcpy(H, x.H, sizeof H);
  H[15] = 1.0 + 2e-6;
  st = geolin_impulse(x.ws, H, x.s, x.v, x.r, x.nc, x.frames, x.types, 0u, 0.0, out[0], out[0] + 6,
                      out[1]);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "impulse refuses H[15] = 1 + 2e-6 -> %d", st);
  {
    const char *p = strstr(geolin_last_error(), "bottom row is [");
    double e[4] = {NAN, NAN, NAN, NAN};
    char *end;
    if (p != NULL) {
      p += strlen("bottom row is [");
      for (i = 0; i < 4; ++i) {
        e[i] = strtod(p, &end);
        p = end;
      }
    }
    CHECK(e[3] == H[15], "the printed bottom row ends with %.17g (H[15] = %.17g)", e[3], H[15]);
  }
  unload(&x);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "models";
  static const char *const feet[4] = {"FL_foot", "FR_foot", "HL_foot", "HR_foot"};
  static const char *const body[1] = {"body"};
  Robot x;
  test_regularization_bound(dir);
  if (load(&x, dir, "quadruped.urdf", feet, 4, GEOLIN_CONTACT_POINT)) {
    int k, st;
    double nu[MAXN], lam[MAXM];
    for (k = 0; k < 2; ++k) { /* the table's base state is regular: its dynamics is OK */
      st = dynamics(&x, (unsigned)k, nu, lam);
      CHECK(st == GEOLIN_OK, "quadruped, 4 feet held: contact_dynamics -> %d", st);
    }
    test_step_overflow_table(&x);
  }
  unload(&x);
  if (load(&x, dir, "free_body.urdf", body, 1, GEOLIN_CONTACT_RIGID)) {
    CHECK(x.nj == 0, "the free body has no joints");
    test_step_overflow_table(&x);
  }
  unload(&x);
  test_redundant_still_redundant(dir);
  test_det_digits(dir);
  printf("capi_contact_errors: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
