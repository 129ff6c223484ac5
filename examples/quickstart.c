/* geolin quick start: forward dynamics and the exact linearization of a robot from URDF.
 * cc quickstart.c $(pkg-config --cflags --libs geolin) -o quickstart; ./quickstart [URDF] */
#include <geolin.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int major, minor, patch; /* the header compiled in against the library loaded at run time */
  geolin_version(&major, &minor, &patch);
  if (major != GEOLIN_VERSION_MAJOR) {
    fprintf(stderr, "geolin.h is %d.x, libgeolin is %d.%d.%d\n", GEOLIN_VERSION_MAJOR, major, minor,
            patch);
    return 1;
  }
  geolin_model *model = NULL;
  geolin_workspace *ws = NULL; /* scratch memory, one per thread */
  int status = geolin_model_load_urdf(argc > 1 ? argv[1] : "models/humanoid.urdf", 0, &model);
  if (status == GEOLIN_OK) status = geolin_workspace_new(model, &ws);
  const int nj = status == GEOLIN_OK ? geolin_model_num_joints(model) : 0, n = 6 + nj, N = 2 * n;
  double *buf = status == GEOLIN_OK ? calloc(3 * nj + n + (size_t)N * (N + nj), sizeof *buf) : NULL;
  if (buf) {
    double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1}; /* base pose: z = 1 m */
    double v[6] = {0, 0, 0, 0, 0, 0}; /* base twist (body frame, linear first): at rest */
    double *s = buf, *r = s + nj, *tau = r + nj, *nu_dot = tau + nj, *A = nu_dot + n;
    status = geolin_forward_dynamics(ws, H, s, v, r, tau, nu_dot); /* nu_dot = [v_dot; r_dot] */
    if (status == GEOLIN_OK) status = geolin_linearize(ws, H, s, v, r, tau, A, A + N * N);
    if (status == GEOLIN_OK) /* at rest with tau = 0 the robot falls freely: v_dot_z = -g */
      printf("v_dot_z = %.4f m/s^2; A is %d x %d, B is %d x %d\n", nu_dot[2], N, N, N, nj);
  } else if (status == GEOLIN_OK) {
    status = GEOLIN_ERR_MEMORY;
  }
  if (status != GEOLIN_OK) /* the message names what failed: a file, an argument, a joint */
    fprintf(stderr, "%s: %s\n", geolin_status_string(status), geolin_last_error());
  free(buf);
  geolin_workspace_free(ws);
  geolin_model_free(model);
  return status == GEOLIN_OK ? 0 : 1;
}
