// Internal passes shared by the algorithms (not installed). Every pass runs in base-frame
// coordinates after forward_kinematics has filled ws.H0, ws.S0, ws.I0: M and C depend on s only
// and H enters through gravity alone (docs/dynamics.md §3), so frame 0 plays the role that the
// inertial frame plays in RBDA's fixed-base algorithms.
#pragma once

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "geolin/algorithms.hpp"

/// x86-64 builds with GCC or Clang carry loops compiled for AVX2+FMA and AVX-512 besides the
/// baseline, chosen at run time by the processor (the solver's loops in articulated_solve.cpp;
/// the passes run through with_widest_isa below).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GEOLIN_NO_DISPATCH)
#define GEOLIN_AVX2_KERNELS 1
#endif

namespace geolin::detail {

/// Keeps a compiler from replacing a loop of zero stores with a memset call (whose call and size
/// dispatch cost more than the few vector stores of a matrix column).
#if defined(__clang__)
#define GEOLIN_NO_MEMSET __attribute__((no_builtin("memset")))
#elif defined(__GNUC__)
#define GEOLIN_NO_MEMSET __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define GEOLIN_NO_MEMSET
#endif

/// Unaligned vector moves: T is a vector typedef of alignment 8, v a variable of it, p a
/// double pointer. GCC: a typed dereference, one vector move (std::memcpy of a vector is lowered
/// to 16-byte pieces under its generic tuning in the AVX2 copies and reloaded whole from the
/// stack, a store-forwarding stall at every load). Clang: std::memcpy, which it turns into one
/// vector move, while it drops the reduced alignment of vector typedefs (aligned moves on
/// unaligned rows). Macros, so that the solver's per-instruction-set copies (solve_kernels.inc)
/// share no inline function.
#if defined(__clang__)
#define GEOLIN_VLOAD(T, v, p) std::memcpy(&(v), (p), sizeof(T))
#define GEOLIN_VSTORE(T, p, v) std::memcpy((p), &(v), sizeof(T))
#else
#define GEOLIN_VLOAD(T, v, p) (v) = *reinterpret_cast<const T *>(p)
#define GEOLIN_VSTORE(T, p, v) *reinterpret_cast<T *>(p) = (v)
#endif

/// The compilers' vector types for small dense kernels outside the solver (rnea_derivatives.cpp,
/// contact_linearize.cpp): in the AVX2 copies of with_widest_isa they become 4-wide instructions,
/// which Eigen's fixed-size products cannot (Eigen picks its packets, SSE2 here, when it is
/// compiled); in the baseline build they are the same SSE2 code as Eigen's. They may point at
/// doubles anywhere (alignment 8, may_alias), through load_vec and store_vec. Overloads taking
/// references: a deduced template argument would be the plain vector type (alignment = size),
/// and a vector passed by value changes the calling convention between the ISA builds.
typedef double V4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef double V2 __attribute__((vector_size(16), aligned(8), may_alias));
GEOLIN_ALWAYS_INLINE void load_vec(V4 &v, const double *p) {
  GEOLIN_VLOAD(V4, v, p);
}
GEOLIN_ALWAYS_INLINE void load_vec(V2 &v, const double *p) {
  GEOLIN_VLOAD(V2, v, p);
}
GEOLIN_ALWAYS_INLINE void store_vec(double *p, const V4 &v) {
  GEOLIN_VSTORE(V4, p, v);
}
GEOLIN_ALWAYS_INLINE void store_vec(double *p, const V2 &v) {
  GEOLIN_VSTORE(V2, p, v);
}

/// Whether no entry of p[0..count) is NaN or ±Inf, with the widest vectors of the processor
/// (articulated_solve.cpp dispatches it with the solver's loops).
bool all_finite_wide(const double *p, std::ptrdiff_t count);
inline bool all_finite(const double *p, std::ptrdiff_t count) {
  return all_finite_wide(p, count);
}

/// Threshold of the articulated pivots (docs/c-api.md, "Numeric contract"). A joint
/// pivot D_i = S_iᵀ I^A_i S_i is computed in frame 0 from terms as large as |S_i|ᵀ |I^A_i| |S_i|
/// (entrywise absolute values): when D_i is not above kPivotTolerance times that, the round-off of
/// the sum is comparable with D_i itself and M is singular to working precision at this state
/// (iCub at its zero pose: 1e-11; the worst of 2000 random iCub states: 1e-7; a 2000-body chain
/// stretched straight: 6e-9). A base pivot of the Cholesky factor of I^A_0 fails the same way when
/// L_kk² is not above kPivotTolerance · (I^A_0)_kk.
constexpr double kPivotTolerance = 1e-10;

/// Checks the joint pivot D of body i (articulated inertia IA, motion subspace S, frame 0) and
/// records a failure in ws.singular. The cheap bound tr(I^A) |S|² ≥ |S|ᵀ|I^A||S| (I^A is positive
/// semidefinite) settles every regular state; the exact scale is formed only below it.
inline void check_joint_pivot(Workspace &ws, int i, double D, const Vec6 &S, const Mat6 &IA) {
  if (D > kPivotTolerance * IA.trace() * S.squaredNorm()) return;
  const Vec6 a = S.cwiseAbs();
  const double scale = a.dot(IA.cwiseAbs() * a);
  if (D > kPivotTolerance * scale) return;
  if (ws.singular < 0) {
    ws.singular = i;
    ws.singular_pivot = D;
    ws.singular_ratio = scale > 0.0 ? D / scale : 0.0;
  }
}

/// Whether the Cholesky factor of the base's articulated inertia I^A_0 is regular: every pivot
/// L_kk² above kPivotTolerance times the diagonal entry it comes from (dimensionless, the 6
/// coordinates mixing masses and inertias); records a failure as body 0 in ws.singular.
inline void check_base_pivots(Workspace &ws) {
  const Mat6 &IA0 = ws.IA[0];
  double worst = 0.0;
  bool ok = ws.IA0_llt.info() == Eigen::Success;
  if (ok) {
    const Mat6 &L = ws.IA0_llt.matrixLLT();
    worst = HUGE_VAL;
    for (int k = 0; k < 6; ++k) {
      if (!(IA0(k, k) > 0.0)) {
        worst = 0.0;
        break;
      }
      worst = std::min(worst, L(k, k) * L(k, k) / IA0(k, k));
    }
    ok = worst > kPivotTolerance;
  }
  if (!ok && ws.singular < 0) {
    ws.singular = 0;
    ws.singular_pivot = worst;
    ws.singular_ratio = worst;
  }
}

/// The first pivot failure over a sequence of factorizations (the evaluations of a finite
/// difference, the stages of a step), each of which resets ws.singular.
struct SingularLatch {
  int body = -1;
  double pivot = 0.0, ratio = 0.0;
  void take(const Workspace &ws) {
    if (body < 0 && ws.singular >= 0) {
      body = ws.singular;
      pivot = ws.singular_pivot;
      ratio = ws.singular_ratio;
    }
  }
  void restore(Workspace &ws) const {
    if (body >= 0) {
      ws.singular = body;
      ws.singular_pivot = pivot;
      ws.singular_ratio = ratio;
    }
  }
};

/// Gravity as a fictitious base acceleration in frame 0: a_g = [-R^T g; 0] (docs/dynamics.md §3),
/// with R the rotation of H (moving base) or of model.H_A_0 (fixed base).
inline Vec6 gravity_base_acceleration(const Model &model, const Workspace &ws, const Transform &H) {
  const Mat3 &R = model.fixed_base ? model.H_A_0.R : H.R;
  Vec6 a = Vec6::Zero();
  a.head<3>().noalias() = -(R.transpose() * ws.gravity);
  return a;
}

/// The base motion seen by RNEAmb in frame 0: v_0 = v and a_0 = ν̇_b + [−Rᵀg; 0] (moving base),
/// or v_0 = 0 and a_0 = [−R_0ᵀg; 0] (fixed base).
inline void base_motion(const Model &model, const Workspace &ws, const Transform &H, const Vec6 &v,
                        CRefVec nu_dot, Vec6 &v0, Vec6 &a0) {
  a0 = gravity_base_acceleration(model, ws, H);
  v0.setZero();
  if (!model.fixed_base) {
    a0 += nu_dot.head<6>();
    v0 = v;
  }
}

/// The joint transform ^{λ(i)|i} H_i(q) = exp(q S_i^) (docs/dynamics.md §2).
inline Transform joint_motion(const Model &model, int i, double q) {
  Transform T;
  if (model.joint_type[i] == JointType::Prismatic) {
    T.o = q * model.joint_axis[i];
  } else {
    T.R = exp_so3(q * model.joint_axis[i]);
  }
  return T;
}

/// ^0 H_F of a frame, after forward_kinematics.
inline Transform frame_pose0(const Model &model, const Workspace &ws, int frame) {
  const Frame &F = model.frames[frame];
  return ws.H0[F.body] * F.H;
}

/// The frame-0 force transform of a wrench given at frame F: Local axes, or Mixed (axes of A at
/// the frame origin, whose orientation in frame 0 is Rᵀ).
inline Transform wrench_frame0(const Model &model, const Workspace &ws, const Transform &H,
                               int frame, unsigned flags) {
  Transform T = frame_pose0(model, ws, frame);
  if (flags & kWrenchMixed) T.R = (model.fixed_base ? model.H_A_0.R : H.R).transpose();
  return T;
}

/// Fills ws.f_ext (frame-0 body wrenches) and, for Mixed wrenches, ws.E_ext, after
/// forward_kinematics; ext == nullptr (or no wrench) switches external wrenches off.
void load_external_wrenches(const Model &model, Workspace &ws, const Transform &H,
                            const ExternalWrenches *ext);

/// Joint torque net of damping, τ_i − D_i r_i (GEOLIN_JOINT_DAMPING), for body i.
inline double net_torque(const Model &model, CRefVec tau, CRefVec r, int i) {
  return model.joint_damping ? tau[i - 1] - model.damping[i] * r[i - 1] : tau[i - 1];
}

/// RNEA forward and backward passes (RBDA Table 5.1 in frame-0 coordinates). v0: base twist
/// (zero for a fixed base), a0: base acceleration including gravity, r and r_dot: joint rates.
/// Fills ws.v, ws.a, ws.f (per body) and ws.F (subtree sums); writes the generalized force.
void rnea_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0, CRefVec r,
               CRefVec r_dot, RefVec out);

