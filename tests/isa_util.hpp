// The solver's instruction-set switch for tests that compare its copies (baseline, AVX2+FMA,
// AVX-512; src/solver/articulated_solve.cpp).
#pragma once

#include <vector>

#include "../src/solver/solver.hpp"

namespace geolin::test {

/// The instruction sets among `candidates` that this processor (and build) can run; the
/// automatic choice is restored afterwards.
inline std::vector<const char *> runnable_isas(std::vector<const char *> candidates) {
  std::vector<const char *> out;
  for (const char *isa : candidates)
    if (detail::force_solve_isa(isa)) out.push_back(isa);
  detail::force_solve_isa(nullptr);
  return out;
}

/// Every instruction set this processor can run, baseline first.
inline std::vector<const char *> available_isas() {
  return runnable_isas({"baseline", "avx2+fma", "avx512"});
}

/// The ones wider than the baseline, to compare each with it.
inline std::vector<const char *> wider_isas() {
  return runnable_isas({"avx2+fma", "avx512"});
}

/// Restores the automatic choice when it goes out of scope: a test that forces an instruction
/// set and then fails an ASSERT (which returns at once) must not leave it forced for the tests
/// after it.
struct RestoreAutomaticIsa {
  RestoreAutomaticIsa() = default;
  RestoreAutomaticIsa(const RestoreAutomaticIsa &) = delete;
  RestoreAutomaticIsa &operator=(const RestoreAutomaticIsa &) = delete;
  ~RestoreAutomaticIsa() { detail::force_solve_isa(nullptr); }
};

}  // namespace geolin::test
