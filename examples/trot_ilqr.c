/* geolin trot: an iLQR over a switching contact horizon, through the C API only.
 *
 * The quadruped of models/ trots in place for 100 nodes: the diagonal pairs of feet (FL+HR, then
 * FR+HL) take turns in stance, each pair held as two point contacts at its stance points, and at
 * every touchdown the landing pair is stopped by a plastic impact. The program
 *   1. rolls the horizon out with the torques that balance the standing robot on its stance
 *      pair, open loop (the initial guess; a trot is unstable without feedback, and it falls);
 *   2. improves them with iLQR (Gauss-Newton DDP): a base-height task plus torque regularization,
 *      the exact discrete linearizations A_d, B_d of geolin_contact_step_linearize at the step
 *      nodes and A_imp of geolin_impulse_linearize at the impact nodes;
 *   3. checks every node's A_d, B_d (A_imp) of the final trot against geometric central finite
 *      differences of geolin_contact_step (geolin_impulse) through x exp(z).
 * It exits with status 1 if a derivative disagrees, or if the cost ever increases or does not
 * come down overall.
 *
 * cc -std=c99 trot_ilqr.c $(pkg-config --cflags --libs geolin) -lm -o trot_ilqr
 * ./trot_ilqr [path/to/quadruped.urdf]         (docs/contacts.md sections 9 and 10)
 *
 * Coordinates (docs/conventions.md): a state is x = (H, s, v, r), base pose, joint positions,
 * base body twist, joint velocities. A deviation z = [z_H; z_s; z_v; z_r] (36 numbers here)
 * acts on the right, x exp(z) = (H exp(z_H^), s + z_s, v + z_v, r + z_r), and every matrix below
 * maps such z: z+ = A_d z + B_d w with w the torque deviation. Matrices are column-major.
 */
#include <geolin.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum {
  NJ = 12,        /* joints of models/quadruped.urdf */
  NX = 36,        /* N = 2 (6 + NJ), the size of z */
  NODES = 100,    /* transitions of the horizon */
  PHASE = 10,     /* nodes per stance phase; node k > 0 with k % PHASE == 0 is an impact */
  NRES = 33,      /* task residuals: height, 2 tilts, 12 joint positions, 6 + 12 velocities */
  MAX_ITERS = 25, /* iLQR iterations */
  MAX_HALVINGS = 12
};
#define H_STEP 0.01 /* s: the step of a stance node */
#define METHOD GEOLIN_STEP_SEMI_IMPLICIT_EULER
#define HEIGHT_GAIN 0.04 /* m: the task raises the trunk by this much while trotting */
#define FD_EPS 1e-6      /* the step of the finite differences */
#define FD_TOLERANCE 1e-6

/* ---------------------------------------------------------------------------------------------
 * The state; the group operations x exp(z), log(x^-1 y) on it are the library's (below)
 * ------------------------------------------------------------------------------------------ */

typedef struct {
  double H[16], s[NJ], v[6], r[NJ];
} State;

/* ---------------------------------------------------------------------------------------------
 * The horizon: which pair is in stance, where the impacts are, and its transitions
 * ------------------------------------------------------------------------------------------ */

typedef struct {
  const geolin_model *model;
  geolin_workspace *ws;
  int frames[2][2];       /* the feet of each diagonal pair: FL+HR, FR+HL */
  double refs[2][2 * 16]; /* their stance points: the feet's poses at the start */
  double height_target;   /* m, for the trunk */
  double s_home[NJ];      /* the joint positions of the stance posture */
} Trot;

/* y = x exp(z) (geolin_state_integrate). */
static int retract(const Trot *t, const State *x, const double *z, State *y) {
  return geolin_state_integrate(t->model, x->H, x->s, x->v, x->r, z, y->H, y->s, y->v, y->r);
}

/* z with y = x exp(z): the deviation of y from x in x's coordinates (geolin_state_difference). */
static int difference(const Trot *t, const State *x, const State *y, double *z) {
  return geolin_state_difference(t->model, x->H, x->s, x->v, x->r, y->H, y->s, y->v, y->r, z);
}

