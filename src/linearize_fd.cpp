// The geometric central finite difference of the left-trivialized vector field (docs/dynamics.md
// §5; Bos et al. 2022, §5): column k of D_x λ · T_e L_x is (λ(x·exp(ε e_k)) − λ(x·exp(−ε e_k))) /
// 2ε with the exact SE(3) exponential, then −ad_v is added to the SE(3) block. A user-facing check.
#include "geolin/state.hpp"
#include "numeric_checks.hpp"

namespace geolin {
namespace {

// λ(x, τ) = (v, r, FD(x, τ)) stacked as [v; r; ν̇] (moving base) or [r; ν̇] (fixed base).
// The first failure over the evaluations is kept in `first`.
void vector_field(const Model &model, Workspace &ws, const Transform &H, CRefVec s, const Vec6 &v,
                  CRefVec r, CRefVec tau, const ExternalWrenches &ext, RefVec out, Outcome &first) {
  const int n = model.num_dofs();
  if (!model.fixed_base) out.head<6>() = v;
  out.segment(model.joint_offset(), model.n_B) = r;
  first.keep_first(aba(model, ws, H, s, v, r, tau, ext, ws.nu_dot));
  out.tail(n) = ws.nu_dot;
}

// The state columns of A (with the −ad_v correction of the SE(3) block) and the torque columns
// of B by central differences: field(H, s, v, r, τ, plus) evaluates the vector field into
// ws.lambda_plus (plus) or ws.lambda_minus; column(state, k) runs after each pair, for the
// callers' side results (state: column k of z, else torque k).
template <class Field, class Column>
void central_differences(const Model &model, Workspace &ws, const Transform &H, CRefVec s,
                         const Vec6 &v, CRefVec r, CRefVec tau, double eps, RefMat A, RefMat B,
                         Field &&field, Column &&column) {
  const double inv2e = 1.0 / (2.0 * eps);  // docs/dynamics.md (D20)
  ws.s_pert = s;
  ws.r_pert = r;
  ws.tau_pert = tau;
  for (int k = 0; k < model.state_dim(); ++k) {
    for (int sign = 0; sign < 2; ++sign) {
      Transform Hp = H;
      Vec6 vp = v;
      // x exp(±ε e_k), the right perturbation (D15): ws.s_pert and ws.r_pert are restored below.
      state_integrate_coordinate(model, k, sign == 0 ? eps : -eps, Hp, ws.s_pert, vp, ws.r_pert);
      field(Hp, ws.s_pert, vp, ws.r_pert, tau, sign == 0);
      ws.s_pert = s;
      ws.r_pert = r;
    }
    A.col(k) = (ws.lambda_plus - ws.lambda_minus) * inv2e;
    column(true, k);
  }
  if (!model.fixed_base) A.topLeftCorner<6, 6>() -= cross_motion(v);
  for (int k = 0; k < model.n_B; ++k) {
    ws.tau_pert[k] = tau[k] + eps;
    field(H, s, v, r, ws.tau_pert, true);
    ws.tau_pert[k] = tau[k] - eps;
    field(H, s, v, r, ws.tau_pert, false);
    ws.tau_pert[k] = tau[k];
    B.col(k) = (ws.lambda_plus - ws.lambda_minus) * inv2e;
    column(false, k);
  }
}

}  // namespace

Outcome linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                    CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau, double eps,
                                    RefMat A, RefMat B) {
  return linearize_finite_difference(model, ws, H, s, v, r, tau, ExternalWrenches{}, eps, A, B);
}

Outcome linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                    CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                    const ExternalWrenches &ext, double eps, RefMat A, RefMat B) {
  const int nj = model.n_B;
  const double inv2e = 1.0 / (2.0 * eps);
  Outcome first;  // any singular evaluation makes the whole result singular
  central_differences(
      model, ws, H, s, v, r, tau, eps, A, B,
      [&](const Transform &Hp, CRefVec sp, const Vec6 &vp, CRefVec rp, CRefVec taup, bool plus) {
        vector_field(model, ws, Hp, sp, vp, rp, taup, ext, plus ? ws.lambda_plus : ws.lambda_minus,
                     first);
      },
      [](bool, int) {});
  // Wrench columns: perturb each wrench coordinate with an extra wrench ±ε e_c at its frame.
  ExternalWrenches pert = ext;
  for (int w = 0; w < ext.count; ++w) {
    pert.extra_frame = ext.frames[w];
    for (int c = 0; c < 6; ++c) {
      pert.extra.setZero();
      pert.extra[c] = eps;
      vector_field(model, ws, H, s, v, r, tau, pert, ws.lambda_plus, first);
      pert.extra[c] = -eps;
      vector_field(model, ws, H, s, v, r, tau, pert, ws.lambda_minus, first);
      B.col(nj + 6 * w + c) = (ws.lambda_plus - ws.lambda_minus) * inv2e;
    }
  }
  return first;
}

// The same for the contact-constrained dynamics (contact_dynamics), with the columns of ∂λ/∂z
// and ∂λ/∂w (m rows; either may be empty). Returns the first failure of the evaluations.
Outcome contact_linearize_finite_difference(const Model &model, Workspace &ws, const Transform &H,
                                            CRefVec s, const Vec6 &v, CRefVec r, CRefVec tau,
                                            const Contacts &contacts, double eps, RefMat A,
                                            RefMat B, RefMat dlambda_dz, RefMat dlambda_dw) {
  const int nj = model.n_B, n = model.num_dofs(), m = contacts.rows();
  const int off = model.joint_offset();
  const double inv2e = 1.0 / (2.0 * eps);
  Outcome first;  // the first failed pivot, overflow or dependent row over the evaluations
  auto lp = ws.fd_contact_lambda_plus.head(m), lm = ws.fd_contact_lambda_minus.head(m);
  central_differences(
      model, ws, H, s, v, r, tau, eps, A, B,
      [&](const Transform &Hp, CRefVec sp, const Vec6 &vp, CRefVec rp, CRefVec taup, bool plus) {
        RefVec out = plus ? ws.lambda_plus : ws.lambda_minus;
        if (!model.fixed_base) out.head<6>() = vp;
        out.segment(off, nj) = rp;
        first.keep_first(contact_dynamics(model, ws, Hp, sp, vp, rp, taup, contacts, ws.nu_dot,
                                          plus ? RefVec(lp) : RefVec(lm)));
        out.tail(n) = ws.nu_dot;
      },
      [&](bool state, int k) {
        RefMat D = state ? dlambda_dz : dlambda_dw;
        if (D.size() > 0) D.col(k) = (lp - lm) * inv2e;
      });
  return first;
}

}  // namespace geolin
