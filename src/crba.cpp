// CRBAmb: the mass matrix of a moving-base tree (RBDA Table 6.2 and §9.3, in frame-0
// coordinates, where composite inertias add without transforms).
#include "passes.hpp"

namespace geolin {
namespace detail {

void mass_matrix_from_composites(const Model &model, const Workspace &ws, RefMat M) {
  M.setZero();
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 &Fi = ws.SI_row[i];  // composite-inertia force of joint i, I^C_i S_i
    const int di = model.dof(i);
    M(di, di) = ws.S0[i].dot(Fi);  // M_ij = S_iᵀ I^C_i S_j  (D8)
    for (int j = model.parent[i]; j >= 1; j = model.parent[j]) {
      M(model.dof(j), di) = M(di, model.dof(j)) = ws.S0[j].dot(Fi);
    }
    if (!model.fixed_base) {
      M.block<6, 1>(0, di) = Fi;
      M.block<1, 6>(di, 0) = Fi.transpose();
    }
  }
  if (!model.fixed_base) M.topLeftCorner<6, 6>() = ws.IC[0];  // base block I^C_0 (D8)
}

}  // namespace detail

void crba(const Model &model, Workspace &ws, CRefVec s, RefMat M) {
  forward_kinematics(model, ws, s);
  for (int i = 0; i <= model.n_B; ++i) ws.IC[i] = ws.I0[i];
  // I^C_λ(i) += I^C_i  (docs/dynamics.md (D8); RBDA Table 6.2)
  for (int i = model.n_B; i >= 1; --i) ws.IC[model.parent[i]] += ws.IC[i];
  for (int i = 1; i <= model.n_B; ++i) ws.SI_row[i].noalias() = ws.IC[i] * ws.S0[i];
  detail::mass_matrix_from_composites(model, ws, M);
}

}  // namespace geolin
