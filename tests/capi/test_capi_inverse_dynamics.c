/* geolin_inverse_dynamics_linearize through the C boundary (C99): its identities with
 * geolin_inverse_dynamics, geolin_mass_matrix and geolin_linearize (M times the nu_dot rows of A
 * is -dtau_dz at nu_dot = forward dynamics), a geometric central difference through H exp(z),
 * the NULL rules of its optional outputs and of H, v on a fixed base, and its argument checks
 * (each error names the argument, outputs untouched).
 *
 * usage: test_capi_inverse_dynamics <models_dir>
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define MAXN 64
#define SENTINEL 12345.678

static unsigned long g_rng = 4242u;
static double urand(void) { /* in [-1, 1] */
  g_rng = g_rng * 6364136223846793005ul + 1442695040888963407ul;
  return ((double)((g_rng >> 11) & 0xFFFFFFFFFFFFFul) / (double)0xFFFFFFFFFFFFFul) * 2.0 - 1.0;
}

/* Column-major 4x4 H = [R p; 0 1] with R = rotation about y by a, then about z by b. */
static void make_H(double a, double b, const double p[3], double H[16]) {
  const double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b);
  const double R[9] = {cb * ca, sb * ca, -sa, -sb, cb, 0.0, cb * sa, sb * sa, ca}; /* Rz Ry */
  int i, j;
  for (j = 0; j < 3; ++j) {
    for (i = 0; i < 3; ++i) H[i + 4 * j] = R[i + 3 * j];
    H[3 + 4 * j] = 0.0;
  }
  for (i = 0; i < 3; ++i) H[12 + i] = p[i];
  H[15] = 1.0;
}

static double max_abs(const double *x, int count) {
  double m = 0.0;
  int i;
  for (i = 0; i < count; ++i) m = fabs(x[i]) > m || x[i] != x[i] ? fabs(x[i]) : m;
  return m;
}

static double max_abs_diff(const double *x, const double *y, int count) {
  double m = 0.0;
  int i;
  for (i = 0; i < count; ++i) m = fabs(x[i] - y[i]) > m ? fabs(x[i] - y[i]) : m;
  return m;
}

typedef struct {
  double H[16], s[MAXN], v[6], r[MAXN], tau[MAXN];
} State;

static void random_state(State *x, int nj, double pitch) {
  const double p[3] = {urand(), urand(), urand()};
  int i;
  make_H(pitch, urand(), p, x->H);
  for (i = 0; i < 6; ++i) x->v[i] = urand();
  for (i = 0; i < nj; ++i) {
    x->s[i] = 3.0 * urand();
    x->r[i] = urand();
    x->tau[i] = urand();
  }
}

/* H exp(e w^) for the rotation part: H's rotation times the rotation about axis k by e. */
static void rotate_base(const double *H, int k, double e, double *out) {
  const double c = cos(e), s = sin(e);
  double E[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}; /* column-major */
  const int a = (k + 1) % 3, b = (k + 2) % 3;
  int i, j, l;
  E[a + 3 * a] = c, E[b + 3 * b] = c, E[b + 3 * a] = s, E[a + 3 * b] = -s;
  memcpy(out, H, 16 * sizeof(double));
  for (j = 0; j < 3; ++j)
    for (i = 0; i < 3; ++i) {
      double sum = 0.0;
      for (l = 0; l < 3; ++l) sum += H[i + 4 * l] * E[l + 3 * j];
      out[i + 4 * j] = sum;
    }
}

