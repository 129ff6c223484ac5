/* The C API's numeric contract (C99): a state where the mass matrix is singular to working
 * precision, an overflow, overlapping outputs, a finite-difference step outside its range and a
 * huge gravity each return a status and leave every output untouched; never GEOLIN_OK with a
 * meaningless or non-finite result. Also the workspace features of geolin_workspace_new_ex.
 *
 * The singular state comes from a "gimbal": three revolute joints z, y, x meeting at one point
 * through two massless links; at s_1 = pi/2 the x axis lies along -z, so joints 0 and 2 turn the
 * only massive body about the same line and M is singular (M has rank n - 1 there, and is
 * regular at every other angle).
 *
 * usage: test_capi_numeric
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define SENTINEL (-7.25)
#define untouched(x, count) all_equal((x), (count), SENTINEL)
#define PI 3.14159265358979323846

static const char *const kGimbal =
    "<robot name='gimbal'>"
    " <link name='base'><inertial><mass value='2'/>"
    "  <inertia ixx='0.1' iyy='0.1' izz='0.1' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    " <link name='ring_outer'/>"
    " <link name='ring_inner'/>"
    " <link name='rotor'><inertial><origin xyz='0 0 0'/><mass value='1'/>"
    "  <inertia ixx='0.1' iyy='0.2' izz='0.3' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    " <link name='tip'/>"
    " <joint name='yaw' type='continuous'><parent link='base'/><child link='ring_outer'/>"
    "  <axis xyz='0 0 1'/></joint>"
    " <joint name='pitch' type='continuous'><parent link='ring_outer'/><child link='ring_inner'/>"
    "  <axis xyz='0 1 0'/></joint>"
    " <joint name='roll' type='continuous'><parent link='ring_inner'/><child link='rotor'/>"
    "  <axis xyz='1 0 0'/></joint>"
    " <joint name='tip_fixed' type='fixed'><parent link='rotor'/><child link='tip'/>"
    "  <origin xyz='0.3 0 0'/></joint>"
    "</robot>";

enum { NJ = 3, NMAX = 9, NBIG = 2 * NMAX };

static int all_finite(const double *x, int count) {
  int i;
  for (i = 0; i < count; ++i)
    if (!(x[i] - x[i] == 0.0)) return 0;
  return 1;
}

static const double kH[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.1, -0.2, 1.0, 1};
static const double kV[6] = {0.1, -0.2, 0.3, 0.2, -0.1, 0.4};
static const double kR[NJ] = {0.3, -0.2, 0.5};
static const double kTau[NJ] = {0.1, 0.2, -0.3};

/* Every function that factorizes M refuses the singular state, names the joint, and writes
 * nothing; a little away from it the same calls succeed with finite results. */
