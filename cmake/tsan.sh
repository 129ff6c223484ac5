#!/usr/bin/env bash
# Builds the multi-threaded C API test with ThreadSanitizer in its own build directory and runs
# it: one model shared by four threads, each with its own workspace (docs/c-api.md rule 2).
# usage: bash cmake/tsan.sh <build dir>      (default: <source>/build-tsan; GEOLIN_JOBS, default 2)
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$src/build-tsan}

# -g1: line tables (file and line in reports) at a fraction of the compile time of -g; -O1: the
# test runs in a fraction of a second, and -O1 compiles about an eighth faster than -O2.
cmake -S "$src" -B "$build" -DGEOLIN_TSAN=ON -DGEOLIN_BUILD_TESTS=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
cmake --build "$build" --target test_capi_threads -j "${GEOLIN_JOBS:-2}"

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# Some kernels (high mmap randomization) make TSan abort with "unexpected memory mapping";
# running without address-space randomization avoids it.
launcher=()
if ! "$build/tests/capi/test_capi_threads" "$src/tests/capi/tree.urdf" >/dev/null 2>&1; then
  if command -v setarch >/dev/null 2>&1 &&
     setarch "$(uname -m)" -R true 2>/dev/null; then
    launcher=(setarch "$(uname -m)" -R)
    echo "tsan.sh: running ctest without ASLR (setarch -R)"
  fi
fi
cd "$build"
${launcher[@]+"${launcher[@]}"} ctest -R thread --output-on-failure
