// The contact solve shared by contact_dynamics, contact_linearize and the finite differences
// (docs/contacts.md).
#pragma once

#include "geolin/algorithms.hpp"

namespace geolin::detail {

/// After kinematics and aba_pass without external wrenches (ν̇_free in ws.nu_dot): the contact
/// frames (ws.contacts, with G_a), J_c's rows G_a (ws.contact_G), −c(ν̇_free) (ws.contact_gamma),
/// the Cholesky factor of Λ⁻¹ = J_c M⁻¹ J_cᵀ (ws.contact_L), λ (ws.contact_lambda) and
/// ν̇ ← ν̇_free + M⁻¹ J_cᵀ λ (contact_dynamics.cpp), from the innovations of J_cᵀ, which stay
/// in ws.contact_Y (n rows of stride solve_stride(m); articulated_solve_backward), with I^A_0
/// times their base rows in ws.contact_W (6 rows, same stride; moving base).
/// Returns Outcome::dependent_contact (the contact and row) when Λ⁻¹ is singular.
Outcome contact_solve(const Model &model, Workspace &ws, const Transform &H,
                      const Contacts &contacts);

/// contact_solve in its two parts. contact_factor: everything up to the factor of Λ⁻¹, with
/// −c(ν̇_free) in ws.contact_gamma (Outcome::dependent_contact when Λ⁻¹ is singular);
/// contact_forces: λ = Λ ws.contact_gamma into ws.contact_lambda and ws.nu_dot += M⁻¹ J_cᵀ λ.
/// A caller that prescribes another right-hand side (impulse.cpp) overwrites ws.contact_gamma
/// in between.
Outcome contact_factor(const Model &model, Workspace &ws, const Transform &H,
                       const Contacts &contacts);
void contact_forces(const Model &model, Workspace &ws, const Contacts &contacts);

/// The Cholesky factor of Λ⁻¹ (+ mu 1), m x m, row-major with stride ld, lower triangle in place,
/// with the test for dependent rows of docs/contacts.md §4: returns the first refused row (its
/// pivot ratio in *ratio, NaN when not finite: an overflow), or -1; dinv receives 1 / L_kk.
int cholesky_in_place(double *A, int m, std::ptrdiff_t ld, double mu, double *dinv, double *ratio);

/// x ← (L Lᵀ)⁻¹ x for the lower factor L (row-major, stride ld) of cholesky_in_place and its
/// inverse diagonal dinv.
void cholesky_solve(const double *L, const double *dinv, int m, std::ptrdiff_t ld, double *x);

/// The reference pose H_ref of contact k (refs, 16 doubles per contact, column-major).
Transform contact_reference(const Contacts &contacts, int k);

}  // namespace geolin::detail
