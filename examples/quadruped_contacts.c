/* geolin contacts: the quadruped of models/ on its four feet, each held as a point, with no joint
 * torques: geolin_contact_dynamics gives the acceleration and the forces of the ground on the feet.
 * cc quadruped_contacts.c $(pkg-config --cflags --libs geolin) -o quadruped_contacts
 * ./quadruped_contacts [path/to/quadruped.urdf]       (docs/contacts.md: the model and the solve)
 */
#include <geolin.h>
#include <stdio.h>

int main(int argc, char **argv) {
  static const char *const feet[4] = {"FL_foot", "FR_foot", "HL_foot", "HR_foot"};
  geolin_model *model = NULL;
  geolin_workspace *ws = NULL;
  int status = geolin_model_load_urdf(argc > 1 ? argv[1] : "models/quadruped.urdf", 0, &model);
  if (status == GEOLIN_OK && geolin_model_num_joints(model) != 12) {
    fprintf(stderr, "expected the 12 joints of models/quadruped.urdf\n");
    geolin_model_free(model);
    return 1;
  }
  /* a workspace with only what contact_dynamics needs, for up to 4 contacts */
  if (status == GEOLIN_OK)
    status = geolin_workspace_new_ex(model, GEOLIN_WORKSPACE_CONTACTS, 4, &ws);
  int frames[4], types[4];
  for (int k = 0; k < 4 && status == GEOLIN_OK; ++k) {
    frames[k] = geolin_model_frame_index(model, feet[k]); /* -1 if the model has no such link */
    types[k] = GEOLIN_CONTACT_POINT;                      /* 3 rows each: m = 12 */
  }
  double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0.4, 1}, v[6] = {0};
  double s[12] = {0, 0.6, -1.2, 0, 0.6, -1.2, /* per leg: HAA, HFE, KFE */
                  0, 0.6, -1.2, 0, 0.6, -1.2};
  double r[12] = {0}, tau[12] = {0}, nu_dot[18], lambda[12];
  if (status == GEOLIN_OK)
    status = geolin_contact_dynamics(ws, H, s, v, r, tau, 4, frames, types,
                                     GEOLIN_WRENCH_MIXED, /* forces in world axes */
                                     NULL, NULL,          /* gains Kp = Kd = 0, no references */
                                     nu_dot, lambda);
  if (status == GEOLIN_OK) /* tau = 0: the knees give way, the trunk falls, the feet stay */
    printf(
        "trunk z-acceleration %.3f m/s^2; foot forces fz = %.2f %.2f %.2f %.2f N; "
        "weight %.2f N; workspace %zu bytes\n",
        nu_dot[2], lambda[2], lambda[5], lambda[8], lambda[11], /* [fx fy fz] per foot */
        9.81 * geolin_model_total_mass(model),
        geolin_workspace_bytes(model, GEOLIN_WORKSPACE_CONTACTS, 4));
  else
    fprintf(stderr, "%s: %s\n", geolin_status_string(status), geolin_last_error());
  geolin_workspace_free(ws);
  geolin_model_free(model);
  return status == GEOLIN_OK ? 0 : 1;
}
