/* GEOLIN_STEP_IMPLICIT_EULER and the geolin_*step_feedback* functions through the C ABI (C99):
 * with NULL feedback they equal the plain functions bit for bit (every method, with and without
 * the quadruped's four feet held); the header's claim d x+ / d s_ref = B_d diag(kp),
 * d x+ / d r_ref = B_d diag(kd) (and the same for lambda with dlambda_dw) against central
 * differences of the step in the references (geolin_state_difference); misuse (a negative kd, a
 * NaN s_ref, method 3) refused with the argument and index named and nothing written.
 *
 * usage: test_capi_implicit <models_dir>   (uses quadruped.urdf and humanoid.urdf)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define MAXN 40
#define MAXM 12
#define SENTINEL (-3.5)

typedef struct {
  geolin_model *m;
  geolin_workspace *ws;
  int nj, N, nc, rows;
  int frames[4], types[4];
  double refs[64], gains[2];
  double H[16], s[MAXN], v[6], r[MAXN], tau[MAXN];
} Setup;

static double urand(unsigned long *state) { /* in [-1, 1] */
  *state = *state * 6364136223846793005ul + 1442695040888963407ul;
  return ((double)((*state >> 11) & 0xFFFFFFFFFFFFFul) / (double)0xFFFFFFFFFFFFFul) * 2.0 - 1.0;
}

static int setup(Setup *x, const char *dir, const char *file, unsigned flags, int feet) {
  static const char *const names[4] = {"FL_foot", "FR_foot", "HL_foot", "HR_foot"};
  char path[1024];
  unsigned long seed = 17;
  int k, st;
  memset(x, 0, sizeof *x);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  st = geolin_model_load_urdf(path, flags, &x->m);
  CHECK(st == GEOLIN_OK, "load %s -> %d", path, st);
  if (st != GEOLIN_OK) return 0;
  CHECK(geolin_workspace_new(x->m, &x->ws) == GEOLIN_OK, "workspace");
  x->nj = geolin_model_num_joints(x->m);
  x->N = geolin_model_state_dim(x->m);
  for (k = 0; k < 16; ++k) x->H[k] = (k % 5 == 0) ? 1.0 : 0.0;
  x->H[14] = 0.4;
  for (k = 0; k < 6; ++k) x->v[k] = 0.3 * urand(&seed);
  for (k = 0; k < x->nj; ++k) {
    x->s[k] = urand(&seed);
    x->r[k] = 0.5 * urand(&seed);
    x->tau[k] = urand(&seed);
  }
  x->nc = feet ? 4 : 0;
  for (k = 0; k < x->nc; ++k) {
    x->frames[k] = geolin_model_frame_index(x->m, names[k]);
    CHECK(x->frames[k] >= 0, "frame %s", names[k]);
    x->types[k] = GEOLIN_CONTACT_POINT;
    x->rows += 3;
    CHECK(geolin_frame_pose(x->ws, x->H, x->s, x->frames[k], x->refs + 16 * k) == GEOLIN_OK,
          "pose");
    x->refs[16 * k + 12] += 0.01; /* the reference a centimetre away */
  }
  x->gains[0] = 25.0;
  x->gains[1] = 7.0;
  return x->nj <= MAXN && x->rows <= MAXM;
}

static void teardown(Setup *x) {
  geolin_workspace_free(x->ws);
  geolin_model_free(x->m);
}

typedef struct {
  double H[16], s[MAXN], v[6], r[MAXN], lambda[MAXM];
} Next;

typedef struct {
  const double *kp, *kd, *s_ref, *r_ref;
} Feedback;

static int fb_step(Setup *x, int method, const Feedback *f, Next *o) {
  return geolin_contact_step_feedback(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, f->kp,
                                      f->kd, f->s_ref, f->r_ref, x->nc, x->frames, x->types,
                                      GEOLIN_WRENCH_MIXED, x->gains, x->refs, o->H, o->s, o->v,
                                      o->r, o->lambda);
}

static int fb_linearize(Setup *x, int method, const Feedback *f, double *A, double *B, double *dz,
                        double *dw) {
  return geolin_contact_step_feedback_linearize(
      x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, f->kp, f->kd, f->s_ref, f->r_ref, x->nc,
      x->frames, x->types, GEOLIN_WRENCH_MIXED, x->gains, x->refs, A, B, dz, dw);
}