static const int kPointTypes[2] = {GEOLIN_CONTACT_POINT, GEOLIN_CONTACT_POINT};
static const double kGains[2] = {100.0, 20.0}; /* [Kp, Kd]: pull a held foot back to its point */

/* Node k > 0 that starts a phase is the touchdown of the phase's pair; pair 0 stands first. */
static int is_impact(int k) {
  return k > 0 && k % PHASE == 0;
}
static int stance_pair(int k) {
  return (k / PHASE) % 2;
}

/* x+ of node k: a contact step with the stance pair held, or the impact of the landing pair
 * (restitution 0: the feet stop; pose and joint positions unchanged; no torque). */
static int transition(const Trot *t, int k, const State *x, const double *u, State *y) {
  const int p = stance_pair(k);
  if (is_impact(k)) {
    memcpy(y->H, x->H, sizeof y->H);
    memcpy(y->s, x->s, sizeof y->s);
    return geolin_impulse(t->ws, x->H, x->s, x->v, x->r, 2, t->frames[p], kPointTypes,
                          GEOLIN_WRENCH_MIXED, 0.0, y->v, y->r, NULL);
  }
  return geolin_contact_step(t->ws, METHOD, H_STEP, x->H, x->s, x->v, x->r, u, 2, t->frames[p],
                             kPointTypes, GEOLIN_WRENCH_MIXED, kGains, t->refs[p], y->H, y->s, y->v,
                             y->r, NULL);
}

