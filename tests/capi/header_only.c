/* Compiled (not linked) by the capi_header_* tests: geolin.h must compile on its own as C99
 * with -std=c99 -pedantic -Wall -Wextra -Werror, and as C++ (same file, -x c++). It is
 * included twice to check the include guard. */
#include "geolin.h"

/* Every type and constant is usable. */
static int use_everything(geolin_model *m, geolin_workspace *ws) {
  const double g[3] = {0.0, 0.0, -9.81};
  int codes[9] = {
      GEOLIN_OK,          GEOLIN_ERR_INVALID_ARGUMENT, GEOLIN_ERR_IO,        GEOLIN_ERR_PARSE,
      GEOLIN_ERR_MODEL,   GEOLIN_ERR_UNSUPPORTED,      GEOLIN_ERR_NONFINITE, GEOLIN_ERR_NUMERIC,
      GEOLIN_ERR_INTERNAL};
  unsigned flags = GEOLIN_FIXED_BASE | GEOLIN_JOINT_DAMPING;
  unsigned wrench_flags[2] = {GEOLIN_WRENCH_LOCAL, GEOLIN_WRENCH_MIXED};
  int methods[2] = {GEOLIN_STEP_SEMI_IMPLICIT_EULER, GEOLIN_STEP_RK4};
  int version = GEOLIN_VERSION_MAJOR * 10000 + GEOLIN_VERSION_MINOR * 100 + GEOLIN_VERSION_PATCH;
  size_t size = sizeof(double); /* <stddef.h> comes with the header */
  (void)m;
  (void)flags;
  (void)wrench_flags;
  (void)methods;
  (void)geolin_step;
  (void)size;
  (void)geolin_workspace_set_gravity;
  (void)geolin_workspace_set_contact_regularization;
  (void)g;
  (void)ws;
  return codes[8] + version;
}

int main(void) {
  return use_everything(NULL, NULL) == 0;
}