static double A1[MAXN * 2 * MAXN * 2], A2[MAXN * 2 * MAXN * 2];
static double B1[MAXN * 2 * MAXN], B2[MAXN * 2 * MAXN];
static double dz1[MAXM * MAXN * 2], dz2[MAXM * MAXN * 2], dw1[MAXM * MAXN], dw2[MAXM * MAXN];

/* NULL feedback: each _feedback function equals its plain function exactly. */
static void null_feedback_is_plain(Setup *x, const char *label) {
  const Feedback none = {NULL, NULL, NULL, NULL};
  const int N = x->N, nj = x->nj, m = x->rows;
  int method;
  for (method = 0; method <= 2; ++method) {
    Next a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    CHECK(fb_step(x, method, &none, &a) == GEOLIN_OK, "%s: contact_step_feedback(%d)", label,
          method);
    CHECK(geolin_contact_step(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, x->nc, x->frames,
                              x->types, GEOLIN_WRENCH_MIXED, x->gains, x->refs, b.H, b.s, b.v, b.r,
                              b.lambda) == GEOLIN_OK,
          "%s: contact_step(%d)", label, method);
    CHECK(memcmp(&a, &b, sizeof a) == 0, "%s: method %d: NULL feedback == contact_step", label,
          method);
    memset(&b, 0, sizeof b);
    CHECK(geolin_step(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, b.H, b.s, b.v, b.r) ==
              GEOLIN_OK,
          "%s: step(%d)", label, method);
    memset(&a, 0, sizeof a);
    CHECK(geolin_step_feedback(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, NULL, NULL,
                               NULL, NULL, a.H, a.s, a.v, a.r) == GEOLIN_OK,
          "%s: step_feedback(%d)", label, method);
    CHECK(memcmp(&a, &b, sizeof a) == 0, "%s: method %d: NULL feedback == step", label, method);

    CHECK(fb_linearize(x, method, &none, A1, B1, dz1, dw1) == GEOLIN_OK, "%s: lin %d", label,
          method);
    CHECK(geolin_contact_step_linearize(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, x->nc,
                                        x->frames, x->types, GEOLIN_WRENCH_MIXED, x->gains, x->refs,
                                        A2, B2, dz2, dw2) == GEOLIN_OK,
          "%s: contact_step_linearize(%d)", label, method);
    CHECK(memcmp(A1, A2, sizeof(double) * N * N) == 0 &&
              memcmp(B1, B2, sizeof(double) * N * nj) == 0 &&
              memcmp(dz1, dz2, sizeof(double) * m * N) == 0 &&
              memcmp(dw1, dw2, sizeof(double) * m * nj) == 0,
          "%s: method %d: NULL feedback linearization == contact_step_linearize", label, method);
    CHECK(geolin_step_feedback_linearize(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, NULL,
                                         NULL, NULL, NULL, A1, B1) == GEOLIN_OK,
          "%s: step_feedback_linearize(%d)", label, method);
    CHECK(geolin_step_linearize(x->ws, method, 0.01, x->H, x->s, x->v, x->r, x->tau, A2, B2) ==
              GEOLIN_OK,
          "%s: step_linearize(%d)", label, method);
    CHECK(
        memcmp(A1, A2, sizeof(double) * N * N) == 0 && memcmp(B1, B2, sizeof(double) * N * nj) == 0,
        "%s: method %d: NULL feedback == step_linearize", label, method);
  }
}

/* d x+ / d s_ref = B_d diag(kp) and d x+ / d r_ref = B_d diag(kd) (lambda: dlambda_dw), by
 * central differences of the step in s_ref[j] and r_ref[j]. Returns the worst relative error. */