/* Its exact linearization: A (NX x NX) and, at a step node, B (NX x NJ); an impact has no B. */
static int linearize(const Trot *t, int k, const State *x, const double *u, double *A, double *B) {
  const int p = stance_pair(k);
  if (is_impact(k))
    return geolin_impulse_linearize(t->ws, x->H, x->s, x->v, x->r, 2, t->frames[p], kPointTypes,
                                    GEOLIN_WRENCH_MIXED, 0.0, A, NULL);
  return geolin_contact_step_linearize(t->ws, METHOD, H_STEP, x->H, x->s, x->v, x->r, u, 2,
                                       t->frames[p], kPointTypes, GEOLIN_WRENCH_MIXED, kGains,
                                       t->refs[p], A, B, NULL, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * The task: weighted residuals e(x), cost 0.5 |e|^2, and their Jacobian E = de/dz
 * ------------------------------------------------------------------------------------------ */

#define W_HEIGHT 30.0  /* sqrt of the weights: trunk height */
#define W_TILT 10.0    /* trunk roll and pitch (R_20, R_21) */
#define W_POSTURE 1.0  /* joint positions about the stance posture */
#define W_VELOCITY 0.3 /* base twist and joint velocities */
#define W_TORQUE 0.05  /* torque regularization */
#define W_TERMINAL 3.0 /* the last state's residuals are scaled by this */

static void task_residuals(const Trot *t, const State *x, double *e, double *E) {
  const double c[3] = {x->H[2], x->H[6], x->H[10]}; /* the third row of R: R^T e_z */
  memset(E, 0, sizeof(double) * NRES * NX);
  /* height o_z: H exp(z_H^) moves o by R z_lin, so d o_z / d z_lin = c */
  e[0] = W_HEIGHT * (x->H[14] - t->height_target);
  for (int j = 0; j < 3; ++j) E[0 + NRES * j] = W_HEIGHT * c[j];
  /* tilt R_20, R_21: R exp(z_ang^) turns column i by z_ang x e_i, so dR_2i = z_ang . (e_i x c) */
  e[1] = W_TILT * x->H[2], e[2] = W_TILT * x->H[6];
  E[1 + NRES * 4] = -W_TILT * c[2], E[1 + NRES * 5] = W_TILT * c[1];
  E[2 + NRES * 3] = W_TILT * c[2], E[2 + NRES * 5] = -W_TILT * c[0];
  /* joint positions, base twist and joint velocities add: their Jacobian is a weighted identity */
  for (int i = 0; i < NJ; ++i) {
    e[3 + i] = W_POSTURE * (x->s[i] - t->s_home[i]);
    E[3 + i + NRES * (6 + i)] = W_POSTURE;
  }
  for (int i = 0; i < 6; ++i) e[15 + i] = W_VELOCITY * x->v[i];
  for (int i = 0; i < NJ; ++i) e[21 + i] = W_VELOCITY * x->r[i];
  for (int i = 0; i < 18; ++i) E[15 + i + NRES * (18 + i)] = W_VELOCITY;
}

/* The cost of a state, with its gradient l_z and Gauss-Newton Hessian l_zz (E^T E) if asked,
 * scaled by weight (h at a step node, W_TERMINAL^2 at the end). */
static double state_cost(const Trot *t, const State *x, double weight, double *lz, double *lzz) {
  double e[NRES], E[NRES * NX], cost = 0.0;
  task_residuals(t, x, e, E);
  for (int i = 0; i < NRES; ++i) cost += 0.5 * weight * e[i] * e[i];
  if (!lz) return cost;
  for (int a = 0; a < NX; ++a) {
    lz[a] = 0.0;
    for (int i = 0; i < NRES; ++i) lz[a] += weight * E[i + NRES * a] * e[i];
    for (int b = 0; b < NX; ++b) {
      double sum = 0.0;
      for (int i = 0; i < NRES; ++i) sum += E[i + NRES * a] * E[i + NRES * b];
      lzz[a + NX * b] = weight * sum;
    }
  }
  return cost;
}

static double torque_cost(const double *u) {
  double sum = 0.0;
  for (int i = 0; i < NJ; ++i) sum += u[i] * u[i];
  return 0.5 * H_STEP * W_TORQUE * W_TORQUE * sum;
}

/* ---------------------------------------------------------------------------------------------
 * Small dense linear algebra: C = op(A) op(B) and a Cholesky solve
 * ------------------------------------------------------------------------------------------ */

/* C (m x n) = A^T B with A (k x m), B (k x n), or C = A B with A (m x k), when transpose_a. */
static void gemm(int transpose_a, int m, int n, int k, const double *A, const double *B,
                 double *C) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0.0;
      for (int l = 0; l < k; ++l) sum += (transpose_a ? A[l + k * i] : A[i + m * l]) * B[l + k * j];
      C[i + m * j] = sum;
    }
}

/* L L^T = S (n x n, in place, lower triangle); 0 if S is not positive definite. */
static int cholesky(double *S, int n) {
  for (int j = 0; j < n; ++j) {
    double d = S[j + n * j];
    for (int l = 0; l < j; ++l) d -= S[j + n * l] * S[j + n * l];
    if (!(d > 0.0)) return 0;
    S[j + n * j] = sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double sum = S[i + n * j];
      for (int l = 0; l < j; ++l) sum -= S[i + n * l] * S[j + n * l];
      S[i + n * j] = sum / S[j + n * j];
    }
  }
  return 1;
}

/* X <- S^-1 X for the nrhs columns of X (n x nrhs), S = L L^T from cholesky. */
static void cholesky_solve(const double *L, int n, double *X, int nrhs) {
  for (int c = 0; c < nrhs; ++c) {
    double *x = X + n * c;
    for (int i = 0; i < n; ++i) { /* L y = x */
      for (int l = 0; l < i; ++l) x[i] -= L[i + n * l] * x[l];
      x[i] /= L[i + n * i];
    }
    for (int i = n - 1; i >= 0; --i) { /* L^T x = y */
      for (int l = i + 1; l < n; ++l) x[i] -= L[l + n * i] * x[l];
      x[i] /= L[i + n * i];
    }
  }
}

/* ---------------------------------------------------------------------------------------------
 * iLQR: rollout, backward Riccati pass, forward pass with a line search
 * ------------------------------------------------------------------------------------------ */

