/* The C API test (C99): every function of geolin.h, the dynamics identities through the C
 * boundary, and the status codes of misuse (NULL pointers, out-of-range indices, NaN/Inf in
 * every input, non-rigid H) with outputs left untouched.
 *
 * usage: test_capi <tree.urdf> [models_dir]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geolin.h"

static int g_passed = 0;
static int g_failed = 0;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (cond) {                                                       \
      ++g_passed;                                                     \
    } else {                                                          \
      ++g_failed;                                                     \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, " [last error: %s]\n", geolin_last_error());    \
    }                                                                 \
  } while (0)

#define MAXN 128
#define SENTINEL 12345.678

/* ---------------------------------------------------------------------------------------------
 * helpers
 * ------------------------------------------------------------------------------------------- */

static unsigned long g_rng = 12345u;
static double urand(void) { /* in [-1, 1] */
  g_rng = g_rng * 6364136223846793005ul + 1442695040888963407ul;
  return ((double)((g_rng >> 11) & 0xFFFFFFFFFFFFFul) / (double)0xFFFFFFFFFFFFFul) * 2.0 - 1.0;
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  long size;
  char *text;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  text = (char *)malloc((size_t)size + 1);
  if (text != NULL) {
    size_t got = fread(text, 1, (size_t)size, f);
    text[got] = '\0';
  }
  fclose(f);
  return text;
}

static int file_exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  fclose(f);
  return 1;
}

/* A rotation from a rotation vector w (Rodrigues), into a column-major 4x4 H with position p. */
static void make_H(const double w[3], const double p[3], double H[16]) {
  double t = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  double a = t > 1e-12 ? sin(t) / t : 1.0, b = t > 1e-12 ? (1.0 - cos(t)) / (t * t) : 0.5;
  double W[9] = {0, w[2], -w[1], -w[2], 0, w[0], w[1], -w[0], 0}; /* column-major hat(w) */
  int i, j, k;
  for (j = 0; j < 3; ++j) {
    for (i = 0; i < 3; ++i) {
      double w2 = 0.0;
      for (k = 0; k < 3; ++k) w2 += W[i + 3 * k] * W[k + 3 * j];
      H[i + 4 * j] = (i == j ? 1.0 : 0.0) + a * W[i + 3 * j] + b * w2;
    }
    H[3 + 4 * j] = 0.0;
  }
  H[12] = p[0];
  H[13] = p[1];
  H[14] = p[2];
  H[15] = 1.0;
}

static double max_abs_diff(const double *x, const double *y, int count) {
  double m = 0.0;
  int i;
  for (i = 0; i < count; ++i) {
    double d = fabs(x[i] - y[i]);
    if (d > m || d != d) m = d != d ? INFINITY : d;
  }
  return m;
}

static double max_abs(const double *x, int count) {
  double m = 0.0;
  int i;
  for (i = 0; i < count; ++i) m = fabs(x[i]) > m ? fabs(x[i]) : m;
  return m;
}

static void fill(double *x, int count, double value) {
  int i;
  for (i = 0; i < count; ++i) x[i] = value;
}

static int all_equal(const double *x, int count, double value) {
  int i;
  for (i = 0; i < count; ++i)
    if (x[i] != value) return 0;
  return 1;
}

/* ---------------------------------------------------------------------------------------------
 * errors and versions
 * ------------------------------------------------------------------------------------------- */

static void test_errors_and_version(void) {
  int major = -1, minor = -1, patch = -1, code;
  const char *names[9];
  geolin_version(&major, &minor, &patch);
  CHECK(major == GEOLIN_VERSION_MAJOR && minor == GEOLIN_VERSION_MINOR &&
            patch == GEOLIN_VERSION_PATCH,
        "version %d.%d.%d", major, minor, patch);
  geolin_version(NULL, NULL, NULL); /* NULL pointers are allowed */
  geolin_version(&major, NULL, NULL);
  CHECK(major == GEOLIN_VERSION_MAJOR, "major only");

  CHECK(geolin_last_error() != NULL, "last_error never NULL");
  for (code = GEOLIN_OK; code <= GEOLIN_ERR_INTERNAL; ++code) {
    int other;
    names[code] = geolin_status_string(code);
    CHECK(names[code] != NULL && strlen(names[code]) > 0, "status_string(%d)", code);
    CHECK(strcmp(names[code], "unknown status") != 0, "status %d is known", code);
    for (other = 0; other < code; ++other)
      CHECK(strcmp(names[code], names[other]) != 0, "status strings %d and %d differ", code, other);
  }
  CHECK(strstr(geolin_status_string(GEOLIN_OK), "GEOLIN_OK") != NULL, "OK name");
  CHECK(strstr(geolin_status_string(GEOLIN_ERR_NONFINITE), "NONFINITE") != NULL, "name");
  CHECK(strcmp(geolin_status_string(-1), "unknown status") == 0, "-1");
  CHECK(strcmp(geolin_status_string(9), "unknown status") == 0, "9");
  CHECK(strcmp(geolin_status_string(1000), "unknown status") == 0, "1000");
}