/// ABA passes (RBDA Table 7.1 / §9.3 in frame-0 coordinates) after kinematics: writes nu_dot.
void aba_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a_gravity, CRefVec r,
              CRefVec tau, RefVec nu_dot, const Vec6 &f0 = Vec6::Zero());

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

/// Calls f(lo, hi) for the degrees of freedom of the joints on the path from body b to the root,
/// as runs [lo, hi) of consecutive ones (a limb is numbered consecutively), tip first; the base's
/// six are not included. The non-zero columns of a frame Jacobian row on body b.
template <class F>
void for_each_path_run(const Model &model, int b, F &&f) {
  if (b < 1) return;
  int lo = model.dof(b), hi = lo + 1;
  for (int i = model.parent[b]; i >= 1; i = model.parent[i]) {
    if (model.dof(i) == lo - 1) {
      --lo;
      continue;
    }
    f(lo, hi);
    lo = model.dof(i);
    hi = lo + 1;
  }
  f(lo, hi);
}

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

/// The instruction set of articulated_solve's column loops: "baseline", "avx2+fma" or "avx512"
/// (the widest the processor has, chosen at run time). force_solve_isa selects one for tests
/// (where the processor has it; nullptr restores the automatic choice) and says whether it could.
const char *solve_isa();
bool force_solve_isa(const char *isa);
/// The same choice as a number: 0 baseline, 1 AVX2+FMA, 2 AVX-512.
int solve_isa_level();

