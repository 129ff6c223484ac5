/* The contact-constrained dynamics through the C ABI (C99): geolin_contact_dynamics and
 * geolin_contact_linearize against their identities and against geometric central finite
 * differences computed here, from geolin_contact_dynamics alone; every misuse returns its status,
 * names the argument, and writes nothing. A redundant set is refused, and solved once a contact
 * regularization is set (geolin_workspace_set_contact_regularization).
 *
 * usage: test_capi_contacts <models_dir>   (uses quadruped.urdf, humanoid.urdf, arm7.urdf)
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
  double H[16], s[MAXN], v[6], r[MAXN], tau[MAXN];
} State;

typedef struct {
  geolin_model *model;
  geolin_workspace *ws;
  int nj, n, N, fixed;
  int nc, frames[4], types[4], m;
  unsigned flags;
  double gains[2];
  double refs[16 * 4];
} Setup;

static int setup(Setup *x, const char *dir, const char *file, unsigned load_flags,
                 const char *const *names, const int *types, int nc) {
  char path[1024];
  int k, st;
  memset(x, 0, sizeof *x);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  st = geolin_model_load_urdf(path, load_flags, &x->model);
  CHECK(st == GEOLIN_OK, "load %s -> %d", path, st);
  if (st != GEOLIN_OK) return 0;
  CHECK(geolin_workspace_new(x->model, &x->ws) == GEOLIN_OK, "workspace");
  x->nj = geolin_model_num_joints(x->model);
  x->n = geolin_model_num_dofs(x->model);
  x->N = geolin_model_state_dim(x->model);
  x->fixed = geolin_model_is_fixed_base(x->model);
  x->nc = nc;
  x->m = 0;
  for (k = 0; k < nc; ++k) {
    x->frames[k] = geolin_model_frame_index(x->model, names[k]);
    CHECK(x->frames[k] >= 0, "frame %s", names[k]);
    x->types[k] = types[k];
    x->m += types[k];
  }
  return x->n <= MAXN && x->m <= MAXM;
}

static void random_state(const Setup *x, State *st, unsigned long seed) {
  double z[6], E[16], I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0.5, 1};
  int i;
  for (i = 0; i < 6; ++i) z[i] = urand(&seed);
  exp_se3(z, E);
  mul4(I, E, st->H);
  for (i = 0; i < 6; ++i) st->v[i] = 0.5 * urand(&seed);
  for (i = 0; i < x->nj; ++i) {
    st->s[i] = 1.5 * urand(&seed);
    st->r[i] = 0.5 * urand(&seed);
    st->tau[i] = urand(&seed);
  }
}

/* Reference poses a little away from the frames' current poses. */
static void make_refs(Setup *x, const State *st) {
  int k;
  for (k = 0; k < x->nc; ++k) {
    double Hf[16], D[16], z[6] = {0.01, -0.02, 0.015, 0.04, -0.03, 0.02};
    CHECK(geolin_frame_pose(x->ws, st->H, st->s, x->frames[k], Hf) == GEOLIN_OK, "pose");
    exp_se3(z, D);
    mul4(Hf, D, x->refs + 16 * k);
  }
}

static int contact_dynamics(Setup *x, const double *H, const double *s, const double *v,
                            const double *r, const double *tau, double *nu_dot, double *lambda) {
  return geolin_contact_dynamics(x->ws, H, s, v, r, tau, x->nc, x->frames, x->types, x->flags,
                                 x->gains, x->refs, nu_dot, lambda);
}