/* ---------------------------------------------------------------------------------------------
 * loading
 * ------------------------------------------------------------------------------------------- */

static void test_loading(const char *tree_path, const char *tree_xml) {
  geolin_model *m = (geolin_model *)&g_passed; /* a non-NULL garbage value: must become NULL */
  int st;

  st = geolin_model_load_urdf(tree_path, 0, NULL);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "NULL out -> %d", st);
  CHECK(strstr(geolin_last_error(), "out") != NULL, "message names 'out': %s", geolin_last_error());
  st = geolin_model_load_urdf(NULL, 0, &m);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && m == NULL, "NULL path -> %d", st);
  CHECK(strstr(geolin_last_error(), "path") != NULL, "message names 'path'");
  st = geolin_model_load_urdf_string(NULL, 0, &m);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && m == NULL, "NULL xml -> %d", st);
  st = geolin_model_load_urdf_string(tree_xml, 0, NULL);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "NULL out (string) -> %d", st);
  st = geolin_model_load_urdf(tree_path, 4u, &m);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && m == NULL, "unknown flag 4 -> %d", st);
  st = geolin_model_load_urdf_string(tree_xml, 0x80000000u, &m);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && m == NULL, "unknown flag 2^31 -> %d", st);
  st = geolin_model_load_urdf("/nonexistent/geolin/robot.urdf", 0, &m);
  CHECK(st == GEOLIN_ERR_IO && m == NULL, "missing file -> %d", st);
  CHECK(strlen(geolin_last_error()) > 0, "IO message");
  st = geolin_model_load_urdf_string("<robot name='x'><link name='a'>", 0, &m);
  CHECK(st == GEOLIN_ERR_PARSE && m == NULL, "malformed XML -> %d", st);
  st = geolin_model_load_urdf_string("<notarobot/>", 0, &m);
  CHECK(st == GEOLIN_ERR_PARSE && m == NULL, "not URDF -> %d", st);
  st = geolin_model_load_urdf_string("", 0, &m);
  CHECK(st == GEOLIN_ERR_PARSE && m == NULL, "empty string -> %d", st);

  st = geolin_model_load_urdf(tree_path, 0, &m);
  CHECK(st == GEOLIN_OK && m != NULL, "load file -> %d", st);
  geolin_model_free(m);
  m = NULL;
  st = geolin_model_load_urdf(tree_path, GEOLIN_FIXED_BASE | GEOLIN_JOINT_DAMPING, &m);
  CHECK(st == GEOLIN_OK && m != NULL, "load file with all flags -> %d", st);
  geolin_model_free(m);
  geolin_model_free(NULL); /* no-op */
}

/* ---------------------------------------------------------------------------------------------
 * the structure of tests/capi/tree.urdf (moving or fixed base)
 * ------------------------------------------------------------------------------------------- */

static int in_list(const char *name, const char *const *list, int count) {
  int i;
  if (name == NULL) return 0;
  for (i = 0; i < count; ++i)
    if (strcmp(name, list[i]) == 0) return 1;
  return 0;
}

static void test_tree_structure(const geolin_model *m, int fixed) {
  static const char *const bodies[] = {"base", "link1", "link2", "link3"};
  static const char *const joints[] = {"j1", "j2", "j3"};
  int nb, nj, i, k, total_children = 0;
  double mass;

  nj = geolin_model_num_joints(m);
  nb = geolin_model_num_bodies(m);
  CHECK(nj == 3, "num_joints %d", nj);
  CHECK(nb == 4, "num_bodies %d", nb);
  CHECK(geolin_model_num_dofs(m) == (fixed ? 3 : 9), "num_dofs %d", geolin_model_num_dofs(m));
  CHECK(geolin_model_state_dim(m) == (fixed ? 6 : 18), "state_dim");
  CHECK(geolin_model_is_fixed_base(m) == fixed, "is_fixed_base");
  mass = geolin_model_total_mass(m);
  CHECK(fabs(mass - 9.5) < 1e-12, "total mass %g", mass);

  CHECK(geolin_model_parent(m, 0) == -1, "parent of base");
  CHECK(strcmp(geolin_model_body_name(m, 0), "base") == 0, "body 0 is the root link");
  for (i = 0; i < nb; ++i) {
    int nc = geolin_model_num_children(m, i);
    const char *name = geolin_model_body_name(m, i);
    CHECK(in_list(name, bodies, 4), "body name %s", name ? name : "(null)");
    if (i > 0) {
      int p = geolin_model_parent(m, i);
      CHECK(p >= 0 && p < i, "parent(%d) = %d", i, p);
    }
    CHECK(nc >= 0, "num_children(%d)", i);
    total_children += nc;
    for (k = 0; k < nc; ++k) {
      int c = geolin_model_child(m, i, k);
      CHECK(c > i && c < nb && geolin_model_parent(m, c) == i, "child(%d, %d) = %d", i, k, c);
    }
    CHECK(geolin_model_child(m, i, nc) == -1, "child out of range");
  }
  CHECK(total_children == nb - 1, "every body but the base is a child once");
  CHECK(geolin_model_num_children(m, 0) == 2, "base has two children");
  for (k = 0; k < nj; ++k) {
    const char *name = geolin_model_joint_name(m, k);
    CHECK(in_list(name, joints, 3), "joint name %s", name ? name : "(null)");
    CHECK(geolin_model_joint_index(m, name) == k, "joint_index(joint_name(%d))", k);
  }
  /* the joint of body k + 1 connects its parent to it: j2's child link2 has parent link1 */
  k = geolin_model_joint_index(m, "j2");
  CHECK(k >= 0 && strcmp(geolin_model_body_name(m, k + 1), "link2") == 0, "j2 moves link2");
  CHECK(k >= 0 && strcmp(geolin_model_body_name(m, geolin_model_parent(m, k + 1)), "link1") == 0,
        "link2's parent is link1");
  CHECK(geolin_model_joint_index(m, "j_tool") == -1, "fixed joints have no index");
  CHECK(geolin_model_joint_index(m, "nope") == -1, "absent joint");
  CHECK(geolin_model_joint_index(m, "") == -1, "empty name");
}

