// X = M⁻¹ R for many right-hand sides at once, with the articulated-body factorization left by
// aba_pass (ws.IA, ws.U, ws.D_inv, ws.IA0_llt): ABA's recursion (RBDA Table 7.1, §9.3 for the
// moving base) with zero velocities and gravity, one column per right-hand side (Carpentier 2018
// applies the same recursion to the unit columns of M⁻¹):
//   backward  u_i = R_i − S_iᵀ P_i,  P_λ(i) += P_i + U_i D_i⁻¹ u_i,
//   base      a_0 = (I^A_0)⁻¹ (R_0 − P_0)            (a_0 = 0 for a fixed base),
//   forward   x_i = D_i⁻¹ u_i − (D_i⁻¹ U_i)ᵀ a_λ(i),  a_i = a_λ(i) + S_i x_i.
// Branch-induced sparsity: the caller says, per block of columns, which rows of R can be
// non-zero (RhsBlock), and the backward pass only visits the columns that can be non-zero in
// P_i — those of the joints in i's subtree or on its path from the base. With depth-first
// numbering these are contiguous ranges, nested from child to parent.
// Panels are row-major, so each step is a contiguous loop over columns that compilers vectorize.
// The loops (solve_kernels.inc) are compiled three times, for the baseline instruction set, for
// AVX2+FMA and for AVX-512, and the widest the processor has is chosen at run time: the binary
// stays portable (no -march=native) and uses 4- or 8-wide fused multiply-adds where it can.
#include <Eigen/Cholesky>
#include <atomic>
#include <cmath>
#include <string_view>

#include "solver/simd.hpp"
#include "solver/solver.hpp"

// The rows of a panel and the rows of different panels never overlap: let the compiler
// vectorize the column loops without run-time alias checks.
// Not under clang's UBSan (the fuzz job): its overflow checks of the index and pointer
// arithmetic are branches out of every loop body, so no loop can be vectorized and each request
// would end in a "loop not vectorized" warning (-Wpass-failed). Nothing else changes there.
#if defined(__clang__) && defined(__has_feature)
#if __has_feature(undefined_behavior_sanitizer)
#define GEOLIN_CLANG_UBSAN 1
#endif
#endif
#if defined(__clang__) && !defined(GEOLIN_CLANG_UBSAN)
#define GEOLIN_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__) && !defined(__clang__)
#define GEOLIN_IVDEP _Pragma("GCC ivdep")
#else
#define GEOLIN_IVDEP
#endif

