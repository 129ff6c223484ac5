/* The cost functions through the C ABI (C99): geolin_center_of_mass, geolin_centroidal_momentum,
 * geolin_frame_pose_error, geolin_frame_velocity and geolin_frame_acceleration, each derivative
 * against geometric central finite differences through x exp(z) computed here from the
 * functions' values alone (moving base at pitch +90 deg, fixed base), their identities, and
 * every misuse: the status, the argument named, nothing written.
 *
 * usage: test_capi_costs <models_dir>   (uses quadruped.urdf and arm7.urdf)
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

static double urand(unsigned long *state) { /* in [-1, 1] */
  *state = *state * 6364136223846793005ul + 1442695040888963407ul;
  return ((double)((*state >> 11) & 0xFFFFFFFFFFFFFul) / (double)0xFFFFFFFFFFFFFul) * 2.0 - 1.0;
}

/* 3x3 column-major products and the SE(3) exponential: H exp(z^), z = [v; w]. */
static void hat3(const double w[3], double W[9]) {
  W[0] = 0, W[1] = w[2], W[2] = -w[1];
  W[3] = -w[2], W[4] = 0, W[5] = w[0];
  W[6] = w[1], W[7] = -w[0], W[8] = 0;
}
static void mul3(const double *A, const double *B, double *C) {
  int i, j, k;
  for (j = 0; j < 3; ++j)
    for (i = 0; i < 3; ++i) {
      double t = 0.0;
      for (k = 0; k < 3; ++k) t += A[i + 3 * k] * B[k + 3 * j];
      C[i + 3 * j] = t;
    }
}
static void exp_se3(const double z[6], double E[16]) {
  const double *v = z, *w = z + 3;
  const double t = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const double a = t > 1e-8 ? sin(t) / t : 1.0 - t * t / 6.0;
  const double b = t > 1e-8 ? (1.0 - cos(t)) / (t * t) : 0.5 - t * t / 24.0;
  const double c = t > 1e-8 ? (t - sin(t)) / (t * t * t) : 1.0 / 6.0 - t * t / 120.0;
  double W[9], W2[9];
  int i, j;
  hat3(w, W);
  mul3(W, W, W2);
  for (j = 0; j < 3; ++j) {
    for (i = 0; i < 3; ++i) E[i + 4 * j] = (i == j) + a * W[i + 3 * j] + b * W2[i + 3 * j];
    E[3 + 4 * j] = 0.0;
  }
  for (i = 0; i < 3; ++i) { /* V v, V = 1 + b W + c W^2 */
    double t2 = v[i];
    for (j = 0; j < 3; ++j) t2 += (b * W[i + 3 * j] + c * W2[i + 3 * j]) * v[j];
    E[12 + i] = t2;
  }
  E[15] = 1.0;
}
static void mul4(const double *A, const double *B, double *C) {
  int i, j, k;
  for (j = 0; j < 4; ++j)
    for (i = 0; i < 4; ++i) {
      double t = 0.0;
      for (k = 0; k < 4; ++k) t += A[i + 4 * k] * B[k + 4 * j];
      C[i + 4 * j] = t;
    }
}

typedef struct {
  double H[16], s[MAXN], v[6], r[MAXN];
} State;

typedef struct {
  geolin_workspace *ws;
  int nj, n, N, fixed, frame;
  unsigned flags;
  const double *nu_dot, *H_ref;
} Setup;

/* x exp(z): H exp(z_H), s + z_s, v + z_v, r + z_r (fixed base: z = [z_s; z_r]). */
static void perturb(const Setup *c, const State *x, const double *z, State *y) {
  const int nv = c->fixed ? 0 : 6;
  int i;
  *y = *x;
  if (!c->fixed) {
    double E[16];
    exp_se3(z, E);
    mul4(x->H, E, y->H);
    for (i = 0; i < 6; ++i) y->v[i] = x->v[i] + z[c->n + i];
  }
  for (i = 0; i < c->nj; ++i) {
    y->s[i] = x->s[i] + z[nv + i];
    y->r[i] = x->r[i] + z[c->n + nv + i];
  }
}

