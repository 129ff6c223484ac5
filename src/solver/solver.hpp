// The solver module (src/solver/): M⁻¹ applied to many right-hand sides with the articulated-body
// factorization, the small dense products around it, and the choice of instruction set. Its
// per-instruction-set code stays inside src/solver/; callers see only these named operations.
#pragma once

#include <cstddef>

#include "geolin/algorithms.hpp"

namespace geolin::detail {

/// Whether no entry of p[0..count) times `scale` is NaN or ±Inf, with the widest vectors of the
/// processor (articulated_solve.cpp dispatches it with the solver's loops). With a power-of-two
/// scale 2^k: whether every entry is finite and below 2^(1024−k) in magnitude.
bool all_finite_wide(const double *p, std::ptrdiff_t count, double scale = 1.0);
inline bool all_finite(const double *p, std::ptrdiff_t count) {
  return all_finite_wide(p, count);
}

/// The row stride of articulated_solve's right-hand sides for `cols` columns: `cols` rounded up
/// to whole cache lines of 8 doubles (the extra columns must be zero). With a line-aligned buffer
/// every row then starts on a line, so no 8-wide (AVX-512) load or store of the solver's column
/// loops straddles two lines; a stride of 4 left every other row half a line off, which cost the
/// 108-column contact linearization of a 32-joint humanoid a fifth of its solve.
template <class Int>
constexpr Int solve_stride(Int cols) {
  return (cols + 7) / 8 * 8;
}

/// X = M⁻¹ R for `cols` right-hand sides stored row-major (n rows of stride solve_stride(cols))
/// at the start of ws.rhs's storage, overwritten by X, with the articulated-body factorization left
/// by aba_pass (ws.IA, ws.U, ws.D_inv, ws.IA0_llt): O(n) per column, no M⁻¹ formed (RBDA §7.3 with
/// velocity-free inputs; Carpentier 2018). `blocks` cover [0, cols) and state the sparsity of
/// R; entries of R outside it must be zero.
void articulated_solve(const Model &model, Workspace &ws, const RhsBlock *blocks, int num_blocks,
                       int cols);

/// (I^A_0)⁻¹ from aba_pass's factor of the base's articulated inertia, formed once per
/// factorization (moving base).
const Mat6 &articulated_base_inverse(Workspace &ws);

/// articulated_solve's backward pass and base step only: row i of X (a joint) becomes
/// D_i⁻¹ u_i and the base rows a_0 = (I^A_0)⁻¹ (R_0 − P_0). These are the innovations of the
/// factorization M⁻¹ = Lᵀ diag(D_i⁻¹, (I^A_0)⁻¹) L that ABA carries out (Rodriguez, Jain and
/// Kreutz-Delgado 1991), so for two right-hand sides Rᵀ_a M⁻¹ R_b = Σ_i D_i x_a,i x_b,i +
/// a_0,aᵀ I^A_0 a_0,b without the forward pass.
void articulated_solve_backward(const Model &model, Workspace &ws, const RhsBlock *blocks,
                                int num_blocks, int cols);

/// The forward pass that completes articulated_solve_backward (same blocks and columns), from the
/// innovations in X, which the caller may have changed in between: by linearity, adding
/// X_R' = X_J K to them (X_J the innovations of R_J) solves for R + R_J K.
void articulated_solve_forward(const Model &model, Workspace &ws, const RhsBlock *blocks,
                               int num_blocks, int cols);
/// C += A B (C = A B with assign) for row-major A (rows x depth, stride lda), B (depth x cols) and
/// C (rows x cols), cols a multiple of 4: small dense products in register blocks, with the widest
/// instruction set of articulated_solve's loops.
void product_add(int rows, int cols, int depth, const double *A, std::ptrdiff_t lda,
                 const double *B, std::ptrdiff_t ldb, double *C, std::ptrdiff_t ldc,
                 bool assign = false);

/// K ← (L Lᵀ)⁻¹ K for the lower factor L (m x m, row-major, stride ldl) of cholesky_in_place and
/// its inverse diagonal dinv, on the rows of K (m x cols, stride ldk, cols a multiple of 4).
void cholesky_apply(int m, int cols, const double *L, std::ptrdiff_t ldl, const double *dinv,
                    double *K, std::ptrdiff_t ldk);

/// c[i] = cos x[i] and s[i] = sin x[i] for i in [0, count), within an ulp or two of the exact
/// values, several at a time with the solver's instruction set (solve_kernels.inc); arguments
/// beyond kSincosMax in magnitude (and NaN) go to std::cos and std::sin. For forward kinematics,
/// whose sines and cosines were half of the pose pass one call at a time.
constexpr double kSincosMax = 1e5;
void sincos_all(const double *x, std::ptrdiff_t count, double *c, double *s);

/// The instruction set of articulated_solve's column loops: "baseline", "avx2+fma" or "avx512"
/// (the widest the processor has, chosen at run time). force_solve_isa selects one for tests
/// (where the processor has it; nullptr restores the automatic choice) and says whether it could.
const char *solve_isa();
bool force_solve_isa(const char *isa);
/// The same choice as a number: 0 baseline, 1 AVX2+FMA, 2 AVX-512.
int solve_isa_level();

/// A destination of write_columns: a column-major matrix (column stride ld) whose columns take
/// sign times columns of X; p == nullptr skips it.
struct ColumnDest {
  double *p;
  std::ptrdiff_t ld;
  double sign;
};

/// Writes columns [0, cols) of the `step` destinations whole: column c of dst[d] becomes `top`
/// zeros, then dst[d].sign times column step · c + d of the row-major X (rows [0, rows), row
/// stride ldx). step is 1 or 3 (the interleaved triples of linearize's right-hand sides). A 4x4
/// register transpose with the solver's instruction set (articulated_solve.cpp).
void write_columns(const double *X, std::ptrdiff_t ldx, int rows, int cols, int step,
                   const ColumnDest *dst, int top);
inline void write_columns(const double *X, std::ptrdiff_t ldx, int rows, int cols,
                          const ColumnDest &dst, int top) {
  write_columns(X, ldx, rows, cols, 1, &dst, top);
}

}  // namespace geolin::detail
