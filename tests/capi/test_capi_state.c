/* The state algebra through the C ABI (C99): geolin_state_integrate, geolin_state_difference and
 * their derivatives against geometric central finite differences computed here from the two
 * group operations alone (moving base at rotation angles from 0 to just below pi, fixed base),
 * the round trip, in-place calls, NULL derivative outputs, a fixed base without H and v, the log
 * at an angle of exactly pi, and misuse: the status, the argument named, nothing written.
 *
 * usage: test_capi_state <models_dir>   (uses quadruped.urdf and arm7.urdf)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define MAXN 40
#define MAXNN (2 * MAXN)
#define SENTINEL (-3.5)
#define PI 3.14159265358979323846

typedef struct {
  double H[16], s[MAXN], v[6], r[MAXN];
} State;

typedef struct {
  const geolin_model *m;
  int nj, N, fixed;
} Setup;

static double urand(unsigned long *state) { /* in [-1, 1] */
  *state = *state * 6364136223846793005ul + 1442695040888963407ul;
  return ((double)((*state >> 11) & 0xFFFFFFFFFFFFFul) / (double)0xFFFFFFFFFFFFFul) * 2.0 - 1.0;
}

/* A random z whose pose part rotates by `angle` (fixed base: no pose part). */
static void random_z(const Setup *c, unsigned long *seed, double angle, double *z) {
  int k;
  for (k = 0; k < c->N; ++k) z[k] = urand(seed);
  if (!c->fixed) {
    const double norm = sqrt(z[3] * z[3] + z[4] * z[4] + z[5] * z[5]);
    for (k = 3; k < 6; ++k) z[k] *= angle / norm;
  }
}

/* A random state: the pose exp(z) of a random z (rigid by construction), random s, v, r. */
static void random_state(const Setup *c, unsigned long *seed, State *x) {
  static const double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  double z[MAXNN];
  State zero;
  memset(&zero, 0, sizeof zero);
  memset(x, 0, sizeof *x);
  memcpy(zero.H, I, sizeof I);
  random_z(c, seed, 2.0, z);
  geolin_state_integrate(c->m, zero.H, zero.s, zero.v, zero.r, z, x->H, x->s, x->v, x->r);
}

static int integrate(const Setup *c, const State *x, const double *z, State *y) {
  *y = *x;
  return geolin_state_integrate(c->m, x->H, x->s, x->v, x->r, z, y->H, y->s, y->v, y->r);
}

static int difference(const Setup *c, const State *x0, const State *x1, double *z) {
  return geolin_state_difference(c->m, x0->H, x0->s, x0->v, x0->r, x1->H, x1->s, x1->v, x1->r, z);
}

/* x exp(e e_k) */
static void moved(const Setup *c, const State *x, int k, double e, State *y) {
  double z[MAXNN];
  memset(z, 0, sizeof z);
  z[k] = e;
  CHECK(integrate(c, x, z, y) == GEOLIN_OK, "integrate along %d", k);
}

static double max_abs_diff(const double *a, const double *b, int count) {
  double worst = 0.0;
  int i;
  for (i = 0; i < count; ++i)
    if (fabs(a[i] - b[i]) > worst) worst = fabs(a[i] - b[i]);
  return worst;
}

/* max |D - fd| / max(1, max |fd|), both N x N column-major. */
static double rel_error(const Setup *c, const double *D, const double *fd) {
  double scale = 1.0;
  int i;
  for (i = 0; i < c->N * c->N; ++i)
    if (fabs(fd[i]) > scale) scale = fabs(fd[i]);
  return max_abs_diff(D, fd, c->N * c->N) / scale;
}

