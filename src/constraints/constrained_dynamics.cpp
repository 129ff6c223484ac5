// Constrained forward dynamics for a constraint set, and its linearization written out (the
// reference of constrained_linearize.cpp's path solve; docs/constraints.md §3, §4). A
// contacts-only set goes to the contact functions (exactly equal to them); any other set is
// solved along the paths of its rows (constraint_factor.cpp):
//   ν̇_free = ABA(τ),  Y = M⁻¹ J_cᵀ,  (J_c Y + mu 1) λ = −c(ν̇_free),  ν̇ = ν̇_free + Y λ   (K1)-(K3)
// and linearized from the inverse dynamics at fixed λ (RBDA ch. 8; Carpentier & Mansard 2018):
//   M δν̇ = −∂ID/∂z z + ∂(J_cᵀ λ)/∂z z + S w + J_cᵀ δλ,   J_c δν̇ + ∂c/∂z z = −mu δλ       (K4)
// so that with X = M⁻¹ (∂(J_cᵀ λ)/∂z − ∂ID/∂z) and K = ∂c/∂z + J_c X:
//   ∂λ/∂z = −Λ K,  ∂λ/∂w = −Λ J_c M⁻¹ S,  ∂ν̇/∂z = X + Y ∂λ/∂z,  ∂ν̇/∂w = M⁻¹ S + Y ∂λ/∂w.
#include "constrained_solve.hpp"
#include "constraint_rows.hpp"
#include "contacts/contact_solve.hpp"
#include "geolin/constraints.hpp"
#include "geometry.hpp"
#include "passes.hpp"
#include "solver/solver.hpp"

namespace geolin {

void ConstraintSet::update() {
  contact_frames_.clear();
  contact_types_.clear();
  contact_refs_.clear();
  if (!contacts_only()) return;
  for (const Constraint &c : items) {
    contact_frames_.push_back(c.frame);
    contact_types_.push_back(c.type);
    const Transform T = c.has_ref ? c.ref : Transform::identity();
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        const double x = i < 3 ? (j < 3 ? T.R(i, j) : T.o(i)) : (j < 3 ? 0.0 : 1.0);
        contact_refs_.push_back(x);
      }
  }
}

Contacts ConstraintSet::contacts(double mu) const {
  Contacts k;
  k.count = static_cast<int>(contact_frames_.size());
  k.frames = contact_frames_.data();
  k.types = contact_types_.data();
  k.flags = flags;
  k.Kp = Kp;
  k.Kd = Kd;
  k.refs = contact_refs_.data();
  k.mu = mu;
  return k;
}

namespace detail {

void constraint_solve(const Workspace &ws, int m, double *x) {
  cholesky_solve(ws.contact_L.data(), ws.contact_dinv.data(), m, solve_stride(m), x);
}

// (K1)-(K3) at (x, τ) by the sparse solve (constraint_factor.cpp): ν̇_free by ABA into
// ws.cs_nu, ν̇ into ws.cs_nu2, λ into ws.cs_lambda, the factors of M and Λ⁻¹ kept, and with
// inverse_mass M⁻¹ J_cᵀ into ws.cs_Y (for the linearization).
Outcome set_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                     const Vec6 &v0, CRefVec r, CRefVec tau, const ConstraintSet &set, double mu,
                     bool inverse_mass) {
  const int m = set.rows();
  forward_kinematics(model, ws, s);
  if (Outcome o =
          aba_pass(model, ws, v0, gravity_base_acceleration(model, ws, H), r, tau, {}, ws.cs_nu);
      !o)
    return o;
  if (Outcome o = constraint_factor(model, ws, H, s, v0, r, set, mu); !o) return o;
  constraint_forces(model, ws, m);
  if (inverse_mass) inverse_mass_columns_from_innovations(model, ws, m);
  return Outcome();
}

// §4: K = [∂c/∂z + J_c X, J_c M⁻¹ S] → Λ K (row-major in ws.contact_K, stride contact_cols, its
// rows solved all at once by the factor's blocked apply); then X ← X − Y K_z, Bu ← Bu − Y K_w.
// (ws.cs_Dc, ws.cs_J, ws.cs_X, ws.cs_Bu, ws.cs_Y, the factor of Λ⁻¹) => (constraint_K = Λ K, X,
// Bu)
void correct_by_constraints(const Model &model, Workspace &ws, int m) {
  const int N = model.state_dim(), nj = model.n_B, cols = N + nj, cols4 = (cols + 3) / 4 * 4;
  RowMatMap K = constraint_K(ws, m, cols4);
  const auto J = ws.cs_J.topRows(m);
  K.leftCols(N) = ws.cs_Dc.topRows(m);
  K.leftCols(N).noalias() += J * ws.cs_X;
  // (A model without joints has no torque columns: no block of them is taken, its storage may
  // be null.)
  if (nj > 0) K.middleCols(N, nj).noalias() = J * ws.cs_Bu;
  K.rightCols(cols4 - cols).setZero();  // the apply's padding columns (multiple of 4)
  cholesky_apply(m, cols4, ws.contact_L.data(), solve_stride(m), ws.contact_dinv.data(), K.data(),
                 K.outerStride());
  const auto Y = ws.cs_Y.leftCols(m);
  ws.cs_X.noalias() -= Y * K.leftCols(N);
  if (nj > 0) ws.cs_Bu.noalias() -= Y * K.middleCols(N, nj);
}