/* The values of the five functions (out: 3 or 6 doubles). */
enum { kCom, kMomentum, kPoseError, kVelocity, kAcceleration };
static int value(const Setup *c, int which, const State *x, double *out) {
  double unused[3];
  switch (which) {
    case kCom:
      return geolin_center_of_mass(c->ws, x->H, x->s, x->v, x->r, out, unused, NULL);
    case kMomentum:
      return geolin_centroidal_momentum(c->ws, x->H, x->s, x->v, x->r, out, NULL, NULL);
    case kPoseError:
      return geolin_frame_pose_error(c->ws, x->H, x->s, c->frame, c->H_ref, out, NULL);
    case kVelocity:
      return geolin_frame_velocity(c->ws, x->H, x->s, x->v, x->r, c->frame, c->flags, out, NULL);
    default:
      return geolin_frame_acceleration(c->ws, x->H, x->s, x->v, x->r, c->nu_dot, c->frame, c->flags,
                                       out, NULL, NULL);
  }
}

/* max |D - central differences| / max(1, max |fd|) over rows x N. */
static double fd_error(const Setup *c, int which, const State *x, int rows, const double *D) {
  const double eps = 1e-6;
  double z[MAXNN], p[6], q[6], worst = 0.0, scale = 1.0;
  double fd[6 * MAXNN];
  State y;
  int k, i;
  for (k = 0; k < c->N; ++k) {
    memset(z, 0, sizeof z);
    z[k] = eps;
    perturb(c, x, z, &y);
    if (value(c, which, &y, p) != GEOLIN_OK) return 1e300;
    z[k] = -eps;
    perturb(c, x, z, &y);
    if (value(c, which, &y, q) != GEOLIN_OK) return 1e300;
    for (i = 0; i < rows; ++i) {
      fd[i + rows * k] = (p[i] - q[i]) / (2 * eps);
      if (fabs(fd[i + rows * k]) > scale) scale = fabs(fd[i + rows * k]);
    }
  }
  for (k = 0; k < rows * c->N; ++k)
    if (fabs(D[k] - fd[k]) > worst) worst = fabs(D[k] - fd[k]);
  return worst / scale;
}

static void random_state(const Setup *c, unsigned long *rng, State *x) {
  const double pitch[16] = {0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0.2, -0.1, 0.5, 1}; /* +90 deg */
  int i;
  memcpy(x->H, pitch, sizeof pitch);
  for (i = 0; i < 6; ++i) x->v[i] = urand(rng);
  for (i = 0; i < c->nj; ++i) {
    x->s[i] = 3.0 * urand(rng);
    x->r[i] = urand(rng);
  }
}