/* lambda fed back as external wrenches reproduces nu_dot; nc = 0 equals the free dynamics. */
static void check_identities(Setup *x, const State *st, const char *label) {
  double nu[MAXN], lam[MAXM], nu_ext[MAXN], w[6 * 4];
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN], A0[MAXNN * MAXNN], B0[MAXNN * MAXN];
  int k, row = 0, i, status;
  double worst = 0.0, scale = 1.0;
  status = contact_dynamics(x, st->H, st->s, st->v, st->r, st->tau, nu, lam);
  CHECK(status == GEOLIN_OK, "%s: contact_dynamics -> %d", label, status);
  fill(w, 24, 0.0);
  for (k = 0; k < x->nc; ++k) {
    for (i = 0; i < x->types[k]; ++i) w[6 * k + i] = lam[row + i];
    row += x->types[k];
  }
  status = geolin_forward_dynamics_ext(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                       w, x->flags, nu_ext);
  CHECK(status == GEOLIN_OK, "%s: forward_dynamics_ext -> %d", label, status);
  for (i = 0; i < x->n; ++i) {
    worst = fabs(nu[i] - nu_ext[i]) > worst ? fabs(nu[i] - nu_ext[i]) : worst;
    scale = fabs(nu[i]) > scale ? fabs(nu[i]) : scale;
  }
  CHECK(worst < 1e-10 * scale, "%s: lambda as wrenches reproduces nu_dot (%g)", label, worst);

  status = geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, 0, NULL, NULL,
                                   x->flags, NULL, NULL, nu, NULL);
  CHECK(status == GEOLIN_OK, "%s: nc = 0 -> %d", label, status);
  CHECK(geolin_forward_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, nu_ext) == GEOLIN_OK,
        "fd");
  CHECK(memcmp(nu, nu_ext, sizeof(double) * (size_t)x->n) == 0, "%s: nc = 0 equals FD", label);
  status = geolin_contact_linearize(x->ws, st->H, st->s, st->v, st->r, st->tau, 0, NULL, NULL,
                                    x->flags, NULL, NULL, A, B, NULL, NULL);
  CHECK(status == GEOLIN_OK, "%s: linearize nc = 0 -> %d", label, status);
  CHECK(geolin_linearize(x->ws, st->H, st->s, st->v, st->r, st->tau, A0, B0) == GEOLIN_OK, "lin");
  CHECK(memcmp(A, A0, sizeof(double) * (size_t)(x->N * x->N)) == 0 &&
            memcmp(B, B0, sizeof(double) * (size_t)(x->N * x->nj)) == 0,
        "%s: nc = 0 equals linearize", label);
}

/* Geometric central differences of geolin_contact_dynamics, column by column. */
static void check_finite_differences(Setup *x, const State *st, const char *label) {
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN], dz[MAXM * MAXNN], dw[MAXM * MAXN];
  double Hp[16], E[16], sp[MAXN], vp[6], rp[MAXN], tp[MAXN];
  double nu_p[MAXN], nu_m[MAXN], lam_p[MAXM], lam_m[MAXM];
  const double eps = 1e-5;
  const int n = x->n, N = x->N, nj = x->nj, m = x->m, off = x->fixed ? 0 : 6;
  double errA = 0.0, errB = 0.0, errZ = 0.0, errW = 0.0, scaleA = 1.0, scaleL = 1.0;
  int col, sign, i, status;
  status = geolin_contact_linearize(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                    x->types, x->flags, x->gains, x->refs, A, B, dz, dw);
  CHECK(status == GEOLIN_OK, "%s: contact_linearize -> %d", label, status);
  if (status != GEOLIN_OK) return;
  for (i = 0; i < N * N; ++i) scaleA = fabs(A[i]) > scaleA ? fabs(A[i]) : scaleA;
  for (i = 0; i < m * N; ++i) scaleL = fabs(dz[i]) > scaleL ? fabs(dz[i]) : scaleL;
  for (col = 0; col < N + nj; ++col) {
    for (sign = 0; sign < 2; ++sign) {
      const double e = sign == 0 ? eps : -eps;
      memcpy(Hp, st->H, sizeof Hp);
      memcpy(sp, st->s, sizeof sp);
      memcpy(vp, st->v, sizeof vp);
      memcpy(rp, st->r, sizeof rp);
      memcpy(tp, st->tau, sizeof tp);
      if (col >= N) {
        tp[col - N] += e;
      } else if (!x->fixed && col < 6) {
        double z[6] = {0, 0, 0, 0, 0, 0};
        z[col] = e;
        exp_se3(z, E);
        mul4(st->H, E, Hp);
      } else if (col < n) {
        sp[col - off] += e;
      } else if (!x->fixed && col < n + 6) {
        vp[col - n] += e;
      } else {
        rp[col - n - off] += e;
      }
      status = contact_dynamics(x, Hp, sp, vp, rp, tp, sign == 0 ? nu_p : nu_m,
                                sign == 0 ? lam_p : lam_m);
      CHECK(status == GEOLIN_OK, "%s: perturbed contact_dynamics -> %d", label, status);
    }
    for (i = 0; i < n; ++i) { /* the dynamic rows of A (or B) */
      const double fd = (nu_p[i] - nu_m[i]) / (2.0 * eps);
      if (col < N)
        errA = fmax(errA, fabs(A[n + i + N * col] - fd));
      else
        errB = fmax(errB, fabs(B[n + i + N * (col - N)] - fd));
    }
    for (i = 0; i < m; ++i) {
      const double fd = (lam_p[i] - lam_m[i]) / (2.0 * eps);
      if (col < N)
        errZ = fmax(errZ, fabs(dz[i + m * col] - fd));
      else
        errW = fmax(errW, fabs(dw[i + m * (col - N)] - fd));
    }
  }
  /* The kinematic rows are those of geolin_linearize (not differentiated here). */
  CHECK(errA / scaleA < 1e-6, "%s: A vs finite differences %g", label, errA / scaleA);
  CHECK(errB / scaleA < 1e-6, "%s: B vs finite differences %g", label, errB / scaleA);
  CHECK(errZ / scaleL < 1e-6, "%s: dlambda/dz vs finite differences %g", label, errZ / scaleL);
  CHECK(errW / scaleL < 1e-6, "%s: dlambda/dw vs finite differences %g", label, errW / scaleL);
  printf(
      "%s: worst relative error vs finite differences: A %.1e, B %.1e, dlambda/dz %.1e, "
      "dlambda/dw %.1e\n",
      label, errA / scaleA, errB / scaleA, errZ / scaleL, errW / scaleL);
}

