// The solver module's instruction-set machinery (private to src/solver/): which builds carry
// per-instruction-set copies, unaligned vector moves and the memset guard.
// Nothing outside src/solver/ includes this header.
#pragma once

#include <cstring>

#if !defined(__GNUC__) && !defined(__clang__)
#error "geolin's solver kernels need GCC or Clang (vector extensions, target attributes)"
#endif

/// x86-64 builds with GCC or Clang carry loops compiled for AVX2+FMA and AVX-512 besides the
/// baseline, chosen at run time by the processor (the solver's loops in articulated_solve.cpp;
/// docs/performance.md §8). The kernels use GCC's and Clang's vector extensions: no other
/// compiler is supported (the build's flags are theirs too).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GEOLIN_NO_DISPATCH)
#define GEOLIN_AVX2_KERNELS 1
#endif

namespace geolin::detail {

/// Keeps a compiler from replacing a loop of zero stores with a memset call (whose call and size
/// dispatch cost more than the few vector stores of a matrix column).
#if defined(__clang__)
#define GEOLIN_NO_MEMSET __attribute__((no_builtin("memset")))
#else
#define GEOLIN_NO_MEMSET __attribute__((optimize("no-tree-loop-distribute-patterns")))
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

}  // namespace geolin::detail