static void test_singular_state(geolin_model *m, const char *label) {
  const int n = geolin_model_num_dofs(m), N = geolin_model_state_dim(m);
  const int fixed = geolin_model_is_fixed_base(m);
  geolin_workspace *ws = NULL;
  double s_sing[NJ] = {0.4, PI / 2, -0.7}, s_reg[NJ] = {0.4, PI / 2 - 0.3, -0.7};
  double nu_dot[NMAX], Minv[NMAX * NMAX], M[NMAX * NMAX], A[NBIG * NBIG], B[NBIG * NJ];
  double Hn[16], sn[NJ], vn[6], rn[NJ];
  int pass, st, i, j, k;
  CHECK(geolin_workspace_new(m, &ws) == GEOLIN_OK, "%s: workspace", label);
  if (ws == NULL) return;
  for (pass = 0; pass < 2; ++pass) {
    const double *s = pass == 0 ? s_sing : s_reg;
    const int expect = pass == 0 ? GEOLIN_ERR_NUMERIC : GEOLIN_OK;
    const char *state = pass == 0 ? "singular" : "regular";
#define EXPECT(call, name, out, count)                                                             \
  do {                                                                                             \
    fill(out, count, SENTINEL);                                                                    \
    st = (call);                                                                                   \
    CHECK(st == expect, "%s: %s at the %s state -> %d", label, name, state, st);                   \
    if (expect == GEOLIN_ERR_NUMERIC) {                                                            \
      CHECK(untouched(out, count), "%s: %s wrote on failure", label, name);                        \
      CHECK(                                                                                       \
          strstr(geolin_last_error(), "'yaw'") != NULL && strstr(geolin_last_error(), "singular"), \
          "%s: %s names the joint", label, name);                                                  \
    } else {                                                                                       \
      CHECK(all_finite(out, count), "%s: %s finite", label, name);                                 \
    }                                                                                              \
  } while (0)
    EXPECT(geolin_forward_dynamics(ws, kH, s, kV, kR, kTau, nu_dot), "forward_dynamics", nu_dot, n);
    EXPECT(geolin_mass_matrix_inverse(ws, s, Minv), "mass_matrix_inverse", Minv, n * n);
    fill(B, N * NJ, SENTINEL);
    EXPECT(geolin_linearize(ws, kH, s, kV, kR, kTau, A, B), "linearize", A, N * N);
    CHECK(expect != GEOLIN_ERR_NUMERIC || untouched(B, N * NJ), "%s: linearize B untouched", label);
    EXPECT(geolin_linearize_finite_difference(ws, kH, s, kV, kR, kTau, 1e-6, A, B),
           "linearize_finite_difference", A, N * N);
    EXPECT(geolin_step_linearize(ws, GEOLIN_STEP_RK4, 1e-3, kH, s, kV, kR, kTau, A, B),
           "step_linearize", A, N * N);
    fill(sn, NJ, SENTINEL);
    fill(Hn, 16, SENTINEL);
    EXPECT(geolin_step(ws, GEOLIN_STEP_RK4, 1e-3, kH, s, kV, kR, kTau, Hn, sn, vn, rn), "step", rn,
           NJ);
    CHECK(expect != GEOLIN_ERR_NUMERIC || (untouched(sn, NJ) && (fixed || untouched(Hn, 16))),
          "%s: step wrote on failure", label);
#undef EXPECT
    if (pass == 1) { /* the inverse is right where the state is regular */
      double worst = 0.0;
      CHECK(geolin_mass_matrix(ws, s, M) == GEOLIN_OK, "%s: mass matrix", label);
      CHECK(geolin_mass_matrix_inverse(ws, s, Minv) == GEOLIN_OK, "%s: inverse", label);
      for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) {
          double e = i == j ? -1.0 : 0.0;
          for (k = 0; k < n; ++k) e += M[i + n * k] * Minv[k + n * j];
          worst = fabs(e) > worst ? fabs(e) : worst;
        }
      CHECK(worst < 1e-9, "%s: |M Minv - 1| = %g at the regular state", label, worst);
    }
  }
  /* Inverse dynamics and the mass matrix need no factorization: they stay available. */
  for (i = 0; i < n; ++i) Minv[i] = 0.1 * i; /* any acceleration, n entries */
  CHECK(geolin_inverse_dynamics(ws, kH, s_sing, kV, kR, Minv, nu_dot) == GEOLIN_OK,
        "%s: inverse dynamics at the singular state", label);
  CHECK(geolin_mass_matrix(ws, s_sing, M) == GEOLIN_OK, "%s: M at the singular state", label);
  geolin_workspace_free(ws);
}