static void test_getter_misuse(const geolin_model *m) {
  int nb = geolin_model_num_bodies(m), nj = geolin_model_num_joints(m);
  double x;

  CHECK(geolin_model_num_joints(NULL) == -1, "num_joints(NULL)");
  CHECK(strstr(geolin_last_error(), "model") != NULL, "message names 'model'");
  CHECK(geolin_model_num_dofs(NULL) == -1, "num_dofs(NULL)");
  CHECK(geolin_model_state_dim(NULL) == -1, "state_dim(NULL)");
  CHECK(geolin_model_num_bodies(NULL) == -1, "num_bodies(NULL)");
  CHECK(geolin_model_is_fixed_base(NULL) == -1, "is_fixed_base(NULL)");
  CHECK(geolin_model_parent(NULL, 0) == -1, "parent(NULL)");
  CHECK(geolin_model_num_children(NULL, 0) == -1, "num_children(NULL)");
  CHECK(geolin_model_child(NULL, 0, 0) == -1, "child(NULL)");
  CHECK(geolin_model_body_name(NULL, 0) == NULL, "body_name(NULL)");
  CHECK(geolin_model_joint_name(NULL, 0) == NULL, "joint_name(NULL)");
  CHECK(geolin_model_joint_index(NULL, "j1") == -1, "joint_index(NULL, .)");
  CHECK(geolin_model_joint_index(m, NULL) == -1, "joint_index(., NULL)");
  CHECK(strstr(geolin_last_error(), "name") != NULL, "message names 'name'");
  x = geolin_model_total_mass(NULL);
  CHECK(x != x, "total_mass(NULL) is NaN");

  CHECK(geolin_model_parent(m, -1) == -1, "parent(-1)");
  CHECK(geolin_model_parent(m, nb) == -1, "parent(nb)");
  CHECK(strstr(geolin_last_error(), "body") != NULL, "message names 'body': %s",
        geolin_last_error());
  CHECK(geolin_model_num_children(m, -1) == -1, "num_children(-1)");
  CHECK(geolin_model_num_children(m, nb) == -1, "num_children(nb)");
  CHECK(geolin_model_child(m, nb, 0) == -1, "child(nb, 0)");
  CHECK(geolin_model_child(m, 0, -1) == -1, "child(0, -1)");
  CHECK(geolin_model_body_name(m, -1) == NULL, "body_name(-1)");
  CHECK(geolin_model_body_name(m, nb) == NULL, "body_name(nb)");
  CHECK(geolin_model_joint_name(m, -1) == NULL, "joint_name(-1)");
  CHECK(geolin_model_joint_name(m, nj) == NULL, "joint_name(nj)");
  CHECK(strstr(geolin_last_error(), "joint") != NULL, "message names 'joint'");
}

/* ---------------------------------------------------------------------------------------------
 * workspaces
 * ------------------------------------------------------------------------------------------- */

