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

namespace {

// The heap memory of a copy of model (Workspace::step_model): its per-body vectors, the frames
// and the names longer than the strings' inline buffers.
std::size_t model_heap_bytes(const Model &model) {
  const std::size_t nb = model.num_bodies();
  std::size_t bytes = mul(nb, 4 * sizeof(int) + sizeof(std::vector<int>) + 3 * sizeof(std::string) +
                                  sizeof(JointType) + 2 * sizeof(Vec3) + sizeof(int) +
                                  sizeof(Vec6) + sizeof(Transform) + 5 * sizeof(double) +
                                  sizeof(Vec3) + sizeof(Mat3) + sizeof(Mat6) + 1);
  bytes = add(bytes, mul(model.frames.size(), sizeof(Frame)));
  const auto heap = [](const std::string &name) {
    return name.capacity() > std::string().capacity() ? name.capacity() + 1 : std::size_t{0};
  };
  for (const std::string &name : model.body_name) bytes = add(bytes, heap(name));
  for (const std::string &name : model.joint_name) bytes = add(bytes, heap(name));
  for (const std::string &name : model.mimic_of) bytes = add(bytes, heap(name));
  for (const Frame &frame : model.frames) bytes = add(bytes, heap(frame.name));
  return add(bytes, heap(model.name));
}

}  // namespace

namespace {

// The wrenches a constraint set's call can hand to linearize (Workspace::cs_wrench_frames): at
// most the capacity, and two per three rows (a loop) of at most n rows.
int set_wrenches(const WorkspaceDims &d, const Model &model) {
  if (!(d.features & kWorkspaceContacts)) return 0;
  return std::min(d.max_wrenches, 2 * (model.num_dofs() / 3));
}

}  // namespace

std::size_t workspace_bytes(const Model &model, const WorkspaceDims &d) {
  const std::size_t nb = model.num_bodies(), nj = model.num_joints(), n = model.num_dofs(),
                    N = model.state_dim();
  constexpr std::size_t D = sizeof(double);
  // Per body: H0, S0, joint_cos, joint_sin, I0, ten Vec6 buffers, IC, BC, IA, SI_row, SB_row, D,
  // D_inv, u, f_ext, E_ext, EC_ext, SE_row, touched, limb_root, panel_slot, IC_compact; path,
  // m_sub, mc_sub, h_sub.
  const std::size_t per_body =
      sizeof(Workspace::CompactInertia) + sizeof(Transform) + 2 * sizeof(Mat6) + 10 * sizeof(Vec6) +
      sizeof(Vec6) + 3 * sizeof(Mat6) + 3 * 6 * 3 * D + sizeof(Vec6) + 2 * sizeof(Vec3) + 3 * D +
      1 + 3 * sizeof(int) + sizeof(Vec6) + sizeof(int) + D + sizeof(Vec3) + sizeof(Vec6) + 2 * D;
  std::size_t bytes = mul(per_body, nb);
  bytes = add(bytes, mul(D, n + 3 * nj + 2 * N + 4 * N + N + 3 * nj));  // step / FD vectors
  bytes = add(bytes, model_heap_bytes(model));  // step_model, ImplicitEuler's copy
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
    bytes = add(bytes, mul(nb, D + 2 * sizeof(Vec6)));  // contact_x, contact_a, impulse_twists
    bytes = add(bytes, mul(D, nj));                     // impulse_rest_rates
    if (d.features & kWorkspaceStepLinearize)           // step_dlambda_dz, step_dlambda_dw
      bytes = add(bytes, mul(D, mul(m, N + nj)));
    // The constraint solve (Workspace::cs_*): two frames' J, J_c's terms, J_c, Y, vectors, and
    // the wrenches of λ.
    const std::size_t W = static_cast<std::size_t>(set_wrenches(d, model));
    bytes = add(bytes, mul(2 * m, sizeof(Workspace::ConstraintTerm)));
    bytes = add(bytes, mul(D, 12 * n + m * n + n * m + 2 * m + 3 * n + nj));
    bytes = add(bytes, mul(W, sizeof(int) + 6 * D));
    if (d.features & kWorkspaceLinearize) {  // frames' derivatives, ∂c/∂z, Dw, A, B, X, K, M⁻¹ S
      bytes = add(bytes, mul(D, add(24 * N + m * N + N * N + n * N + m * (N + nj) + n * nj,
                                    add(mul(6 * W, 2 * N), N * nj))));
      bytes = add(bytes, mul(4 * W, sizeof(Workspace::ConstraintTurn)));  // the wrenches' turns
    }
  }
  return bytes;
}

