/* The C API test (C99): every function of geolin.h, the dynamics identities through the C
 * boundary (frames, Jacobians, external wrenches and discrete steps included), and the status codes
 * of misuse (NULL pointers, out-of-range indices, NaN/Inf in every input, non-rigid H) with outputs
 * left untouched.
 *
 * usage: test_capi <tree.urdf> [models_dir]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

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

/* ---------------------------------------------------------------------------------------------
 * errors and versions
 * ------------------------------------------------------------------------------------------- */

static void test_errors_and_version(void) {
  int major = -1, minor = -1, patch = -1, code;
  const char *names[10];
  geolin_version(&major, &minor, &patch);
  CHECK(major == GEOLIN_VERSION_MAJOR && minor == GEOLIN_VERSION_MINOR &&
            patch == GEOLIN_VERSION_PATCH,
        "version %d.%d.%d", major, minor, patch);
  geolin_version(NULL, NULL, NULL); /* NULL pointers are allowed */
  geolin_version(&major, NULL, NULL);
  CHECK(major == GEOLIN_VERSION_MAJOR, "major only");

  CHECK(geolin_last_error() != NULL, "last_error never NULL");
  for (code = GEOLIN_OK; code <= GEOLIN_ERR_MEMORY; ++code) {
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
  CHECK(strcmp(geolin_status_string(10), "unknown status") == 0, "10");
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
 * frames, frame Jacobians, external wrenches, discrete time (version 0.2)
 * ------------------------------------------------------------------------------------------- */

/* C = A B for column-major 4x4 matrices (C may not alias A or B). */
static void mat4_mul(const double *A, const double *B, double *C) {
  int i, j, k;
  for (j = 0; j < 4; ++j)
    for (i = 0; i < 4; ++i) {
      double sum = 0.0;
      for (k = 0; k < 4; ++k) sum += A[i + 4 * k] * B[k + 4 * j];
      C[i + 4 * j] = sum;
    }
}

/* The inverse of a rigid transform: [R^T, -R^T p; 0 1]. */
static void rigid_inverse(const double *H, double *Hi) {
  int i, j;
  for (j = 0; j < 3; ++j) {
    for (i = 0; i < 3; ++i) Hi[i + 4 * j] = H[j + 4 * i];
    Hi[3 + 4 * j] = 0.0;
  }
  for (i = 0; i < 3; ++i)
    Hi[12 + i] = -(H[0 + 4 * i] * H[12] + H[1 + 4 * i] * H[13] + H[2 + 4 * i] * H[14]);
  Hi[15] = 1.0;
}

static double max_of(double a, double b) {
  return a > b ? a : b;
}

/* H exp(xi) to second order in |xi| for a twist xi = [linear; angular]: H make_H(w, p). */
static void right_perturb(const double *H, const double xi[6], double *out) {
  double E[16];
  make_H(xi + 3, xi, E);
  mat4_mul(H, E, out);
}

/* The names of a model's frames and their indices. */
static void test_frames(const char *label, const geolin_model *m) {
  const int nfr = geolin_model_num_frames(m), nb = geolin_model_num_bodies(m);
  int k;
  CHECK(nfr >= nb, "%s: num_frames %d >= num_bodies %d", label, nfr, nb);
  for (k = 0; k < nfr; ++k) {
    const char *name = geolin_model_frame_name(m, k);
    CHECK(name != NULL, "%s: frame_name(%d)", label, k);
    if (name != NULL)
      CHECK(geolin_model_frame_index(m, name) == k, "%s: frame_index(frame_name(%d) = %s)", label,
            k, name);
  }
  for (k = 0; k < nb; ++k) /* every body's link is a frame */
    CHECK(geolin_model_frame_index(m, geolin_model_body_name(m, k)) >= 0, "%s: body %d is a frame",
          label, k);
  CHECK(geolin_model_frame_name(m, -1) == NULL, "%s: frame_name(-1)", label);
  CHECK(strstr(geolin_last_error(), "'frame'") != NULL, "%s: message names 'frame': %s", label,
        geolin_last_error());
  CHECK(geolin_model_frame_name(m, nfr) == NULL, "%s: frame_name(num_frames)", label);
  CHECK(geolin_model_num_frames(NULL) == -1, "num_frames(NULL)");
  CHECK(strstr(geolin_last_error(), "model") != NULL, "message names 'model'");
  CHECK(geolin_model_frame_name(NULL, 0) == NULL, "frame_name(NULL)");
  CHECK(geolin_model_frame_index(NULL, geolin_model_body_name(m, 0)) == -1, "frame_index(NULL, .)");
  CHECK(geolin_model_frame_index(m, NULL) == -1, "frame_index(., NULL)");
  CHECK(strstr(geolin_last_error(), "'name'") != NULL, "message names 'name'");
  CHECK(geolin_model_frame_index(m, "no such frame") == -1, "%s: absent frame", label);
  CHECK(geolin_model_frame_index(m, "") == -1, "%s: empty frame name", label);
}

/* tree.urdf: 5 frames (the tool is merged into link2 by a fixed joint, 0.2 m along its x). */
static void test_tree_frames(const geolin_model *m) {
  static const char *const frames[] = {"base", "link1", "link2", "tool", "link3"};
  geolin_workspace *ws = NULL;
  double H[16], w[3] = {0.4, -0.3, 1.1}, p[3] = {1.0, 2.0, -0.5}, s[3] = {0.3, -0.7, 0.2};
  double H2[16], Ht[16], T[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.2, 0, 0, 1}, E[16];
  int k, st;
  CHECK(geolin_model_num_frames(m) == 5, "tree: 5 frames, got %d", geolin_model_num_frames(m));
  for (k = 0; k < 5; ++k)
    CHECK(in_list(geolin_model_frame_name(m, k), frames, 5), "tree: frame %d", k);
  CHECK(geolin_model_frame_index(m, "tool") >= 0, "tree: the welded tool is a frame");
  if (geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  make_H(w, p, H);
  st = geolin_frame_pose(ws, H, s, geolin_model_frame_index(m, "link2"), H2);
  st |= geolin_frame_pose(ws, H, s, geolin_model_frame_index(m, "tool"), Ht);
  CHECK(st == GEOLIN_OK, "tree: frame_pose");
  mat4_mul(H2, T, E);
  CHECK(max_abs_diff(E, Ht, 16) < 1e-12, "tree: H_tool = H_link2 T(0.2, 0, 0), error %g",
        max_abs_diff(E, Ht, 16));
  geolin_workspace_free(ws);
}

/* Frame poses and Jacobians of every frame at a random state. */
static void check_frames_kinematics(const char *label, const geolin_model *m) {
  static double J[6 * MAXN], J2[6 * MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            fixed = geolin_model_is_fixed_base(m), nfr = geolin_model_num_frames(m);
  const int off = fixed ? 0 : 6;
  const int root = geolin_model_frame_index(m, geolin_model_body_name(m, 0));
  const double eps = 1e-6;
  geolin_workspace *ws = NULL;
  State x;
  double P[16], P0[16], Pi[16], Pp[16], Pm[16], Hp[16], Hm[16], D[16], X[16], I4[16], E[16];
  double zero[MAXN], sp[MAXN], sm[MAXN];
  int f, i, j, st;

  if (n > MAXN || geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  random_state(&x, nj);
  fill(zero, MAXN, 0.0);
  fill(I4, 16, 0.0);
  I4[0] = I4[5] = I4[10] = I4[15] = 1.0;

  /* the frame of the root link is the base pose (fixed base: the identity), at s = 0 and any s */
  st = geolin_frame_pose(ws, x.H, zero, root, P);
  CHECK(st == GEOLIN_OK, "%s: frame_pose(root) -> %d", label, st);
  CHECK(max_abs_diff(P, fixed ? I4 : x.H, 16) < 1e-12, "%s: root frame at s = 0 is %s", label,
        fixed ? "the identity" : "H");
  st = geolin_frame_pose(ws, x.H, x.s, root, P);
  CHECK(st == GEOLIN_OK && max_abs_diff(P, fixed ? I4 : x.H, 16) < 1e-12,
        "%s: root frame at any s is %s", label, fixed ? "the identity" : "H");

  for (f = 0; f < nfr; ++f) {
    double err = 0.0, scale;
    st = geolin_frame_pose(ws, x.H, x.s, f, P0);
    CHECK(st == GEOLIN_OK, "%s: frame_pose(%d) -> %d", label, f, st);
    /* a rigid transform */
    rigid_inverse(P0, Pi);
    mat4_mul(Pi, P0, E);
    CHECK(max_abs_diff(E, I4, 16) < 1e-12, "%s: frame %d pose is rigid", label, f);
    if (!fixed) {
      /* left invariance: H_F(H, s) = H H_F(1, s) */
      st = geolin_frame_pose(ws, I4, x.s, f, P);
      mat4_mul(x.H, P, E);
      CHECK(st == GEOLIN_OK && max_abs_diff(E, P0, 16) < 1e-12,
            "%s: frame %d: H_F(H) = H H_F(1), error %g", label, f, max_abs_diff(E, P0, 16));
    } else {
      /* H is ignored (may be NULL) */
      st = geolin_frame_pose(ws, NULL, x.s, f, P);
      CHECK(st == GEOLIN_OK && max_abs_diff(P, P0, 16) == 0.0, "%s: frame %d: H ignored", label, f);
      st = geolin_frame_jacobian(ws, NULL, x.s, f, J2);
      CHECK(st == GEOLIN_OK, "%s: frame_jacobian(NULL H) -> %d", label, st);
    }

    /* J against a central difference of the pose: (H_F^-1 dH_F/dnu_j)^vee */
    st = geolin_frame_jacobian(ws, x.H, x.s, f, J);
    CHECK(st == GEOLIN_OK, "%s: frame_jacobian(%d) -> %d", label, f, st);
    if (fixed) CHECK(max_abs_diff(J, J2, 6 * n) == 0.0, "%s: frame %d: J ignores H", label, f);
    scale = 1.0 + max_abs(J, 6 * n);
    for (j = 0; j < n; ++j) {
      double col[6];
      if (j < off) {
        double xi[6] = {0, 0, 0, 0, 0, 0};
        xi[j] = eps;
        right_perturb(x.H, xi, Hp);
        xi[j] = -eps;
        right_perturb(x.H, xi, Hm);
        st = geolin_frame_pose(ws, Hp, x.s, f, Pp);
        st |= geolin_frame_pose(ws, Hm, x.s, f, Pm);
      } else {
        memcpy(sp, x.s, sizeof(double) * (size_t)nj);
        memcpy(sm, x.s, sizeof(double) * (size_t)nj);
        sp[j - off] += eps;
        sm[j - off] -= eps;
        st = geolin_frame_pose(ws, x.H, sp, f, Pp);
        st |= geolin_frame_pose(ws, x.H, sm, f, Pm);
      }
      CHECK(st == GEOLIN_OK, "%s: frame_pose (perturbed)", label);
      for (i = 0; i < 16; ++i) D[i] = (Pp[i] - Pm[i]) / (2.0 * eps);
      mat4_mul(Pi, D, X);
      col[0] = X[12];
      col[1] = X[13];
      col[2] = X[14];
      col[3] = 0.5 * (X[2 + 4 * 1] - X[1 + 4 * 2]);
      col[4] = 0.5 * (X[0 + 4 * 2] - X[2 + 4 * 0]);
      col[5] = 0.5 * (X[1 + 4 * 0] - X[0 + 4 * 1]);
      err = max_of(err, max_abs_diff(col, J + 6 * j, 6));
    }
    CHECK(err < 1e-6 * scale, "%s: frame %d: J = finite difference of the pose, error %g", label, f,
          err);
  }
  geolin_workspace_free(ws);
}

/* The linearization's velocity rows d(nu_dot)/dz by central differences of
 * forward_dynamics_ext (z_H: H exp(z_H), the rest additive). out: n x N, column-major. */
static int ext_velocity_rows_fd(geolin_workspace *ws, const geolin_model *m, const State *x, int nf,
                                const int *frames, const double *wrenches, unsigned flags,
                                double *out) {
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), off = geolin_model_is_fixed_base(m) ? 0 : 6;
  const double eps = 1e-6;
  double ap[MAXN], am[MAXN];
  int j, i, sign, st = GEOLIN_OK;
  for (j = 0; j < N; ++j) {
    for (sign = 0; sign < 2; ++sign) {
      State y = *x;
      const double d = sign == 0 ? eps : -eps;
      if (j < off) {
        double xi[6] = {0, 0, 0, 0, 0, 0};
        xi[j] = d;
        right_perturb(x->H, xi, y.H);
      } else if (j < n) {
        y.s[j - off] += d;
      } else if (j < n + off) {
        y.v[j - n] += d;
      } else {
        y.r[j - n - off] += d;
      }
      st |= geolin_forward_dynamics_ext(ws, y.H, y.s, y.v, y.r, y.tau, nf, frames, wrenches, flags,
                                        sign == 0 ? ap : am);
    }
    for (i = 0; i < n; ++i) out[i + n * j] = (ap[i] - am[i]) / (2.0 * eps);
  }
  (void)nj;
  return st;
}

/* forward_dynamics_ext and linearize_ext against forward_dynamics, M, J and finite differences. */
static void check_wrenches(const char *label, const geolin_model *m) {
  static double A[4 * MAXN * MAXN], A2[4 * MAXN * MAXN], B[2 * MAXN * MAXN],
      B2[2 * MAXN * (MAXN + 12)], M[MAXN * MAXN], Minv[MAXN * MAXN], J[2][6 * MAXN],
      Afd[2 * MAXN * MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), nfr = geolin_model_num_frames(m);
  const int nw = nfr >= 2 ? 2 : 1;
  geolin_workspace *ws = NULL;
  State x;
  int frames[2], k, i, c, st, flags;
  double w[12], wl[12], a0[MAXN], a1[MAXN], a2[MAXN], err, scale;

  if (n > MAXN || geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  random_state(&x, nj);
  frames[0] = nfr - 1;
  frames[1] = nfr / 2;
  for (i = 0; i < 12; ++i) w[i] = 3.0 * urand();

  /* no wrench: forward_dynamics bit for bit */
  st = geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, a0);
  CHECK(st == GEOLIN_OK, "%s: forward_dynamics -> %d", label, st);
  for (flags = 0; flags < 2; ++flags) {
    fill(a1, n, SENTINEL);
    st = geolin_forward_dynamics_ext(ws, x.H, x.s, x.v, x.r, x.tau, 0, NULL, NULL, (unsigned)flags,
                                     a1);
    CHECK(st == GEOLIN_OK && max_abs_diff(a0, a1, n) == 0.0,
          "%s: forward_dynamics_ext(nf = 0, flags %d) = forward_dynamics", label, flags);
  }

  /* LOCAL wrenches: M (nu_dot_ext - nu_dot) = sum_k J_k^T w_k */
  st = geolin_forward_dynamics_ext(ws, x.H, x.s, x.v, x.r, x.tau, nw, frames, w,
                                   GEOLIN_WRENCH_LOCAL, a1);
  CHECK(st == GEOLIN_OK, "%s: forward_dynamics_ext(LOCAL) -> %d", label, st);
  st = geolin_mass_matrix(ws, x.s, M);
  st |= geolin_mass_matrix_inverse(ws, x.s, Minv);
  for (k = 0; k < nw; ++k) st |= geolin_frame_jacobian(ws, x.H, x.s, frames[k], J[k]);
  CHECK(st == GEOLIN_OK, "%s: M, Minv, J", label);
  err = 0.0;
  scale = 1.0;
  for (i = 0; i < n; ++i) {
    double lhs = 0.0, rhs = 0.0;
    for (k = 0; k < n; ++k) lhs += M[i + n * k] * (a1[k] - a0[k]);
    for (k = 0; k < nw; ++k)
      for (c = 0; c < 6; ++c) rhs += J[k][c + 6 * i] * w[6 * k + c];
    err = max_of(err, fabs(lhs - rhs));
    scale = max_of(scale, fabs(rhs));
  }
  scale *= 1.0 + max_abs(M, n * n);
  CHECK(err < 1e-9 * scale, "%s: M (nu_dot_ext - nu_dot) = J^T w, error %g", label, err);

  /* MIXED = LOCAL with the wrench rotated into the frame's axes */
  for (k = 0; k < nw; ++k) {
    double P[16];
    st = geolin_frame_pose(ws, x.H, x.s, frames[k], P);
    CHECK(st == GEOLIN_OK, "%s: frame_pose", label);
    for (i = 0; i < 3; ++i) { /* R^T f, R^T n: column i of R dotted with the vector */
      wl[6 * k + i] =
          P[0 + 4 * i] * w[6 * k] + P[1 + 4 * i] * w[6 * k + 1] + P[2 + 4 * i] * w[6 * k + 2];
      wl[6 * k + 3 + i] =
          P[0 + 4 * i] * w[6 * k + 3] + P[1 + 4 * i] * w[6 * k + 4] + P[2 + 4 * i] * w[6 * k + 5];
    }
  }
  st = geolin_forward_dynamics_ext(ws, x.H, x.s, x.v, x.r, x.tau, nw, frames, w,
                                   GEOLIN_WRENCH_MIXED, a1);
  st |= geolin_forward_dynamics_ext(ws, x.H, x.s, x.v, x.r, x.tau, nw, frames, wl,
                                    GEOLIN_WRENCH_LOCAL, a2);
  err = max_abs_diff(a1, a2, n);
  CHECK(st == GEOLIN_OK && err < 1e-9 * (1.0 + max_abs(a1, n)),
        "%s: MIXED wrench = LOCAL wrench R^T w, error %g", label, err);

  /* two wrenches at one frame add */
  if (nfr >= 2) {
    int same[2];
    double sum[6];
    same[0] = same[1] = frames[0];
    for (i = 0; i < 6; ++i) sum[i] = w[i] + w[6 + i];
    st = geolin_forward_dynamics_ext(ws, x.H, x.s, x.v, x.r, x.tau, 2, same, w, GEOLIN_WRENCH_LOCAL,
                                     a1);
    st |= geolin_forward_dynamics_ext(ws, x.H, x.s, x.v, x.r, x.tau, 1, same, sum,
                                      GEOLIN_WRENCH_LOCAL, a2);
    err = max_abs_diff(a1, a2, n);
    CHECK(st == GEOLIN_OK && err < 1e-12 * (1.0 + max_abs(a1, n)),
          "%s: two wrenches at one frame add, error %g", label, err);
  }

  /* linearize_ext with nf = 0 = linearize */
  st = geolin_linearize(ws, x.H, x.s, x.v, x.r, x.tau, A, B);
  CHECK(st == GEOLIN_OK, "%s: linearize -> %d", label, st);
  for (flags = 0; flags < 2; ++flags) {
    st =
        geolin_linearize_ext(ws, x.H, x.s, x.v, x.r, x.tau, 0, NULL, NULL, (unsigned)flags, A2, B2);
    CHECK(
        st == GEOLIN_OK && max_abs_diff(A, A2, N * N) == 0.0 && max_abs_diff(B, B2, N * nj) == 0.0,
        "%s: linearize_ext(nf = 0, flags %d) = linearize, errors %g %g", label, flags,
        max_abs_diff(A, A2, N * N), max_abs_diff(B, B2, N * nj));
  }

  for (flags = 0; flags < 2; ++flags) {
    st =
        geolin_linearize_ext(ws, x.H, x.s, x.v, x.r, x.tau, nw, frames, w, (unsigned)flags, A2, B2);
    CHECK(st == GEOLIN_OK, "%s: linearize_ext(flags %d) -> %d", label, flags, st);
    /* the torque columns do not depend on the wrenches */
    err = max_abs_diff(B, B2, N * nj);
    CHECK(err < 1e-12 * (1.0 + max_abs(B, N * nj)), "%s: linearize_ext torque columns, error %g",
          label, err);
    if (flags == (int)GEOLIN_WRENCH_LOCAL) {
      /* wrench columns: [0; Minv J_k^T] */
      err = 0.0;
      for (k = 0; k < nw; ++k) {
        for (c = 0; c < 6; ++c) {
          const double *col = B2 + N * (nj + 6 * k + c);
          for (i = 0; i < n; ++i) {
            double expect = 0.0;
            int l;
            for (l = 0; l < n; ++l) expect += Minv[i + n * l] * J[k][c + 6 * l];
            err = max_of(err, fabs(col[i]));
            err = max_of(err, fabs(col[n + i] - expect));
          }
        }
      }
      CHECK(err < 1e-9 * (1.0 + max_abs(B2, N * (nj + 6 * nw))),
            "%s: linearize_ext B wrench columns = [0; Minv J^T], error %g", label, err);
    }
    /* A's velocity rows (with the wrench terms) against finite differences */
    st = ext_velocity_rows_fd(ws, m, &x, nw, frames, w, (unsigned)flags, Afd);
    CHECK(st == GEOLIN_OK, "%s: finite differences of forward_dynamics_ext", label);
    err = 0.0;
    for (c = 0; c < N; ++c)
      for (i = 0; i < n; ++i) err = max_of(err, fabs(A2[n + i + N * c] - Afd[i + n * c]));
    scale = 1.0 + max_abs(A2, N * N);
    CHECK(err < 1e-5 * scale, "%s: linearize_ext(flags %d) A = finite differences, error %g", label,
          flags, err);
  }
  geolin_workspace_free(ws);
}

/* geolin_step's linearization by central differences: x exp(+-eps e_j) (or tau +- eps e_k) is
 * stepped and z+ = log(x+^-1 x+(eps)) is taken to first order, (x+^-1 dx+)^vee for the base pose.
 * A_fd: N x N, B_fd: N x n_J, column-major. */
static int step_linearize_fd(geolin_workspace *ws, const geolin_model *m, int method, double h,
                             const State *x, double *A_fd, double *B_fd) {
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), off = geolin_model_is_fixed_base(m) ? 0 : 6;
  const double eps = 1e-6;
  double H0[16], s0[MAXN], v0[6], r0[MAXN], Hi[16];
  double Hp[16], sp[MAXN], vp[6], rp[MAXN], Hm[16], sm[MAXN], vm[6], rm[MAXN];
  int j, i, sign, st;
  st = geolin_step(ws, method, h, x->H, x->s, x->v, x->r, x->tau, H0, s0, v0, r0);
  rigid_inverse(H0, Hi);
  for (j = 0; j < N + nj; ++j) {
    double *col = j < N ? A_fd + N * j : B_fd + N * (j - N);
    for (sign = 0; sign < 2; ++sign) {
      State y = *x;
      const double d = sign == 0 ? eps : -eps;
      if (j < off) {
        double xi[6] = {0, 0, 0, 0, 0, 0};
        xi[j] = d;
        right_perturb(x->H, xi, y.H);
      } else if (j < n) {
        y.s[j - off] += d;
      } else if (j < n + off) {
        y.v[j - n] += d;
      } else if (j < N) {
        y.r[j - n - off] += d;
      } else {
        y.tau[j - N] += d;
      }
      st |= geolin_step(ws, method, h, y.H, y.s, y.v, y.r, y.tau, sign == 0 ? Hp : Hm,
                        sign == 0 ? sp : sm, sign == 0 ? vp : vm, sign == 0 ? rp : rm);
    }
    if (off) {
      double D[16], X[16];
      for (i = 0; i < 16; ++i) D[i] = (Hp[i] - Hm[i]) / (2.0 * eps);
      mat4_mul(Hi, D, X);
      col[0] = X[12];
      col[1] = X[13];
      col[2] = X[14];
      col[3] = 0.5 * (X[2 + 4 * 1] - X[1 + 4 * 2]);
      col[4] = 0.5 * (X[0 + 4 * 2] - X[2 + 4 * 0]);
      col[5] = 0.5 * (X[1 + 4 * 0] - X[0 + 4 * 1]);
      for (i = 0; i < 6; ++i) col[n + i] = (vp[i] - vm[i]) / (2.0 * eps);
    }
    for (i = 0; i < nj; ++i) {
      col[off + i] = (sp[i] - sm[i]) / (2.0 * eps);
      col[n + off + i] = (rp[i] - rm[i]) / (2.0 * eps);
    }
  }
  return st;
}

/* geolin_step and geolin_step_linearize. */
static void check_step(const char *label, const geolin_model *m) {
  static double A[4 * MAXN * MAXN], B[2 * MAXN * MAXN], Ad[4 * MAXN * MAXN], Bd[2 * MAXN * MAXN],
      Afd[4 * MAXN * MAXN], Bfd[2 * MAXN * MAXN];
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), fixed = geolin_model_is_fixed_base(m);
  const int off = fixed ? 0 : 6;
  geolin_workspace *ws = NULL;
  State x;
  double nu_dot[MAXN], Hn[16], sn[MAXN], vn[6], rn[MAXN], Hb[16], sb[MAXN], vb[6], rb[MAXN];
  int method, i, j, st;

  if (n > MAXN || geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  random_state(&x, nj);
  st = geolin_forward_dynamics(ws, x.H, x.s, x.v, x.r, x.tau, nu_dot);
  st |= geolin_linearize(ws, x.H, x.s, x.v, x.r, x.tau, A, B);
  CHECK(st == GEOLIN_OK, "%s: forward_dynamics, linearize", label);

  for (method = GEOLIN_STEP_SEMI_IMPLICIT_EULER; method <= GEOLIN_STEP_RK4; ++method) {
    double errs[2], scale = 1.0 + max_abs(nu_dot, n), hs[2] = {1e-4, 1e-5};
    int t;
    /* (nu_next - nu) / h = nu_dot + O(h); (s_next - s) / h = r + O(h) */
    for (t = 0; t < 2; ++t) {
      const double h = hs[t];
      double err = 0.0;
      st = geolin_step(ws, method, h, x.H, x.s, x.v, x.r, x.tau, Hn, sn, vn, rn);
      CHECK(st == GEOLIN_OK, "%s: step(method %d, h %g) -> %d", label, method, h, st);
      for (i = 0; i < nj; ++i) {
        err = max_of(err, fabs((rn[i] - x.r[i]) / h - nu_dot[off + i]));
        err = max_of(err, fabs((sn[i] - x.s[i]) / h - x.r[i]));
      }
      if (!fixed) {
        for (i = 0; i < 6; ++i) err = max_of(err, fabs((vn[i] - x.v[i]) / h - nu_dot[i]));
        for (i = 0; i < 3; ++i) { /* position: p_dot = R v_linear */
          double pdot = x.H[i] * x.v[0] + x.H[i + 4] * x.v[1] + x.H[i + 8] * x.v[2];
          err = max_of(err, fabs((Hn[12 + i] - x.H[12 + i]) / h - pdot));
        }
      }
      errs[t] = err;
    }
    CHECK(errs[1] < 1e-3 * scale, "%s: step(method %d) moves with the dynamics, error %g", label,
          method, errs[1]);
    CHECK(errs[1] < 0.2 * errs[0] + 1e-9 * scale,
          "%s: step(method %d): the error is O(h): %g (h = 1e-4), %g (h = 1e-5)", label, method,
          errs[0], errs[1]);

    /* in place (outputs aliasing the inputs) = separate outputs */
    st = geolin_step(ws, method, 1e-2, x.H, x.s, x.v, x.r, x.tau, Hn, sn, vn, rn);
    memcpy(Hb, x.H, sizeof Hb);
    memcpy(sb, x.s, sizeof(double) * (size_t)nj);
    memcpy(vb, x.v, sizeof vb);
    memcpy(rb, x.r, sizeof(double) * (size_t)nj);
    st |= geolin_step(ws, method, 1e-2, Hb, sb, vb, rb, x.tau, Hb, sb, vb, rb);
    CHECK(st == GEOLIN_OK && max_abs_diff(sn, sb, nj) == 0.0 && max_abs_diff(rn, rb, nj) == 0.0 &&
              (fixed || (max_abs_diff(Hn, Hb, 16) == 0.0 && max_abs_diff(vn, vb, 6) == 0.0)),
          "%s: step(method %d) in place = separate outputs", label, method);
    if (!fixed) {
      double Hi[16], E[16], I4[16];
      fill(I4, 16, 0.0);
      I4[0] = I4[5] = I4[10] = I4[15] = 1.0;
      rigid_inverse(Hn, Hi);
      mat4_mul(Hi, Hn, E);
      CHECK(max_abs_diff(E, I4, 16) < 1e-12, "%s: H_next is rigid", label);
    } else {
      /* fixed base: H, v, H_next, v_next may be NULL; H_next, v_next are not written */
      double s2[MAXN], r2[MAXN];
      fill(Hb, 16, SENTINEL);
      fill(vb, 6, SENTINEL);
      st = geolin_step(ws, method, 1e-2, NULL, x.s, NULL, x.r, x.tau, NULL, s2, NULL, r2);
      CHECK(st == GEOLIN_OK && max_abs_diff(s2, sn, nj) == 0.0 && max_abs_diff(r2, rn, nj) == 0.0,
            "%s: fixed base step with NULL H, v, H_next, v_next -> %d", label, st);
      st = geolin_step(ws, method, 1e-2, x.H, x.s, x.v, x.r, x.tau, Hb, s2, vb, r2);
      CHECK(st == GEOLIN_OK && all_equal(Hb, 16, SENTINEL) && all_equal(vb, 6, SENTINEL),
            "%s: fixed base step leaves H_next, v_next alone", label);
      st = geolin_step_linearize(ws, method, 1e-2, NULL, x.s, NULL, x.r, x.tau, Ad, Bd);
      CHECK(st == GEOLIN_OK, "%s: fixed base step_linearize with NULL H, v -> %d", label, st);
    }

    /* A_d, B_d of a finite step against central differences of geolin_step */
    {
      const double h = 1e-2;
      double errA, errB;
      st = geolin_step_linearize(ws, method, h, x.H, x.s, x.v, x.r, x.tau, Ad, Bd);
      st |= step_linearize_fd(ws, m, method, h, &x, Afd, Bfd);
      CHECK(st == GEOLIN_OK, "%s: step_linearize, finite differences of step", label);
      errA = max_abs_diff(Ad, Afd, N * N);
      errB = max_abs_diff(Bd, Bfd, N * nj);
      CHECK(errA < 1e-5 * (1.0 + max_abs(Ad, N * N)),
            "%s: step_linearize(method %d) A_d = finite differences of step, error %g", label,
            method, errA);
      CHECK(errB < 1e-5 * (1.0 + max_abs(Bd, N * nj)),
            "%s: step_linearize(method %d) B_d = finite differences of step, error %g", label,
            method, errB);
    }

    /* h -> 0: (A_d - 1) / h -> A, B_d / h -> B */
    {
      const double h = 1e-7;
      double errA = 0.0, errB = 0.0, sA = 1.0 + max_abs(A, N * N), sB = 1.0 + max_abs(B, N * nj);
      st = geolin_step_linearize(ws, method, h, x.H, x.s, x.v, x.r, x.tau, Ad, Bd);
      CHECK(st == GEOLIN_OK, "%s: step_linearize(method %d) -> %d", label, method, st);
      for (j = 0; j < N; ++j)
        for (i = 0; i < N; ++i)
          errA = max_of(errA, fabs((Ad[i + N * j] - (i == j ? 1.0 : 0.0)) / h - A[i + N * j]));
      for (i = 0; i < N * nj; ++i) errB = max_of(errB, fabs(Bd[i] / h - B[i]));
      CHECK(errA < 1e-6 * sA * sA, "%s: step_linearize(method %d): (A_d - 1)/h -> A, error %g",
            label, method, errA);
      CHECK(errB < 1e-6 * sA * sB, "%s: step_linearize(method %d): B_d/h -> B, error %g", label,
            method, errB);
    }
  }
  geolin_workspace_free(ws);
}

/* misuse of the 0.2 evaluation functions */
enum { G_POSE, G_JAC, G_FDEXT, G_LINEXT, G_STEP, G_STEPLIN, G_COUNT };
static const char *const g_names[G_COUNT] = {
    "geolin_frame_pose",    "geolin_frame_jacobian", "geolin_forward_dynamics_ext",
    "geolin_linearize_ext", "geolin_step",           "geolin_step_linearize"};
enum {
  S_WS,
  S_H,
  S_S,
  S_V,
  S_R,
  S_TAU,
  S_FRAMES,
  S_WRENCHES,
  S_OUT1,
  S_OUT2,
  S_OUT3,
  S_OUT4,
  S_COUNT
};
static const char *const g_args[G_COUNT][S_COUNT] = {
    {"ws", "H", "s", NULL, NULL, NULL, NULL, NULL, "H_frame", NULL, NULL, NULL},
    {"ws", "H", "s", NULL, NULL, NULL, NULL, NULL, "J", NULL, NULL, NULL},
    {"ws", "H", "s", "v", "r", "tau", "frames", "wrenches", "nu_dot", NULL, NULL, NULL},
    {"ws", "H", "s", "v", "r", "tau", "frames", "wrenches", "A", "B", NULL, NULL},
    {"ws", "H", "s", "v", "r", "tau", NULL, NULL, "H_next", "s_next", "v_next", "r_next"},
    {"ws", "H", "s", "v", "r", "tau", NULL, NULL, "A_d", "B_d", NULL, NULL}};

typedef struct {
  geolin_workspace *ws;
  const double *H, *s, *v, *r, *tau;
  const int *frames;
  const double *wrenches;
  double *out[4];
  int frame, nf, method;
  unsigned flags;
  double h;
} Call2;

static int call2(int fn, const Call2 *c) {
  switch (fn) {
    case G_POSE:
      return geolin_frame_pose(c->ws, c->H, c->s, c->frame, c->out[0]);
    case G_JAC:
      return geolin_frame_jacobian(c->ws, c->H, c->s, c->frame, c->out[0]);
    case G_FDEXT:
      return geolin_forward_dynamics_ext(c->ws, c->H, c->s, c->v, c->r, c->tau, c->nf, c->frames,
                                         c->wrenches, c->flags, c->out[0]);
    case G_LINEXT:
      return geolin_linearize_ext(c->ws, c->H, c->s, c->v, c->r, c->tau, c->nf, c->frames,
                                  c->wrenches, c->flags, c->out[0], c->out[1]);
    case G_STEP:
      return geolin_step(c->ws, c->method, c->h, c->H, c->s, c->v, c->r, c->tau, c->out[0],
                         c->out[1], c->out[2], c->out[3]);
    default:
      return geolin_step_linearize(c->ws, c->method, c->h, c->H, c->s, c->v, c->r, c->tau,
                                   c->out[0], c->out[1]);
  }
}

static double g_out2[4][4 * MAXN * MAXN];

static void fill_outputs(const int *sizes) {
  int k;
  for (k = 0; k < 4; ++k) fill(g_out2[k], sizes[S_OUT1 + k], SENTINEL);
}

static int outputs_untouched(const int *sizes) {
  int k;
  for (k = 0; k < 4; ++k)
    if (!all_equal(g_out2[k], sizes[S_OUT1 + k], SENTINEL)) return 0;
  return 1;
}

/* A bad call: the status, the message names the argument and the function, nothing written. */
static void expect_failure(const char *label, int fn, const Call2 *c, const int *sizes, int status,
                           const char *what, const char *arg) {
  char expect[64];
  int st;
  fill_outputs(sizes);
  st = call2(fn, c);
  sprintf(expect, "'%s'", arg);
  CHECK(st == status, "%s: %s(%s) -> %d, expected %d", label, g_names[fn], what, st, status);
  CHECK(strstr(geolin_last_error(), expect) != NULL &&
            strstr(geolin_last_error(), g_names[fn]) != NULL,
        "%s: %s(%s): message names %s and the function: %s", label, g_names[fn], what, expect,
        geolin_last_error());
  CHECK(outputs_untouched(sizes), "%s: %s(%s) wrote nothing", label, g_names[fn], what);
}

static void test_misuse_ext(const char *label, const geolin_model *m) {
  const int nj = geolin_model_num_joints(m), n = geolin_model_num_dofs(m),
            N = geolin_model_state_dim(m), fixed = geolin_model_is_fixed_base(m),
            nfr = geolin_model_num_frames(m);
  const int nw = nfr >= 2 ? 2 : 1;
  geolin_workspace *ws = NULL;
  State x;
  int frames[2], fn, slot, i, st;
  double w[12];

  if (n > MAXN || geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  random_state(&x, nj);
  frames[0] = nfr - 1;
  frames[1] = 0;
  for (i = 0; i < 12; ++i) w[i] = urand();

  for (fn = 0; fn < G_COUNT; ++fn) {
    int sizes[S_COUNT];
    Call2 good;
    good.ws = ws;
    good.H = x.H;
    good.s = x.s;
    good.v = x.v;
    good.r = x.r;
    good.tau = x.tau;
    good.frames = frames;
    good.wrenches = w;
    for (i = 0; i < 4; ++i) good.out[i] = g_out2[i];
    good.frame = nfr - 1;
    good.nf = nw;
    good.method = fn == G_STEP ? GEOLIN_STEP_RK4 : GEOLIN_STEP_SEMI_IMPLICIT_EULER;
    good.flags = fn == G_LINEXT ? GEOLIN_WRENCH_MIXED : GEOLIN_WRENCH_LOCAL;
    good.h = 1e-3;
    for (slot = 0; slot < S_COUNT; ++slot) sizes[slot] = 0;
    sizes[S_WS] = 1;
    sizes[S_H] = 16;
    sizes[S_S] = nj;
    sizes[S_V] = 6;
    sizes[S_R] = nj;
    sizes[S_TAU] = nj;
    sizes[S_FRAMES] = nw;
    sizes[S_WRENCHES] = 6 * nw;
    switch (fn) {
      case G_POSE:
        sizes[S_OUT1] = 16;
        break;
      case G_JAC:
        sizes[S_OUT1] = 6 * n;
        break;
      case G_FDEXT:
        sizes[S_OUT1] = n;
        break;
      case G_LINEXT:
        sizes[S_OUT1] = N * N;
        sizes[S_OUT2] = N * (nj + 6 * nw);
        break;
      case G_STEP:
        sizes[S_OUT1] = 16;
        sizes[S_OUT2] = nj;
        sizes[S_OUT3] = 6;
        sizes[S_OUT4] = nj;
        break;
      default:
        sizes[S_OUT1] = N * N;
        sizes[S_OUT2] = N * nj;
        break;
    }
    for (slot = 0; slot < S_COUNT; ++slot)
      if (g_args[fn][slot] == NULL) sizes[slot] = 0;

    st = call2(fn, &good);
    CHECK(st == GEOLIN_OK, "%s: %s good call -> %d", label, g_names[fn], st);

    /* NULL for each pointer (not for empty arrays, nor H, v, H_next, v_next of a fixed base) */
    for (slot = 0; slot < S_COUNT; ++slot) {
      const char *name = g_args[fn][slot];
      Call2 bad = good;
      if (name == NULL || sizes[slot] == 0) continue;
      if (fixed && (slot == S_H || slot == S_V)) continue;
      if (fixed && fn == G_STEP && (slot == S_OUT1 || slot == S_OUT3)) continue;
      switch (slot) {
        case S_WS:
          bad.ws = NULL;
          break;
        case S_H:
          bad.H = NULL;
          break;
        case S_S:
          bad.s = NULL;
          break;
        case S_V:
          bad.v = NULL;
          break;
        case S_R:
          bad.r = NULL;
          break;
        case S_TAU:
          bad.tau = NULL;
          break;
        case S_FRAMES:
          bad.frames = NULL;
          break;
        case S_WRENCHES:
          bad.wrenches = NULL;
          break;
        default:
          bad.out[slot - S_OUT1] = NULL;
          break;
      }
      expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT, "NULL", name);
    }
    if (fixed && fn == G_STEP) {
      Call2 ok = good;
      ok.H = NULL;
      ok.v = NULL;
      ok.out[0] = NULL;
      ok.out[2] = NULL;
      st = call2(fn, &ok);
      CHECK(st == GEOLIN_OK, "%s: fixed base step with NULL H, v, H_next, v_next -> %d", label, st);
    }
    if (fixed &&
        (fn == G_POSE || fn == G_JAC || fn == G_STEPLIN || fn == G_FDEXT || fn == G_LINEXT)) {
      Call2 ok = good;
      ok.H = NULL;
      ok.v = NULL;
      st = call2(fn, &ok);
      CHECK(st == GEOLIN_OK, "%s: fixed base %s with NULL H, v -> %d", label, g_names[fn], st);
    }

    /* non-finite values in every entry of every input array */
    for (slot = S_H; slot <= S_WRENCHES; ++slot) {
      const char *name = g_args[fn][slot];
      double buf[MAXN > 16 ? MAXN : 16];
      int idx, kind;
      if (name == NULL || slot == S_FRAMES) continue;
      if (fixed && (slot == S_H || slot == S_V)) continue;
      for (idx = 0; idx < sizes[slot]; ++idx) {
        for (kind = 0; kind < 3; ++kind) {
          Call2 bad = good;
          const double *orig = slot == S_H     ? good.H
                               : slot == S_S   ? good.s
                               : slot == S_V   ? good.v
                               : slot == S_R   ? good.r
                               : slot == S_TAU ? good.tau
                                               : good.wrenches;
          char what[64];
          memcpy(buf, orig, sizeof(double) * (size_t)sizes[slot]);
          buf[idx] = kind == 0 ? NAN : kind == 1 ? INFINITY : -INFINITY;
          switch (slot) {
            case S_H:
              bad.H = buf;
              break;
            case S_S:
              bad.s = buf;
              break;
            case S_V:
              bad.v = buf;
              break;
            case S_R:
              bad.r = buf;
              break;
            case S_TAU:
              bad.tau = buf;
              break;
            default:
              bad.wrenches = buf;
              break;
          }
          sprintf(what, "%s[%d] = %g", name, idx, buf[idx]);
          expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_NONFINITE, what, name);
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
    if (!fixed) {
      double Hb[16];
      Call2 bad = good;
      memcpy(Hb, x.H, sizeof Hb);
      for (i = 0; i < 11; ++i) Hb[i] *= (i % 4 == 3) ? 1.0 : 1.01;
      bad.H = Hb;
      expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT, "scaled H", "H");
    }

    /* frame index out of range */
    if (fn == G_POSE || fn == G_JAC) {
      const int bad_frames[3] = {-1, nfr, 1 << 30};
      for (i = 0; i < 3; ++i) {
        Call2 bad = good;
        char what[32];
        bad.frame = bad_frames[i];
        sprintf(what, "frame = %d", bad_frames[i]);
        expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT, what, "frame");
      }
    }

    if (fn == G_FDEXT || fn == G_LINEXT) {
      const int bad_nf[3] = {-1, nfr + 1, -2147483647 - 1};
      const unsigned bad_flags[3] = {2u, 3u, 0x80000000u};
      int bad_frames[2];
      for (i = 0; i < 3; ++i) {
        Call2 bad = good;
        char what[32];
        bad.nf = bad_nf[i];
        sprintf(what, "nf = %d", bad_nf[i]);
        expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT, what, "nf");
      }
      for (i = 0; i < 3; ++i) {
        Call2 bad = good;
        char what[32];
        bad.flags = bad_flags[i];
        sprintf(what, "wrench_flags = %u", bad_flags[i]);
        expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT, what, "wrench_flags");
      }
      for (i = 0; i < 2; ++i) {
        Call2 bad = good;
        bad_frames[0] = frames[0];
        bad_frames[1] = frames[1];
        bad_frames[nw - 1] = i == 0 ? -1 : nfr;
        bad.frames = bad_frames;
        expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT,
                       i == 0 ? "frames[k] = -1" : "frames[k] = num_frames", "frames");
      }
      { /* nf = 0: frames and wrenches may be NULL */
        Call2 ok = good;
        ok.nf = 0;
        ok.frames = NULL;
        ok.wrenches = NULL;
        st = call2(fn, &ok);
        CHECK(st == GEOLIN_OK, "%s: %s(nf = 0, NULL, NULL) -> %d", label, g_names[fn], st);
      }
      if (fn == G_FDEXT) { /* nf = num_frames is allowed */
        static int all_frames[MAXN * 4];
        static double all_w[6 * MAXN * 4];
        Call2 ok = good;
        if (nfr <= MAXN * 4) {
          for (i = 0; i < nfr; ++i) all_frames[i] = i;
          for (i = 0; i < 6 * nfr; ++i) all_w[i] = 0.1 * urand();
          ok.nf = nfr;
          ok.frames = all_frames;
          ok.wrenches = all_w;
          st = call2(fn, &ok);
          CHECK(st == GEOLIN_OK, "%s: forward_dynamics_ext(nf = num_frames) -> %d", label, st);
        }
      }
    }

    if (fn == G_STEP || fn == G_STEPLIN) {
      const int bad_methods[3] = {-1, 3, 100};
      const double bad_h[5] = {0.0, -1e-3, NAN, INFINITY, -INFINITY};
      const int expect_h[5] = {GEOLIN_ERR_INVALID_ARGUMENT, GEOLIN_ERR_INVALID_ARGUMENT,
                               GEOLIN_ERR_NONFINITE, GEOLIN_ERR_NONFINITE, GEOLIN_ERR_NONFINITE};
      for (i = 0; i < 3; ++i) {
        Call2 bad = good;
        char what[32];
        bad.method = bad_methods[i];
        sprintf(what, "method = %d", bad_methods[i]);
        expect_failure(label, fn, &bad, sizes, GEOLIN_ERR_INVALID_ARGUMENT, what, "method");
      }
      for (i = 0; i < 5; ++i) {
        Call2 bad = good;
        char what[32];
        bad.h = bad_h[i];
        sprintf(what, "h = %g", bad_h[i]);
        expect_failure(label, fn, &bad, sizes, expect_h[i], what, "h");
      }
    }
  }
  geolin_workspace_free(ws);
}