static void test_workspace_misuse(const geolin_model *m) {
  geolin_workspace *ws = (geolin_workspace *)&g_passed;
  double g[3] = {0.0, 0.0, -9.81};
  int st, i;

  st = geolin_workspace_new(NULL, &ws);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && ws == NULL, "new(NULL model) -> %d", st);
  st = geolin_workspace_new(m, NULL);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "new(NULL out) -> %d", st);
  geolin_workspace_free(NULL);

  st = geolin_workspace_new(m, &ws);
  CHECK(st == GEOLIN_OK && ws != NULL, "new -> %d", st);
  st = geolin_workspace_set_gravity(NULL, g);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "set_gravity(NULL ws) -> %d", st);
  st = geolin_workspace_set_gravity(ws, NULL);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "set_gravity(NULL g) -> %d", st);
  CHECK(strstr(geolin_last_error(), "'g'") != NULL, "message names 'g'");
  for (i = 0; i < 3; ++i) {
    double bad[3] = {0.0, 0.0, -9.81};
    bad[i] = NAN;
    st = geolin_workspace_set_gravity(ws, bad);
    CHECK(st == GEOLIN_ERR_NONFINITE, "set_gravity(NaN at %d) -> %d", i, st);
    bad[i] = -INFINITY;
    st = geolin_workspace_set_gravity(ws, bad);
    CHECK(st == GEOLIN_ERR_NONFINITE, "set_gravity(-Inf at %d) -> %d", i, st);
  }
  st = geolin_workspace_set_gravity(ws, g);
  CHECK(st == GEOLIN_OK, "set_gravity -> %d", st);
  geolin_workspace_free(ws);
}

/* ---------------------------------------------------------------------------------------------
 * dynamics identities through the C API
 * ------------------------------------------------------------------------------------------- */

typedef struct {
  double H[16], s[MAXN], v[6], r[MAXN], tau[MAXN];
} State;

static void random_state(State *x, int nj) {
  double w[3], p[3];
  int i;
  for (i = 0; i < 3; ++i) {
    w[i] = 1.5 * urand();
    p[i] = urand();
  }
  make_H(w, p, x->H);
  for (i = 0; i < 6; ++i) x->v[i] = urand();
  for (i = 0; i < nj; ++i) {
    x->s[i] = urand();
    x->r[i] = urand();
    x->tau[i] = urand();
  }
}

/* Identity checks on one model at a few random states. tol_fd: tolerance of the A, B
 * comparison with finite differences (relative to the matrix size). */