typedef struct {
  State x[NODES + 1];
  double u[NODES][NJ]; /* zero (unused) at the impact nodes */
  double cost;
} Trajectory;

typedef struct {
  double A[NODES][NX * NX], B[NODES][NX * NJ]; /* the linearization along the nominal */
  double k[NODES][NJ], K[NODES][NJ * NX];      /* the policy u = u_nom + alpha k + K z */
  double expected[2]; /* the predicted change of cost is alpha e0 + alpha^2 e1 / 2 */
} Ilqr;

static double trajectory_cost(const Trot *t, const Trajectory *tr) {
  double cost = state_cost(t, &tr->x[NODES], W_TERMINAL * W_TERMINAL, NULL, NULL);
  for (int k = 0; k < NODES; ++k)
    if (!is_impact(k)) cost += state_cost(t, &tr->x[k], H_STEP, NULL, NULL) + torque_cost(tr->u[k]);
  return cost;
}

/* Simulates the horizon from out->x[0]: with the torques out->u as they are (policy NULL) or
 * with u = nominal u + alpha k + K z, z = the deviation of the state from the nominal's. */
static int rollout(const Trot *t, const Ilqr *policy, const Trajectory *nominal, double alpha,
                   Trajectory *out) {
  for (int k = 0; k < NODES; ++k) {
    if (policy && !is_impact(k)) {
      double z[NX];
      const int status = difference(t, &nominal->x[k], &out->x[k], z);
      if (status != GEOLIN_OK) return status;
      for (int i = 0; i < NJ; ++i) {
        out->u[k][i] = nominal->u[k][i] + alpha * policy->k[k][i];
        for (int j = 0; j < NX; ++j) out->u[k][i] += policy->K[k][i + NJ * j] * z[j];
      }
    }
    const int status = transition(t, k, &out->x[k], out->u[k], &out->x[k + 1]);
    if (status != GEOLIN_OK) return status;
  }
  out->cost = trajectory_cost(t, out);
  return isfinite(out->cost) ? GEOLIN_OK : GEOLIN_ERR_NUMERIC;
}

/* One node of the Riccati recursion: from V' = (Vx, Vxx) at node k + 1 to V at node k, and the
 * node's policy. Returns 0 if Quu + mu I is not positive definite. */