/* Joint rates of 1e200 square to Inf: an overflow, said as such. */
static void test_overflow(geolin_model *m) {
  const int n = geolin_model_num_dofs(m);
  geolin_workspace *ws = NULL;
  double s[NJ] = {0.1, 0.2, 0.3}, r[NJ] = {1e200, -1e200, 1e200}, nu_dot[NMAX];
  int st;
  if (geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  fill(nu_dot, n, SENTINEL);
  st = geolin_forward_dynamics(ws, kH, s, kV, r, kTau, nu_dot);
  CHECK(st == GEOLIN_ERR_NUMERIC, "overflow -> %d", st);
  CHECK(strstr(geolin_last_error(), "overflow") != NULL, "the message says overflow");
  CHECK(strstr(geolin_last_error(), "singular") == NULL, "and not 'singular'");
  CHECK(untouched(nu_dot, n), "nothing written");
  geolin_workspace_free(ws);
}

/* Outputs of one call that overlap are refused before anything is written. */
static void test_overlapping_outputs(geolin_model *m) {
  const int N = geolin_model_state_dim(m);
  geolin_workspace *ws = NULL;
  static double buf[NBIG * NBIG + NBIG * NJ];
  double s[NJ] = {0.1, 0.2, 0.3}, Hn[16], vn[6];
  int st;
  if (geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  fill(buf, N * N + N * NJ, SENTINEL);
  st = geolin_linearize(ws, kH, s, kV, kR, kTau, buf, buf);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "linearize(A == B) -> %d", st);
  CHECK(strstr(geolin_last_error(), "overlap") != NULL, "message says overlap");
  CHECK(untouched(buf, N * N + N * NJ), "nothing written");
  st = geolin_linearize(ws, kH, s, kV, kR, kTau, buf, buf + N * N - 1);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "linearize(B one entry into A) -> %d", st);
  st = geolin_linearize(ws, kH, s, kV, kR, kTau, buf, buf + N * N);
  CHECK(st == GEOLIN_OK, "linearize(B right after A) -> %d", st);
  st = geolin_linearize_finite_difference(ws, kH, s, kV, kR, kTau, 1e-6, buf + 1, buf);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "fd(overlap) -> %d", st);
  st = geolin_step_linearize(ws, GEOLIN_STEP_RK4, 1e-3, kH, s, kV, kR, kTau, buf, buf + 5);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "step_linearize(overlap) -> %d", st);
  fill(buf, 16, SENTINEL);
  st = geolin_step(ws, GEOLIN_STEP_RK4, 1e-3, kH, s, kV, kR, kTau, Hn, buf, vn, buf + 1);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "step(s_next overlaps r_next) -> %d", st);
  CHECK(untouched(buf, 16), "step wrote nothing");
  /* in place (outputs aliasing inputs) stays allowed */
  {
    double H[16], sv[NJ], v[6], r[NJ];
    memcpy(H, kH, sizeof H);
    memcpy(sv, s, sizeof sv);
    memcpy(v, kV, sizeof v);
    memcpy(r, kR, sizeof r);
    st = geolin_step(ws, GEOLIN_STEP_RK4, 1e-3, H, sv, v, r, kTau, H, sv, v, r);
    CHECK(st == GEOLIN_OK, "step in place -> %d", st);
  }
  geolin_workspace_free(ws);
}

/* eps outside [1e-10, 1e-2] is refused; inside it, the differences agree with linearize. */
static void test_eps_range(geolin_model *m) {
  const int N = geolin_model_state_dim(m);
  geolin_workspace *ws = NULL;
  static double A[NBIG * NBIG], B[NBIG * NJ], Afd[NBIG * NBIG], Bfd[NBIG * NJ];
  double s[NJ] = {0.1, 0.2, 0.3}, worst = 0.0, scale = 1.0;
  const double bad[] = {1e-300, 5e-11, 0.02, 1.0, -1e-6, 0.0};
  size_t k;
  int i, st;
  if (geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    fill(Afd, N * N, SENTINEL);
    st = geolin_linearize_finite_difference(ws, kH, s, kV, kR, kTau, bad[k], Afd, Bfd);
    CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "eps = %g -> %d", bad[k], st);
    CHECK(untouched(Afd, N * N), "eps = %g: nothing written", bad[k]);
  }
  st = geolin_linearize_finite_difference(ws, kH, s, kV, kR, kTau, 1e-5, Afd, Bfd);
  CHECK(st == GEOLIN_OK, "eps = 1e-5 -> %d", st);
  CHECK(geolin_linearize(ws, kH, s, kV, kR, kTau, A, B) == GEOLIN_OK, "linearize");
  for (i = 0; i < N * N; ++i) {
    scale = fabs(A[i]) > scale ? fabs(A[i]) : scale;
    worst = fabs(A[i] - Afd[i]) > worst ? fabs(A[i] - Afd[i]) : worst;
  }
  CHECK(worst / scale < 1e-6, "finite differences agree: %g", worst / scale);
  geolin_workspace_free(ws);
}