/* geolin_impulse and geolin_impulse_linearize: nc = 0 leaves nu alone and A_imp = I exactly;
 * in place (outputs aliasing v and r) gives the same nu+; A_imp is the identity in the pose rows
 * and its velocity rows and dimpulse_dz agree with geometric central differences of
 * geolin_impulse; a restitution outside [0, 1] or NaN is refused and nothing is written. */
static void check_impulse(Setup *x, const State *st, const char *label) {
  static double A[MAXNN * MAXNN], dz[MAXM * MAXNN];
  double Hp[16], E[16], sp[MAXN], vp[6], rp[MAXN], vn[6], rn[MAXN], lam[MAXM];
  double vpl[6], rpl[MAXN], vml[6], rml[MAXN], lp[MAXM], lm[MAXM];
  const double eps = 1e-5, e = 0.3;
  const int n = x->n, N = x->N, nj = x->nj, m = x->m, off = x->fixed ? 0 : 6;
  double errA = 0.0, errZ = 0.0, scaleA = 1.0, scaleL = 1.0;
  int col, sign, i, status, pose_ok = 1;
  status =
      geolin_impulse(x->ws, st->H, st->s, st->v, st->r, 0, NULL, NULL, x->flags, e, vn, rn, NULL);
  CHECK(status == GEOLIN_OK && memcmp(rn, st->r, sizeof(double) * (size_t)nj) == 0 &&
            (x->fixed || memcmp(vn, st->v, sizeof vn) == 0),
        "%s: impulse with nc = 0 leaves nu alone", label);
  status = geolin_impulse_linearize(x->ws, st->H, st->s, st->v, st->r, 0, NULL, NULL, x->flags, e,
                                    A, NULL);
  for (i = 0; i < N * N; ++i) pose_ok = pose_ok && A[i] == (i % (N + 1) == 0 ? 1.0 : 0.0);
  CHECK(status == GEOLIN_OK && pose_ok, "%s: impulse_linearize with nc = 0 is I", label);
  status = geolin_impulse(x->ws, st->H, st->s, st->v, st->r, x->nc, x->frames, x->types, x->flags,
                          e, vn, rn, lam);
  CHECK(status == GEOLIN_OK, "%s: impulse -> %d", label, status);
  memcpy(vp, st->v, sizeof vp);
  memcpy(rp, st->r, sizeof rp);
  status = geolin_impulse(x->ws, st->H, st->s, vp, rp, x->nc, x->frames, x->types, x->flags, e, vp,
                          rp, NULL);
  CHECK(status == GEOLIN_OK && memcmp(rp, rn, sizeof(double) * (size_t)nj) == 0 &&
            (x->fixed || memcmp(vp, vn, sizeof vn) == 0),
        "%s: impulse in place", label);
  status = geolin_impulse_linearize(x->ws, st->H, st->s, st->v, st->r, x->nc, x->frames, x->types,
                                    x->flags, e, A, dz);
  CHECK(status == GEOLIN_OK, "%s: impulse_linearize -> %d", label, status);
  if (status != GEOLIN_OK) return;
  for (col = 0; col < N; ++col)
    for (i = 0; i < n; ++i) pose_ok = pose_ok && A[i + N * col] == (i == col ? 1.0 : 0.0);
  CHECK(pose_ok, "%s: A_imp is the identity in the pose rows", label);
  for (i = 0; i < N * N; ++i) scaleA = fabs(A[i]) > scaleA ? fabs(A[i]) : scaleA;
  for (i = 0; i < m * N; ++i) scaleL = fabs(dz[i]) > scaleL ? fabs(dz[i]) : scaleL;
  for (col = 0; col < N; ++col) {
    for (sign = 0; sign < 2; ++sign) {
      const double d = sign == 0 ? eps : -eps;
      memcpy(Hp, st->H, sizeof Hp);
      memcpy(sp, st->s, sizeof sp);
      memcpy(vp, st->v, sizeof vp);
      memcpy(rp, st->r, sizeof rp);
      if (!x->fixed && col < 6) {
        double z[6] = {0, 0, 0, 0, 0, 0};
        z[col] = d;
        exp_se3(z, E);
        mul4(st->H, E, Hp);
      } else if (col < n) {
        sp[col - off] += d;
      } else if (!x->fixed && col < n + 6) {
        vp[col - n] += d;
      } else {
        rp[col - n - off] += d;
      }
      status = geolin_impulse(x->ws, Hp, sp, vp, rp, x->nc, x->frames, x->types, x->flags, e,
                              sign == 0 ? vpl : vml, sign == 0 ? rpl : rml, sign == 0 ? lp : lm);
      CHECK(status == GEOLIN_OK, "%s: perturbed impulse -> %d", label, status);
    }
    for (i = 0; i < n; ++i) {
      const double hi = i < off ? vpl[i] : rpl[i - off], lo = i < off ? vml[i] : rml[i - off];
      errA = fmax(errA, fabs(A[n + i + N * col] - (hi - lo) / (2.0 * eps)));
    }
    for (i = 0; i < m; ++i)
      errZ = fmax(errZ, fabs(dz[i + m * col] - (lp[i] - lm[i]) / (2.0 * eps)));
  }
  CHECK(errA / scaleA < 1e-6, "%s: A_imp vs finite differences %g", label, errA / scaleA);
  CHECK(errZ / scaleL < 1e-6, "%s: dimpulse/dz vs finite differences %g", label, errZ / scaleL);
  printf("%s: impulse, worst relative error vs finite differences: A_imp %.1e, dimpulse/dz %.1e\n",
         label, errA / scaleA, errZ / scaleL);
  fill(vp, 6, 7.0);
  fill(rp, MAXN, 7.0);
  status = geolin_impulse(x->ws, st->H, st->s, st->v, st->r, x->nc, x->frames, x->types, x->flags,
                          -0.1, vp, rp, NULL);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'restitution'") &&
            vp[0] == 7.0 && rp[0] == 7.0,
        "%s: restitution -0.1 refused, nothing written", label);
  status = geolin_impulse_linearize(x->ws, st->H, st->s, st->v, st->r, x->nc, x->frames, x->types,
                                    x->flags, NAN, A, NULL);
  CHECK(status == GEOLIN_ERR_NONFINITE && strstr(geolin_last_error(), "'restitution'"),
        "%s: restitution NaN refused", label);
}