static int riccati_node(const Trot *t, const Trajectory *tr, int k, double mu, Ilqr *g, double *Vx,
                        double *Vxx) {
  static double lx[NX], lxx[NX * NX], Qx[NX], Qxx[NX * NX], AtV[NX * NX], BtV[NJ * NX];
  static double Qu[NJ], Quu[NJ * NJ], Qux[NJ * NX], L[NJ * NJ], QuuK[NJ * NX], KtQux[NX * NX];
  const double *A = g->A[k], *B = g->B[k], *u = tr->u[k];
  double *kk = g->k[k], *K = g->K[k], Quuk[NJ];
  state_cost(t, &tr->x[k], H_STEP, lx, lxx);
  gemm(1, NX, 1, NX, A, Vx, Qx); /* Qx = lx + A^T Vx',  Qu = lu + B^T Vx' */
  gemm(1, NJ, 1, NX, B, Vx, Qu);
  gemm(1, NX, NX, NX, A, Vxx, AtV); /* Qxx = lxx + A^T Vxx' A, Quu = luu + B^T Vxx' B, ... */
  gemm(0, NX, NX, NX, AtV, A, Qxx);
  gemm(1, NJ, NX, NX, B, Vxx, BtV);
  gemm(0, NJ, NJ, NX, BtV, B, Quu);
  gemm(0, NJ, NX, NX, BtV, A, Qux); /* Qux = B^T Vxx' A (the cost has no u-x term) */
  for (int i = 0; i < NX; ++i) Qx[i] += lx[i];
  for (int i = 0; i < NX * NX; ++i) Qxx[i] += lxx[i];
  for (int i = 0; i < NJ; ++i) {
    Qu[i] += H_STEP * W_TORQUE * W_TORQUE * u[i];
    Quu[i + NJ * i] += H_STEP * W_TORQUE * W_TORQUE;
  }
  memcpy(L, Quu, sizeof L); /* k = -(Quu + mu I)^-1 Qu, K = -(Quu + mu I)^-1 Qux */
  for (int i = 0; i < NJ; ++i) L[i + NJ * i] += mu;
  if (!cholesky(L, NJ)) return 0;
  for (int i = 0; i < NJ; ++i) kk[i] = -Qu[i];
  for (int i = 0; i < NJ * NX; ++i) K[i] = -Qux[i];
  cholesky_solve(L, NJ, kk, 1);
  cholesky_solve(L, NJ, K, NX);
  gemm(0, NJ, 1, NJ, Quu, kk, Quuk); /* the exact Quu in V (with the regularized k, K) */
  gemm(0, NJ, NX, NJ, Quu, K, QuuK);
  for (int i = 0; i < NJ; ++i) {
    g->expected[0] += kk[i] * Qu[i];
    g->expected[1] += kk[i] * Quuk[i];
  }
  /* Vx = Qx + K^T Quu k + K^T Qu + Qux^T k;  Vxx = Qxx + K^T Quu K + K^T Qux + Qux^T K */
  for (int j = 0; j < NX; ++j) {
    Vx[j] = Qx[j];
    for (int i = 0; i < NJ; ++i)
      Vx[j] += K[i + NJ * j] * (Quuk[i] + Qu[i]) + Qux[i + NJ * j] * kk[i];
  }
  gemm(1, NX, NX, NJ, K, Qux, KtQux);
  gemm(1, NX, NX, NJ, K, QuuK, Vxx);
  for (int j = 0; j < NX; ++j)
    for (int i = 0; i < NX; ++i)
      Vxx[i + NX * j] += Qxx[i + NX * j] + KtQux[i + NX * j] + KtQux[j + NX * i];
  for (int j = 0; j < NX; ++j) /* symmetric against round-off */
    for (int i = 0; i < j; ++i)
      Vxx[i + NX * j] = Vxx[j + NX * i] = 0.5 * (Vxx[i + NX * j] + Vxx[j + NX * i]);
  return 1;
}

/* The backward pass over the whole horizon: an impact node has no cost and no control, so the
 * value goes through it as V = (A_imp^T Vx', A_imp^T Vxx' A_imp). Returns 0 (and mu must grow)
 * if some Quu + mu I is not positive definite. */
static int backward_pass(const Trot *t, const Trajectory *tr, double mu, Ilqr *g) {
  static double Vx[NX], Vxx[NX * NX], AtV[NX * NX], AtVx[NX];
  state_cost(t, &tr->x[NODES], W_TERMINAL * W_TERMINAL, Vx, Vxx);
  g->expected[0] = g->expected[1] = 0.0;
  for (int k = NODES - 1; k >= 0; --k) {
    if (!is_impact(k)) {
      if (!riccati_node(t, tr, k, mu, g, Vx, Vxx)) return 0;
      continue;
    }
    gemm(1, NX, 1, NX, g->A[k], Vx, AtVx);
    gemm(1, NX, NX, NX, g->A[k], Vxx, AtV);
    gemm(0, NX, NX, NX, AtV, g->A[k], Vxx);
    memcpy(Vx, AtVx, sizeof Vx);
  }
  return 1;
}

static int linearize_along(const Trot *t, const Trajectory *tr, Ilqr *g) {
  int status = GEOLIN_OK;
  for (int k = 0; k < NODES && status == GEOLIN_OK; ++k)
    status = linearize(t, k, &tr->x[k], tr->u[k], g->A[k], g->B[k]);
  return status;
}

/* The forward pass: the largest alpha in 1, 1/2, 1/4, ... whose rollout lowers the cost by at
 * least 1e-4 of the predicted decrease (Armijo). 1 and *trial holds the new trajectory, or 0. */