RowMatMap constraint_K(Workspace &ws, int m, int cols) {
  return RowMatMap(ws.contact_K.data(), m, cols, Eigen::OuterStride<>(ws.dims.contact_cols));
}

// (K4) at fixed λ: linearize with λ's wrenches (ws.cs_wrenches, world axes) and τ plus the
// couplings' forces: ws.cs_A, ws.cs_B; then X = ∂ν̇/∂z = F + Σ_w B_w Dw_w (the wrenches' values
// turning with the state) and Bu = M⁻¹ S.
// (the rows' wrenches, λ) => (ws.cs_A, ws.cs_B, ws.cs_X, ws.cs_Bu)
Outcome linearize_at_fixed_lambda(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                                  const Vec6 &v0, CRefVec r, CRefVec tau,
                                  const ConstraintSet &set) {
  const int n = model.num_dofs(), nj = model.n_B, W = ws.cs_wrench_count;
  ws.cs_tau_ext = tau;
  add_coupling_forces(set, ws.cs_lambda.data(), ws.cs_tau_ext);
  const ExternalWrenches ext{W, ws.cs_wrench_frames.data(), ws.cs_wrenches.data(), kWrenchMixed};
  auto B = ws.cs_B.leftCols(nj + 6 * W);
  if (Outcome o = linearize(model, ws, H, s, v0, r, ws.cs_tau_ext, ext, ws.cs_A, B); !o) return o;
  ws.cs_X = ws.cs_A.bottomRows(n);
  for (int w = 0; w < W; ++w) {  // only pose columns move the values; many never turn (Mixed)
    const auto Dw = ws.cs_Dw.block(6 * w, 0, 6, n);
    if (Dw.isZero(0.0)) continue;
    ws.cs_X.leftCols(n).noalias() += B.bottomRows(n).middleCols(nj + 6 * w, 6) * Dw;
  }
  if (nj > 0) ws.cs_Bu = B.bottomRows(n).leftCols(nj);
  return Outcome();
}

}  // namespace detail

Outcome constrained_dynamics(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                             const Vec6 &v, CRefVec r, CRefVec tau, const ConstraintSet &set,
                             double mu, RefVec nu_dot, RefVec lambda) {
  if (set.contacts_only())  // the contact functions' own (the empty set's too)
    return contact_dynamics(model, ws, H, s, v, r, tau, set.contacts(mu), nu_dot, lambda);
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  const Outcome o = detail::set_dynamics(model, ws, H, s, v0, r, tau, set, mu, false);
  if (!o) return o;
  const int m = set.rows();
  nu_dot = ws.cs_nu2;
  lambda.head(m) = ws.cs_lambda.head(m);
  return o;
}

// §4 (docs/constraints.md) written out, the readable reference of constrained_linearize.cpp's
// path solve (its test oracle): the linearization (K4) at fixed λ is linearize's with λ as
// external wrenches (their world values held; (K13)) and the couplings' joint forces, plus the
// change of the wrenches' world values with the state (ws.cs_Dw); then the correction by the
// constraints with J_c, M⁻¹ J_cᵀ and K formed.
// (H, s, v, r, τ, set) => (A, B, ∂λ/∂z, ∂λ/∂w), or a failed outcome with nothing written
Outcome constrained_linearize_reference(const Model &model, Workspace &ws, const Transform &H,
                                        CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                        const ConstraintSet &set, double mu, RefMat A, RefMat B,
                                        RefMat dlambda_dz, RefMat dlambda_dw) {
  const int m = set.rows(), n = model.num_dofs(), N = model.state_dim(), nj = model.n_B;
  const Vec6 v0 = model.fixed_base ? Vec6::Zero() : v;
  // 1. ν̇, λ, Y = M⁻¹ J_cᵀ and the factor of Λ⁻¹.
  if (Outcome o = detail::set_dynamics(model, ws, H, s, v0, r, tau, set, mu, true); !o) return o;
  // 2. The rows at the solution with ∂c/∂z, and λ as wrenches (ws.cs_J does not depend on ν̇).
  const detail::RowPoint at{H, s, v0, r, ws.cs_nu2, set.Kp, set.Kd, true, ws.cs_lambda.data()};
  if (Outcome o = detail::constraint_rows(model, ws, set, at); !o) return o;
  // 3. ∂ν̇/∂z at fixed λ (X) and M⁻¹ S (Bu) from linearize with the wrenches.
  if (Outcome o = detail::linearize_at_fixed_lambda(model, ws, H, s, v0, r, tau, set); !o) return o;
  // 4. The correction by the constraints.
  detail::correct_by_constraints(model, ws, m);
  const auto K = detail::constraint_K(ws, m, N + nj);
  if (!ws.cs_X.allFinite() || !ws.cs_Bu.allFinite() || !K.allFinite() ||
      !ws.cs_lambda.head(m).allFinite())
    return Outcome::overflowed();
  if (dlambda_dz.size() > 0) dlambda_dz = -K.leftCols(N);
  if (dlambda_dw.size() > 0) dlambda_dw = -K.rightCols(nj);
  A.topRows(n) = ws.cs_A.topRows(n);  // the kinematic rows (D16), (D17)
  A.bottomRows(n) = ws.cs_X;
  if (nj > 0) {
    B.topRows(n).setZero();
    B.bottomRows(n) = ws.cs_Bu;
  }
  ws.nu_dot = ws.cs_nu2;  // left where contact_linearize leaves it (the steps read it)
  return Outcome();
}

}  // namespace geolin