static double reference_derivatives(Setup *x, int method, const char *label) {
  double kp[MAXN], kd[MAXN], s_ref[MAXN], r_ref[MAXN], z1[2 * MAXN], z2[2 * MAXN];
  const int N = x->N, nj = x->nj, m = x->rows;
  const double eps = 1e-5;
  const Feedback f = {kp, kd, s_ref, r_ref};
  unsigned long seed = 5;
  double worst = 0.0, scale = 1.0;
  int j, i, pass;
  Next y0, yp, yq;
  for (j = 0; j < nj; ++j) {
    kp[j] = 10.0 + 10.0 * urand(&seed);
    kd[j] = 1.0 + urand(&seed);
    s_ref[j] = urand(&seed);
    r_ref[j] = urand(&seed);
  }
  CHECK(fb_linearize(x, method, &f, A1, B1, dz1, dw1) == GEOLIN_OK, "%s: linearize", label);
  CHECK(fb_step(x, method, &f, &y0) == GEOLIN_OK, "%s: step", label);
  for (i = 0; i < N * nj; ++i) scale = fmax(scale, fabs(B1[i]) * fmax(kp[i / N], kd[i / N]));
  for (pass = 0; pass < 2; ++pass) {
    double *ref = pass == 0 ? s_ref : r_ref;
    const double *gain = pass == 0 ? kp : kd;
    for (j = 0; j < nj; ++j) {
      const double keep = ref[j];
      ref[j] = keep + eps;
      CHECK(fb_step(x, method, &f, &yp) == GEOLIN_OK, "%s: step +", label);
      ref[j] = keep - eps;
      CHECK(fb_step(x, method, &f, &yq) == GEOLIN_OK, "%s: step -", label);
      ref[j] = keep;
      geolin_state_difference(x->m, y0.H, y0.s, y0.v, y0.r, yp.H, yp.s, yp.v, yp.r, z1);
      geolin_state_difference(x->m, y0.H, y0.s, y0.v, y0.r, yq.H, yq.s, yq.v, yq.r, z2);
      for (i = 0; i < N; ++i) {
        const double fd = (z1[i] - z2[i]) / (2 * eps);
        worst = fmax(worst, fabs(fd - B1[i + N * j] * gain[j]) / scale);
      }
      for (i = 0; i < m; ++i) {
        const double fd = (yp.lambda[i] - yq.lambda[i]) / (2 * eps);
        worst = fmax(worst, fabs(fd - dw1[i + m * j] * gain[j]) / fmax(1.0, fabs(fd)));
      }
    }
  }
  CHECK(worst < 1e-6, "%s: method %d: d/d(s_ref, r_ref) = B_d diag(kp, kd): error %g", label,
        method, worst);
  return worst;
}

/* Refused calls name the argument and index and write nothing. */
static void misuse(Setup *x) {
  double kp[MAXN], kd[MAXN], s_ref[MAXN], r_ref[MAXN];
  Next o;
  Feedback f = {kp, kd, s_ref, r_ref};
  int j, st;
  for (j = 0; j < x->nj; ++j) kp[j] = kd[j] = s_ref[j] = r_ref[j] = 1.0;
  kd[3] = -1.0;
  fill((double *)&o, sizeof o / sizeof(double), SENTINEL);
  st = fb_step(x, GEOLIN_STEP_IMPLICIT_EULER, &f, &o);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "kd[3]") != NULL,
        "negative kd[3] -> %d", st);
  CHECK(all_equal((double *)&o, sizeof o / sizeof(double), SENTINEL), "nothing written (kd)");
  kd[3] = 1.0;
  s_ref[2] = NAN;
  st = geolin_step_feedback(x->ws, GEOLIN_STEP_RK4, 0.01, x->H, x->s, x->v, x->r, x->tau, kp, kd,
                            s_ref, r_ref, o.H, o.s, o.v, o.r);
  CHECK(st == GEOLIN_ERR_NONFINITE && strstr(geolin_last_error(), "s_ref[2]") != NULL,
        "NaN s_ref[2] -> %d", st);
  CHECK(all_equal((double *)&o, sizeof o / sizeof(double), SENTINEL), "nothing written (s_ref)");
  fill(A1, x->N * x->N, SENTINEL);
  st = geolin_step_feedback_linearize(x->ws, 0, 0.01, x->H, x->s, x->v, x->r, x->tau, kp, kd, s_ref,
                                      r_ref, A1, B1);
  CHECK(st == GEOLIN_ERR_NONFINITE && strstr(geolin_last_error(), "s_ref[2]") != NULL,
        "NaN s_ref[2] (linearize) -> %d", st);
  CHECK(all_equal(A1, x->N * x->N, SENTINEL), "nothing written (linearize)");
  s_ref[2] = 0.0;
  kp[0] = INFINITY;
  st = fb_linearize(x, GEOLIN_STEP_SEMI_IMPLICIT_EULER, &f, A1, B1, dz1, dw1);
  CHECK(st == GEOLIN_ERR_NONFINITE && strstr(geolin_last_error(), "kp[0]") != NULL,
        "infinite kp[0] -> %d", st);
  CHECK(all_equal(A1, x->N * x->N, SENTINEL), "nothing written (kp)");
  kp[0] = 1.0;
  st = fb_step(x, 3, &f, &o);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'method'") != NULL,
        "method 3 -> %d", st);
  st = geolin_step(x->ws, 3, 0.01, x->H, x->s, x->v, x->r, x->tau, o.H, o.s, o.v, o.r);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'method'") != NULL,
        "geolin_step method 3 -> %d", st);
  CHECK(all_equal((double *)&o, sizeof o / sizeof(double), SENTINEL), "nothing written (method)");
}

