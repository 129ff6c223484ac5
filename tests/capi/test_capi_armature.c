/* geolin_model_with_armature and geolin_model_armature through the C boundary (C99): on every
 * bundled model (moving and fixed base) the copy's mass matrix is the original's plus
 * diag(0_6, armature), its inverse dynamics the original's plus armature .* r_dot, its forward
 * dynamics inverts its inverse dynamics, and a workspace of the original still computes the
 * original's dynamics; the copy outlives the original; misuse (NULL, negative, NaN, infinite
 * entries) is refused with *out = NULL and a message naming armature[j] and the joint; the
 * armature read from an SRDF's <rotor_params> is I_rotor N^2.
 *
 * usage: test_capi_armature <models_dir>
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define MAXN 64

static unsigned long g_rng = 3838u;
static double urand(void) { /* in [-1, 1] */
  g_rng = g_rng * 6364136223846793005ul + 1442695040888963407ul;
  return ((double)((g_rng >> 11) & 0xFFFFFFFFFFFFFul) / (double)0xFFFFFFFFFFFFFul) * 2.0 - 1.0;
}

static double max_abs(const double *x, int count) {
  double m = 0.0;
  int i;
  for (i = 0; i < count; ++i) m = fabs(x[i]) > m || x[i] != x[i] ? fabs(x[i]) : m;
  return m;
}

/* A Go2-like gearing: 0.01 (1 + j mod 3) kg m^2, zero on every fourth joint. */
static void geared(int nj, double *a) {
  int j;
  for (j = 0; j < nj; ++j) a[j] = j % 4 == 3 ? 0.0 : 0.01 * (1 + j % 3);
}

/* M(copy) - M(original) = diag(0_6, a): off-diagonal entries the same numbers, the diagonal
 * (M_jj + a_j) rounded. */
static void check_mass_matrix(const char *label, geolin_workspace *w0, geolin_workspace *w1,
                              const double *s, const double *a, int n, int nj) {
  static double M0[MAXN * MAXN], M1[MAXN * MAXN];
  const int o = n - nj;
  int i, k, off = 0, diag = 0;
  CHECK(geolin_mass_matrix(w0, s, M0) == GEOLIN_OK && geolin_mass_matrix(w1, s, M1) == GEOLIN_OK,
        "%s: mass matrices", label);
  for (k = 0; k < n; ++k)
    for (i = 0; i < n; ++i) {
      const double d = M1[i + n * k] - M0[i + n * k];
      if (i != k || i < o)
        off += d != 0.0;
      else
        diag += fabs(d - a[i - o]) > 1e-15 * (M1[i + n * k]);
    }
  CHECK(off == 0 && diag == 0, "%s: M difference is diag(0_6, armature) (%d off, %d diagonal)",
        label, off, diag);
}

/* ID(copy) = ID(original) + [0_6; a .* r_dot]; FD(copy, tau = ID(copy)'s joint part) inverts it
 * when the base wrench of ID vanishes, checked here through tau = random, nu_dot = FD(tau),
 * ID(nu_dot) = [0_6; tau]. */
static void check_dynamics(const char *label, geolin_workspace *w0, geolin_workspace *w1,
                           const double *a, int n, int nj, int fixed) {
  double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.3, -0.2, 1.0, 1};
  double s[MAXN], r[MAXN], tau[MAXN], v[6], nu_dot[MAXN], f0[MAXN], f1[MAXN];
  const double *Hp = fixed ? NULL : H, *vp = fixed ? NULL : v;
  const int o = n - nj;
  double err = 0.0;
  int i;
  for (i = 0; i < 6; ++i) v[i] = urand();
  for (i = 0; i < nj; ++i) s[i] = 2.0 * urand(), r[i] = urand(), tau[i] = urand();
  for (i = 0; i < n; ++i) nu_dot[i] = urand();
  check_mass_matrix(label, w0, w1, s, a, n, nj);
  CHECK(geolin_inverse_dynamics(w0, Hp, s, vp, r, nu_dot, f0) == GEOLIN_OK &&
            geolin_inverse_dynamics(w1, Hp, s, vp, r, nu_dot, f1) == GEOLIN_OK,
        "%s: inverse dynamics", label);
  for (i = 0; i < n; ++i) {
    const double expected = f0[i] + (i < o ? 0.0 : a[i - o] * nu_dot[i]);
    err = fabs(f1[i] - expected) > err ? fabs(f1[i] - expected) : err;
  }
  CHECK(err <= 1e-14 * (1.0 + max_abs(f1, n)), "%s: ID(copy) = ID + a .* r_dot (error %.2e)", label,
        err);
  CHECK(geolin_forward_dynamics(w1, Hp, s, vp, r, tau, nu_dot) == GEOLIN_OK &&
            geolin_inverse_dynamics(w1, Hp, s, vp, r, nu_dot, f1) == GEOLIN_OK,
        "%s: FD then ID of the copy", label);
  err = 0.0;
  for (i = 0; i < n; ++i) {
    const double d = fabs(f1[i] - (i < o ? 0.0 : tau[i - o]));
    err = d > err ? d : err;
  }
  CHECK(err <= 1e-10, "%s: ID(FD(tau)) = [0; tau] with the armature (error %.2e)", label, err);
}

