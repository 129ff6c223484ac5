// The per-thread workspace, sized once for the features a caller uses (docs/c-api.md rule 4: no
// allocation in evaluation calls). workspace_dims() decides every size and workspace_bytes()
// adds them up from the same numbers, so that a caller can learn before allocating how much a
// workspace needs (a 20000-body chain: 58.2 MB for its dynamics, 189 GB for everything; the table
// per feature is in docs/c-api.md, "Workspaces: features and memory").
#include "geolin/workspace.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "solver/solver.hpp"

namespace geolin {
namespace {

// The panel slots of the solver (articulated_solve.cpp): a body with one child hands its block
// to that child, the next body visited, so it takes one of three slots cycling with depth
// (three, not two: a chain link solved in one step reads the block of depth d + 1 and writes
// that of depth d − 1, which must differ); a body with several children keeps its block while
// they are visited, in a slot of its branching depth. The working set stays in the L1 cache
// whatever the number of bodies. Fills limb_root and panel_slot when given; returns the count.
int panel_slots(const Model &model, std::vector<int> *limb_root, std::vector<int> *panel_slot) {
  const int nb = model.num_bodies();
  std::vector<int> branch_depth(nb, 0);  // branching bodies among the proper ancestors
  int slots = 4;
  for (int i = 1; i < nb; ++i) {
    const int lam = model.parent[i];
    if (limb_root) (*limb_root)[i] = lam == 0 ? i : (*limb_root)[lam];
    branch_depth[i] = branch_depth[lam] + (lam > 0 && model.children[lam].size() >= 2);
    int slot;
    if (model.children[i].size() >= 2) {
      slot = 4 + branch_depth[i];
      slots = std::max(slots, slot + 1);
    } else {
      slot = 1 + model.depth[i] % 3;
    }
    if (panel_slot) (*panel_slot)[i] = slot;
  }
  return slots;
}

// Saturating arithmetic for the byte count (a hostile model must not wrap it around).
std::size_t mul(std::size_t a, std::size_t b) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a)
    return std::numeric_limits<std::size_t>::max();
  return a * b;
}
std::size_t add(std::size_t a, std::size_t b) {
  return b > std::numeric_limits<std::size_t>::max() - a ? std::numeric_limits<std::size_t>::max()
                                                         : a + b;
}

}  // namespace

WorkspaceDims workspace_dims(const Model &model, unsigned features, int max_wrenches) {
  WorkspaceDims d;
  const int nj = model.num_joints(), n = model.num_dofs();
  if (features & kWorkspaceStepLinearize) features |= kWorkspaceLinearize;  // it calls linearize
  d.features = features & kWorkspaceAll;
  d.max_wrenches = max_wrenches < 0 ? static_cast<int>(model.frames.size()) : max_wrenches;
  const bool contacts = (features & kWorkspaceContacts) != 0;
  d.max_rows = contacts ? static_cast<int>(std::min<long long>(6LL * d.max_wrenches, n)) : 0;
  // A call holds at most n rows, and each contact has 3 or 6: more than n / 3 contacts are
  // refused whatever the capacity (contact_dynamics.cpp), so none is allocated for them.
  d.max_contacts = contacts ? std::min(d.max_wrenches, n / 3) : 0;
  long long cols = 0;
  // linearize: ∂ID/∂s, ∂ID/∂r and S per joint, ∂ID/∂v (base), 6 per wrench, 3 for the attitude
  // dependence of Mixed wrenches; a contact linearization uses the same without wrench columns.
  if (features & kWorkspaceLinearize) cols = 2LL * nj + n + 6LL * d.max_wrenches + 3;
  if (features & kWorkspaceMassMatrix) cols = std::max<long long>(cols, n);  // unit columns
  cols = detail::solve_stride(cols);                                         // whole cache lines
  d.rhs_cols = static_cast<int>(std::min<long long>(cols, std::numeric_limits<int>::max() / 2));
  // A contact linearization's columns: linearize's without wrench columns, plus 6 for the base
  // pose (contact_linearize.cpp). contact_dynamics needs neither them nor the solver: it
  // propagates forces along the contacts' paths (docs/contacts.md §3).
  if (contacts && (features & kWorkspaceLinearize))
    d.contact_cols =
        static_cast<int>(std::min<long long>(detail::solve_stride(2LL * nj + n + 9), d.rhs_cols));
  d.panel_slots = d.rhs_cols > 0 ? panel_slots(model, nullptr, nullptr) : 0;
  // Blocks: base, joints, Mixed attitude, spares for the unit columns and the base pose, and
  // one per wrench where wrenches reach the solver (linearize_ext's columns): contact_linearize
  // and the mass matrix need none, however many wrenches the workspace allows.
  const bool wrench_blocks = (features & kWorkspaceLinearize) != 0;
  d.rhs_blocks = d.rhs_cols > 0 ? 5 + (wrench_blocks ? d.max_wrenches : 0) : 0;
  // At most 4 ranges per block and body (articulated_solve.cpp, make_plan).
  d.plan_ranges = mul(mul(4, static_cast<std::size_t>(d.rhs_blocks)),
                      static_cast<std::size_t>(model.num_bodies()));
  return d;
}

