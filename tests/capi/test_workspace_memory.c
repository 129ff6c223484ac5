/* A 20000-body chain: a workspace with every feature needs more memory than a machine has
 * (its step linearization alone holds ~13 N^2 doubles), so geolin_workspace_new must say so with
 * GEOLIN_ERR_MEMORY and the byte count -- before allocating anything -- while a workspace for
 * the features a caller uses (dynamics only) is small and works.
 *
 * usage: test_workspace_memory   (not run under valgrind: the chain takes seconds to load there)
 */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "geolin.h"

enum { kBodies = 20000 };

/* A chain of kBodies revolute joints alternating about y and z, 5 cm links of 0.1 kg. */
static char *chain_urdf(void) {
  const size_t per_link = 512;
  char *text = malloc(per_link * (kBodies + 2)), *p = text;
  int i;
  if (text == NULL) return NULL;
  p += sprintf(p, "<robot name='chain%d'>", kBodies);
  for (i = 0; i <= kBodies; ++i) {
    p += sprintf(p,
                 "<link name='l%d'><inertial><origin xyz='0.025 0 0'/><mass value='0.1'/>"
                 "<inertia ixx='1e-4' iyy='1e-4' izz='1e-4' ixy='0' ixz='0' iyz='0'/>"
                 "</inertial></link>",
                 i);
    if (i > 0)
      p += sprintf(p,
                   "<joint name='j%d' type='continuous'><parent link='l%d'/><child link='l%d'/>"
                   "<origin xyz='0.05 0 0'/><axis xyz='0 %d %d'/></joint>",
                   i, i - 1, i, i % 2, 1 - i % 2);
  }
  sprintf(p, "</robot>");
  return text;
}

int main(void) {
  char *xml = chain_urdf();
  geolin_model *m = NULL;
  geolin_workspace *ws = NULL;
  const double physical = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  int st, nj, n, i;
  size_t all, dyn;
  if (xml == NULL) return 2;
  st = geolin_model_load_urdf_string(xml, 0, &m);
  free(xml);
  CHECK(st == GEOLIN_OK, "load the chain -> %d", st);
  if (st != GEOLIN_OK) return 1;
  nj = geolin_model_num_joints(m);
  n = geolin_model_num_dofs(m);
  all = geolin_workspace_bytes(m, GEOLIN_WORKSPACE_ALL, geolin_model_num_frames(m));
  dyn = geolin_workspace_bytes(m, GEOLIN_WORKSPACE_DYNAMICS, 0);
  printf("chain of %d bodies: workspace %.3g GB with every feature, %.3g MB for dynamics\n", nj,
         (double)all / 1e9, (double)dyn / 1e6);
  CHECK(dyn < (size_t)100e6, "dynamics-only workspace %zu bytes is O(n)", dyn);
  CHECK((double)all > 13.0 * 8.0 * 4.0 * (double)n * (double)n, "all features O(N^2): %zu", all);
  /* Wrenches cost only where the solver sees them (linearize_ext): the mass matrix's
   * workspace is the same for no wrench and one per frame. */
  CHECK(geolin_workspace_bytes(m, GEOLIN_WORKSPACE_MASS_MATRIX, geolin_model_num_frames(m)) ==
            geolin_workspace_bytes(m, GEOLIN_WORKSPACE_MASS_MATRIX, 0),
        "MASS_MATRIX: %zu bytes with one wrench per frame, %zu without",
        geolin_workspace_bytes(m, GEOLIN_WORKSPACE_MASS_MATRIX, geolin_model_num_frames(m)),
        geolin_workspace_bytes(m, GEOLIN_WORKSPACE_MASS_MATRIX, 0));
  /* contact_dynamics propagates forces along the contacts' paths and never calls the solver:
   * four point contacts (12 rows, up to 24 reserved) add about n x 24 doubles of innovations,
   * not the solver's right-hand sides and panels; a constraint set's dense solve adds its J_c
   * and M^-1 J_c^T (n x 24 each) and two frames' Jacobians (n x 12), no n x n matrix. */
  {
    const size_t contacts = geolin_workspace_bytes(m, GEOLIN_WORKSPACE_CONTACTS, 4);
    CHECK(contacts > dyn && contacts - dyn <= 5 * (size_t)n * 24 * sizeof(double),
          "CONTACTS with 4 contacts: %zu bytes, %zu more than DYNAMICS", contacts, contacts - dyn);
  }

  if ((double)all > physical) { /* the machines this runs on: refused before allocating */
    char expected[64];
    st = geolin_workspace_new(m, &ws);
    CHECK(st == GEOLIN_ERR_MEMORY && ws == NULL, "geolin_workspace_new -> %d", st);
    snprintf(expected, sizeof expected, "%zu bytes", all);
    CHECK(strstr(geolin_last_error(), expected) != NULL, "the message says '%s'", expected);
    CHECK(strstr(geolin_last_error(), "geolin_workspace_new_ex") != NULL, "and what to do");
    CHECK(strcmp(geolin_status_string(st), "unknown status") != 0, "MEMORY has a name");
  } else {
    printf("skip: this machine has %.3g GB, enough for the whole workspace\n", physical / 1e9);
  }

  st = geolin_workspace_new_ex(m, GEOLIN_WORKSPACE_DYNAMICS, 0, &ws);
  CHECK(st == GEOLIN_OK, "dynamics-only workspace -> %d", st);
  if (ws != NULL) {
    double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, v[6] = {0};
    double *s = calloc((size_t)nj, sizeof *s), *r = calloc((size_t)nj, sizeof *r);
    double *tau = calloc((size_t)nj, sizeof *tau), *nu_dot = malloc((size_t)n * sizeof *nu_dot);
    for (i = 0; i < nj; ++i) s[i] = 0.3 * ((i * 7) % 5 - 2);
    st = geolin_forward_dynamics(ws, H, s, v, r, tau, nu_dot);
    CHECK(st == GEOLIN_OK, "forward dynamics of the chain -> %d", st);
    if (st == GEOLIN_OK) {
      /* free fall without rates: the base falls at g, the joints do not move */
      double worst = 0.0;
      for (i = 6; i < n; ++i)
        worst = worst > nu_dot[i] ? worst : (nu_dot[i] > -nu_dot[i] ? nu_dot[i] : -nu_dot[i]);
      CHECK(worst < 1e-6, "joints at rest in free fall: %g", worst);
    }
    free(s);
    free(r);
    free(tau);
    free(nu_dot);
    geolin_workspace_free(ws);
  }
  geolin_model_free(m);
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