#ifdef GEOLIN_AVX2_KERNELS
template <class F>
__attribute__((target("avx2,fma"), flatten)) auto run_avx2(F &f) {
  return f();
}
#endif

/// Runs f() compiled for AVX2+FMA where the solver's loops use AVX2 or wider, else as compiled
/// (the baseline: SSE2 on x86-64). For passes of small fixed-size Eigen products, whose
/// multiply-adds then fuse (rnea_derivatives_pass: a tenth faster). `flatten` inlines every call
/// f makes within its file, Eigen's included, into the AVX2 copy, so no function compiled for AVX2
/// is shared with baseline code (an inline function emitted by both could be merged into the
/// wider one); calls into other files stay calls to their baseline builds. force_solve_isa
/// selects either copy in tests.
template <class F>
auto with_widest_isa(F &&f) {
#ifdef GEOLIN_AVX2_KERNELS
  if (solve_isa_level() >= 1) return run_avx2(f);
#endif
  return f();
}

/// The velocity-free articulated-body factorization of M after kinematics (RBDA Table 7.1):
/// ws.IA, ws.U, ws.D, ws.D_inv and, for a moving base, ws.IA0_llt; checks every pivot
/// (ws.singular).
void articulated_inertias(const Model &model, Workspace &ws);

/// M^{-1} passes (Carpentier 2018) after kinematics.
void minv_pass(const Model &model, Workspace &ws, RefMat Minv);