static void check_dynamics(const char *label, const geolin_model *m) {
  static double nu_dot[MAXN], f[MAXN], M[MAXN * MAXN], Minv[MAXN * MAXN], A[4 * MAXN * MAXN],
      B[2 * MAXN * MAXN], Afd[4 * MAXN * MAXN], Bfd[2 * MAXN * MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), fixed = geolin_model_is_fixed_base(m);
  const int off = fixed ? 0 : 6; /* offset of the joint block in nu */
  geolin_workspace *ws = NULL;
  int trial, i, j, k, st;

  if (n > MAXN || nj < 0) {
    printf("skip %s: too large for this test (n = %d)\n", label, n);
    return;
  }
  st = geolin_workspace_new(m, &ws);
  CHECK(st == GEOLIN_OK, "%s: workspace_new", label);
  if (st != GEOLIN_OK) return;

  for (trial = 0; trial < 3; ++trial) {
    State x;
    double err, scale;
    random_state(&x, nj);

    /* forward then inverse dynamics: the generalized force is [0; tau] */
    st = geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);
    CHECK(st == GEOLIN_OK, "%s: forward_dynamics -> %d", label, st);
    st = geolin_inverse_dynamics(ws, x.H, x.s, x.v, x.r, nu_dot, f);
    CHECK(st == GEOLIN_OK, "%s: inverse_dynamics -> %d", label, st);
    err = 0.0;
    for (i = 0; i < off; ++i) err = fabs(f[i]) > err ? fabs(f[i]) : err;
    for (k = 0; k < nj; ++k)
      err = fabs(f[off + k] - x.tau[k]) > err ? fabs(f[off + k] - x.tau[k]) : err;
    CHECK(err < 1e-9 * (1.0 + max_abs(f, n)), "%s: ID(FD(tau)) = [0; tau], error %g", label, err);

    /* M Minv = 1, M symmetric */
    st = geolin_mass_matrix(ws, x.s, M);
    CHECK(st == GEOLIN_OK, "%s: mass_matrix -> %d", label, st);
    st = geolin_mass_matrix_inverse(ws, x.s, Minv);
    CHECK(st == GEOLIN_OK, "%s: mass_matrix_inverse -> %d", label, st);
    err = 0.0;
    for (j = 0; j < n; ++j) {
      for (i = 0; i < n; ++i) {
        double sum = 0.0;
        for (k = 0; k < n; ++k) sum += M[i + n * k] * Minv[k + n * j];
        err = fabs(sum - (i == j ? 1.0 : 0.0)) > err ? fabs(sum - (i == j ? 1.0 : 0.0)) : err;
        CHECK(M[i + n * j] == M[j + n * i] || fabs(M[i + n * j] - M[j + n * i]) < 1e-12,
              "%s: M symmetric at (%d, %d)", label, i, j);
      }
    }
    CHECK(err < 1e-8, "%s: M Minv = 1, error %g", label, err);

    /* linearization: B = [0; Minv S], identity blocks of A */
    st = geolin_linearize(ws, x.H, x.s, x.v, x.r, x.tau, A, B);
    CHECK(st == GEOLIN_OK, "%s: linearize -> %d", label, st);
    err = 0.0;
    for (k = 0; k < nj; ++k) {
      for (i = 0; i < n; ++i) {
        err = fabs(B[i + N * k]) > err ? fabs(B[i + N * k]) : err;
        err = fabs(B[n + i + N * k] - Minv[i + n * (off + k)]) > err
                  ? fabs(B[n + i + N * k] - Minv[i + n * (off + k)])
                  : err;
      }
    }
    CHECK(err < 1e-9 * (1.0 + max_abs(Minv, n * n)), "%s: B = [0; Minv S], error %g", label, err);
    err = 0.0;
    for (i = 0; i < n; ++i) {
      for (j = 0; j < N; ++j) {
        double expect;
        if (i < off) { /* base rows: [-v x, 0, 1_6, 0] */
          if (j >= n && j < n + 6) {
            expect = (j - n == i) ? 1.0 : 0.0;
          } else if (j < 6) {
            continue; /* -v x: checked against finite differences below */
          } else {
            expect = 0.0;
          }
        } else { /* joint rows: [0, 0, 0, 1] */
          expect = (j == n + i) ? 1.0 : 0.0;
        }
        err = fabs(A[i + N * j] - expect) > err ? fabs(A[i + N * j] - expect) : err;
      }
    }
    CHECK(err == 0.0, "%s: kinematic rows of A are exact, error %g", label, err);

    /* the analytical A, B against geometric finite differences */
    st = geolin_linearize_finite_difference(ws, x.H, x.s, x.v, x.r, x.tau, 1e-6, Afd, Bfd);
    CHECK(st == GEOLIN_OK, "%s: linearize_finite_difference -> %d", label, st);
    scale = 1.0 + max_abs(A, N * N);
    err = max_abs_diff(A, Afd, N * N);
    CHECK(err < 1e-5 * scale, "%s: A = finite differences, error %g (scale %g)", label, err, scale);
    scale = 1.0 + max_abs(B, N * nj);
    err = max_abs_diff(B, Bfd, N * nj);
    CHECK(err < 1e-5 * scale, "%s: B = finite differences, error %g", label, err);

    if (!fixed) {
      /* moving base: joint accelerations do not depend on H */
      double nu_dot2[MAXN], w[3] = {0.3, -2.0, 0.7}, p[3] = {5.0, -1.0, 2.0};
      make_H(w, p, x.H);
      st = geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, nu_dot2);
      CHECK(st == GEOLIN_OK, "%s: forward_dynamics -> %d", label, st);
      err = max_abs_diff(nu_dot + 3, nu_dot2 + 3, n - 3);
      CHECK(err < 1e-9 * (1.0 + max_abs(nu_dot, n)), "%s: FD independent of H, error %g", label,
            err);
    } else {
      /* fixed base: H and v may be NULL, and are ignored */
      double nu_dot2[MAXN];
      st = geolin_forward_dynamics(ws, NULL, x.s, NULL, x.r, x.tau, nu_dot2);
      CHECK(st == GEOLIN_OK, "%s: fixed base FD with NULL H, v -> %d", label, st);
      CHECK(max_abs_diff(nu_dot, nu_dot2, n) == 0.0, "%s: H, v ignored", label);
      st = geolin_inverse_dynamics(ws, NULL, x.s, NULL, x.r, nu_dot, f);
      CHECK(st == GEOLIN_OK, "%s: fixed base ID with NULL H, v -> %d", label, st);
      st = geolin_linearize(ws, NULL, x.s, NULL, x.r, x.tau, Afd, Bfd);
      CHECK(st == GEOLIN_OK && max_abs_diff(A, Afd, N * N) == 0.0, "%s: fixed base linearize",
            label);
      st = geolin_linearize_finite_difference(ws, NULL, x.s, NULL, x.r, x.tau, 1e-6, Afd, Bfd);
      CHECK(st == GEOLIN_OK, "%s: fixed base linearize_fd -> %d", label, st);
    }
  }

  /* gravity is a setting of the workspace */
  {
    State x;
    double g0[3] = {0.0, 0.0, 0.0}, g[3] = {0.0, 0.0, -9.81}, a1[MAXN], a2[MAXN], a3[MAXN];
    random_state(&x, nj);
    st = geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, a1);
    CHECK(st == GEOLIN_OK, "%s: FD", label);
    st = geolin_workspace_set_gravity(ws, g0);
    st |= geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, a2);
    CHECK(st == GEOLIN_OK, "%s: FD without gravity", label);
    st = geolin_workspace_set_gravity(ws, g);
    st |= geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, a3);
    CHECK(st == GEOLIN_OK && max_abs_diff(a1, a3, n) == 0.0, "%s: default gravity -9.81 z", label);
    if (!fixed) {
      /* base linear acceleration shifts by R^T g; the rest is unchanged */
      {
        double err = 0.0;
        for (i = 0; i < 3; ++i) {
          double Rtg = x.H[0 + 4 * i] * g[0] + x.H[1 + 4 * i] * g[1] + x.H[2 + 4 * i] * g[2];
          err = fabs(a1[i] - a2[i] - Rtg) > err ? fabs(a1[i] - a2[i] - Rtg) : err;
        }
        err = max_abs_diff(a1 + 3, a2 + 3, n - 3) > err ? max_abs_diff(a1 + 3, a2 + 3, n - 3) : err;
        CHECK(err < 1e-9 * (1.0 + max_abs(a1, n)), "%s: gravity shifts by R^T g, error %g", label,
              err);
      }
    }
  }
  geolin_workspace_free(ws);
}