/* geolin_contact_step and geolin_contact_step_linearize through the ABI: nc = 0 equals
 * geolin_step / geolin_step_linearize bit for bit; Euler's lambda is geolin_contact_dynamics'
 * at the state and its nu+ is nu + h nu_dot; NULL lambda and dlambda outputs are allowed; h = 0
 * is refused with nothing written. (The derivatives against finite differences:
 * tests/test_contact_step.cpp.) */
static void check_contact_step(Setup *x, const State *st, const char *label) {
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN], A0[MAXNN * MAXNN], B0[MAXNN * MAXN];
  static double dz[MAXM * MAXNN], dw[MAXM * MAXN];
  double H1[16], s1[MAXN], v1[6], r1[MAXN], H0[16], s0[MAXN], v0[6], r0[MAXN];
  double nu[MAXN], lam[MAXM], lam_step[MAXM];
  const double h = 0.005;
  const int nj = x->nj, N = x->N, off = x->fixed ? 0 : 6;
  int method, i, status, same = 1;
  for (method = 0; method < 2; ++method) {
    status = geolin_contact_step(x->ws, method, h, st->H, st->s, st->v, st->r, st->tau, 0, NULL,
                                 NULL, x->flags, NULL, NULL, H1, s1, v1, r1, NULL);
    CHECK(status == GEOLIN_OK, "%s: contact_step nc = 0 -> %d", label, status);
    CHECK(geolin_step(x->ws, method, h, st->H, st->s, st->v, st->r, st->tau, H0, s0, v0, r0) ==
              GEOLIN_OK,
          "step");
    CHECK(memcmp(s1, s0, sizeof(double) * (size_t)nj) == 0 &&
              memcmp(r1, r0, sizeof(double) * (size_t)nj) == 0 &&
              (x->fixed || (memcmp(H1, H0, sizeof H0) == 0 && memcmp(v1, v0, sizeof v0) == 0)),
          "%s: contact_step with nc = 0 equals geolin_step (method %d)", label, method);
    status = geolin_contact_step_linearize(x->ws, method, h, st->H, st->s, st->v, st->r, st->tau, 0,
                                           NULL, NULL, x->flags, NULL, NULL, A, B, NULL, NULL);
    CHECK(status == GEOLIN_OK, "%s: contact_step_linearize nc = 0 -> %d", label, status);
    CHECK(geolin_step_linearize(x->ws, method, h, st->H, st->s, st->v, st->r, st->tau, A0, B0) ==
              GEOLIN_OK,
          "step_linearize");
    CHECK(memcmp(A, A0, sizeof(double) * (size_t)(N * N)) == 0 &&
              memcmp(B, B0, sizeof(double) * (size_t)(N * nj)) == 0,
          "%s: contact_step_linearize with nc = 0 equals geolin_step_linearize", label);
    status = geolin_contact_step_linearize(x->ws, method, h, st->H, st->s, st->v, st->r, st->tau,
                                           x->nc, x->frames, x->types, x->flags, x->gains, x->refs,
                                           A, B, dz, dw);
    CHECK(status == GEOLIN_OK, "%s: contact_step_linearize -> %d", label, status);
    for (i = 0; i < N * N; ++i) same = same && isfinite(A[i]);
    CHECK(same, "%s: A_d finite", label);
  }
  status = contact_dynamics(x, st->H, st->s, st->v, st->r, st->tau, nu, lam);
  CHECK(status == GEOLIN_OK, "%s: contact_dynamics -> %d", label, status);
  status = geolin_contact_step(x->ws, GEOLIN_STEP_SEMI_IMPLICIT_EULER, h, st->H, st->s, st->v,
                               st->r, st->tau, x->nc, x->frames, x->types, x->flags, x->gains,
                               x->refs, H1, s1, v1, r1, lam_step);
  CHECK(status == GEOLIN_OK, "%s: contact_step -> %d", label, status);
  for (i = 0; i < x->m; ++i) same = same && lam_step[i] == lam[i];
  for (i = 0; i < nj; ++i)
    same = same && fabs(r1[i] - (st->r[i] + h * nu[off + i])) <= 1e-15 * (1.0 + fabs(r1[i]));
  CHECK(same, "%s: Euler contact_step's lambda and r+ are contact_dynamics'", label);
  fill(s1, MAXN, 7.0);
  status = geolin_contact_step(x->ws, 0, 0.0, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                               x->types, x->flags, x->gains, x->refs, H1, s1, v1, r1, NULL);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "'h'") && s1[0] == 7.0,
        "%s: h = 0 refused, nothing written", label);
}