/// Threshold of the pivots of Λ⁻¹ = J_c M⁻¹ J_cᵀ relative to their diagonal entries: below it
/// a contact row (nearly) repeats the others (redundant or singular contacts).
constexpr double kContactPivotTolerance = 1e-10;

/// After kinematics and aba_pass without external wrenches (ν̇_free in ws.nu_dot): the contact
/// frames (ws.contacts, with G_a), J_c's rows G_a (ws.contact_G), −c(ν̇_free) (ws.contact_gamma),
/// the Cholesky factor of Λ⁻¹ = J_c M⁻¹ J_cᵀ (ws.contact_L), λ (ws.contact_lambda) and
/// ν̇ ← ν̇_free + M⁻¹ J_cᵀ λ (contact_dynamics.cpp), from the innovations of J_cᵀ, which stay
/// in ws.contact_Y (n rows of stride solve_stride(m); articulated_solve_backward), with I^A_0
/// times their base rows in ws.contact_W (6 rows, same stride; moving base).
/// Returns false, with ws.contact_failed set, when Λ⁻¹ is singular.
bool contact_solve(const Model &model, Workspace &ws, const Transform &H, const Contacts &c);

/// x ← (L Lᵀ)⁻¹ x for the lower factor L (row-major, stride ld) of cholesky_in_place and its
/// inverse diagonal dinv.
void cholesky_solve(const double *L, const double *dinv, int m, std::ptrdiff_t ld, double *x);

/// The reference pose H_ref of contact k (refs, 16 doubles per contact, column-major).
Transform contact_reference(const Contacts &c, int k);

/// The columns of linearize's right-hand sides (linearize.cpp): base velocity columns [0, nv),
/// per joint j the triple (∂ID/∂s_j, ∂ID/∂r_j, S_j) at c_J + 3 (j − 1), 6 per wrench from c_w,
/// the 3 Mixed attitude columns at c_E; cols in all, rows of stride ldx.
/// With base_pose_cols (moving base), 6 more columns at c_H, zero in the solve, for a caller that
/// carries the z_H columns along (contact_linearize).
struct LinearizeLayout {
  int n = 0, nj = 0, nv = 0, nf = 0;
  bool mixed = false, base_pose_cols = false;
  int c_J = 0, c_w = 0, c_E = 0, c_H = 0, cols = 0, ldx = 0;
};
LinearizeLayout linearize_layout(const Model &model, int nf, bool mixed,
                                 bool base_pose_cols = false);

/// After kinematics, load_external_wrenches and aba_pass at the state (ws.nu_dot, and the
/// velocities, accelerations a (with a0 = ν̇_base + gravity), Ψ̇ and h consistent with it):
/// fills the right-hand sides of layout L (RNEA derivatives, S, the J_Fᵀ of ext's wrenches, the
/// Mixed attitude terms) and solves them in place, X = M⁻¹ R at ws.rhs; with backward_only, only
/// up to the innovations (articulated_solve_backward; its blocks stay in ws.rhs_blocks). Returns
/// the number of blocks.
int linearize_solve(const Model &model, Workspace &ws, const Transform &H, const Vec6 &v0,
                    const Vec6 &a0, CRefVec r, const ExternalWrenches *ext,
                    const LinearizeLayout &L, bool backward_only = false);

/// Writes A and B from the solution X (linearize_solve) and the state's v; the z_H columns of A
/// are [0; F_H] with −F_H in X's z_H columns (F_H_in_X, layout with base_pose_cols), else zero.
void linearize_write(const Model &model, const Workspace &ws, const LinearizeLayout &L,
                     const Vec6 &v, bool F_H_in_X, RefMat A, RefMat B);

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

/// RNEA derivative passes after kinematics (Carpentier & Mansard 2018, derived in frame 0).
/// Writes the structurally non-zero entries of ∂ID/∂s (n x n_J), ∂ID/∂v (base columns, n x 6,
/// none for a fixed base) and ∂ID/∂r (n x n_J) into strided views of a row-major panel (linearize
/// solves with them as right-hand sides); the other entries are left as they are (zero them).
/// after_aba: aba_pass just ran at this state and left v, a, Ψ̇ and h in the workspace.
using StridedMat =
    Eigen::Map<Workspace::RowMajorMat, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;
void rnea_derivatives_pass(const Model &model, Workspace &ws, const Vec6 &v0, const Vec6 &a0,
                           CRefVec r, CRefVec r_dot, StridedMat dID_ds, StridedMat dID_dv,
                           StridedMat dID_dr, bool after_aba);

}  // namespace geolin::detail