/* The four Jacobians at x, z (y = x exp(z)) against central differences with step eps. */
enum { kDx, kDz, kDx0, kDx1 };
static void central_differences(const Setup *c, const State *x, const double *z, double eps,
                                double *fd[4]) {
  const int N = c->N;
  State y, xp, xm, yp, ym;
  double zp[MAXNN], zm[MAXNN], a[MAXNN], b[MAXNN];
  int k, i;
  integrate(c, x, z, &y);
  for (k = 0; k < N; ++k) {
    /* d_dx: (x exp(±eps e_k)) exp(z), read at y */
    moved(c, x, k, eps, &xp);
    moved(c, x, k, -eps, &xm);
    integrate(c, &xp, z, &yp);
    integrate(c, &xm, z, &ym);
    difference(c, &y, &yp, a);
    difference(c, &y, &ym, b);
    for (i = 0; i < N; ++i) fd[kDx][i + N * k] = (a[i] - b[i]) / (2 * eps);
    /* d_dz: x exp(z ± eps e_k), read at y */
    memcpy(zp, z, sizeof(double) * (size_t)N);
    memcpy(zm, z, sizeof(double) * (size_t)N);
    zp[k] += eps;
    zm[k] -= eps;
    integrate(c, x, zp, &yp);
    integrate(c, x, zm, &ym);
    difference(c, &y, &yp, a);
    difference(c, &y, &ym, b);
    for (i = 0; i < N; ++i) fd[kDz][i + N * k] = (a[i] - b[i]) / (2 * eps);
    /* dz_dx0: log((x exp(±eps e_k))^-1 y); dz_dx1: log(x^-1 y exp(±eps e_k)) */
    difference(c, &xp, &y, a);
    difference(c, &xm, &y, b);
    for (i = 0; i < N; ++i) fd[kDx0][i + N * k] = (a[i] - b[i]) / (2 * eps);
    moved(c, &y, k, eps, &yp);
    moved(c, &y, k, -eps, &ym);
    difference(c, x, &yp, a);
    difference(c, x, &ym, b);
    for (i = 0; i < N; ++i) fd[kDx1][i + N * k] = (a[i] - b[i]) / (2 * eps);
  }
}

/* The derivatives match finite differences at rotation angles from 0 to pi - 1e-3, and the
 * difference undoes the integration. Returns the worst relative error. */
static double derivatives_match_finite_differences(const Setup *c, const char *label) {
  static const double angles[] = {0.0, 1e-7, 0.3, 0.45, 2.0, 3.1, PI - 1e-3};
  static double an[4][MAXNN * MAXNN], fdm[4][MAXNN * MAXNN];
  double *fd[4] = {fdm[0], fdm[1], fdm[2], fdm[3]};
  const char *names[4] = {"d_dx", "d_dz", "dz_dx0", "dz_dx1"};
  unsigned long seed = 11;
  double z[MAXNN], back[MAXNN], worst = 0.0;
  State x, y;
  size_t a;
  int j;
  for (a = 0; a < sizeof angles / sizeof angles[0]; ++a) {
    random_state(c, &seed, &x);
    random_z(c, &seed, angles[a], z);
    CHECK(integrate(c, &x, z, &y) == GEOLIN_OK, "%s: integrate", label);
    CHECK(difference(c, &x, &y, back) == GEOLIN_OK, "%s: difference", label);
    CHECK(max_abs_diff(back, z, c->N) < 1e-9, "%s: log(x^-1 x exp(z)) = z at angle %g (%g)", label,
          angles[a], max_abs_diff(back, z, c->N));
    CHECK(geolin_state_integrate_derivatives(c->m, x.H, x.s, x.v, x.r, z, an[kDx], an[kDz]) ==
              GEOLIN_OK,
          "%s: integrate_derivatives", label);
    CHECK(geolin_state_difference_derivatives(c->m, x.H, x.s, x.v, x.r, y.H, y.s, y.v, y.r,
                                              an[kDx0], an[kDx1]) == GEOLIN_OK,
          "%s: difference_derivatives", label);
    central_differences(c, &x, z, 1e-5, fd);
    for (j = 0; j < 4; ++j) {
      const double e = rel_error(c, an[j], fd[j]);
      CHECK(e < 1e-8, "%s: %s vs finite differences at angle %g: %.3g", label, names[j], angles[a],
            e);
      if (e > worst) worst = e;
    }
  }
  printf("%s: worst relative error of the four Jacobians vs finite differences: %.3g\n", label,
         worst);
  return worst;
}