/* A rigid contact's H_ref = refs[16 k .. 16 k + 15] that is not a rigid transform, one class
 * at a time: each is refused with its status, the message starts with the function and the
 * argument 'refs', names contact k and the index in refs (16 k + entry), and nothing is written
 * -- by both contact functions. */
static void check_bad_rigid_refs(Setup *x, const State *st, const double gains[2], int k) {
  enum { SCALED, SHEARED, REFLECTED, BOTTOM_ROW, NOT_A_NUMBER, CLASSES };
  static const char *const names[CLASSES] = {"scaled", "sheared", "det -1", "bottom row", "NaN"};
  double refs[16 * 4], nu[MAXN], lam[MAXM], *h = refs + 16 * k;
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN];
  char index[64];
  int c, i, status, expected;
  for (c = 0; c < CLASSES; ++c) {
    memcpy(refs, x->refs, sizeof refs);
    expected = GEOLIN_ERR_INVALID_ARGUMENT;
    /* the text that names the index in refs */
    snprintf(index, sizeof index, "refs[%d..%d]", 16 * k, 16 * k + 2);
    if (c == SCALED)
      for (i = 0; i < 11; ++i) h[i] *= 1.01;
    if (c == SHEARED) h[4] += 0.3 * h[0], h[5] += 0.3 * h[1], h[6] += 0.3 * h[2];
    if (c == REFLECTED)
      for (i = 0; i < 3; ++i) h[i] = -h[i];
    if (c == BOTTOM_ROW) {
      h[7] = 0.25;
      snprintf(index, sizeof index, "refs[%d] = 0.25", 16 * k + 7);
    }
    if (c == NOT_A_NUMBER) {
      h[9] = NAN;
      expected = GEOLIN_ERR_NONFINITE;
      snprintf(index, sizeof index, "at index %d (contact %d", 16 * k + 9, k);
    }
    fill(nu, x->n, SENTINEL);
    fill(lam, x->m, SENTINEL);
    status = geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                     x->types, x->flags, gains, refs, nu, lam);
    CHECK(status == expected, "refs of contact %d %s -> %d", k, names[c], status);
    CHECK(strstr(geolin_last_error(), "geolin_contact_dynamics: argument 'refs'") ==
              geolin_last_error(),
          "refs of contact %d %s: the message starts with the argument", k, names[c]);
    CHECK(strstr(geolin_last_error(), index) != NULL, "refs of contact %d %s: names '%s'", k,
          names[c], index);
    snprintf(index, sizeof index, "contact %d", k);
    CHECK(strstr(geolin_last_error(), index) != NULL, "refs of contact %d %s: names the contact", k,
          names[c]);
    CHECK(untouched(nu, x->n) && untouched(lam, x->m), "refs %s: nothing written", names[c]);
    fill(A, x->N * x->N, SENTINEL);
    status = geolin_contact_linearize(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, x->flags, gains, refs, A, B, NULL, NULL);
    CHECK(status == expected && untouched(A, x->N * x->N), "linearize, refs %s -> %d", names[c],
          status);
    CHECK(strstr(geolin_last_error(), "geolin_contact_linearize: argument 'refs'") ==
              geolin_last_error(),
          "linearize, refs %s: the message starts with the argument", names[c]);
  }
}