static void check_model(const char *label, geolin_model *m) {
  double a[MAXN], got[MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m);
  const int fixed = geolin_model_is_fixed_base(m);
  geolin_model *copy = NULL;
  geolin_workspace *w0 = NULL, *w1 = NULL;
  if (n > MAXN) return;
  geared(nj, a);
  CHECK(geolin_model_with_armature(m, a, &copy) == GEOLIN_OK && copy != NULL, "%s: copy", label);
  if (copy == NULL) return;
  CHECK(geolin_model_armature(m, got) == GEOLIN_OK && (nj == 0 || max_abs(got, nj) == 0.0),
        "%s: a URDF model's armature is zero", label);
  CHECK(geolin_model_armature(copy, got) == GEOLIN_OK &&
            (nj == 0 || memcmp(got, a, sizeof(double) * (size_t)nj) == 0),
        "%s: the copy reports its armature", label);
  if (geolin_workspace_new(m, &w0) == GEOLIN_OK && geolin_workspace_new(copy, &w1) == GEOLIN_OK)
    check_dynamics(label, w0, w1, a, n, nj, fixed);
  else
    CHECK(0, "%s: workspaces", label);
  geolin_workspace_free(w0);
  geolin_workspace_free(w1);
  geolin_model_free(copy);
}

/* Misuse on the quadruped: each failure leaves *out NULL, names what is wrong, and the original
 * and its workspace are unchanged. */
