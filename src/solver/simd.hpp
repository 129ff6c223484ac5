// The solver module's instruction-set machinery (private to src/solver/): which builds carry
// per-instruction-set copies, vector types, unaligned vector moves and the memset guard.
// Nothing outside src/solver/ includes this header.
#pragma once

#include <cstring>

#include "solver.hpp"

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

}  // namespace geolin::detail