static int line_search(const Trot *t, const Ilqr *g, const Trajectory *nominal, Trajectory *trial,
                       double *alpha) {
  *alpha = 1.0;
  for (int halving = 0; halving < MAX_HALVINGS; ++halving, *alpha *= 0.5) {
    const double decrease = -(*alpha * g->expected[0] + 0.5 * *alpha * *alpha * g->expected[1]);
    trial->x[0] = nominal->x[0];
    if (decrease > 0.0 && rollout(t, g, nominal, *alpha, trial) == GEOLIN_OK &&
        trial->cost < nominal->cost - 1e-4 * decrease)
      return 1;
  }
  return 0;
}

/* iLQR from the rolled-out *tr (improved in place). costs[0..iterations] receives the cost
 * before the first and after every accepted iteration; returns the number of iterations, or -1
 * with the status in *status if geolin failed on the nominal trajectory. */
static int ilqr(const Trot *t, Trajectory *tr, double *costs, int *status) {
  static Ilqr g;
  static Trajectory trial;
  double mu = 1e-6, alpha = 0.0;
  int iterations = 0;
  costs[0] = tr->cost;
  printf("iteration  0: cost %.6e\n", tr->cost);
  while (iterations < MAX_ITERS && mu < 1e8) {
    if ((*status = linearize_along(t, tr, &g)) != GEOLIN_OK) return -1;
    if (!backward_pass(t, tr, mu, &g) || !line_search(t, &g, tr, &trial, &alpha)) {
      mu *= 10.0; /* a smaller, more gradient-like step */
      continue;
    }
    const double relative_decrease = (tr->cost - trial.cost) / tr->cost;
    *tr = trial;
    costs[++iterations] = tr->cost;
    printf("iteration %2d: cost %.6e  (alpha %.4f, mu %.0e)\n", iterations, tr->cost, alpha, mu);
    mu = mu > 1e-8 ? mu / 10.0 : mu;
    if (relative_decrease < 1e-6) break; /* converged */
  }
  return iterations;
}

/* ---------------------------------------------------------------------------------------------
 * The check: every node's A (and B) against geometric central differences of its transition
 * ------------------------------------------------------------------------------------------ */

static double max_abs(const double *x, int count) {
  double m = 0.0;
  for (int i = 0; i < count; ++i) m = fabs(x[i]) > m ? fabs(x[i]) : m;
  return m;
}

/* err[0] (A) and err[1] (B; 0 at an impact): max |exact - finite difference| / max |exact|,
 * the finite difference of column j being (log(y^-1 y(+eps e_j)) - log(y^-1 y(-eps e_j)))/2eps
 * with y(z) the transition from x exp(z) (or with u + z for the columns of B). */
static int check_node(const Trot *t, int k, const State *x, const double *u, double err[2]) {
  static double A[NX * NX], B[NX * NJ];
  State y, xs[2], ys[2];
  double zs[2][NX], us[2][NJ], z[NX], worst[2] = {0.0, 0.0};
  int status = transition(t, k, x, u, &y);
  if (status == GEOLIN_OK) status = linearize(t, k, x, u, A, B);
  const int columns = is_impact(k) ? NX : NX + NJ;
  for (int col = 0; col < columns && status == GEOLIN_OK; ++col) {
    for (int side = 0; side < 2 && status == GEOLIN_OK; ++side) {
      const double step = side == 0 ? FD_EPS : -FD_EPS;
      memset(z, 0, sizeof z);
      memcpy(us[side], u, sizeof us[side]);
      if (col < NX)
        z[col] = step;
      else
        us[side][col - NX] += step;
      status = retract(t, x, z, &xs[side]);
      if (status == GEOLIN_OK) status = transition(t, k, &xs[side], us[side], &ys[side]);
      if (status == GEOLIN_OK) status = difference(t, &y, &ys[side], zs[side]);
    }
    for (int i = 0; i < NX && status == GEOLIN_OK; ++i) {
      const double fd = (zs[0][i] - zs[1][i]) / (2.0 * FD_EPS);
      const double exact = col < NX ? A[i + NX * col] : B[i + NX * (col - NX)];
      if (fabs(exact - fd) > worst[col >= NX]) worst[col >= NX] = fabs(exact - fd);
    }
  }
  err[0] = worst[0] / max_abs(A, NX * NX);
  err[1] = is_impact(k) ? 0.0 : worst[1] / max_abs(B, NX * NJ);
  return status;
}