static void check_identities(const char *label, const geolin_model *m) {
  static double nu_dot[MAXN], f[MAXN], f2[MAXN], f_id[MAXN], dz[MAXN * 2 * MAXN], M[MAXN * MAXN],
      M2[MAXN * MAXN], A[4 * MAXN * MAXN], B[2 * MAXN * MAXN], fp[MAXN], fm[MAXN], Hp[16];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), fixed = geolin_model_is_fixed_base(m);
  geolin_workspace *ws = NULL;
  int trial, i, j, k, st;
  if (n > MAXN || geolin_workspace_new(m, &ws) != GEOLIN_OK) {
    CHECK(0, "%s: workspace", label);
    return;
  }
  for (trial = 0; trial < 3; ++trial) {
    State x;
    const double *H = fixed ? NULL : x.H, *v = fixed ? NULL : x.v;
    double err, scale;
    random_state(&x, nj,
                 trial == 0 ? 1.5707963267948966 : (trial == 1 ? -1.5707963267948966 : urand()));
    st = geolin_forward_dynamics(ws, H, x.s, v, x.r, x.tau, nu_dot);
    CHECK(st == GEOLIN_OK, "%s: forward_dynamics -> %d", label, st);
    st = geolin_inverse_dynamics_linearize(ws, H, x.s, v, x.r, nu_dot, f, dz, M);
    CHECK(st == GEOLIN_OK, "%s: inverse_dynamics_linearize -> %d", label, st);
    st = geolin_inverse_dynamics(ws, H, x.s, v, x.r, nu_dot, f_id);
    CHECK(st == GEOLIN_OK && max_abs_diff(f, f_id, n) <= 1e-12 * (1.0 + max_abs(f_id, n)),
          "%s: generalized_force = geolin_inverse_dynamics", label);
    st = geolin_mass_matrix(ws, x.s, M2);
    CHECK(st == GEOLIN_OK && max_abs_diff(M, M2, n * n) <= 1e-12 * (1.0 + max_abs(M2, n * n)),
          "%s: M = geolin_mass_matrix", label);
    /* at nu_dot = FD: M F + dtau_dz = 0 for the nu_dot rows F of A (the implicit function) */
    st = geolin_linearize(ws, H, x.s, v, x.r, x.tau, A, B);
    CHECK(st == GEOLIN_OK, "%s: linearize -> %d", label, st);
    err = 0.0;
    scale = 1.0 + max_abs(dz, n * N);
    for (j = 0; j < N; ++j)
      for (i = 0; i < n; ++i) {
        double sum = dz[i + n * j];
        for (k = 0; k < n; ++k) sum += M[i + n * k] * A[(n + k) + N * j];
        err = fabs(sum) > err ? fabs(sum) : err;
      }
    CHECK(err <= 1e-9 * scale, "%s: M A_nu + dtau_dz = 0, error %g", label, err);
    /* the base attitude columns against a central difference through H exp(z) */
    if (!fixed)
      for (k = 0; k < 3; ++k) {
        const double e = 1e-6;
        rotate_base(x.H, k, e, Hp);
        geolin_inverse_dynamics(ws, Hp, x.s, v, x.r, nu_dot, fp);
        rotate_base(x.H, k, -e, Hp);
        geolin_inverse_dynamics(ws, Hp, x.s, v, x.r, nu_dot, fm);
        for (i = 0; i < n; ++i) fp[i] = (fp[i] - fm[i]) / (2 * e);
        CHECK(max_abs_diff(fp, dz + n * (3 + k), n) <= 1e-7 * scale,
              "%s: dtau_dz column z_H[%d] against a central difference", label, 3 + k);
      }
    /* optional outputs: NULL leaves the others as they were */
    st = geolin_inverse_dynamics_linearize(ws, H, x.s, v, x.r, nu_dot, f2, NULL, NULL);
    CHECK(st == GEOLIN_OK && max_abs_diff(f, f2, n) <= 1e-12 * (1.0 + max_abs(f, n)),
          "%s: both derivatives NULL", label);
  }
  geolin_workspace_free(ws);
}

static void expect_error(const char *label, int st, int want, const char *needle, const double *out,
                         int count) {
  CHECK(st == want, "%s: status %d, expected %d", label, st, want);
  CHECK(strstr(geolin_last_error(), needle) != NULL, "%s: message names '%s'", label, needle);
  CHECK(all_equal(out, count, SENTINEL), "%s: output untouched", label);
}