std::size_t workspace_bytes(const Model &model, const WorkspaceDims &d) {
  const std::size_t nb = model.num_bodies(), nj = model.num_joints(), n = model.num_dofs(),
                    N = model.state_dim();
  constexpr std::size_t D = sizeof(double);
  // Per body: H0, S0, I0, ten Vec6 buffers, IC, BC, IA, SI_row, SB_row, D, D_inv, u, f_ext, E_ext,
  // EC_ext, SE_row, touched, limb_root, panel_slot.
  const std::size_t per_body = sizeof(Transform) + 2 * sizeof(Mat6) + 10 * sizeof(Vec6) +
                               sizeof(Vec6) + 3 * sizeof(Mat6) + 3 * 6 * 3 * D + sizeof(Vec6) +
                               2 * sizeof(Vec3) + 3 * D + 1 + 3 * sizeof(int) + sizeof(Vec6);
  std::size_t bytes = mul(per_body, nb);
  bytes = add(bytes, mul(D, n + 3 * nj + 2 * N + 4 * N + N + 2 * nj));  // step / FD vectors
  const std::size_t cols = static_cast<std::size_t>(d.rhs_cols);
  bytes = add(bytes, mul(D, mul(n, cols)));  // rhs
  bytes = add(bytes, mul(2 * D, mul(6 * static_cast<std::size_t>(d.panel_slots), cols)));
  if (cols > 0) {  // two solver plans
    const std::size_t plan = add(mul(sizeof(ColumnRange), d.plan_ranges),
                                 mul(d.rhs_blocks, sizeof(RhsBlock)) + (3 * nb + 1) * 4 + nb);
    bytes = add(bytes, add(mul(2, plan), mul(d.rhs_blocks, sizeof(RhsBlock))));
  }
  if (d.features & kWorkspaceStepLinearize)
    bytes = add(bytes, mul(D, add(N * N + N * nj + 6 * (N + nj), mul(4 * N, N + nj))));
  if (d.features & kWorkspaceContacts) {
    const std::size_t m = d.max_rows, ldm = detail::solve_stride(m);
    bytes = add(bytes, mul(d.max_contacts, sizeof(Workspace::ContactFrame) + sizeof(int) + 6 * D));
    const std::size_t cc = static_cast<std::size_t>(d.contact_cols);
    bytes = add(bytes, mul(D, 6 * m + n * ldm + m * ldm + m * cc + 6 * ldm + 5 * m));
    bytes = add(bytes, mul(nb, D + sizeof(Vec6)));  // contact_x, contact_a
  }
  return bytes;
}

Workspace::Workspace(const Model &model, unsigned features, int max_wrenches)
    : dims(workspace_dims(model, features, max_wrenches)) {
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
  BC.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  D.assign(nb, 0.0);
  D_inv.assign(nb, 0.0);
  u.assign(nb, 0.0);
  f_ext.assign(nb, Vec6::Zero());
  E_ext.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  EC_ext.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  SE_row.assign(nb, Vec3::Zero());
  touched.assign(nb, 0);
  limb_root.assign(nb, 0);
  panel_slot.assign(nb, 0);
  panel_slots(model, &limb_root, &panel_slot);

  // The solver (articulated_solve.cpp), for the features that use it.
  max_rhs = dims.rhs_cols;
  const std::size_t cols = static_cast<std::size_t>(max_rhs);
  rhs.assign(static_cast<std::size_t>(n) * cols);
  P_panel.assign(static_cast<std::size_t>(6 * dims.panel_slots) * cols);
  A_panel.assign(static_cast<std::size_t>(6 * dims.panel_slots) * cols);
  rhs_blocks.resize(dims.rhs_blocks);
  if (cols > 0) {
    // Reserved here so that a new block layout never allocates.
    for (SolvePlan &plan : plans) {
      plan.blocks.reserve(rhs_blocks.size());
      plan.ranges.reserve(dims.plan_ranges);
      plan.offsets.assign(3 * nb + 1, 0);
      plan.link.assign(nb, 0);
    }
  }

  nu_dot.setZero(n);
  s_pert.setZero(nj);
  r_pert.setZero(nj);
  tau_pert.setZero(nj);
  lambda_plus.setZero(N);
  lambda_minus.setZero(N);
  stage_k.setZero(N, 4);
  theta.setZero(N);
  stage_s.setZero(nj);
  stage_r.setZero(nj);
  if (has(kWorkspaceStepLinearize)) {
    A_stage.setZero(N, N);
    B_stage.setZero(N, nj);
    for (MatX *m : {&D_k, &D_theta, &D_Theta, &Z}) m->setZero(N, N + nj);
    tmp6.setZero(6, N + nj);
  }
  if (has(kWorkspaceContacts)) {
    const std::size_t m = dims.max_rows, ldm = detail::solve_stride(m);
    contacts.resize(dims.max_contacts);
    contact_frames.assign(dims.max_contacts, 0);
    contact_wrenches.setZero(6 * static_cast<Eigen::Index>(dims.max_contacts));
    contact_G.assign(6 * m);
    contact_Y.assign(static_cast<std::size_t>(n) * ldm);
    contact_L.assign(m * ldm);
    const std::size_t cc = static_cast<std::size_t>(dims.contact_cols);
    contact_K.assign(m * cc);
    contact_W.assign(6 * ldm);
    contact_gamma.setZero(m);
    contact_lambda.setZero(m);
    contact_dinv.setZero(m);
    contact_lambda_plus.setZero(m);
    contact_lambda_minus.setZero(m);
    contact_x.assign(nb, 0.0);
    contact_a.assign(nb, Vec6::Zero());
  }
}

}  // namespace geolin