/* ---------------------------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------------------------- */

/* Finite inputs whose result overflows (joint rates of 1e200, which square to 1e400 wherever a
 * rate enters the dynamics quadratically): linearize and linearize_ext return
 * GEOLIN_ERR_NUMERIC, name the output, and write nothing (A and B are written straight into the
 * caller's arrays, only after the result was checked). A model whose dynamics has no such term
 * (one joint on a fixed base) returns a finite result instead; main() checks that the numeric
 * failure was seen on some model. */
static int numeric_failures_seen = 0;
static void check_numeric_failure_writes_nothing(const char *label, const geolin_model *m) {
  const int nj = geolin_model_num_joints(m), N = geolin_model_state_dim(m);
  static double A[4 * MAXN * MAXN], B[2 * MAXN * (MAXN + 6)];
  const int frame = 0;
  const double w[6] = {1, 2, 3, 4, 5, 6};
  geolin_workspace *ws = NULL;
  State x;
  int i, k, st, intact = 1;
  if (nj == 0 || geolin_workspace_new(m, &ws) != GEOLIN_OK) return;
  random_state(&x, nj);
  for (i = 0; i < nj; ++i) x.r[i] = 1e200;
  for (k = 0; k < 2; ++k) {
    for (i = 0; i < N * N; ++i) A[i] = -7.0;
    for (i = 0; i < N * (nj + 6); ++i) B[i] = -7.0;
    st = k == 0 ? geolin_linearize(ws, x.H, x.s, x.v, x.r, x.tau, A, B)
                : geolin_linearize_ext(ws, x.H, x.s, x.v, x.r, x.tau, 1, &frame, w,
                                       GEOLIN_WRENCH_LOCAL, A, B);
    CHECK(st == GEOLIN_OK || st == GEOLIN_ERR_NUMERIC, "%s: linearize%s at r = 1e200 -> %d", label,
          k ? "_ext" : "", st);
    if (st != GEOLIN_ERR_NUMERIC) continue;
    ++numeric_failures_seen;
    CHECK(strstr(geolin_last_error(), "nothing was written") != NULL, "%s: message '%s'", label,
          geolin_last_error());
    for (i = 0; i < N * N; ++i) intact &= A[i] == -7.0;
    for (i = 0; i < N * (nj + 6); ++i) intact &= B[i] == -7.0;
    CHECK(intact, "%s: A and B untouched after GEOLIN_ERR_NUMERIC", label);
  }
  geolin_workspace_free(ws);
}

static void run_model(const char *label, const geolin_model *m) {
  check_numeric_failure_writes_nothing(label, m);
  check_dynamics(label, m);
  test_misuse(label, m);
  test_frames(label, m);
  check_frames_kinematics(label, m);
  check_wrenches(label, m);
  check_step(label, m);
  test_misuse_ext(label, m);
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
    test_tree_frames(m);
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
    test_tree_frames(m);
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
    check_wrenches("tree (damping)", m);
    check_step("tree (damping)", m);
    geolin_model_free(m);
  }

  CHECK(numeric_failures_seen > 0, "GEOLIN_ERR_NUMERIC from linearize on the tree (%d)",
        numeric_failures_seen);

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
