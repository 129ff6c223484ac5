/* Overflow is not singularity (C99): finite inputs whose computation overflows (a prismatic
 * joint pushed 1e155 m or more away, whose inertia about the base is then ~1e310; a step h of
 * 1e154 that carries the stages' states there) make every evaluation path return
 * GEOLIN_ERR_NUMERIC with a message that says "overflow" and not "singular", names the step size
 * h when it alone is the cause, and leaves every output untouched.
 *
 * usage: test_capi_overflow tree.urdf
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "geolin.h"

#define SENTINEL (-7.25)
enum { NJ = 3, N = 9, NN = 18, NCOLS = NN + NJ };

static const double kH[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.1, -0.2, 1.0, 1};
static const double kV[6] = {0.1, -0.2, 0.3, 0.2, -0.1, 0.4};
static const double kR[NJ] = {0.3, -0.2, 0.5};
static const double kTau[NJ] = {0.1, 0.2, -0.3};
static const double kNuDot[N] = {0.1, -0.2, 0.3, 0.2, -0.1, 0.4, 0.1, 0.2, -0.3};

static double g_out[6][NN * NCOLS];

static void fill_outputs(void) {
  int k;
  for (k = 0; k < 6; ++k) fill(g_out[k], NN * NCOLS, SENTINEL);
}

static int outputs_untouched(void) {
  int k, i;
  for (k = 0; k < 6; ++k)
    for (i = 0; i < NN * NCOLS; ++i)
      if (g_out[k][i] != SENTINEL) return 0;
  return 1;
}

/* An overflow reported as such by the call `what` (status st), and nothing written. */
static void expect_overflow(int st, const char *what, const char *name) {
  const char *msg = geolin_last_error();
  CHECK(st == GEOLIN_ERR_NUMERIC, "%s: %s -> %d", what, name, st);
  CHECK(strstr(msg, "overflow") != NULL, "%s: %s: the message says overflow", what, name);
  CHECK(strstr(msg, "singular") == NULL, "%s: %s: and not singular", what, name);
  CHECK(outputs_untouched(), "%s: %s: nothing written", what, name);
}

/* Every evaluation function at a state whose prismatic joint j3 is `x` metres out. */
static void test_state_overflow(geolin_workspace *ws, double x, int frame) {
  const double s[NJ] = {0.1, 0.2, x};
  const int types[1] = {GEOLIN_CONTACT_POINT};
  const int frames[1] = {frame};
  const double gains[2] = {0.0, 1.0};
  char what[64];
  int method;
  snprintf(what, sizeof what, "s_j3 = %g", x);
  fill_outputs();
  expect_overflow(geolin_forward_dynamics(ws, kH, s, kV, kR, kTau, g_out[0]), what,
                  "forward_dynamics");
  expect_overflow(geolin_forward_dynamics_ext(ws, kH, s, kV, kR, kTau, 0, NULL, NULL, 0u, g_out[0]),
                  what, "forward_dynamics_ext");
  expect_overflow(geolin_inverse_dynamics(ws, kH, s, kV, kR, kNuDot, g_out[0]), what,
                  "inverse_dynamics");
  expect_overflow(geolin_mass_matrix(ws, s, g_out[0]), what, "mass_matrix");
  expect_overflow(
      geolin_inverse_dynamics_linearize(ws, kH, s, kV, kR, kNuDot, g_out[0], g_out[1], g_out[2]),
      what, "inverse_dynamics_linearize");
  expect_overflow(geolin_mass_matrix_inverse(ws, s, g_out[0]), what, "mass_matrix_inverse");
  expect_overflow(geolin_linearize(ws, kH, s, kV, kR, kTau, g_out[0], g_out[1]), what, "linearize");
  expect_overflow(
      geolin_linearize_finite_difference(ws, kH, s, kV, kR, kTau, 1e-6, g_out[0], g_out[1]), what,
      "linearize_finite_difference");
  expect_overflow(geolin_contact_dynamics(ws, kH, s, kV, kR, kTau, 1, frames, types, 0u, gains,
                                          NULL, g_out[0], g_out[1]),
                  what, "contact_dynamics");
  expect_overflow(geolin_contact_linearize(ws, kH, s, kV, kR, kTau, 1, frames, types, 0u, gains,
                                           NULL, g_out[0], g_out[1], g_out[2], g_out[3]),
                  what, "contact_linearize");
  for (method = GEOLIN_STEP_SEMI_IMPLICIT_EULER; method <= GEOLIN_STEP_RK4; ++method) {
    expect_overflow(
        geolin_step(ws, method, 1e-3, kH, s, kV, kR, kTau, g_out[0], g_out[1], g_out[2], g_out[3]),
        what, method ? "step (RK4)" : "step (Euler)");
    expect_overflow(
        geolin_step_linearize(ws, method, 1e-3, kH, s, kV, kR, kTau, g_out[0], g_out[1]), what,
        method ? "step_linearize (RK4)" : "step_linearize (Euler)");
  }
}