/* Misuse: each returns its status, names the argument, and writes nothing. */
static void check_misuse(Setup *x, const State *st) {
  double nu[MAXN], lam[MAXM];
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN];
  int bad_types[4], bad_frames[4], k, status;
  double gains[2], refs[16 * 4];
#define EXPECT_FAIL(expected, word, call)                                               \
  do {                                                                                  \
    fill(nu, x->n, SENTINEL);                                                           \
    fill(lam, x->m, SENTINEL);                                                          \
    status = (call);                                                                    \
    CHECK(status == (expected), "%s -> %d", #call, status);                             \
    CHECK(strstr(geolin_last_error(), word) != NULL, "message names '%s'", word);       \
    CHECK(untouched(nu, x->n) && untouched(lam, x->m), "nothing written by %s", #call); \
  } while (0)
  memcpy(bad_types, x->types, sizeof bad_types);
  bad_types[x->nc - 1] = 4;
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "types",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      bad_types, x->flags, NULL, NULL, nu, lam));
  memcpy(bad_frames, x->frames, sizeof bad_frames);
  bad_frames[0] = geolin_model_num_frames(x->model);
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "frames",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, bad_frames,
                                      x->types, x->flags, NULL, NULL, nu, lam));
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "wrench_flags",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, 7u, NULL, NULL, nu, lam));
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "nc",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, -1, x->frames,
                                      x->types, x->flags, NULL, NULL, nu, lam));
  gains[0] = NAN;
  gains[1] = 1.0;
  EXPECT_FAIL(GEOLIN_ERR_NONFINITE, "Kp",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, x->flags, gains, x->refs, nu, lam));
  gains[0] = 10.0;
  gains[1] = -1.0;
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "Kd",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, x->flags, gains, x->refs, nu, lam));
  gains[1] = 1.0;
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "refs",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, x->flags, gains, NULL, nu, lam));
  memcpy(refs, x->refs, sizeof refs);
  refs[16 * (x->nc - 1) + 13] = INFINITY;
  EXPECT_FAIL(GEOLIN_ERR_NONFINITE, "refs",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, x->flags, gains, refs, nu, lam));
  for (k = 0; k < x->nc; ++k)
    if (x->types[k] == GEOLIN_CONTACT_RIGID) {
      memcpy(refs, x->refs, sizeof refs);
      refs[16 * k + 0] = 2.0; /* not a rotation */
      EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "refs",
                  geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc,
                                          x->frames, x->types, x->flags, gains, refs, nu, lam));
    }
  for (k = 0; k < x->nc; ++k)
    if (x->types[k] == GEOLIN_CONTACT_RIGID) check_bad_rigid_refs(x, st, gains, k);
  EXPECT_FAIL(GEOLIN_ERR_INVALID_ARGUMENT, "lambda",
              geolin_contact_dynamics(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                      x->types, x->flags, NULL, NULL, nu, NULL));
  /* overlapping outputs */
  fill(A, x->N * x->N, SENTINEL);
  status = geolin_contact_linearize(x->ws, st->H, st->s, st->v, st->r, st->tau, x->nc, x->frames,
                                    x->types, x->flags, NULL, NULL, A, B, A + 1, NULL);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT && strstr(geolin_last_error(), "overlap"),
        "overlap -> %d", status);
  CHECK(untouched(A, x->N * x->N), "overlap: nothing written");
