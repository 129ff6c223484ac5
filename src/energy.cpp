// Energies and momentum, used as test oracles (docs/dynamics.md §3, §6 item 6).
#include "geolin/algorithms.hpp"

namespace geolin {
namespace {
void body_twists(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v, CRefVec r) {
  forward_kinematics(model, ws, s);
  ws.v[0] = model.fixed_base ? Vec6::Zero() : v;
  for (int i = 1; i <= model.n_B; ++i) ws.v[i] = ws.v[model.parent[i]] + ws.S0[i] * r[i - 1];
}
}  // namespace

double kinetic_energy(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v, CRefVec r) {
  body_twists(model, ws, s, v, r);
  double K = 0.0;
  for (int i = 0; i <= model.n_B; ++i) K += 0.5 * ws.v[i].dot(ws.I0[i] * ws.v[i]);
  // ½ νᵀ (M + diag(0_6, armature)) ν: the rotors' ½ Σ armature_j r_j² (docs/dynamics.md (D53))
  for (int k = 0; k < model.n_B; ++k) K += 0.5 * model.armature[k] * r[k] * r[k];
  return K;
}

double potential_energy(const Model &model, Workspace &ws, const Transform &H, CRefVec s) {
  forward_kinematics(model, ws, s);
  double U = 0.0;
  for (int i = 0; i <= model.n_B; ++i) {
    const Vec3 p_c = body_pose(model, ws, H, i).apply(model.com[i]);
    U -= model.mass[i] * ws.gravity.dot(p_c);
  }
  return U;
}

Vec6 spatial_momentum(const Model &model, Workspace &ws, CRefVec s, const Vec6 &v, CRefVec r) {
  body_twists(model, ws, s, v, r);
  Vec6 h = Vec6::Zero();
  for (int i = 0; i <= model.n_B; ++i) h += ws.I0[i] * ws.v[i];
  return h;
}

}  // namespace geolin