static void check_misuse(geolin_model *m) {
  double a[MAXN], got[MAXN], s[MAXN], M_before[MAXN * MAXN], M_after[MAXN * MAXN];
  const double bad[4] = {-0.01, NAN, INFINITY, -INFINITY};
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m);
  const char *joint = geolin_model_joint_name(m, 5);
  geolin_model *out = NULL, *copy = NULL;
  geolin_workspace *ws = NULL;
  int i, st;
  for (i = 0; i < nj; ++i) s[i] = 0.1 * i;
  CHECK(geolin_workspace_new(m, &ws) == GEOLIN_OK, "workspace");
  CHECK(geolin_mass_matrix(ws, s, M_before) == GEOLIN_OK, "mass matrix");
  geared(nj, a);
  for (i = 0; i < 4; ++i) {
    char name[32];
    geared(nj, a);
    a[5] = bad[i];
    out = m; /* a sentinel: must become NULL */
    st = geolin_model_with_armature(m, a, &out);
    CHECK(st == (i == 0 ? GEOLIN_ERR_INVALID_ARGUMENT : GEOLIN_ERR_NONFINITE), "bad %g -> %d",
          bad[i], st);
    CHECK(out == NULL, "*out is NULL on failure");
    snprintf(name, sizeof name, "armature[5]");
    CHECK(strstr(geolin_last_error(), name) != NULL, "message names armature[5]");
    CHECK(strstr(geolin_last_error(), joint) != NULL, "message names joint '%s'", joint);
    CHECK(strstr(geolin_last_error(), "geolin_model_with_armature") != NULL,
          "message names the function");
  }
  geared(nj, a);
  out = m;
  st = geolin_model_with_armature(NULL, a, &out);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && out == NULL &&
            strstr(geolin_last_error(), "'model'") != NULL,
        "NULL model");
  out = m;
  st = geolin_model_with_armature(m, NULL, &out);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && out == NULL &&
            strstr(geolin_last_error(), "'armature'") != NULL,
        "NULL armature");
  st = geolin_model_with_armature(m, a, NULL);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'out'") != NULL,
        "NULL out");
  CHECK(geolin_model_armature(NULL, got) == GEOLIN_ERR_INVALID_ARGUMENT, "armature of NULL");
  CHECK(geolin_model_armature(m, NULL) == GEOLIN_ERR_INVALID_ARGUMENT &&
            strstr(geolin_last_error(), "'armature'") != NULL,
        "armature into NULL");
  /* A copy, then the original's workspace still computes the original's M (a workspace belongs
   * to the model it was made from); a copy of the copy replaces the armature. */
  CHECK(geolin_model_with_armature(m, a, &copy) == GEOLIN_OK, "copy");
  CHECK(geolin_mass_matrix(ws, s, M_after) == GEOLIN_OK &&
            memcmp(M_before, M_after, sizeof(double) * (size_t)(n * n)) == 0,
        "the original's workspace computes the original's mass matrix");
  CHECK(geolin_model_armature(m, got) == GEOLIN_OK && max_abs(got, nj) == 0.0,
        "the original keeps its (zero) armature");
  for (i = 0; i < nj; ++i) a[i] = 0.5;
  out = NULL;
  CHECK(geolin_model_with_armature(copy, a, &out) == GEOLIN_OK, "copy of the copy");
  CHECK(geolin_model_armature(out, got) == GEOLIN_OK && got[0] == 0.5 && got[3] == 0.5,
        "the vector replaces the armature the model had");
  geolin_model_free(out);
  geolin_workspace_free(ws);
  geolin_model_free(copy);
}

/* Writes text to path; returns whether it worked. */
static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f == NULL) return 0;
  fputs(text, f);
  return fclose(f) == 0;
}

/* geolin_model_with_srdf_rotor_params on the quadruped: Pinocchio's <rotor_params> give
 * armature = I_rotor N^2 on the joints named (the others keep theirs); a joint the model lacks, a
 * negative value, bad XML, a missing file and NULL arguments are refused with *out = NULL. */
static void check_srdf(geolin_model *m) {
  const char *path = "test_capi_armature.srdf";
  double a[MAXN], got[MAXN];
  const int nj = geolin_model_num_joints(m), knee = geolin_model_joint_index(m, "FL_KFE"),
            hip = geolin_model_joint_index(m, "HR_HFE");
  geolin_model *geared = NULL, *out = NULL;
  int i, st;
  for (i = 0; i < nj; ++i) a[i] = 0.125;
  CHECK(geolin_model_with_armature(m, a, &geared) == GEOLIN_OK, "geared copy");
  CHECK(write_file(path,
                   "<?xml version=\"1.0\"?>\n<robot name=\"quadruped\">\n"
                   "  <group name=\"legs\"/>\n  <rotor_params>\n"
                   "    <joint name=\"FL_KFE\" mass=\"0.000111842\" gear_ratio=\"10.0\"/>\n"
                   "    <joint name=\"HR_HFE\" mass=\"2e-5\" gear_ratio=\"6\"/>\n"
                   "  </rotor_params>\n</robot>\n"),
        "write %s", path);
  st = geolin_model_with_srdf_rotor_params(geared, path, &out);
  CHECK(st == GEOLIN_OK && geolin_model_armature(out, got) == GEOLIN_OK, "SRDF -> %d", st);
  for (i = 0; i < nj && st == GEOLIN_OK; ++i) {
    const double expected = i == knee ? 0.000111842 * 100.0 : i == hip ? 2e-5 * 36.0 : 0.125;
    CHECK(fabs(got[i] - expected) <= 1e-15 * expected, "armature[%d] = %g, expected %g", i, got[i],
          expected);
  }
  geolin_model_free(out);
  CHECK(write_file(path,
                   "<robot name=\"q\"><rotor_params><joint name=\"knee\" mass=\"1\" "
                   "gear_ratio=\"2\"/></rotor_params></robot>"),
        "write");
  out = m;
  st = geolin_model_with_srdf_rotor_params(m, path, &out);
  CHECK(st == GEOLIN_ERR_MODEL && out == NULL && strstr(geolin_last_error(), "'knee'") != NULL &&
            strstr(geolin_last_error(), path) != NULL,
        "unknown joint -> %d", st);
  CHECK(write_file(path,
                   "<robot name=\"q\"><rotor_params><joint name=\"FL_KFE\" mass=\"-1\" "
                   "gear_ratio=\"2\"/></rotor_params></robot>"),
        "write");
  out = m;
  st = geolin_model_with_srdf_rotor_params(m, path, &out);
  CHECK(st == GEOLIN_ERR_MODEL && out == NULL && strstr(geolin_last_error(), "FL_KFE") != NULL,
        "negative rotor inertia -> %d", st);
  CHECK(write_file(path, "<robot name=\"q\"><rotor_params>"), "write");
  out = m;
  st = geolin_model_with_srdf_rotor_params(m, path, &out);
  CHECK(st == GEOLIN_ERR_PARSE && out == NULL, "unclosed XML -> %d", st);
  out = m;
  st = geolin_model_with_srdf_rotor_params(m, "no/such/file.srdf", &out);
  CHECK(st == GEOLIN_ERR_IO && out == NULL, "missing file -> %d", st);
  st = geolin_model_with_srdf_rotor_params(m, NULL, &out);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && out == NULL, "NULL path -> %d", st);
  st = geolin_model_with_srdf_rotor_params(NULL, path, &out);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && out == NULL, "NULL model -> %d", st);
  remove(path);
  geolin_model_free(geared);
}