static void test_derivatives(const char *path, unsigned load_flags) {
  geolin_model *model = NULL;
  Setup c;
  State x;
  unsigned long rng = 12345;
  double com[3], cv[3], J[3 * MAXN], h[6], A[6 * MAXN], D[6 * MAXNN], Dn[6 * MAXN];
  double e[6], H_F[16], nu_dot[MAXN], acc[6], tw[6], Jf[6 * MAXN], m;
  int i, k, f, flags;
  CHECK(geolin_model_load_urdf(path, load_flags, &model) == GEOLIN_OK, "load %s", path);
  if (!model) return;
  CHECK(geolin_workspace_new(model, &c.ws) == GEOLIN_OK, "workspace");
  c.nj = geolin_model_num_joints(model);
  c.n = geolin_model_num_dofs(model);
  c.N = geolin_model_state_dim(model);
  c.fixed = geolin_model_is_fixed_base(model);
  m = geolin_model_total_mass(model);
  random_state(&c, &rng, &x);
  for (i = 0; i < c.n; ++i) nu_dot[i] = urand(&rng);
  c.nu_dot = nu_dot;

  /* Centre of mass: J_com nu = com_velocity; the derivative = [J_com, 0]. */
  CHECK(geolin_center_of_mass(c.ws, c.fixed ? NULL : x.H, x.s, c.fixed ? NULL : x.v, x.r, com, cv,
                              J) == GEOLIN_OK,
        "center_of_mass");
  {
    const int nv = c.fixed ? 0 : 6;
    double Dc[3 * MAXNN], worst = 0.0;
    memset(Dc, 0, sizeof Dc);
    memcpy(Dc, J, sizeof(double) * 3 * (nv + c.nj));
    CHECK(fd_error(&c, kCom, &x, 3, Dc) < 1e-7, "J_com vs finite differences");
    for (i = 0; i < 3; ++i) {
      double t = 0.0;
      for (k = 0; k < c.n; ++k) t += J[i + 3 * k] * (k < nv ? x.v[k] : x.r[k - nv]);
      if (fabs(t - cv[i]) > worst) worst = fabs(t - cv[i]);
    }
    CHECK(worst < 1e-12, "J_com nu = com_velocity (%g)", worst);
  }
  /* Centroidal momentum: A_G nu = h_G, linear part m com_velocity, dh_dz vs differences. */
  CHECK(geolin_centroidal_momentum(c.ws, x.H, x.s, x.v, x.r, h, A, D) == GEOLIN_OK, "momentum");
  {
    const int nv = c.fixed ? 0 : 6;
    double worst = 0.0;
    for (i = 0; i < 6; ++i) {
      double t = 0.0;
      for (k = 0; k < c.n; ++k) t += A[i + 6 * k] * (k < nv ? x.v[k] : x.r[k - nv]);
      if (fabs(t - h[i]) > worst) worst = fabs(t - h[i]);
      if (i < 3 && fabs(h[i] - m * cv[i]) > worst) worst = fabs(h[i] - m * cv[i]);
    }
    CHECK(worst < 1e-11, "A_G nu = h_G, h_lin = m com_velocity (%g)", worst);
    CHECK(fd_error(&c, kMomentum, &x, 6, D) < 1e-6, "dh_dz vs finite differences");
  }
  for (f = 0; f < geolin_model_num_frames(model); f += 3) {
    c.frame = f;
    /* Pose error: zero at its own pose, derivative there = [J_F, 0]; differences elsewhere. */
    CHECK(geolin_frame_pose(c.ws, x.H, x.s, f, H_F) == GEOLIN_OK, "pose");
    CHECK(geolin_frame_jacobian(c.ws, x.H, x.s, f, Jf) == GEOLIN_OK, "jacobian");
    c.H_ref = H_F;
    CHECK(geolin_frame_pose_error(c.ws, x.H, x.s, f, H_F, e, D) == GEOLIN_OK, "pose error");
    {
      const int nv = c.fixed ? 0 : 6;
      double worst = 0.0;
      for (i = 0; i < 6; ++i) worst = fabs(e[i]) > worst ? fabs(e[i]) : worst;
      for (k = 0; k < 6 * c.N; ++k) {
        const double expect = k < 6 * (nv + c.nj) ? Jf[k] : 0.0;
        if (fabs(D[k] - expect) > worst) worst = fabs(D[k] - expect);
      }
      CHECK(worst < 1e-12, "pose error at H_ref = H_F (%g)", worst);
    }
    {
      double ref[16], E[16], zr[6] = {0.1, -0.2, 0.05, 0.3, -0.2, 0.5};
      exp_se3(zr, E);
      mul4(H_F, E, ref);
      c.H_ref = ref;
      CHECK(geolin_frame_pose_error(c.ws, x.H, x.s, f, ref, e, D) == GEOLIN_OK, "pose error");
      CHECK(fd_error(&c, kPoseError, &x, 6, D) < 1e-7, "de_dz vs finite differences, frame %d", f);
    }
    for (flags = 0; flags <= 1; ++flags) {
      c.flags = (unsigned)flags;
      CHECK(geolin_frame_velocity(c.ws, x.H, x.s, x.v, x.r, f, c.flags, tw, D) == GEOLIN_OK, "vel");
      CHECK(fd_error(&c, kVelocity, &x, 6, D) < 1e-7, "dtwist_dz, frame %d flags %d", f, flags);
      CHECK(geolin_frame_acceleration(c.ws, x.H, x.s, x.v, x.r, nu_dot, f, c.flags, acc, D, Dn) ==
                GEOLIN_OK,
            "acc");
      CHECK(fd_error(&c, kAcceleration, &x, 6, D) < 1e-7, "dacc_dz, frame %d flags %d", f, flags);
      if (flags == GEOLIN_WRENCH_LOCAL) {
        double worst = 0.0;
        for (k = 0; k < 6 * c.n; ++k)
          worst = fabs(Dn[k] - Jf[k]) > worst ? fabs(Dn[k] - Jf[k]) : worst;
        CHECK(worst < 1e-14, "dacc_dnudot = J_F (Local), frame %d (%g)", f, worst);
      }
    }
  }
  geolin_workspace_free(c.ws);
  geolin_model_free(model);
}