/* A huge but finite gravity: every linearization is either finite or refused untouched. */
static void test_huge_gravity(geolin_model *m) {
  const int N = geolin_model_state_dim(m), nf = geolin_model_num_frames(m);
  geolin_workspace *ws = NULL;
  static double A[NBIG * NBIG], B[NBIG * (NJ + 6)];
  const double g[3] = {1e307, -1.7e308, 1.7e308}, w[6] = {1, 2, 3, 4, 5, 6};
  double s[NJ] = {0.1, 0.2, 0.3};
  int frame = nf - 1, flags, st;
  if (geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  CHECK(geolin_workspace_set_gravity(ws, g) == GEOLIN_OK, "set gravity");
  for (flags = 0; flags < 2; ++flags) {
    fill(A, N * N, SENTINEL);
    fill(B, N * (NJ + 6), SENTINEL);
    st = geolin_linearize_ext(ws, kH, s, kV, kR, kTau, 1, &frame, w, (unsigned)flags, A, B);
    CHECK(st == GEOLIN_OK || st == GEOLIN_ERR_NUMERIC, "linearize_ext(%d) -> %d", flags, st);
    if (st == GEOLIN_OK)
      CHECK(all_finite(A, N * N) && all_finite(B, N * (NJ + 6)), "OK means finite (%d)", flags);
    else
      CHECK(untouched(A, N * N) && untouched(B, N * (NJ + 6)), "refused untouched (%d)", flags);
  }
  geolin_workspace_free(ws);
}

/* geolin_workspace_new_ex: a function outside the features is refused and names the feature;
 * inside them the results equal those of a full workspace bit for bit. */
static void test_workspace_features(geolin_model *m) {
  const int n = geolin_model_num_dofs(m), N = geolin_model_state_dim(m);
  const int nf = geolin_model_num_frames(m);
  geolin_workspace *full = NULL, *dyn = NULL, *lin = NULL, *bad = NULL;
  static double A1[NBIG * NBIG], B1[NBIG * (NJ + 12)], A2[NBIG * NBIG], B2[NBIG * (NJ + 12)];
  double s[NJ] = {0.1, 0.2, 0.3}, nu1[NMAX], nu2[NMAX], M[NMAX * NMAX];
  const double w[12] = {1, 2, 3, 4, 5, 6, -1, -2, 3, 0, 1, 0};
  int frames[2] = {0, nf - 1}, st;
  size_t b_dyn, b_lin, b_all;
  CHECK(geolin_workspace_new(m, &full) == GEOLIN_OK, "full");
  CHECK(geolin_workspace_new_ex(m, GEOLIN_WORKSPACE_DYNAMICS, 0, &dyn) == GEOLIN_OK, "dyn");
  CHECK(geolin_workspace_new_ex(m, GEOLIN_WORKSPACE_LINEARIZE, 1, &lin) == GEOLIN_OK, "lin");
  st = geolin_workspace_new_ex(m, 0x100u, 0, &bad);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && bad == NULL, "unknown feature bit -> %d", st);
  st = geolin_workspace_new_ex(m, 0u, -1, &bad);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && bad == NULL, "max_wrenches -1 -> %d", st);
  if (full == NULL || dyn == NULL || lin == NULL) return;

  CHECK(geolin_forward_dynamics(full, kH, s, kV, kR, kTau, nu1) == GEOLIN_OK, "fd full");
  CHECK(geolin_forward_dynamics(dyn, kH, s, kV, kR, kTau, nu2) == GEOLIN_OK, "fd dyn");
  CHECK(memcmp(nu1, nu2, sizeof(double) * (size_t)n) == 0, "same forward dynamics");
  fill(M, n * n, SENTINEL);
  st = geolin_mass_matrix(dyn, s, M);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "mass matrix without the feature -> %d", st);
  CHECK(strstr(geolin_last_error(), "GEOLIN_WORKSPACE_MASS_MATRIX") != NULL, "names it");
  CHECK(untouched(M, n * n), "nothing written");
  st = geolin_linearize(dyn, kH, s, kV, kR, kTau, A2, B2);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "linearize without the feature -> %d", st);
  st = geolin_step_linearize(lin, GEOLIN_STEP_RK4, 1e-3, kH, s, kV, kR, kTau, A2, B2);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "step_linearize without the feature -> %d", st);

  CHECK(geolin_linearize_ext(full, kH, s, kV, kR, kTau, 1, frames, w, GEOLIN_WRENCH_MIXED, A1,
                             B1) == GEOLIN_OK,
        "linearize_ext full");
  CHECK(geolin_linearize_ext(lin, kH, s, kV, kR, kTau, 1, frames, w, GEOLIN_WRENCH_MIXED, A2, B2) ==
            GEOLIN_OK,
        "linearize_ext lin");
  CHECK(memcmp(A1, A2, sizeof(double) * (size_t)(N * N)) == 0 &&
            memcmp(B1, B2, sizeof(double) * (size_t)(N * (NJ + 6))) == 0,
        "same linearization");
  st = geolin_linearize_ext(lin, kH, s, kV, kR, kTau, 2, frames, w, GEOLIN_WRENCH_MIXED, A2, B2);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "two wrenches in a workspace for one -> %d", st);
  CHECK(strstr(geolin_last_error(), "max_wrenches") != NULL, "says max_wrenches");

  b_dyn = geolin_workspace_bytes(m, GEOLIN_WORKSPACE_DYNAMICS, 0);
  b_lin = geolin_workspace_bytes(m, GEOLIN_WORKSPACE_LINEARIZE, 1);
  b_all = geolin_workspace_bytes(m, GEOLIN_WORKSPACE_ALL, nf);
  CHECK(b_dyn > 0 && b_dyn < b_lin && b_lin < b_all, "bytes %zu < %zu < %zu", b_dyn, b_lin, b_all);
  CHECK(geolin_workspace_bytes(NULL, 0u, 0) == 0, "bytes of NULL model");
  CHECK(geolin_workspace_bytes(m, 0x100u, 0) == 0, "bytes with an unknown feature");
  geolin_workspace_free(full);
  geolin_workspace_free(dyn);
  geolin_workspace_free(lin);
}

int main(void) {
  geolin_model *m = NULL;
  int fixed;
  for (fixed = 0; fixed < 2; ++fixed) {
    int st = geolin_model_load_urdf_string(kGimbal, fixed ? GEOLIN_FIXED_BASE : 0u, &m);
    CHECK(st == GEOLIN_OK, "load the gimbal (fixed %d) -> %d", fixed, st);
    if (st != GEOLIN_OK) continue;
    test_singular_state(m, fixed ? "gimbal (fixed base)" : "gimbal (moving base)");
    if (!fixed) {
      test_overflow(m);
      test_overlapping_outputs(m);
      test_eps_range(m);
      test_huge_gravity(m);
      test_workspace_features(m);
    }
    geolin_model_free(m);
    m = NULL;
  }
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