/* The copy stays valid after the original is freed. */
static void check_outlives(const char *path) {
  double a[MAXN], s[MAXN], M[MAXN * MAXN];
  geolin_model *m = NULL, *copy = NULL;
  geolin_workspace *ws = NULL;
  int nj, n, i;
  if (geolin_model_load_urdf(path, 0, &m) != GEOLIN_OK) {
    CHECK(0, "load %s", path);
    return;
  }
  nj = geolin_model_num_joints(m);
  n = geolin_model_num_dofs(m);
  geared(nj, a);
  CHECK(geolin_model_with_armature(m, a, &copy) == GEOLIN_OK, "copy");
  geolin_model_free(m);
  for (i = 0; i < nj; ++i) s[i] = 0.0;
  CHECK(geolin_workspace_new(copy, &ws) == GEOLIN_OK && geolin_mass_matrix(ws, s, M) == GEOLIN_OK &&
            geolin_model_joint_name(copy, 0) != NULL,
        "the copy works after its original is freed");
  (void)n;
  geolin_workspace_free(ws);
  geolin_model_free(copy);
}

int main(int argc, char **argv) {
  const char *files[] = {"single_link_arm", "cart_pendulum", "satellite_panel", "free_body", "arm7",
                         "quadruped",       "humanoid"};
  char path[1024], label[128];
  int i, fixed;
  if (argc < 2) {
    fprintf(stderr, "usage: %s <models_dir>\n", argv[0]);
    return 2;
  }
  for (i = 0; i < (int)(sizeof files / sizeof files[0]); ++i) {
    snprintf(path, sizeof path, "%s/%s.urdf", argv[1], files[i]);
    for (fixed = 0; fixed < 2; ++fixed) {
      geolin_model *m = NULL;
      if (fixed && strcmp(files[i], "free_body") == 0) continue; /* no degree of freedom */
      snprintf(label, sizeof label, "%s%s", files[i], fixed ? " (fixed)" : "");
      if (geolin_model_load_urdf(path, fixed ? GEOLIN_FIXED_BASE : 0, &m) != GEOLIN_OK) {
        CHECK(0, "load %s", label);
        continue;
      }
      check_model(label, m);
      if (!fixed && strcmp(files[i], "quadruped") == 0) check_misuse(m), check_srdf(m);
      geolin_model_free(m);
    }
  }
  snprintf(path, sizeof path, "%s/arm7.urdf", argv[1]);
  check_outlives(path);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