/* ---------------------------------------------------------------------------------------------
 * misuse of the evaluation functions: each NULL pointer, each non-finite input entry, bad H
 * ------------------------------------------------------------------------------------------- */

enum { FN_FD, FN_ID, FN_M, FN_MINV, FN_LIN, FN_LINFD, FN_COUNT };
static const char *const fn_names[FN_COUNT] = {
    "geolin_forward_dynamics",    "geolin_inverse_dynamics", "geolin_mass_matrix",
    "geolin_mass_matrix_inverse", "geolin_linearize",        "geolin_linearize_finite_difference"};

/* argument slots */
enum { A_WS, A_H, A_S, A_V, A_R, A_IN, A_OUT1, A_OUT2, A_COUNT };
static const char *const arg_names[FN_COUNT][A_COUNT] = {
    {"ws", "H", "s", "v", "r", "tau", "nu_dot", NULL},
    {"ws", "H", "s", "v", "r", "nu_dot", "generalized_force", NULL},
    {"ws", NULL, "s", NULL, NULL, NULL, "M", NULL},
    {"ws", NULL, "s", NULL, NULL, NULL, "Minv", NULL},
    {"ws", "H", "s", "v", "r", "tau", "A", "B"},
    {"ws", "H", "s", "v", "r", "tau", "A", "B"}};

typedef struct {
  geolin_workspace *ws;
  const double *H, *s, *v, *r, *in;
  double eps;
  double *out1, *out2;
} Call;

static int call(int fn, const Call *c) {
  switch (fn) {
    case FN_FD:
      return geolin_forward_dynamics(c->ws, c->H, c->s, c->v, c->r, c->in, c->out1);
    case FN_ID:
      return geolin_inverse_dynamics(c->ws, c->H, c->s, c->v, c->r, c->in, c->out1);
    case FN_M:
      return geolin_mass_matrix(c->ws, c->s, c->out1);
    case FN_MINV:
      return geolin_mass_matrix_inverse(c->ws, c->s, c->out1);
    case FN_LIN:
      return geolin_linearize(c->ws, c->H, c->s, c->v, c->r, c->in, c->out1, c->out2);
    default:
      return geolin_linearize_finite_difference(c->ws, c->H, c->s, c->v, c->r, c->in, c->eps,
                                                c->out1, c->out2);
  }
}