/* In place (outputs = inputs) gives the out-of-place result; a NULL derivative output leaves the
 * other unchanged; both NULL is a valid call. */
static void aliasing_and_null_outputs(const Setup *c, const char *label) {
  static double a[MAXNN * MAXNN], b[MAXNN * MAXNN], d[MAXNN * MAXNN];
  unsigned long seed = 5;
  double z[MAXNN];
  State x, y, w;
  random_state(c, &seed, &x);
  random_z(c, &seed, 1.0, z);
  integrate(c, &x, z, &y);
  w = x;
  CHECK(geolin_state_integrate(c->m, w.H, w.s, w.v, w.r, z, w.H, w.s, w.v, w.r) == GEOLIN_OK,
        "%s: in place", label);
  CHECK(memcmp(&w, &y, sizeof w) == 0, "%s: in place equals out of place", label);
  CHECK(geolin_state_integrate_derivatives(c->m, x.H, x.s, NULL, NULL, z, a, b) == GEOLIN_OK,
        "%s: v, r not read", label);
  fill(d, c->N * c->N, SENTINEL);
  CHECK(geolin_state_integrate_derivatives(c->m, x.H, x.s, x.v, x.r, z, NULL, d) == GEOLIN_OK &&
            memcmp(d, b, sizeof(double) * (size_t)(c->N * c->N)) == 0,
        "%s: d_dx NULL, d_dz the same", label);
  CHECK(geolin_state_integrate_derivatives(c->m, x.H, x.s, x.v, x.r, z, NULL, NULL) == GEOLIN_OK,
        "%s: both NULL", label);
  CHECK(geolin_state_difference_derivatives(c->m, x.H, x.s, NULL, NULL, y.H, y.s, NULL, NULL, a,
                                            b) == GEOLIN_OK,
        "%s: v0, r0, v1, r1 not read", label);
  fill(d, c->N * c->N, SENTINEL);
  CHECK(geolin_state_difference_derivatives(c->m, x.H, x.s, x.v, x.r, y.H, y.s, y.v, y.r, d,
                                            NULL) == GEOLIN_OK &&
            memcmp(d, a, sizeof(double) * (size_t)(c->N * c->N)) == 0,
        "%s: dz_dx1 NULL, dz_dx0 the same", label);
}

/* A fixed base: H, v NULL; the Jacobians are 1 and -1. */
static void fixed_base_without_pose(const Setup *c) {
  static double a[MAXNN * MAXNN], b[MAXNN * MAXNN];
  const int nj = c->nj, N = c->N;
  double s[MAXN], r[MAXN], z[MAXNN], back[MAXNN];
  int i, j, ok = 1;
  for (i = 0; i < N; ++i) z[i] = 0.1 * i - 0.3;
  for (i = 0; i < nj; ++i) s[i] = 0.2 * i, r[i] = -0.1 * i;
  fill(back, N, SENTINEL);
  CHECK(geolin_state_difference(c->m, NULL, s, NULL, r, NULL, s, NULL, r, back) == GEOLIN_OK &&
            all_equal(back, N, 0.0),
        "fixed: difference without H, v");
  CHECK(geolin_state_integrate(c->m, NULL, s, NULL, r, z, NULL, s, NULL, r) == GEOLIN_OK,
        "fixed: integrate without H, v");
  for (i = 0; i < nj; ++i) ok &= s[i] == 0.2 * i + z[i] && r[i] == -0.1 * i + z[nj + i];
  CHECK(ok, "fixed: s + z_s, r + z_r");
  CHECK(geolin_state_integrate_derivatives(c->m, NULL, s, NULL, NULL, z, a, b) == GEOLIN_OK,
        "fixed: integrate_derivatives");
  for (j = 0, ok = 1; j < N; ++j)
    for (i = 0; i < N; ++i) ok &= a[i + N * j] == (i == j) && b[i + N * j] == (i == j);
  CHECK(ok, "fixed: d_dx = d_dz = 1");
  CHECK(geolin_state_difference_derivatives(c->m, NULL, s, NULL, NULL, NULL, s, NULL, NULL, a, b) ==
            GEOLIN_OK,
        "fixed: difference_derivatives");
  for (j = 0, ok = 1; j < N; ++j)
    for (i = 0; i < N; ++i) ok &= a[i + N * j] == -(i == j) && b[i + N * j] == (i == j);
  CHECK(ok, "fixed: dz_dx0 = -1, dz_dx1 = 1");
}