/* Large but finite: the slider 1e60 m out puts the composite inertias near 1e120, beyond the
 * bound under which the mass matrix and the RNEA derivatives go straight into the caller's
 * arrays (docs/c-api.md, "Outputs"); staged and scanned instead, they are finite and returned.
 * The base block's mass and the slider's own diagonal entry do not depend on where it is: the
 * total mass 9.5 kg and its 2 kg. */
static void test_large_finite_results(geolin_workspace *ws) {
  const double s[NJ] = {0.1, 0.2, 1e60};
  double M[N * N], M_idl[N * N], tau[N], dtau_dz[N * NN];
  int i, finite = 1, same = 1;
  CHECK(geolin_mass_matrix(ws, s, M) == GEOLIN_OK, "mass_matrix at s_j3 = 1e60: %s",
        geolin_last_error());
  CHECK(M[0] == 9.5 && M[N * N - 1] == 2.0, "M_00 = %g (9.5), M_j3j3 = %g (2)", M[0], M[N * N - 1]);
  CHECK(geolin_inverse_dynamics_linearize(ws, kH, s, kV, kR, kNuDot, tau, dtau_dz, M_idl) ==
            GEOLIN_OK,
        "inverse_dynamics_linearize at s_j3 = 1e60: %s", geolin_last_error());
  for (i = 0; i < N * NN; ++i) finite = finite && dtau_dz[i] - dtau_dz[i] == 0.0;
  for (i = 0; i < N; ++i) finite = finite && tau[i] - tau[i] == 0.0;
  for (i = 0; i < N * N; ++i) same = same && fabs(M_idl[i] - M[i]) <= 1e-12 * fabs(M[i]);
  CHECK(finite, "tau and dtau_dz finite");
  CHECK(same, "its M is geolin_mass_matrix's");
}

/* A regular state and a step h so large that the stages (RK4) or the result (Euler) overflow:
 * the message names the argument h. */
static void test_step_size_overflow(geolin_workspace *ws) {
  const double s[NJ] = {0.1, 0.2, 0.05};
  int method;
  for (method = GEOLIN_STEP_SEMI_IMPLICIT_EULER; method <= GEOLIN_STEP_RK4; ++method) {
    const char *name = method ? "RK4" : "Euler";
    int st;
    fill_outputs();
    st =
        geolin_step(ws, method, 1e154, kH, s, kV, kR, kTau, g_out[0], g_out[1], g_out[2], g_out[3]);
    expect_overflow(st, name, "step with h = 1e154");
    CHECK(strstr(geolin_last_error(), "argument 'h'") != NULL, "%s: the message names h", name);
    st = geolin_step_linearize(ws, method, 1e154, kH, s, kV, kR, kTau, g_out[0], g_out[1]);
    expect_overflow(st, name, "step_linearize with h = 1e154");
    CHECK(strstr(geolin_last_error(), "argument 'h'") != NULL, "%s: the message names h", name);
    /* The same step with a sensible h works. */
    CHECK(geolin_step(ws, method, 1e-3, kH, s, kV, kR, kTau, g_out[0], g_out[1], g_out[2],
                      g_out[3]) == GEOLIN_OK,
          "%s: h = 1e-3 steps", name);
  }
}

int main(int argc, char **argv) {
  geolin_model *m = NULL;
  geolin_workspace *ws = NULL;
  int frame;
  if (argc < 2) {
    fprintf(stderr, "usage: %s tree.urdf\n", argv[0]);
    return 2;
  }
  if (geolin_model_load_urdf(argv[1], 0u, &m) != GEOLIN_OK) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], geolin_last_error());
    return 1;
  }
  CHECK(geolin_model_num_joints(m) == NJ && geolin_model_num_dofs(m) == N, "the tree's sizes");
  frame = geolin_model_frame_index(m, "tool");
  CHECK(frame >= 0, "frame 'tool'");
  if (geolin_workspace_new(m, &ws) == GEOLIN_OK && frame >= 0) {
    test_state_overflow(ws, 1e155, frame);
    test_state_overflow(ws, 1e300, frame);
    test_large_finite_results(ws);
    test_step_size_overflow(ws);
  }
  geolin_workspace_free(ws);
  geolin_model_free(m);
  printf("capi_overflow: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