static void test_misuse(const char *label, const geolin_model *m) {
  static double out1[4 * MAXN * MAXN], out2[2 * MAXN * MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), fixed = geolin_model_is_fixed_base(m);
  geolin_workspace *ws = NULL;
  State x;
  double in_nu[MAXN];
  int fn, slot, i, st;

  if (geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  random_state(&x, nj);
  for (i = 0; i < n; ++i) in_nu[i] = urand();

  for (fn = 0; fn < FN_COUNT; ++fn) {
    const int out1_size = (fn == FN_FD || fn == FN_ID)    ? n
                          : (fn == FN_M || fn == FN_MINV) ? n * n
                                                          : N * N;
    const int out2_size = (fn == FN_LIN || fn == FN_LINFD) ? N * nj : 0;
    int sizes[A_COUNT];
    Call good;
    good.ws = ws;
    good.H = x.H;
    good.s = x.s;
    good.v = x.v;
    good.r = x.r;
    good.in = (fn == FN_ID) ? in_nu : x.tau;
    good.eps = 1e-6;
    good.out1 = out1;
    good.out2 = out2;
    sizes[A_WS] = 1;
    sizes[A_H] = 16;
    sizes[A_S] = nj;
    sizes[A_V] = 6;
    sizes[A_R] = nj;
    sizes[A_IN] = (fn == FN_ID) ? n : nj;
    sizes[A_OUT1] = out1_size;
    sizes[A_OUT2] = out2_size;

    /* sanity: the good call succeeds */
    st = call(fn, &good);
    CHECK(st == GEOLIN_OK, "%s: %s good call -> %d", label, fn_names[fn], st);

    for (slot = 0; slot < A_COUNT; ++slot) {
      const char *name = arg_names[fn][slot];
      Call bad = good;
      char expect[128];
      if (name == NULL) continue;
      if (fixed && (slot == A_H || slot == A_V)) continue; /* ignored for a fixed base */
      if (sizes[slot] == 0) continue;                      /* NULL is fine for empty arrays */
      switch (slot) {
        case A_WS:
          bad.ws = NULL;
          break;
        case A_H:
          bad.H = NULL;
          break;
        case A_S:
          bad.s = NULL;
          break;
        case A_V:
          bad.v = NULL;
          break;
        case A_R:
          bad.r = NULL;
          break;
        case A_IN:
          bad.in = NULL;
          break;
        case A_OUT1:
          bad.out1 = NULL;
          break;
        default:
          bad.out2 = NULL;
          break;
      }
      fill(out1, out1_size, SENTINEL);
      fill(out2, out2_size, SENTINEL);
      st = call(fn, &bad);
      sprintf(expect, "'%s'", name);
      CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "%s: %s(NULL %s) -> %d", label, fn_names[fn], name,
            st);
      CHECK(strstr(geolin_last_error(), expect) != NULL &&
                strstr(geolin_last_error(), fn_names[fn]) != NULL,
            "%s: message names %s and the function: %s", label, expect, geolin_last_error());
      CHECK(all_equal(out1, out1_size, SENTINEL) && all_equal(out2, out2_size, SENTINEL),
            "%s: %s(NULL %s) wrote nothing", label, fn_names[fn], name);
    }

    /* non-finite values in every entry of every input array */
    for (slot = A_H; slot <= A_IN; ++slot) {
      const char *name = arg_names[fn][slot];
      double buf[MAXN > 16 ? MAXN : 16];
      int idx, kind;
      if (name == NULL) continue;
      if (fixed && (slot == A_H || slot == A_V)) continue;
      for (idx = 0; idx < sizes[slot]; ++idx) {
        for (kind = 0; kind < 3; ++kind) {
          Call bad = good;
          const double *orig = slot == A_H   ? good.H
                               : slot == A_S ? good.s
                               : slot == A_V ? good.v
                               : slot == A_R ? good.r
                                             : good.in;
          memcpy(buf, orig, sizeof(double) * (size_t)sizes[slot]);
          buf[idx] = kind == 0 ? NAN : kind == 1 ? INFINITY : -INFINITY;
          switch (slot) {
            case A_H:
              bad.H = buf;
              break;
            case A_S:
              bad.s = buf;
              break;
            case A_V:
              bad.v = buf;
              break;
            case A_R:
              bad.r = buf;
              break;
            default:
              bad.in = buf;
              break;
          }
          fill(out1, out1_size, SENTINEL);
          fill(out2, out2_size, SENTINEL);
          st = call(fn, &bad);
          CHECK(st == GEOLIN_ERR_NONFINITE, "%s: %s(%s[%d] = %g) -> %d", label, fn_names[fn], name,
                idx, buf[idx], st);
          CHECK(all_equal(out1, out1_size, SENTINEL) && all_equal(out2, out2_size, SENTINEL),
                "%s: %s(non-finite %s) wrote nothing", label, fn_names[fn], name);
          if (idx == sizes[slot] - 1 && kind == 0) {
            char expect[64];
            sprintf(expect, "index %d", idx);
            CHECK(strstr(geolin_last_error(), expect) != NULL, "%s: message names %s: %s", label,
                  expect, geolin_last_error());
          }
        }
      }
    }

    /* H not a rigid transform */
    if (!fixed && arg_names[fn][A_H] != NULL) {
      int kind;
      for (kind = 0; kind < 5; ++kind) {
        double Hb[16];
        Call bad = good;
        memcpy(Hb, x.H, sizeof Hb);
        switch (kind) {
          case 0: /* scaled */
            for (i = 0; i < 11; ++i) Hb[i] *= (i % 4 == 3) ? 1.0 : 1.01;
            break;
          case 1: /* reflection (det -1) */
            for (i = 0; i < 3; ++i) Hb[i + 8] = -Hb[i + 8];
            break;
          case 2: /* bottom row */
            Hb[3] = 0.5;
            break;
          case 3: /* H[15] != 1 */
            Hb[15] = 2.0;
            break;
          default: /* row-major by mistake: the position lands in the bottom row */
            Hb[3] = x.H[12];
            Hb[7] = x.H[13];
            Hb[11] = x.H[14] == 0.0 ? 1.0 : x.H[14];
            Hb[12] = Hb[13] = Hb[14] = 0.0;
            break;
        }
        bad.H = Hb;
        fill(out1, out1_size, SENTINEL);
        fill(out2, out2_size, SENTINEL);
        st = call(fn, &bad);
        CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT, "%s: %s(non-rigid H kind %d) -> %d", label,
              fn_names[fn], kind, st);
        CHECK(strstr(geolin_last_error(), "'H'") != NULL, "message names 'H'");
        CHECK(all_equal(out1, out1_size, SENTINEL) && all_equal(out2, out2_size, SENTINEL),
              "%s: %s(bad H) wrote nothing", label, fn_names[fn]);
      }
      /* a rotation that is orthonormal only to 1e-9 is accepted */
      {
        double Hb[16];
        Call ok = good;
        memcpy(Hb, x.H, sizeof Hb);
        Hb[0] += 1e-9;
        ok.H = Hb;
        st = call(fn, &ok);
        CHECK(st == GEOLIN_OK, "%s: %s(H within tolerance) -> %d", label, fn_names[fn], st);
      }
    }

    if (fn == FN_LINFD) {
      const double bad_eps[5] = {0.0, -1e-6, NAN, INFINITY, -INFINITY};
      const int expect[5] = {GEOLIN_ERR_INVALID_ARGUMENT, GEOLIN_ERR_INVALID_ARGUMENT,
                             GEOLIN_ERR_NONFINITE, GEOLIN_ERR_NONFINITE, GEOLIN_ERR_NONFINITE};
      for (i = 0; i < 5; ++i) {
        Call bad = good;
        bad.eps = bad_eps[i];
        fill(out1, out1_size, SENTINEL);
        fill(out2, out2_size, SENTINEL);
        st = call(fn, &bad);
        CHECK(st == expect[i], "%s: eps = %g -> %d", label, bad_eps[i], st);
        CHECK(strstr(geolin_last_error(), "eps") != NULL, "message names eps");
        CHECK(all_equal(out1, out1_size, SENTINEL) && all_equal(out2, out2_size, SENTINEL),
              "%s: bad eps wrote nothing", label);
      }
    }
  }
  geolin_workspace_free(ws);
}