/* ---------------------------------------------------------------------------------------------
 * The start: the stance posture, its stance points, and torques that hold it on one pair
 * ------------------------------------------------------------------------------------------ */

/* tau = G - J_c^T lambda at rest (inverse dynamics with no velocity and no acceleration), each
 * foot of pair p carrying half the weight vertically: lambda = [0, 0, m g / 2] in world axes,
 * that is weight * R_F^T e_z in the foot's axes, through the linear rows of its body Jacobian. */
static int holding_torques(const Trot *t, double weight, const State *x, int p, double *tau) {
  double zero[6 + NJ] = {0}, G[6 + NJ], J[6 * (6 + NJ)], Hf[16];
  int status = geolin_inverse_dynamics(t->ws, x->H, x->s, zero, zero, zero, G);
  for (int i = 0; i < NJ; ++i) tau[i] = G[6 + i];
  for (int f = 0; f < 2 && status == GEOLIN_OK; ++f) {
    status = geolin_frame_jacobian(t->ws, x->H, x->s, t->frames[p][f], J);
    if (status == GEOLIN_OK) status = geolin_frame_pose(t->ws, x->H, x->s, t->frames[p][f], Hf);
    if (status != GEOLIN_OK) break;
    for (int i = 0; i < NJ; ++i)
      for (int a = 0; a < 3; ++a) tau[i] -= J[a + 6 * (6 + i)] * 0.5 * weight * Hf[2 + 4 * a];
  }
  return status;
}

/* The robot standing, the pairs' stance points, the target and the initial guess: the holding
 * torques of the pair in stance, open loop. The knees are bent to -1.1 rad (quadruped_contacts.c:
 * -1.2), where the centre of mass is above the middle of the feet, on both diagonals. */
static int set_up(geolin_model *model, Trot *t, Trajectory *tr) {
  static const char *const feet[2][2] = {{"FL_foot", "HR_foot"}, {"FR_foot", "HL_foot"}};
  static const double leg[3] = {0.0, 0.6, -1.1}; /* HAA, HFE, KFE */
  State *x0 = &tr->x[0];
  double tau[2][NJ];
  int status = GEOLIN_OK;
  memset(tr, 0, sizeof *tr);
  for (int i = 0; i < 16; ++i) x0->H[i] = i % 5 == 0; /* identity, then 0.4 m up */
  x0->H[14] = 0.4;
  for (int i = 0; i < NJ; ++i) t->s_home[i] = x0->s[i] = leg[i % 3];
  t->height_target = x0->H[14] + HEIGHT_GAIN;
  for (int p = 0; p < 2 && status == GEOLIN_OK; ++p)
    for (int f = 0; f < 2 && status == GEOLIN_OK; ++f) {
      t->frames[p][f] = geolin_model_frame_index(model, feet[p][f]);
      status = geolin_frame_pose(t->ws, x0->H, x0->s, t->frames[p][f], t->refs[p] + 16 * f);
    }
  const double weight = 9.81 * geolin_model_total_mass(model);
  for (int p = 0; p < 2 && status == GEOLIN_OK; ++p)
    status = holding_torques(t, weight, x0, p, tau[p]);
  for (int k = 0; k < NODES && status == GEOLIN_OK; ++k)
    if (!is_impact(k)) memcpy(tr->u[k], tau[stance_pair(k)], sizeof tau[0]);
  return status == GEOLIN_OK ? rollout(t, NULL, NULL, 0.0, tr) : status;
}