/* At a rotation angle of exactly pi (R symmetric), the log whose first largest component of the
 * rotation vector is positive, whichever sign built it; and x0 exp(z) = x1. */
static void log_at_pi(const Setup *c) {
  const double h = sqrt(0.5);
  /* rotation by pi about (1, -1, 0)/sqrt(2): R = 2 n n^T - 1, column-major */
  double H1[16] = {0, -1, 0, 0, -1, 0, 0, 0, 0, 0, -1, 0, 0.3, -0.2, 0.5, 1};
  double H0[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -0.1, 0.4, 0.2, 1};
  double z[MAXNN], z2[MAXNN];
  State x0, x1, back;
  memset(&x0, 0, sizeof x0);
  memcpy(x0.H, H0, sizeof H0);
  x1 = x0;
  memcpy(x1.H, H1, sizeof H1);
  CHECK(difference(c, &x0, &x1, z) == GEOLIN_OK, "pi: difference");
  CHECK(fabs(z[3] - PI * h) < 1e-12 && fabs(z[4] + PI * h) < 1e-12 && fabs(z[5]) < 1e-12,
        "pi: z_H angular = pi (1, -1, 0)/sqrt(2), got (%g, %g, %g)", z[3], z[4], z[5]);
  CHECK(integrate(c, &x0, z, &back) == GEOLIN_OK && max_abs_diff(back.H, H1, 16) < 1e-12,
        "pi: x0 exp(z) = x1");
  CHECK(difference(c, &x0, &x1, z2) == GEOLIN_OK && memcmp(z, z2, sizeof(double) * 6) == 0,
        "pi: deterministic");
}