namespace {

// The O(n_B) recursion buffers of every pass (docs/dynamics.md (D5)-(D14)).
void size_recursions(Workspace &ws, const Model &model) {
  const int nb = model.num_bodies();
  ws.H0.resize(nb);
  ws.S0.assign(nb, Vec6::Zero());
  ws.joint_cos.assign(nb, 1.0);
  ws.joint_sin.assign(nb, 0.0);
  ws.I0.assign(nb, Mat6::Zero());
  for (auto *vec :
       {&ws.v, &ws.a, &ws.f, &ws.F, &ws.Psi_dot, &ws.Psi_ddot, &ws.c, &ws.p, &ws.U, &ws.h})
    vec->assign(nb, Vec6::Zero());
  ws.IC.assign(nb, Mat6::Zero());
  ws.IC_compact.assign(nb, Workspace::CompactInertia{});
  ws.IA.assign(nb, Mat6::Zero());
  ws.SI_row.assign(nb, Vec6::Zero());
  ws.SB_row.assign(nb, Vec3::Zero());
  ws.BC.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  ws.D.assign(nb, 0.0);
  ws.D_inv.assign(nb, 0.0);
  ws.u.assign(nb, 0.0);
  ws.f_ext.assign(nb, Vec6::Zero());
  ws.E_ext.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  ws.EC_ext.assign(nb, Eigen::Matrix<double, 6, 3>::Zero());
  ws.SE_row.assign(nb, Vec3::Zero());
  ws.path.assign(nb, 0);
  ws.m_sub.assign(nb, 0.0);
  ws.mc_sub.assign(nb, Vec3::Zero());
  ws.h_sub.assign(nb, Vec6::Zero());
}

// The solver's panels and plans (src/solver/articulated_solve.cpp), for the features that use it;
// the plans are reserved here so that a new block layout never allocates.
void size_solver(Workspace &ws, const Model &model) {
  const int nb = model.num_bodies();
  ws.touched.assign(nb, 0);
  ws.limb_root.assign(nb, 0);
  ws.panel_slot.assign(nb, 0);
  panel_slots(model, &ws.limb_root, &ws.panel_slot);
  ws.max_rhs = ws.dims.rhs_cols;
  const std::size_t cols = static_cast<std::size_t>(ws.max_rhs);
  const std::size_t panel = static_cast<std::size_t>(6 * ws.dims.panel_slots) * cols;
  ws.rhs.assign(static_cast<std::size_t>(model.num_dofs()) * cols);
  ws.P_panel.assign(panel);
  ws.A_panel.assign(panel);
  ws.rhs_blocks.resize(ws.dims.rhs_blocks);
  if (cols == 0) return;
  for (Workspace::SolvePlan &plan : ws.plans) {
    plan.blocks.reserve(ws.rhs_blocks.size());
    plan.ranges.reserve(ws.dims.plan_ranges);
    plan.offsets.assign(3 * nb + 1, 0);
    plan.link.assign(nb, 0);
  }
}

// The vectors of the finite differences and the steps, and step_linearize's stage matrices.
void size_steps(Workspace &ws, const Model &model) {
  const int nj = model.num_joints(), n = model.num_dofs(), N = model.state_dim();
  ws.nu_dot.setZero(n);
  ws.s_pert.setZero(nj);
  ws.r_pert.setZero(nj);
  ws.tau_pert.setZero(nj);
  ws.lambda_plus.setZero(N);
  ws.lambda_minus.setZero(N);
  ws.stage_k.setZero(N, 4);
  ws.rk4_theta.setZero(N);
  ws.rk4_Theta.setZero(N);
  ws.stage_s.setZero(nj);
  ws.stage_r.setZero(nj);
  ws.step_tau.setZero(nj);
  ws.step_model = model;
  if (!ws.has(kWorkspaceStepLinearize)) return;
  ws.A_stage.setZero(N, N);
  ws.B_stage.setZero(N, nj);
  for (MatX *m : {&ws.D_k, &ws.D_theta, &ws.D_Theta, &ws.Z}) m->setZero(N, N + nj);
  ws.tmp6.setZero(6, N + nj);
}

// The contact buffers (contact_dynamics.cpp, contact_linearize.cpp), capped at what one call
// can use (workspace_dims).
void size_contacts(Workspace &ws, const Model &model) {
  if (!ws.has(kWorkspaceContacts)) return;
  const std::size_t m = ws.dims.max_rows, ldm = detail::solve_stride(m);
  const std::size_t cc = static_cast<std::size_t>(ws.dims.contact_cols);
  ws.contacts.resize(ws.dims.max_contacts);
  ws.contact_frames.assign(ws.dims.max_contacts, 0);
  ws.contact_wrenches.setZero(6 * static_cast<Eigen::Index>(ws.dims.max_contacts));
  ws.contact_G.assign(6 * m);
  ws.contact_Y.assign(static_cast<std::size_t>(model.num_dofs()) * ldm);
  ws.contact_L.assign(m * ldm);
  ws.contact_K.assign(m * cc);
  ws.contact_W.assign(6 * ldm);
  for (VecX *x : {&ws.contact_gamma, &ws.contact_lambda, &ws.contact_dinv,
                  &ws.fd_contact_lambda_plus, &ws.fd_contact_lambda_minus})
    x->setZero(static_cast<Eigen::Index>(m));
  ws.contact_x.assign(model.num_bodies(), 0.0);
  ws.contact_a.assign(model.num_bodies(), Vec6::Zero());
  ws.impulse_twists.assign(model.num_bodies(), Vec6::Zero());
  ws.impulse_rest_rates.setZero(model.n_B);
  const Eigen::Index rows = static_cast<Eigen::Index>(m), N = model.state_dim(), nj = model.n_B;
  const Eigen::Index n = model.num_dofs();
  const bool lin = ws.has(kWorkspaceLinearize);
  for (Workspace::FrameMotion &f : ws.cs_frame) {
    f.J.setZero(6, n);
    f.dvel.setZero(6, lin ? N : 0);
    f.dacc.setZero(6, lin ? N : 0);
  }
  ws.cs_J.setZero(rows, n);
  ws.cs_c.setZero(rows);
  ws.cs_Y.setZero(n, rows);
  ws.cs_terms.assign(2 * m, Workspace::ConstraintTerm());
  ws.cs_term_count = 0;
  for (VecX *x : {&ws.cs_nu, &ws.cs_nu2, &ws.cs_tau}) x->setZero(n);
  ws.cs_lambda.setZero(rows);
  const Eigen::Index W = set_wrenches(ws.dims, model);
  ws.cs_wrench_frames.assign(static_cast<std::size_t>(W), 0);
  ws.cs_wrenches.setZero(6 * W);
  ws.cs_tau_ext.setZero(nj);
  if (lin) {
    ws.cs_Dc.setZero(rows, N);
    ws.cs_Dw.setZero(6 * W, N);
    ws.cs_turns.assign(static_cast<std::size_t>(4 * W), Workspace::ConstraintTurn());
    ws.cs_A.setZero(N, N);
    ws.cs_B.setZero(N, nj + 6 * W);
    ws.cs_X.setZero(n, N);
    ws.cs_K.setZero(rows, N + nj);
    ws.cs_Bu.setZero(n, nj);
  }
  if (!ws.has(kWorkspaceStepLinearize)) return;
  ws.step_dlambda_dz.setZero(rows, N);
  ws.step_dlambda_dw.setZero(rows, nj);
}

}  // namespace

Workspace::Workspace(const Model &model, unsigned features, int max_wrenches)
    : dims(workspace_dims(model, features, max_wrenches)) {
  size_recursions(*this, model);
  size_solver(*this, model);
  size_steps(*this, model);
  size_contacts(*this, model);
}

}  // namespace geolin