#undef EXPECT_FAIL
}

/* Redundant contacts (the same foot held twice): NUMERIC naming the contacts, nothing written. */
static void check_redundant(const char *dir) {
  static const char *const names[2] = {"FL_foot", "FL_foot"};
  static const int types[2] = {GEOLIN_CONTACT_RIGID, GEOLIN_CONTACT_POINT};
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN];
  Setup x;
  State st;
  double nu[MAXN], lam[MAXM];
  int status;
  if (!setup(&x, dir, "quadruped.urdf", 0u, names, types, 2)) return;
  random_state(&x, &st, 99u);
  fill(nu, x.n, SENTINEL);
  fill(lam, x.m, SENTINEL);
  status = contact_dynamics(&x, st.H, st.s, st.v, st.r, st.tau, nu, lam);
  CHECK(status == GEOLIN_ERR_NUMERIC, "redundant contacts -> %d", status);
  CHECK(strstr(geolin_last_error(), "contact 1") && strstr(geolin_last_error(), "FL_foot"),
        "names the contacts");
  CHECK(untouched(nu, x.n) && untouched(lam, x.m), "nothing written");
  fill(A, x.N * x.N, SENTINEL);
  status = geolin_contact_linearize(x.ws, st.H, st.s, st.v, st.r, st.tau, x.nc, x.frames, x.types,
                                    x.flags, NULL, NULL, A, B, NULL, NULL);
  CHECK(status == GEOLIN_ERR_NUMERIC && untouched(A, x.N * x.N), "linearize redundant -> %d",
        status);
  geolin_workspace_free(x.ws);
  geolin_model_free(x.model);
}

/* geolin_workspace_set_contact_regularization: misuse (NULL ws, negative, NaN, inf mu) names 'mu'
 * and leaves the setting as it was; with mu > 0 the redundant set of check_redundant is solved
 * by all six contact functions (finite outputs, lambda as wrenches reproduces nu_dot, the
 * linearization agrees with finite differences of the regularized call); mu = 0 refuses it
 * again. */