/* A feedback gain that overflows the torque is named as an overflow of the inputs (the dynamics
 * at the input state with the feedback's torque), not as a step size that overflowed. */
static void feedback_overflow_is_not_blamed_on_h(Setup *x) {
  double kp[MAXN], kd[MAXN], r_ref[MAXN];
  Next o;
  Feedback f = {kp, kd, NULL, r_ref};
  int j, st, method;
  for (j = 0; j < x->nj; ++j) {
    kp[j] = 1.0;
    kd[j] = 1e300;
    r_ref[j] = 1e300; /* kd (r_ref - r) = 1e600: the torque at the input overflows */
  }
  /* The explicit methods: the implicit one solves with M + h kd first, where kd = 1e300 locks
   * the legs, and four feet on the locked body are then (correctly) refused as dependent. */
  for (method = 0; method <= 1; ++method) {
    fill((double *)&o, sizeof o / sizeof(double), SENTINEL);
    st = fb_step(x, method, &f, &o);
    CHECK(st == GEOLIN_ERR_NUMERIC && strstr(geolin_last_error(), "overflowed") != NULL &&
              strstr(geolin_last_error(), "'h'") == NULL,
          "method %d: kd = 1e300 -> %d (%s)", method, st, geolin_last_error());
    CHECK(all_equal((double *)&o, sizeof o / sizeof(double), SENTINEL),
          "method %d: nothing written (kd = 1e300)", method);
  }
}

/* A damped model: the implicit step differs from the explicit one by O(h^2) in r. */
static void implicit_damping_is_second_order_close(Setup *x) {
  Next a, b;
  double h, err[2];
  int i, k;
  for (k = 0; k < 2; ++k) {
    h = k == 0 ? 1e-3 : 5e-4;
    CHECK(geolin_step(x->ws, GEOLIN_STEP_IMPLICIT_EULER, h, x->H, x->s, x->v, x->r, x->tau, a.H,
                      a.s, a.v, a.r) == GEOLIN_OK,
          "implicit step");
    CHECK(geolin_step(x->ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, h, x->H, x->s, x->v, x->r, x->tau,
                      b.H, b.s, b.v, b.r) == GEOLIN_OK,
          "explicit step");
    err[k] = 0.0;
    for (i = 0; i < x->nj; ++i) err[k] = fmax(err[k], fabs(a.r[i] - b.r[i]));
  }
  CHECK(err[0] > 0.0 && err[0] / err[1] > 3.5 && err[0] / err[1] < 4.5,
        "damped humanoid: implicit - explicit = O(h^2): %g at h = 1e-3, %g at h = 5e-4", err[0],
        err[1]);
}

int main(int argc, char **argv) {
  Setup x;
  double worst = 0.0;
  int method;
  const char *dir = argc > 1 ? argv[1] : "models";
  if (setup(&x, dir, "quadruped.urdf", 0u, 1)) {
    null_feedback_is_plain(&x, "quadruped, four feet");
    for (method = 0; method <= 2; ++method)
      worst = fmax(worst, reference_derivatives(&x, method, "quadruped, four feet"));
    misuse(&x);
    feedback_overflow_is_not_blamed_on_h(&x);
  }
  teardown(&x);
  if (setup(&x, dir, "humanoid.urdf", GEOLIN_JOINT_DAMPING, 0)) {
    null_feedback_is_plain(&x, "humanoid, damped");
    for (method = 0; method <= 2; ++method)
      worst = fmax(worst, reference_derivatives(&x, method, "humanoid, damped"));
    implicit_damping_is_second_order_close(&x);
  }
  teardown(&x);
  printf("test_capi_implicit: %d passed, %d failed; worst d/d(refs) error %.3g\n", g_passed,
         g_failed, worst);
  return g_failed == 0 ? 0 : 1;
}