namespace geolin::detail {
namespace {

using BackwardKernel = void (*)(int, int, std::ptrdiff_t, double *, const double *, double *,
                                const double *, const double *, double);
using ForwardKernel = void (*)(int, int, std::ptrdiff_t, double *, const double *, double *,
                               const double *, const double *);
using BaseKernel = void (*)(int, std::ptrdiff_t, std::ptrdiff_t, double *, const double *, double *,
                            const double *);
using BackwardPairKernel = void (*)(int, int, std::ptrdiff_t, double *, double *, const double *,
                                    double *, const double *, const double *, double,
                                    const double *, const double *, double);
using ForwardPairKernel = void (*)(int, int, std::ptrdiff_t, double *, double *, const double *,
                                   double *, const double *, const double *, const double *,
                                   const double *);
struct SolveKernels {
  BackwardKernel backward[2][3];  // [P_i holds data][assign, accumulate, skip P_λ]
  ForwardKernel forward[2];       // [a_i needed by children]
  BaseKernel base;
  BackwardPairKernel backward_pair[2][3];  // a chain link (child, parent) at once
  ForwardPairKernel forward_pair[2];       // [a of the second body needed by its children]
  void (*product)(int, int, int, const double *, std::ptrdiff_t, const double *, std::ptrdiff_t,
                  double *, std::ptrdiff_t, bool);
  void (*cholesky_apply)(int, int, const double *, std::ptrdiff_t, const double *, double *,
                         std::ptrdiff_t);
  bool (*finite)(const double *, std::ptrdiff_t, double);
  void (*write)(const double *, std::ptrdiff_t, int, int, int, const ColumnDest *, int);
  void (*sincos)(const double *, std::ptrdiff_t, double *, double *);
};

namespace baseline {
constexpr int kVectorWidth = 2;  // doubles per register: SSE2
#include "solve_kernels.inc"
}  // namespace baseline

#ifdef GEOLIN_AVX2_KERNELS
// Compile the loops between BEGIN and END for another instruction set (target strings: G for
// GCC, C for Clang).
#define GEOLIN_PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define GEOLIN_TARGET_BEGIN(G, C) \
  GEOLIN_PRAGMA(clang attribute push(__attribute__((target(C))), apply_to = function))
#define GEOLIN_TARGET_END _Pragma("clang attribute pop")
#else
#define GEOLIN_TARGET_BEGIN(G, C) _Pragma("GCC push_options") GEOLIN_PRAGMA(GCC target(G))
#define GEOLIN_TARGET_END _Pragma("GCC pop_options")
#endif

GEOLIN_TARGET_BEGIN("avx2,fma", "avx2,fma")
namespace avx2 {
constexpr int kVectorWidth = 4;
#include "solve_kernels.inc"
}  // namespace avx2
GEOLIN_TARGET_END

GEOLIN_TARGET_BEGIN("avx512f,avx512vl,avx512dq,avx2,fma,prefer-vector-width=512",
                    "avx512f,avx512vl,avx512dq,avx2,fma")
namespace avx512 {
constexpr int kVectorWidth = 8;
#include "solve_kernels.inc"
}  // namespace avx512
GEOLIN_TARGET_END
#endif

// -1: automatic; else an index into kIsaNames.
std::atomic<int> g_isa_override{-1};
constexpr const char *kIsaNames[] = {"baseline", "avx2+fma", "avx512"};

#ifdef GEOLIN_AVX2_KERNELS
bool cpu_has(int isa) {
  __builtin_cpu_init();  // in case this runs before the runtime's constructors
  if (isa == 0) return true;
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (isa == 1) return avx2;
  return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
}
#else
bool cpu_has(int isa) {
  return isa == 0;
}
#endif

const SolveKernels &solve_kernels() {
  static const int best = cpu_has(2) ? 2 : cpu_has(1) ? 1 : 0;
  const int forced = g_isa_override.load(std::memory_order_relaxed);
  switch (forced >= 0 ? forced : best) {
#ifdef GEOLIN_AVX2_KERNELS
    case 2:
      return avx512::kSolveKernels;
    case 1:
      return avx2::kSolveKernels;
#endif
    default:
      return baseline::kSolveKernels;
  }
}

using Range = ColumnRange;

// Columns of block b that can be non-zero in P_i and in row i of R (backward pass); i ≥ 1.
Range backward_range(const Model &model, const int *limb, const RhsBlock &b, int i) {
  const int end = model.subtree_end[i];
  switch (b.kind) {
    case RhsBlock::kPerJoint:  // joints of i's subtree and of its path from the base
      return {b.begin + b.width * (limb[i] - 1), b.begin + b.width * (end - 1)};
    case RhsBlock::kAtBody:  // rows of the base and of the path to b.body
      if (i <= b.body && b.body < end) return {b.begin, b.begin + b.count};
      return {b.begin, b.begin};
    case RhsBlock::kDense:
      break;
  }
  return {b.begin, b.begin + b.count};
}

// Fixed base (a_0 = 0): the columns in which a_i can be non-zero, those of i's limb.
Range forward_range(const Model &model, const int *limb, const RhsBlock &b, int i) {
  const int root = limb[i];
  switch (b.kind) {
    case RhsBlock::kPerJoint:
      return {b.begin + b.width * (root - 1), b.begin + b.width * (model.subtree_end[root] - 1)};
    case RhsBlock::kAtBody:
      if (b.body >= 1 && limb[b.body] == root) return {b.begin, b.begin + b.count};
      return {b.begin, b.begin};
    case RhsBlock::kDense:
      break;
  }
  return {b.begin, b.begin + b.count};
}

void fill_zero(double *P, std::ptrdiff_t ld, int lo, int hi) {
  if (lo >= hi) return;
  for (int r = 0; r < 6; ++r) std::fill(P + r * ld + lo, P + r * ld + hi, 0.0);
}

}  // namespace

namespace {

// Column ranges are widened to multiples of 4 (whole 4-wide vectors; the extra columns of R are
// zero) and merged where they meet, so that the loops run without scalar remainders. Not to 8:
// the sparse blocks of a few columns would double their work.
Range widen(Range r, int ld) {
  if (r.lo >= r.hi) return r;
  return {r.lo / 4 * 4, std::min((r.hi + 3) / 4 * 4, ld)};
}

// Calls f(lo, hi) on the merged, widened ranges of body i; range(b) gives block b's range.
template <class RangeOf, class F>
void for_each_range(int num_blocks, int ld, RangeOf range, F f) {
  Range cur{0, 0};
  for (int b = 0; b < num_blocks; ++b) {
    const Range r = widen(range(b), ld);
    if (r.lo >= r.hi) continue;
    if (cur.lo < cur.hi && r.lo <= cur.hi) {
      cur.hi = std::max(cur.hi, r.hi);
      continue;
    }
    if (cur.lo < cur.hi) f(cur.lo, cur.hi);
    cur = r;
  }
  if (cur.lo < cur.hi) f(cur.lo, cur.hi);
}

}  // namespace

namespace {

// (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹ from the lower factor L: L⁻¹ by forward substitution, then the symmetric
// product, in scalars (Eigen's solve with a 6x6 right-hand side takes its general
// triangular-matrix path, with packing, at twice the cost).
Mat6 inverse_from_cholesky(const Mat6 &L) {
  double d[6];  // 1 / L_ii, six independent divisions instead of one in every chain below
  for (int i = 0; i < 6; ++i) d[i] = 1.0 / L(i, i);
  double Li[6][6] = {};  // L⁻¹, lower triangular
  for (int j = 0; j < 6; ++j) {
    Li[j][j] = d[j];
    for (int i = j + 1; i < 6; ++i) {
      double s = 0.0;
      for (int k = j; k < i; ++k) s -= L(i, k) * Li[k][j];
      Li[i][j] = s * d[i];
    }
  }
  Mat6 inv;
  for (int r = 0; r < 6; ++r)
    for (int c = r; c < 6; ++c) {
      double s = 0.0;
      for (int k = c; k < 6; ++k) s += Li[k][r] * Li[k][c];
      inv(r, c) = inv(c, r) = s;
    }
  return inv;
}

// SolvePlan::link[p]: p and its only child p + 1 run as one backward / forward step.
constexpr char kLinkBackward = 1, kLinkForward = 2;

using SolvePlan = Workspace::SolvePlan;

bool same_layout(const SolvePlan &plan, const RhsBlock *blocks, int num_blocks, int cols) {
  if (plan.cols != cols || static_cast<int>(plan.blocks.size()) != num_blocks) return false;
  for (int b = 0; b < num_blocks; ++b) {
    const RhsBlock &p = plan.blocks[b], &q = blocks[b];
    if (p.kind != q.kind || p.begin != q.begin || p.count != q.count || p.width != q.width ||
        p.body != q.body)
      return false;
  }
  return true;
}

// The column ranges of every body for this block layout, kept in the workspace: MPC calls
// linearize with the same layout every time, and the range arithmetic cost as much as a tenth of
// the solve. Per body i, in plan.ranges from plan.offsets[3 i]: the merged backward
// ranges, the ranges of P_λ outside them (zeroed by λ's first child), the forward ranges.
void make_plan(const Model &model, const Workspace &ws, SolvePlan &plan, const RhsBlock *blocks,
               int num_blocks, int cols) {
  const int nb = model.n_B, ld = solve_stride(cols);
  const int *limb = ws.limb_root.data();
  plan.blocks.assign(blocks, blocks + num_blocks);  // within the capacity reserved
  plan.cols = cols;
  plan.ranges.clear();
  auto push = [&](int lo, int hi) { plan.ranges.push_back({lo, hi}); };
  for (int i = 0; i <= nb; ++i) {
    plan.offsets[3 * i] = static_cast<int>(plan.ranges.size());
    if (i >= 1)
      for_each_range(
          num_blocks, ld, [&](int b) { return backward_range(model, limb, blocks[b], i); }, push);
    plan.offsets[3 * i + 1] = static_cast<int>(plan.ranges.size());
    for (int b = 0; i >= 1 && b < num_blocks; ++b) {
      const int lam = model.parent[i];
      const Range r = widen(backward_range(model, limb, blocks[b], i), ld);
      const Range rl = widen(lam == 0 ? Range{blocks[b].begin, blocks[b].begin + blocks[b].count}
                                      : backward_range(model, limb, blocks[b], lam),
                             ld);
      const int cut_lo = r.lo < r.hi ? r.lo : rl.hi, cut_hi = r.lo < r.hi ? r.hi : rl.hi;
      if (rl.lo < cut_lo) push(rl.lo, cut_lo);
      if (cut_hi < rl.hi) push(cut_hi, rl.hi);
    }
    plan.offsets[3 * i + 2] = static_cast<int>(plan.ranges.size());
    if (i >= 1 && model.fixed_base)
      for_each_range(
          num_blocks, ld, [&](int b) { return forward_range(model, limb, blocks[b], i); }, push);
    else if (i >= 1)
      push(0, ld);  // a moving base's a_0 couples every column to every body
  }
  plan.offsets[3 * (nb + 1)] = static_cast<int>(plan.ranges.size());
  // Chain links (p, c = p + 1, c the only child of p) whose ranges coincide run as one step.
  auto same = [&](int list_a, int list_b) {
    const int *o = plan.offsets.data();
    const int na = o[list_a + 1] - o[list_a], nb_ = o[list_b + 1] - o[list_b];
    if (na != nb_) return false;
    for (int k = 0; k < na; ++k) {
      const Range &x = plan.ranges[o[list_a] + k], &y = plan.ranges[o[list_b] + k];
      if (x.lo != y.lo || x.hi != y.hi) return false;
    }
    return true;
  };
  for (int p = 0; p <= nb; ++p) plan.link[p] = 0;
  for (int p = 1; p < nb; ++p) {
    if (model.children[p].size() != 1) continue;
    const int c = p + 1;  // depth-first numbering: the only child comes next
    const bool no_fill = plan.offsets[3 * c + 1] == plan.offsets[3 * c + 2];
    if (same(3 * c, 3 * p) && no_fill) plan.link[p] |= kLinkBackward;
    if (same(3 * c + 2, 3 * p + 2)) plan.link[p] |= kLinkForward;
  }
}

}  // namespace

namespace {

// The passes to run: the backward pass with the base step, the forward pass, or both.
constexpr int kBackwardPass = 1, kForwardPass = 2;

// What the passes of one solve share: the plan for the block layout, the kernels of the chosen
// instruction set, X (compact in ws.rhs) and the row stride of X and the panels.
struct SolveContext {
  const Model &model;
  Workspace &ws;
  const SolvePlan &plan;
  const SolveKernels &k;
  double *X;
  int ld;
  std::ptrdiff_t ldx;
  bool moving;
  double *panel(LineAlignedBuffer &Pn, int body) const {
    return Pn.data() + 6 * ws.panel_slot[body] * ldx;
  }
  const Range *ranges() const { return plan.ranges.data(); }
};

// The plan for this block layout: the last one, the one before, or the older rebuilt.
const SolvePlan &current_plan(const Model &model, Workspace &ws, const RhsBlock *blocks,
                              int num_blocks, int cols) {
  if (!same_layout(ws.plans[ws.last_plan], blocks, num_blocks, cols)) {
    ws.last_plan = 1 - ws.last_plan;
    if (!same_layout(ws.plans[ws.last_plan], blocks, num_blocks, cols))
      make_plan(model, ws, ws.plans[ws.last_plan], blocks, num_blocks, cols);
  }
  return ws.plans[ws.last_plan];
}

// Backward pass, tip to base: u_i = R_i − S_iᵀ P_i into X's row i as D_i⁻¹ u_i, and
// P_λ(i) += P_i + U_i D_i⁻¹ u_i (docs/dynamics.md (D14)), a chain link (body and its only
// child) in one step where the plan says so; then the base step a_0 = (I^A_0)⁻¹ (R_0 − P_0).
// (X = R, the factorization) => (X = innovations, ws.P_panel (P_0 on every column [0, ld) of a
// moving base), ws.A_panel's base block)
void backward_pass(const SolveContext &s) {
  const Model &model = s.model;
  Workspace &ws = s.ws;
  const Range *ranges = s.ranges();
  std::fill(ws.touched.begin(), ws.touched.end(), 0);
  auto write_mode = [&](int body) {  // how body's step writes into its parent's P block
    const int lam = model.parent[body];
    return (lam == 0 && !s.moving) ? 2 : (ws.touched[lam] ? 1 : 0);
  };
  for (int i = model.n_B; i >= 1; --i) {
    const int lam = model.parent[i];
    const bool link = lam >= 1 && (s.plan.link[lam] & kLinkBackward);
    const int top = link ? lam : i;  // the body whose step writes into P_λ(top)
    const int mode = write_mode(top);
    double *P = s.panel(ws.P_panel, i), *Pl = s.panel(ws.P_panel, model.parent[top]);
    const int *o = s.plan.offsets.data() + 3 * top;
    if (mode == 0)  // first write into P_λ: zero its range outside top's (which it contains)
      for (int r = o[1]; r < o[2]; ++r) fill_zero(Pl, s.ldx, ranges[r].lo, ranges[r].hi);
    double *u = s.X + model.dof(i) * s.ldx;  // becomes D⁻¹ u_i
    if (link) {
      const BackwardPairKernel kernel = s.k.backward_pair[ws.touched[i] != 0][mode];
      double *ul = s.X + model.dof(lam) * s.ldx;
      for (int r = o[0]; r < o[1]; ++r)
        kernel(ranges[r].lo, ranges[r].hi, s.ldx, u, ul, P, Pl, ws.S0[i].data(), ws.U[i].data(),
               ws.D_inv[i], ws.S0[lam].data(), ws.U[lam].data(), ws.D_inv[lam]);
      --i;  // lam done
    } else {
      const BackwardKernel kernel = s.k.backward[ws.touched[i] != 0][mode];
      for (int r = o[0]; r < o[1]; ++r)
        kernel(ranges[r].lo, ranges[r].hi, s.ldx, u, P, Pl, ws.S0[i].data(), ws.U[i].data(),
               ws.D_inv[i]);
    }
    if (mode != 2) ws.touched[model.parent[top]] = 1;
  }
  if (s.moving) {
    const Mat6 &inv = articulated_base_inverse(ws);
    double *P0 = ws.P_panel.data();
    // The base step reads P_0 on every column [0, ld). The base's children wrote (or zeroed)
    // the widened ranges of the blocks; the columns outside them (up to the stride ld, and
    // between blocks) no step of this pass writes: zero them here, or they would hold what an
    // earlier solve with another layout left there (an Inf of a failed call makes them NaN).
    int next = 0;
    if (ws.touched[0])  // else no joints: nothing was written, zero every column
      for_each_range(
          static_cast<int>(s.plan.blocks.size()), s.ld,
          [&](int b) {
            const RhsBlock &blk = s.plan.blocks[b];
            return Range{blk.begin, blk.begin + blk.count};
          },
          [&](int lo, int hi) {
            fill_zero(P0, s.ldx, next, lo);
            next = hi;
          });
    fill_zero(P0, s.ldx, next, s.ld);
    s.k.base(s.ld, s.ldx, s.ldx, s.X, P0, s.panel(ws.A_panel, 0), inv.data());
  }
}

// Forward pass, base to tip: x_i = D_i⁻¹ u_i − (D_i⁻¹ U_i)ᵀ a_λ(i), a_i = a_λ(i) + S_i x_i
// (docs/dynamics.md (D14)), a chain link in one step where the plan says so; a leaf keeps no
// a_i. (X = innovations, ws.A_panel's base block) => (X = M⁻¹ R, ws.A_panel)
void forward_pass(const SolveContext &s) {
  const Model &model = s.model;
  Workspace &ws = s.ws;
  const Range *ranges = s.ranges();
  const int *offsets = s.plan.offsets.data();
  for (int i = 1; i <= model.n_B; ++i) {
    const Vec6 DU = ws.D_inv[i] * ws.U[i];
    double *x = s.X + model.dof(i) * s.ldx;
    const double *Al = s.panel(ws.A_panel, model.parent[i]);
    if (s.plan.link[i] & kLinkForward) {
      const int c = i + 1;
      const Vec6 DUc = ws.D_inv[c] * ws.U[c];
      const ForwardPairKernel forward = s.k.forward_pair[model.children[c].empty() ? 0 : 1];
      // A leaf writes no a_c; its panel stands in as a valid, unused pointer.
      double *xc = s.X + model.dof(c) * s.ldx, *Ac = s.panel(ws.A_panel, c);
      for (int r = offsets[3 * i + 2]; r < offsets[3 * i + 3]; ++r)
        forward(ranges[r].lo, ranges[r].hi, s.ldx, x, xc, Al, Ac, ws.S0[i].data(), DU.data(),
                ws.S0[c].data(), DUc.data());
      ++i;  // c done
      continue;
    }
    double *Ai = s.panel(ws.A_panel, i);
    const ForwardKernel forward = s.k.forward[model.children[i].empty() ? 0 : 1];
    for (int r = offsets[3 * i + 2]; r < offsets[3 * i + 3]; ++r)
      forward(ranges[r].lo, ranges[r].hi, s.ldx, x, Al, Ai, ws.S0[i].data(), DU.data());
  }
}

void solve(const Model &model, Workspace &ws, const RhsBlock *blocks, int num_blocks, int cols,
           int passes) {
  const int ld = solve_stride(cols);  // row stride of X (compact in ws.rhs) and of the panels
  const SolveContext s{model,
                       ws,
                       current_plan(model, ws, blocks, num_blocks, cols),
                       solve_kernels(),
                       ws.rhs.data(),
                       ld,
                       ld,
                       !model.fixed_base};
  if (passes & kBackwardPass) backward_pass(s);
  if (!(passes & kForwardPass)) return;
  double *A0 = s.panel(ws.A_panel, 0);
  // A forward pass alone starts from the base rows of X, which the caller may have changed.
  if (s.moving && !(passes & kBackwardPass))
    for (int r = 0; r < 6; ++r) std::copy(s.X + r * s.ldx, s.X + r * s.ldx + ld, A0 + r * s.ldx);
  if (!s.moving) fill_zero(A0, s.ldx, 0, ld);
  forward_pass(s);
}

}  // namespace

const Mat6 &articulated_base_inverse(Workspace &ws) {
  if (!ws.IA0_inv_valid) {  // factorized by aba_pass; the same for every solve at this state
    ws.IA0_inv = inverse_from_cholesky(ws.IA0_llt.matrixLLT());
    ws.IA0_inv_valid = true;
  }
  return ws.IA0_inv;
}

// docs/dynamics.md (D14): backward pass, base step, forward pass on every column.
void articulated_solve(const Model &model, Workspace &ws, const RhsBlock *blocks, int num_blocks,
                       int cols) {
  solve(model, ws, blocks, num_blocks, cols, kBackwardPass | kForwardPass);
}

void articulated_solve_backward(const Model &model, Workspace &ws, const RhsBlock *blocks,
                                int num_blocks, int cols) {
  solve(model, ws, blocks, num_blocks, cols, kBackwardPass);
}

void articulated_solve_forward(const Model &model, Workspace &ws, const RhsBlock *blocks,
                               int num_blocks, int cols) {
  solve(model, ws, blocks, num_blocks, cols, kForwardPass);
}

void product_add(int rows, int cols, int depth, const double *A, std::ptrdiff_t lda,
                 const double *B, std::ptrdiff_t ldb, double *C, std::ptrdiff_t ldc, bool assign) {
  solve_kernels().product(rows, cols, depth, A, lda, B, ldb, C, ldc, assign);
}

void cholesky_apply(int m, int cols, const double *L, std::ptrdiff_t ldl, const double *dinv,
                    double *K, std::ptrdiff_t ldk) {
  solve_kernels().cholesky_apply(m, cols, L, ldl, dinv, K, ldk);
}

void write_columns(const double *X, std::ptrdiff_t ldx, int rows, int cols, int step,
                   const ColumnDest *dst, int top) {
  solve_kernels().write(X, ldx, rows, cols, step, dst, top);
}

bool all_finite_wide(const double *p, std::ptrdiff_t count, double scale) {
  return solve_kernels().finite(p, count, scale);
}

void sincos_all(const double *x, std::ptrdiff_t count, double *c, double *s) {
  solve_kernels().sincos(x, count, c, s);
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    if (std::abs(x[i]) <= kSincosMax) continue;  // large, infinite or NaN: the library's
    c[i] = std::cos(x[i]);
    s[i] = std::sin(x[i]);
  }
}

int solve_isa_level() {
  const SolveKernels *k = &solve_kernels();
#ifdef GEOLIN_AVX2_KERNELS
  if (k == &avx512::kSolveKernels) return 2;
  if (k == &avx2::kSolveKernels) return 1;
#endif
  (void)k;
  return 0;
}

const char *solve_isa() {
  return kIsaNames[solve_isa_level()];
}

bool force_solve_isa(const char *isa) {
  if (isa == nullptr) {
    g_isa_override = -1;
    return true;
  }
  for (int i = 0; i < 3; ++i) {
    if (std::string_view(isa) == kIsaNames[i] && cpu_has(i)) {
      g_isa_override = i;
      return true;
    }
  }
  return false;
}

}  // namespace geolin::detail

namespace geolin {

bool all_finite(const double *p, std::ptrdiff_t count) {
  return detail::all_finite_wide(p, count);
}

}  // namespace geolin