/* Misuse: each call returns its status, names the argument, writes nothing. */
static void test_misuse(const char *path) {
  geolin_model *model = NULL;
  geolin_workspace *ws = NULL;
  double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, bad[16];
  double s[MAXN] = {0}, v[6] = {0}, r[MAXN] = {0}, nd[MAXN] = {0};
  double out6[6], D[6 * MAXNN], J[6 * MAXN];
  int nf, st;
  CHECK(geolin_model_load_urdf(path, 0, &model) == GEOLIN_OK, "load");
  if (!model) return;
  CHECK(geolin_workspace_new(model, &ws) == GEOLIN_OK, "workspace");
  nf = geolin_model_num_frames(model);
  fill(out6, 6, SENTINEL);
  fill(D, 6 * MAXNN, SENTINEL);
  fill(J, 6 * MAXN, SENTINEL);
  st = geolin_frame_velocity(ws, H, s, v, r, nf, 0u, out6, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'frame'"), "frame");
  st = geolin_frame_acceleration(ws, H, s, v, r, nd, -1, 0u, out6, D, J);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'frame'"), "frame<0");
  st = geolin_frame_velocity(ws, H, s, v, r, 0, 2u, out6, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'flags'"), "flags");
  st = geolin_frame_acceleration(ws, H, s, v, r, nd, 0, 7u, out6, D, J);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'flags'"), "flags");
  st = geolin_frame_acceleration(ws, H, s, v, r, NULL, 0, 0u, out6, D, J);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'nu_dot'"), "nu_dot");
  memcpy(bad, H, sizeof H);
  bad[0] = 2.0; /* scaled: not rigid */
  st = geolin_frame_pose_error(ws, H, s, 0, bad, out6, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'H_ref'"), "H_ref");
  st = geolin_frame_pose_error(ws, H, s, 0, NULL, out6, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'H_ref'"), "H_ref NULL");
  st = geolin_frame_pose_error(ws, bad, s, 0, H, out6, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'H'"), "H");
  st = geolin_frame_velocity(ws, H, s, NULL, r, 0, 0u, out6, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'v'"), "v NULL moving");
  st = geolin_centroidal_momentum(ws, H, s, v, r, NULL, J, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'h_G'"), "h_G NULL");
  st = geolin_frame_velocity(ws, H, s, v, r, 0, 0u, NULL, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'twist'"), "twist");
  st = geolin_frame_pose_error(ws, H, s, 0, H, NULL, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'error'"), "error");
  st = geolin_frame_acceleration(ws, H, s, v, r, nd, 0, 0u, NULL, D, J);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'acc'"), "acc");
  st = geolin_centroidal_momentum(ws, H, s, v, r, out6, D, D);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "overlap"), "overlap");
  v[2] = NAN;
  st = geolin_center_of_mass(ws, H, s, v, r, out6, out6 + 3, J);
  CHECK(st == GEOLIN_ERR_NONFINITE && strstr(geolin_last_error(), "'v'"), "nan v");
  v[2] = 0.0;
  st = geolin_center_of_mass(NULL, H, s, v, r, out6, NULL, NULL);
  CHECK(st == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'ws'"), "ws");
  CHECK(untouched(out6, 6) && untouched(D, 6 * MAXNN) && untouched(J, 6 * MAXN),
        "nothing written on error");
  /* Every output of the centre of mass may be NULL. */
  CHECK(geolin_center_of_mass(ws, H, s, v, r, NULL, NULL, NULL) == GEOLIN_OK, "all NULL");
  geolin_workspace_free(ws);
  geolin_model_free(model);
}

int main(int argc, char **argv) {
  char path[1024];
  if (argc < 2) {
    fprintf(stderr, "usage: %s <models_dir>\n", argv[0]);
    return 2;
  }
  snprintf(path, sizeof path, "%s/quadruped.urdf", argv[1]);
  test_derivatives(path, 0u);
  test_misuse(path);
  snprintf(path, sizeof path, "%s/arm7.urdf", argv[1]);
  test_derivatives(path, GEOLIN_FIXED_BASE);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