static void check_regularized(const char *dir) {
  static const char *const names[2] = {"FL_foot", "FL_foot"};
  static const int types[2] = {GEOLIN_CONTACT_RIGID, GEOLIN_CONTACT_POINT};
  static double A[MAXNN * MAXNN], B[MAXNN * MAXN], dz[MAXM * MAXNN];
  const double bad[3] = {-1e-6, NAN, INFINITY};
  double nu[MAXN], lam[MAXM], nu2[MAXN], lam2[MAXM], Hn[16], sn[MAXN], vn[6], rn[MAXN];
  Setup x;
  State st;
  int status, i;
  if (!setup(&x, dir, "quadruped.urdf", 0u, names, types, 2)) return;
  random_state(&x, &st, 98u);
  make_refs(&x, &st);
  status = geolin_workspace_set_contact_regularization(NULL, 1e-4);
  CHECK(status == GEOLIN_ERR_INVALID_ARGUMENT, "set_contact_regularization(NULL) -> %d", status);
  for (i = 0; i < 3; ++i) { /* refused, the workspace still refuses the redundant set */
    status = geolin_workspace_set_contact_regularization(x.ws, bad[i]);
    CHECK(status == (i == 0 ? GEOLIN_ERR_INVALID_ARGUMENT : GEOLIN_ERR_NONFINITE) &&
              strstr(geolin_last_error(), "'mu'"),
          "set_contact_regularization(%g) -> %d", bad[i], status);
    status = contact_dynamics(&x, st.H, st.s, st.v, st.r, st.tau, nu, lam);
    CHECK(status == GEOLIN_ERR_NUMERIC, "mu unchanged (0) after a refused %g -> %d", bad[i],
          status);
  }
  CHECK(geolin_workspace_set_contact_regularization(x.ws, 1e-4) == GEOLIN_OK, "set mu");
  for (x.flags = 0; x.flags < 2; ++x.flags) {
    x.gains[0] = x.flags ? 40.0 : 0.0;
    x.gains[1] = x.flags ? 9.0 : 0.0;
    check_identities(&x, &st, x.flags ? "regularized (mixed)" : "regularized (local)");
    check_finite_differences(&x, &st, x.flags ? "regularized (mixed)" : "regularized (local)");
  }
  x.flags = GEOLIN_WRENCH_MIXED;
  status = contact_dynamics(&x, st.H, st.s, st.v, st.r, st.tau, nu, lam);
  CHECK(status == GEOLIN_OK, "regularized contact_dynamics -> %d", status);
  CHECK(geolin_workspace_set_contact_regularization(x.ws, NAN) == GEOLIN_ERR_NONFINITE, "NaN");
  status = contact_dynamics(&x, st.H, st.s, st.v, st.r, st.tau, nu2, lam2);
  CHECK(status == GEOLIN_OK && memcmp(nu, nu2, sizeof(double) * (size_t)x.n) == 0 &&
            memcmp(lam, lam2, sizeof(double) * (size_t)x.m) == 0,
        "mu unchanged (1e-4) after a refused NaN -> %d", status);
  status = geolin_impulse(x.ws, st.H, st.s, st.v, st.r, x.nc, x.frames, x.types, x.flags, 0.2, vn,
                          rn, lam);
  CHECK(status == GEOLIN_OK, "regularized impulse -> %d", status);
  status = geolin_impulse_linearize(x.ws, st.H, st.s, st.v, st.r, x.nc, x.frames, x.types, x.flags,
                                    0.2, A, dz);
  CHECK(status == GEOLIN_OK, "regularized impulse_linearize -> %d", status);
  status = geolin_contact_step(x.ws, GEOLIN_STEP_RK4, 0.01, st.H, st.s, st.v, st.r, st.tau, x.nc,
                               x.frames, x.types, x.flags, x.gains, x.refs, Hn, sn, vn, rn, lam);
  CHECK(status == GEOLIN_OK, "regularized contact_step -> %d", status);
  status = geolin_contact_step_linearize(x.ws, GEOLIN_STEP_RK4, 0.01, st.H, st.s, st.v, st.r,
                                         st.tau, x.nc, x.frames, x.types, x.flags, x.gains, x.refs,
                                         A, B, dz, NULL);
  CHECK(status == GEOLIN_OK, "regularized contact_step_linearize -> %d", status);
  for (i = 0; i < x.N * x.N; ++i)
    if (!isfinite(A[i])) break;
  CHECK(i == x.N * x.N, "regularized A_d finite");
  CHECK(geolin_workspace_set_contact_regularization(x.ws, 0.0) == GEOLIN_OK, "mu = 0");
  status = contact_dynamics(&x, st.H, st.s, st.v, st.r, st.tau, nu, lam);
  CHECK(status == GEOLIN_ERR_NUMERIC, "mu = 0 refuses the redundant set again -> %d", status);
  geolin_workspace_free(x.ws);
  geolin_model_free(x.model);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "models";
  static const char *const feet[4] = {"FL_foot", "FR_foot", "HL_foot", "HR_foot"};
  static const int points[4] = {GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT,
                                GEOLIN_CONTACT_POINT};
  static const char *const humanoid[2] = {"L_sole", "R_sole"};
  static const int rigid[2] = {GEOLIN_CONTACT_RIGID, GEOLIN_CONTACT_RIGID};
  static const char *const tool[1] = {"tool_tip"};
  struct {
    const char *label, *file;
    unsigned load_flags;
    const char *const *names;
    const int *types;
    int nc;
  } cases[] = {{"quadruped, 4 point feet", "quadruped.urdf", 0u, feet, points, 4},
               {"humanoid, 2 rigid soles", "humanoid.urdf", 0u, humanoid, rigid, 2},
               {"arm (fixed base), rigid tool", "arm7.urdf", GEOLIN_FIXED_BASE, tool, rigid, 1}};
  size_t c;
  for (c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    Setup x;
    State st;
    unsigned flags;
    if (!setup(&x, dir, cases[c].file, cases[c].load_flags, cases[c].names, cases[c].types,
               cases[c].nc))
      continue;
    random_state(&x, &st, 7u + c);
    make_refs(&x, &st);
    for (flags = 0; flags < 2; ++flags) {
      char label[160];
      x.flags = flags;
      x.gains[0] = flags ? 40.0 : 0.0;
      x.gains[1] = flags ? 9.0 : 0.0;
      snprintf(label, sizeof label, "%s (%s, Kp %g)", cases[c].label, flags ? "mixed" : "local",
               x.gains[0]);
      check_identities(&x, &st, label);
      check_finite_differences(&x, &st, label);
      check_impulse(&x, &st, label);
      check_contact_step(&x, &st, label);
    }
    check_misuse(&x, &st);
    geolin_workspace_free(x.ws);
    geolin_model_free(x.model);
  }
  check_redundant(dir);
  check_regularized(dir);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
