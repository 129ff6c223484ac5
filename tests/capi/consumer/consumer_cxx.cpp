// A C++ user's program against an installed geolin: C++ includes the C header geolin.h (the
// C++ core in include/geolin is internal and not installed; docs/c-api.md). Loads the installed
// humanoid (or argv[1]) and checks ABA against RNEA through the C API.
#include <geolin.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  const char *urdf = argc > 1 ? argv[1] : nullptr;
  if (urdf == nullptr) {
    std::fprintf(stderr, "usage: %s robot.urdf\n", argv[0]);
    return 2;
  }
  int major = 0, minor = 0, patch = 0;  // the mjVERSION_HEADER check (docs/c-api.md)
  geolin_version(&major, &minor, &patch);
  if (major != GEOLIN_VERSION_MAJOR || minor < GEOLIN_VERSION_MINOR) {
    std::fprintf(stderr,
                 "geolin: the library is version %d.%d.%d but this program was built with "
                 "geolin.h %d.%d.%d: the major (ABI) version must be equal and the library's "
                 "minor version at least the header's\n",
                 major, minor, patch, GEOLIN_VERSION_MAJOR, GEOLIN_VERSION_MINOR,
                 GEOLIN_VERSION_PATCH);
    return 1;
  }
  geolin_model *model = nullptr;
  geolin_workspace *ws = nullptr;
  int st = geolin_model_load_urdf(urdf, 0, &model);
  if (st == GEOLIN_OK) st = geolin_workspace_new(model, &ws);
  if (st != GEOLIN_OK) {
    std::fprintf(stderr, "%s: %s\n", geolin_status_string(st), geolin_last_error());
    geolin_model_free(model);
    return 1;
  }
  const int nj = geolin_model_num_joints(model), n = geolin_model_num_dofs(model);
  const double H[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1};
  const double v[6] = {0.1, -0.2, 0.3, 0.2, 0.1, -0.3};
  std::vector<double> s(nj), r(nj), tau(nj), nu_dot(n), f(n);
  for (int k = 0; k < nj; ++k) {
    s[k] = 0.3 * std::sin(k + 1.0);
    r[k] = 0.2 * std::cos(k + 1.0);
    tau[k] = std::sin(2.0 * k + 1.0);
  }
  st = geolin_forward_dynamics(ws, H, s.data(), v, r.data(), tau.data(), nu_dot.data());
  if (st == GEOLIN_OK)
    st = geolin_inverse_dynamics(ws, H, s.data(), v, r.data(), nu_dot.data(), f.data());
  double err = 0.0;  // RNEA(ABA(tau)) = [0; tau]
  for (int i = 0; i < n; ++i) err = std::fmax(err, std::fabs(f[i] - (i < 6 ? 0.0 : tau[i - 6])));
  if (st != GEOLIN_OK)
    std::fprintf(stderr, "%s: %s\n", geolin_status_string(st), geolin_last_error());
  else
    std::printf("C++ consumer: %d joints, |RNEA(ABA(tau)) - tau| = %.3g\n", nj, err);
  geolin_workspace_free(ws);
  geolin_model_free(model);
  return st == GEOLIN_OK && err < 1e-8 ? 0 : 1;
}
