#!/usr/bin/env bash
# Fuzz the C API for a fixed time with libFuzzer, AddressSanitizer and UBSan: two targets,
#   fuzz_load_urdf  (tests/fuzz/fuzz_load_urdf.cpp) the URDF loader, seeded from
#                   tests/data/hostile, models/ and tests/capi;
#   fuzz_states     (tests/fuzz/fuzz_states.cpp) every evaluation function at fuzzed states of
#                   the bundled models (OK with finite outputs, or an error with the outputs
#                   untouched), seeded from tests/fuzz/states_seeds (one input per model).
# Builds them with clang++ directly from the sources (src/*.cpp, src/urdf/*.cpp, src/contacts/*.cpp, src/solver/*.cpp, capi/*.cpp)
# into a separate directory -- independent of the main (g++) build and of the project's CMake
# files -- and fails (non-zero exit) if a fuzzer finds a crash, a leak, undefined behaviour, a
# failed check, a timeout or an out-of-memory.
#
#   cmake/ci_fuzz.sh [BUILD_DIR]       (default: <repo>/build-fuzz)
#   FUZZ_SECONDS=600 cmake/ci_fuzz.sh  (longer run; default 70 s, split between the targets,
#                                       which run side by side when JOBS >= 2)
#   (tests/fuzz/states_regressions/, inputs the state fuzzer once failed on, are replayed too)
#
# Failing inputs are left in BUILD_DIR/artifacts/{load_urdf,states}/. After fixing the loader,
# keep each as tests/data/hostile/fuzz_regression_<what>.urdf with a line in
# tests/data/hostile/MANIFEST.tsv; a state input goes to tests/fuzz/states_regressions/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-"$ROOT/build-fuzz"}
SECONDS_TO_RUN=${FUZZ_SECONDS:-70}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# --- toolchain: clang++ and the libFuzzer runtime (Debian: libclang-rt-14-dev) --------------
need_packages=()
command -v clang >/dev/null 2>&1 || need_packages+=(clang)
command -v clang++ >/dev/null 2>&1 || need_packages+=(clang)
have_fuzzer_runtime() {
  command -v clang++ >/dev/null 2>&1 || return 1
  local lib
  lib=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
  [[ -n "$lib" && "$lib" = /* && -f "$lib" ]] && return 0
  lib=$(clang++ --print-runtime-dir 2>/dev/null || true)
  [[ -n "$lib" && -f "$lib/libclang_rt.fuzzer-x86_64.a" ]] && return 0
  [[ -n "$lib" && -f "$lib/libclang_rt.fuzzer.a" ]]
}
if ! have_fuzzer_runtime; then
  need_packages+=(libclang-rt-14-dev)
fi
for pkg in liburdfdom-dev libconsole-bridge-dev libfmt-dev libeigen3-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_packages+=("$pkg")
done
if ((${#need_packages[@]})); then
  # de-duplicate
  mapfile -t need_packages < <(printf '%s\n' "${need_packages[@]}" | sort -u)
  echo "ci_fuzz: installing ${need_packages[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      SUDO="sudo"
    else
      echo "ci_fuzz: missing packages ${need_packages[*]} and not root (no sudo)" >&2
      exit 2
    fi
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_packages[@]}"
  have_fuzzer_runtime || { echo "ci_fuzz: no libFuzzer runtime after installing" >&2; exit 2; }
fi

# --- build ----------------------------------------------------------------------------------
CXX=${CXX_FUZZ:-clang++}
SAN="address,undefined"
# -g1: line tables (file and line in the sanitizers' reports), a fifth less compile time than -g.
# -Wno-pass-failed: at -O1 with sanitizers clang cannot honour the solver's vectorization hints
# (GEOLIN_IVDEP in src/solver/solve_kernels.inc) and would warn at each of them; that is
# expected here.
CXXFLAGS=(-std=c++17 -O1 -g1 -fno-omit-frame-pointer -fno-sanitize-recover=undefined
          -Wall -Wextra -Wno-pass-failed -DGEOLIN_FUZZING
          -I"$ROOT/include" -I"$ROOT/capi" -I"$ROOT/src")
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags eigen3 urdfdom 2>/dev/null || echo -I/usr/include/eigen3)"
CXXFLAGS+=("${PKG_CFLAGS[@]}")
LIBS=(-lurdfdom_model -lconsole_bridge -lfmt)

mkdir -p "$BUILD/obj" "$BUILD/corpus" "$BUILD/corpus_states" "$BUILD/artifacts/load_urdf" \
  "$BUILD/artifacts/states"
sources=("$ROOT"/src/*.cpp "$ROOT"/src/urdf/*.cpp "$ROOT"/src/contacts/*.cpp "$ROOT"/src/constraints/*.cpp "$ROOT"/src/solver/*.cpp
         "$ROOT"/capi/*.cpp)
objects=()
pids=()
compile() {  # source object: the library is instrumented for coverage, not linked to libFuzzer
  "$CXX" "${CXXFLAGS[@]}" -fsanitize=fuzzer-no-link,$SAN -c "$1" -o "$2"
}
for src in "${sources[@]}"; do
  obj="$BUILD/obj/$(basename "$(dirname "$src")")_$(basename "${src%.cpp}").o"
  objects+=("$obj")
  if [[ ! -f "$obj" || "$src" -nt "$obj" || -n "$(find "$ROOT/include" "$ROOT/capi" "$ROOT/src" -name '*.h*' -newer "$obj" -print -quit)" ]]; then
    while (($(jobs -rp | wc -l) >= JOBS)); do sleep 0.2; done
    echo "ci_fuzz: compiling ${src#"$ROOT"/}"
    compile "$src" "$obj" &
    pids+=($!)
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "ci_fuzz: linking fuzz_load_urdf and fuzz_states"
"$CXX" "${CXXFLAGS[@]}" -fsanitize=fuzzer,$SAN "$ROOT/tests/fuzz/fuzz_load_urdf.cpp" \
  "${objects[@]}" "${LIBS[@]}" -o "$BUILD/fuzz_load_urdf"
"$CXX" "${CXXFLAGS[@]}" -DGEOLIN_FUZZ_MODELS_DIR="\"$ROOT/models\"" -fsanitize=fuzzer,$SAN \
  "$ROOT/tests/fuzz/fuzz_states.cpp" "${objects[@]}" "${LIBS[@]}" -o "$BUILD/fuzz_states"

# --- corpus and run -------------------------------------------------------------------------
shopt -s nullglob
for seed in "$ROOT"/tests/data/hostile/*.urdf "$ROOT"/models/*.urdf "$ROOT"/tests/capi/*.urdf; do
  cp -f "$seed" "$BUILD/corpus/seed_$(basename "$seed")"
done
for seed in "$ROOT"/tests/fuzz/states_seeds/*; do
  cp -f "$seed" "$BUILD/corpus_states/seed_$(basename "$seed")"
done
rm -f "$BUILD"/artifacts/load_urdf/* "$BUILD"/artifacts/states/*

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
failed=0
# run NAME SECONDS MAX_LEN CORPUS...: fuzz for SECONDS; a failure is recorded, not fatal, so that
# both targets always run.
run() {
  local name=$1 seconds=$2 max_len=$3
  shift 3
  echo "ci_fuzz: fuzzing $name for $seconds s"
  set +e
  "$BUILD/fuzz_$name" -max_total_time="$seconds" -rss_limit_mb=4096 -max_len="$max_len" \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$name/" "$@" \
    >"$BUILD/fuzz_$name.log" 2>&1
  echo $? >"$BUILD/fuzz_$name.rc"
  set -e
}
# report NAME: the outcome of run NAME (its log's tail, and the failing inputs if any).
report() {
  local name=$1 rc
  rc=$(cat "$BUILD/fuzz_$name.rc")
  local artifacts=("$BUILD"/artifacts/"$name"/*)
  if ((rc != 0)) || ((${#artifacts[@]})); then
    tail -n 40 "$BUILD/fuzz_$name.log"
    echo "ci_fuzz: fuzz_$name FAILED (exit code $rc); failing inputs:" >&2
    for a in "${artifacts[@]}"; do echo "  $a" >&2; done
    failed=1
  else
    grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$BUILD/fuzz_$name.log" || true
  fi
}
# The two targets side by side, one core each (each single-threaded): the same fuzzing time
# per target in half the wall time. One after the other on a single core.
if ((JOBS >= 2)); then
  run load_urdf $((SECONDS_TO_RUN / 2)) 65536 "$BUILD/corpus" &
  run states $((SECONDS_TO_RUN - SECONDS_TO_RUN / 2)) 4096 "$BUILD/corpus_states" &
  wait
else
  run load_urdf $((SECONDS_TO_RUN / 2)) 65536 "$BUILD/corpus"
  run states $((SECONDS_TO_RUN - SECONDS_TO_RUN / 2)) 4096 "$BUILD/corpus_states"
fi
report load_urdf
report states
# Inputs that once failed must keep passing.
regressions=("$ROOT"/tests/fuzz/states_regressions/*)
if ((${#regressions[@]})); then
  echo "ci_fuzz: replaying ${#regressions[@]} state regressions"
  "$BUILD/fuzz_states" "${regressions[@]}" || failed=1
fi
if ((failed)); then
  echo "ci_fuzz: FAILED" >&2
  exit 1
fi
echo "ci_fuzz: no failure in ${SECONDS_TO_RUN} s"