/* Misuse: status, the argument named, nothing written. */
static void misuse(const Setup *c) {
  static double a[MAXNN * MAXNN];
  const int N = c->N;
  unsigned long seed = 9;
  double z[MAXNN], out[MAXNN];
  State x, y;
  random_state(c, &seed, &x);
  random_z(c, &seed, 0.5, z);
  y = x;
  fill(y.s, c->nj, SENTINEL);
  CHECK(geolin_state_integrate(NULL, x.H, x.s, x.v, x.r, z, y.H, y.s, y.v, y.r) ==
                GEOLIN_ERR_INVALID_ARGUMENT &&
            strstr(geolin_last_error(), "'model'") != NULL,
        "NULL model");
  {
    State bad = x;
    bad.H[0] *= 1.5; /* scaled: not a rigid transform */
    fill(out, N, SENTINEL);
    CHECK(difference(c, &bad, &x, out) == GEOLIN_ERR_INVALID_ARGUMENT &&
              strstr(geolin_last_error(), "'H0'") != NULL &&
              strstr(geolin_last_error(), "rigid transform") != NULL && all_equal(out, N, SENTINEL),
          "non-rigid H0 named, nothing written");
    CHECK(difference(c, &x, &bad, out) == GEOLIN_ERR_INVALID_ARGUMENT &&
              strstr(geolin_last_error(), "'H1'") != NULL && all_equal(out, N, SENTINEL),
          "non-rigid H1 named, nothing written");
  }
  z[7] = NAN;
  CHECK(geolin_state_integrate(c->m, x.H, x.s, x.v, x.r, z, y.H, y.s, y.v, y.r) ==
                GEOLIN_ERR_NONFINITE &&
            strstr(geolin_last_error(), "'z'") != NULL &&
            strstr(geolin_last_error(), "index 7") != NULL && all_equal(y.s, c->nj, SENTINEL),
        "NaN in z named with its index, nothing written");
  fill(a, N * N, SENTINEL);
  CHECK(geolin_state_integrate_derivatives(c->m, x.H, x.s, NULL, NULL, z, a, NULL) ==
                GEOLIN_ERR_NONFINITE &&
            strstr(geolin_last_error(), "'z'") != NULL && all_equal(a, N * N, SENTINEL),
        "derivatives: NaN in z, nothing written");
  random_z(c, &seed, 0.5, z);
  CHECK(geolin_state_integrate(c->m, x.H, x.s, x.v, x.r, z, NULL, y.s, y.v, y.r) ==
                GEOLIN_ERR_INVALID_ARGUMENT &&
            strstr(geolin_last_error(), "'H_out'") != NULL && all_equal(y.s, c->nj, SENTINEL),
        "NULL H_out for a moving base");
  CHECK(geolin_state_integrate_derivatives(c->m, x.H, x.s, NULL, NULL, z, a, a + 1) ==
                GEOLIN_ERR_INVALID_ARGUMENT &&
            strstr(geolin_last_error(), "overlap") != NULL && all_equal(a, N * N, SENTINEL),
        "overlapping derivative outputs");
  /* an overflow: joint positions near the largest double */
  x.s[0] = 1.5e308;
  z[6] = 1.5e308;
  CHECK(geolin_state_integrate(c->m, x.H, x.s, x.v, x.r, z, y.H, y.s, y.v, y.r) ==
                GEOLIN_ERR_NUMERIC &&
            all_equal(y.s, c->nj, SENTINEL),
        "overflow: NUMERIC, nothing written");
  x.s[0] = -1.5e308;
  y.s[0] = 1.5e308;
  fill(out, N, SENTINEL);
  CHECK(difference(c, &x, &y, out) == GEOLIN_ERR_NUMERIC &&
            strstr(geolin_last_error(), "'z'") != NULL && all_equal(out, N, SENTINEL),
        "difference overflow: NUMERIC naming 'z', nothing written");
}

static int setup(const char *dir, const char *file, unsigned flags, geolin_model **m, Setup *c) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  if (geolin_model_load_urdf(path, flags, m) != GEOLIN_OK) {
    fprintf(stderr, "cannot load %s: %s\n", path, geolin_last_error());
    return 0;
  }
  c->m = *m;
  c->nj = geolin_model_num_joints(*m);
  c->N = geolin_model_state_dim(*m);
  c->fixed = (flags & GEOLIN_FIXED_BASE) != 0;
  return c->N <= MAXNN;
}

int main(int argc, char **argv) {
  geolin_model *quad = NULL, *arm = NULL;
  Setup q, a;
  double worst = 0.0, e;
  if (argc < 2) {
    fprintf(stderr, "usage: %s <models_dir>\n", argv[0]);
    return 2;
  }
  if (!setup(argv[1], "quadruped.urdf", 0u, &quad, &q) ||
      !setup(argv[1], "arm7.urdf", GEOLIN_FIXED_BASE, &arm, &a))
    return 1;
  e = derivatives_match_finite_differences(&q, "quadruped (moving base)");
  worst = e > worst ? e : worst;
  e = derivatives_match_finite_differences(&a, "arm7 (fixed base)");
  worst = e > worst ? e : worst;
  aliasing_and_null_outputs(&q, "quadruped");
  aliasing_and_null_outputs(&a, "arm7 fixed");
  fixed_base_without_pose(&a);
  log_at_pi(&q);
  misuse(&q);
  geolin_model_free(quad);
  geolin_model_free(arm);
  printf("worst error vs finite differences %.3g; %d checks passed, %d failed\n", worst, g_passed,
         g_failed);
  return g_failed ? 1 : 0;
}
