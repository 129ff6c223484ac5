/* A user's program built against an installed geolin (pkg-config or find_package). The URDF is
 * the first argument or, without one, the installed humanoid (GEOLIN_MODELS_DIR, defined by the
 * build from pkg-config's modelsdir or CMake's geolin_MODELS_DIR). */
#include <geolin.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  geolin_model *model = NULL;
  geolin_workspace *ws = NULL;
  double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1};
  double v[6] = {0, 0, 0, 0, 0, 0};
  double *s, *r, *tau, *nu_dot;
  int major, minor, patch, n_j, n, st;

#ifdef GEOLIN_MODELS_DIR
  const char *urdf = argc > 1 ? argv[1] : GEOLIN_MODELS_DIR "/humanoid.urdf";
#else
  const char *urdf = argc > 1 ? argv[1] : NULL;
  if (urdf == NULL) {
    fprintf(stderr, "usage: %s robot.urdf\n", argv[0]);
    return 2;
  }
#endif
  /* As MuJoCo's mjVERSION_HEADER check (docs/c-api.md, "Versioning policy"): the library must
   * have the header's major (ABI) version and at least its minor version. */
  geolin_version(&major, &minor, &patch);
  if (major != GEOLIN_VERSION_MAJOR || minor < GEOLIN_VERSION_MINOR) {
    fprintf(stderr,
            "geolin: the library is version %d.%d.%d but this program was built with geolin.h "
            "%d.%d.%d: the major (ABI) version must be equal and the library's minor version at "
            "least the header's\n",
            major, minor, patch, GEOLIN_VERSION_MAJOR, GEOLIN_VERSION_MINOR, GEOLIN_VERSION_PATCH);
    return 1;
  }
  st = geolin_model_load_urdf(urdf, 0, &model);
  if (st != GEOLIN_OK) {
    fprintf(stderr, "%s: %s\n", geolin_status_string(st), geolin_last_error());
    return 1;
  }
  n_j = geolin_model_num_joints(model);
  n = geolin_model_num_dofs(model);
  s = calloc((size_t)n_j + 1, sizeof(double));
  r = calloc((size_t)n_j + 1, sizeof(double));
  tau = calloc((size_t)n_j + 1, sizeof(double));
  nu_dot = calloc((size_t)n, sizeof(double));
  st = geolin_workspace_new(model, &ws);
  if (st == GEOLIN_OK) st = geolin_forward_dynamics(ws, H, s, v, r, tau, nu_dot);
  if (st != GEOLIN_OK) {
    fprintf(stderr, "%s: %s\n", geolin_status_string(st), geolin_last_error());
  } else if (nu_dot[2] > -9.81 + 1e-9 || nu_dot[2] < -9.81 - 1e-9) {
    /* at rest without torques the whole robot falls freely (docs/dynamics.md §3) */
    fprintf(stderr, "base acceleration z = %.17g, expected -9.81\n", nu_dot[2]);
    st = GEOLIN_ERR_INTERNAL;
  } else {
    printf("geolin %d.%d.%d: %s: %d joints, base acceleration z = %g\n", major, minor, patch, urdf,
           n_j, nu_dot[2]);
  }
  geolin_workspace_free(ws);
  geolin_model_free(model);
  free(s);
  free(r);
  free(tau);
  free(nu_dot);
  return st == GEOLIN_OK ? 0 : 1;
}
