#include "geolin/workspace.hpp"

#include <algorithm>

namespace geolin {

Workspace::Workspace(const Model &model) {
  const int nb = model.num_bodies();
  const int nj = model.num_joints();
  const int n = model.num_dofs();
  const int N = model.state_dim();
  H0.resize(nb);
  S0.assign(nb, Vec6::Zero());
  I0.assign(nb, Mat6::Zero());
  for (auto *vec : {&v, &a, &f, &F, &Psi_dot, &Psi_ddot, &c, &p, &U, &h})
    vec->assign(nb, Vec6::Zero());
  IC.assign(nb, Mat6::Zero());
  IA.assign(nb, Mat6::Zero());
  SI_row.assign(nb, Vec6::Zero());
  SB_row.assign(nb, Vec3::Zero());
  // Right-hand sides of linearize: dID/ds (n_J), dID/dν (n), S (n_J), 6 per external wrench (at
  // most one per frame on average) and 3 for the attitude dependence of Mixed wrenches.
  max_rhs = 2 * nj + n + 6 * static_cast<int>(model.frames.size()) + 3;
  max_rhs = (max_rhs + 3) / 4 * 4;  // articulated_solve's stride: whole vectors
  rhs.assign(static_cast<std::size_t>(n) * max_rhs);
  touched.assign(nb, 0);
  // Panel slots of the solver (articulated_solve.cpp): a body with one child hands its block
  // to that child, the next body visited, so it takes one of three slots cycling with depth
  // (three, not two: a chain link solved in one step reads the block of depth d + 1 and writes
  // that of depth d − 1, which must differ); a body with several children keeps its block while
  // they are visited, in a slot of its branching depth. The working set stays in the L1 cache
  // whatever the number of bodies.
  limb_root.assign(nb, 0);
  panel_slot.assign(nb, 0);
  std::vector<int> branch_depth(nb, 0);  // branching bodies among the proper ancestors
  int slots = 4;
  for (int i = 1; i < nb; ++i) {
    const int lam = model.parent[i];
    limb_root[i] = lam == 0 ? i : limb_root[lam];
    branch_depth[i] = branch_depth[lam] + (lam > 0 && model.children[lam].size() >= 2);
    if (model.children[i].size() >= 2) {
      panel_slot[i] = 4 + branch_depth[i];
      slots = std::max(slots, panel_slot[i] + 1);
    } else {
      panel_slot[i] = 1 + model.depth[i] % 3;
    }
  }
  rhs_blocks.resize(5 + model.frames.size());
  // At most 4 ranges per block and body (articulated_solve.cpp, make_plan): reserved here so
  // that a new block layout never allocates.
  for (SolvePlan &plan : plans) {
    plan.blocks.reserve(rhs_blocks.size());
    plan.ranges.reserve(4 * rhs_blocks.size() * nb);
    plan.offsets.assign(3 * nb + 1, 0);
    plan.link.assign(nb, 0);
  }
  P_panel.assign(static_cast<std::size_t>(6 * slots) * max_rhs);
  A_panel.assign(static_cast<std::size_t>(6 * slots) * max_rhs);
  BC.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  D_inv.assign(nb, 0.0);
  u.assign(nb, 0.0);
  f_ext.assign(nb, Vec6::Zero());
  E_ext.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  EC_ext.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  SE_row.assign(nb, Vec3::Zero());
  G_w.setZero(n, 6);
  M.setZero(n, n);
  Minv.setZero(n, n);
  dID_ds.setZero(n, nj);
  dID_dnu.setZero(n, n);
  FD_y.setZero(n, nj + n);
  nu_dot.setZero(n);
  tau_full.setZero(n);
  tmp_n.setZero(n);
  tmp_n2.setZero(n);
  s_pert.setZero(nj);
  r_pert.setZero(nj);
  tau_pert.setZero(nj);
  lambda_plus.setZero(N);
  lambda_minus.setZero(N);
  stage_k.setZero(N, 4);
  theta.setZero(N);
  stage_s.setZero(nj);
  stage_r.setZero(nj);
  A_stage.setZero(N, N);
  B_stage.setZero(N, nj);
  for (MatX *m : {&D_k, &D_theta, &D_Theta, &Z}) m->setZero(N, N + nj);
  tmp6.setZero(6, N + nj);
}

}  // namespace geolin