/* ---------------------------------------------------------------------------------------------
 * The program
 * ------------------------------------------------------------------------------------------ */

/* The optimized trot's derivatives against finite differences, node by node: 0 if they agree. */
static int check_derivatives(const Trot *t, const Trajectory *tr, int *status) {
  double worst[3] = {0.0, 0.0, 0.0}, err[2]; /* A_d, B_d, A_imp */
  for (int k = 0; k < NODES && *status == GEOLIN_OK; ++k) {
    *status = check_node(t, k, &tr->x[k], tr->u[k], err);
    const int a = is_impact(k) ? 2 : 0;
    worst[a] = err[0] > worst[a] ? err[0] : worst[a];
    worst[1] = err[1] > worst[1] ? err[1] : worst[1];
  }
  if (*status != GEOLIN_OK) return 1;
  printf(
      "derivatives at all %d nodes vs central differences (eps %.0e): worst relative error "
      "A_d %.1e, B_d %.1e, A_imp %.1e (tolerance %.0e)\n",
      NODES, FD_EPS, worst[0], worst[1], worst[2], FD_TOLERANCE);
  return !(worst[0] <= FD_TOLERANCE && worst[1] <= FD_TOLERANCE && worst[2] <= FD_TOLERANCE);
}

/* 0 if the cost never went up and came down overall. */
static int check_costs(const double *costs, int iterations) {
  int monotone = iterations > 0 && costs[iterations] < costs[0];
  for (int i = 1; i <= iterations; ++i) monotone = monotone && costs[i] <= costs[i - 1];
  printf("cost %.6e -> %.6e in %d iterations: %s\n", costs[0], costs[iterations], iterations,
         monotone ? "decreasing at every iteration" : "NOT DECREASING");
  return !monotone;
}

static int run(geolin_model *model, geolin_workspace *ws) {
  static Trot t;
  static Trajectory tr;
  double costs[MAX_ITERS + 1];
  t.model = model;
  t.ws = ws;
  int status = set_up(model, &t, &tr), failed = 0, iterations = 0;
  if (status == GEOLIN_OK) {
    printf("initial guess, open loop: trunk height %.4f m at the end\n", tr.x[NODES].H[14]);
    iterations = ilqr(&t, &tr, costs, &status);
  }
  if (status == GEOLIN_OK) {
    printf("trunk height %.4f m at the start, %.4f m at the end (target %.4f m)\n", tr.x[0].H[14],
           tr.x[NODES].H[14], t.height_target);
    failed = check_costs(costs, iterations);
    failed = check_derivatives(&t, &tr, &status) || failed;
  }
  if (status != GEOLIN_OK)
    fprintf(stderr, "%s: %s\n", geolin_status_string(status), geolin_last_error());
  return status != GEOLIN_OK || failed;
}

int main(int argc, char **argv) {
  geolin_model *model = NULL;
  geolin_workspace *ws = NULL;
  int status = geolin_model_load_urdf(argc > 1 ? argv[1] : "models/quadruped.urdf", 0, &model);
  if (status == GEOLIN_OK &&
      (geolin_model_num_joints(model) != NJ || geolin_model_frame_index(model, "FL_foot") < 0)) {
    fprintf(stderr, "expected the 12 joints and the feet of models/quadruped.urdf\n");
    geolin_model_free(model);
    return 1;
  }
  /* a workspace for the contact step, the impact and their linearizations, 2 contacts a call */
  if (status == GEOLIN_OK)
    status = geolin_workspace_new_ex(
        model, GEOLIN_WORKSPACE_CONTACTS | GEOLIN_WORKSPACE_STEP_LINEARIZE, 2, &ws);
  if (status != GEOLIN_OK) {
    fprintf(stderr, "%s: %s\n", geolin_status_string(status), geolin_last_error());
    geolin_model_free(model);
    return 1;
  }
  const int failed = run(model, ws);
  geolin_workspace_free(ws);
  geolin_model_free(model);
  return failed;
}