/* ---------------------------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------------------------- */

static void run_model(const char *label, const geolin_model *m) {
  check_dynamics(label, m);
  test_misuse(label, m);
}

int main(int argc, char **argv) {
  const char *tree_path = argc > 1 ? argv[1] : "tree.urdf";
  const char *models_dir = argc > 2 ? argv[2] : NULL;
  char *tree_xml = read_file(tree_path);
  geolin_model *m = NULL;
  int st;

  if (tree_xml == NULL) {
    fprintf(stderr, "cannot read %s\n", tree_path);
    return 2;
  }
  test_errors_and_version();
  test_loading(tree_path, tree_xml);

  /* moving base, loaded from a string */
  st = geolin_model_load_urdf_string(tree_xml, 0, &m);
  CHECK(st == GEOLIN_OK, "load string -> %d", st);
  if (st == GEOLIN_OK) {
    test_tree_structure(m, 0);
    test_getter_misuse(m);
    test_workspace_misuse(m);
    run_model("tree (moving base)", m);
    geolin_model_free(m);
  }
  /* fixed base, loaded from the file */
  m = NULL;
  st = geolin_model_load_urdf(tree_path, GEOLIN_FIXED_BASE, &m);
  CHECK(st == GEOLIN_OK, "load fixed base -> %d", st);
  if (st == GEOLIN_OK) {
    test_tree_structure(m, 1);
    run_model("tree (fixed base)", m);
    geolin_model_free(m);
  }
  /* damping changes the dynamics but not the structure */
  m = NULL;
  st = geolin_model_load_urdf(tree_path, GEOLIN_JOINT_DAMPING, &m);
  CHECK(st == GEOLIN_OK, "load with damping -> %d", st);
  if (st == GEOLIN_OK) {
    test_tree_structure(m, 0);
    check_dynamics("tree (damping)", m);
    geolin_model_free(m);
  }

  /* the example models of the repository, when present */
  if (models_dir != NULL) {
    static const char *const files[] = {"humanoid",        "quadruped",      "arm7",
                                        "free_body",       "cart_pendulum",  "single_link_arm",
                                        "satellite_panel", "single_link_arm"};
    static const unsigned flags[] = {
        0u, 0u, GEOLIN_FIXED_BASE, 0u, GEOLIN_FIXED_BASE, GEOLIN_FIXED_BASE, 0u, 0u};
    size_t i;
    for (i = 0; i < sizeof files / sizeof files[0]; ++i) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s.urdf", models_dir, files[i]);
      if (!file_exists(path)) {
        printf("skip %s (not present)\n", path);
        continue;
      }
      m = NULL;
      st = geolin_model_load_urdf(path, flags[i], &m);
      CHECK(st == GEOLIN_OK, "load %s -> %d", path, st);
      if (st == GEOLIN_OK) {
        run_model(files[i], m);
        geolin_model_free(m);
      }
    }
  }
  free(tree_xml);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