static void check_misuse(const geolin_model *m) {
  static double nu_dot[MAXN], f[MAXN], dz[MAXN * 2 * MAXN], M[MAXN * MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m);
  geolin_workspace *ws = NULL, *small = NULL;
  State x;
  int i, st;
  random_state(&x, nj, 0.3);
  for (i = 0; i < n; ++i) nu_dot[i] = urand();
  if (geolin_workspace_new(m, &ws) != GEOLIN_OK ||
      geolin_workspace_new_ex(m, GEOLIN_WORKSPACE_DYNAMICS, 0, &small) != GEOLIN_OK) {
    CHECK(0, "misuse: workspaces");
    return;
  }
  fill(f, n, SENTINEL);
  fill(dz, n * N, SENTINEL);
  fill(M, n * n, SENTINEL);
  st = geolin_inverse_dynamics_linearize(NULL, x.H, x.s, x.v, x.r, nu_dot, f, dz, M);
  expect_error("NULL ws", st, GEOLIN_ERR_INVALID_ARGUMENT, "'ws'", f, n);
  st = geolin_inverse_dynamics_linearize(ws, NULL, x.s, x.v, x.r, nu_dot, f, dz, M);
  expect_error("NULL H", st, GEOLIN_ERR_INVALID_ARGUMENT, "'H'", f, n);
  st = geolin_inverse_dynamics_linearize(ws, x.H, x.s, x.v, x.r, NULL, f, dz, M);
  expect_error("NULL nu_dot", st, GEOLIN_ERR_INVALID_ARGUMENT, "'nu_dot'", dz, n * N);
  nu_dot[n - 1] = NAN;
  st = geolin_inverse_dynamics_linearize(ws, x.H, x.s, x.v, x.r, nu_dot, f, dz, M);
  expect_error("NaN nu_dot", st, GEOLIN_ERR_NONFINITE, "'nu_dot'", M, n * n);
  CHECK(strstr(geolin_last_error(), "index") != NULL, "NaN nu_dot: the message names the index");
  nu_dot[n - 1] = 0.5;
  x.s[0] = INFINITY;
  st = geolin_inverse_dynamics_linearize(ws, x.H, x.s, x.v, x.r, nu_dot, f, dz, M);
  expect_error("Inf s", st, GEOLIN_ERR_NONFINITE, "'s'", dz, n * N);
  x.s[0] = 0.1;
  st = geolin_inverse_dynamics_linearize(ws, x.H, x.s, x.v, x.r, nu_dot, NULL, dz, M);
  expect_error("NULL generalized_force", st, GEOLIN_ERR_INVALID_ARGUMENT, "'generalized_force'", dz,
               n * N);
  st = geolin_inverse_dynamics_linearize(ws, x.H, x.s, x.v, x.r, nu_dot, f, dz, dz + 1);
  expect_error("overlapping outputs", st, GEOLIN_ERR_INVALID_ARGUMENT, "overlap", f, n);
  st = geolin_inverse_dynamics_linearize(small, x.H, x.s, x.v, x.r, nu_dot, f, dz, NULL);
  expect_error("dtau_dz without LINEARIZE", st, GEOLIN_ERR_INVALID_ARGUMENT,
               "GEOLIN_WORKSPACE_LINEARIZE", f, n);
  st = geolin_inverse_dynamics_linearize(small, x.H, x.s, x.v, x.r, nu_dot, f, NULL, M);
  expect_error("M without MASS_MATRIX", st, GEOLIN_ERR_INVALID_ARGUMENT,
               "GEOLIN_WORKSPACE_MASS_MATRIX", f, n);
  /* the O(n) workspace serves the force alone */
  st = geolin_inverse_dynamics_linearize(small, x.H, x.s, x.v, x.r, nu_dot, f, NULL, NULL);
  CHECK(st == GEOLIN_OK && !all_equal(f, n, SENTINEL), "force alone on a DYNAMICS workspace");
  geolin_workspace_free(small);
  geolin_workspace_free(ws);
}

int main(int argc, char **argv) {
  static const char *const files[] = {"quadruped", "humanoid", "arm7"};
  static const unsigned flags[] = {0u, GEOLIN_JOINT_DAMPING, GEOLIN_FIXED_BASE};
  char path[1024];
  size_t i;
  if (argc < 2) {
    fprintf(stderr, "usage: %s <models_dir>\n", argv[0]);
    return 2;
  }
  for (i = 0; i < sizeof files / sizeof files[0]; ++i) {
    geolin_model *m = NULL;
    snprintf(path, sizeof path, "%s/%s.urdf", argv[1], files[i]);
    if (geolin_model_load_urdf(path, flags[i], &m) != GEOLIN_OK) {
      CHECK(0, "load %s", path);
      continue;
    }
    check_identities(files[i], m);
    if (i == 0) check_misuse(m);
    geolin_model_free(m);
  }
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
