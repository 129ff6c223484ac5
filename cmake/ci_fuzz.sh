#!/usr/bin/env bash
# Fuzz the URDF loader through the C API for a fixed time (default 60 s) with libFuzzer,
# AddressSanitizer and UBSan. Builds tests/fuzz/fuzz_load_urdf.cpp with clang++ directly from
# the sources (src/*.cpp, capi/*.cpp) into a separate directory -- independent of the main
# (g++) build and of the project's CMake files -- seeds the corpus from tests/data/hostile and
# models/, and fails (non-zero exit) if the fuzzer finds a crash, a leak, undefined behaviour,
# a timeout or an out-of-memory.
#
#   cmake/ci_fuzz.sh [BUILD_DIR]     (default: <repo>/build-fuzz)
#   FUZZ_SECONDS=600 cmake/ci_fuzz.sh  (longer run)
#
# Crashing inputs are left in BUILD_DIR/artifacts/. After fixing the loader, keep each one as
# tests/data/hostile/fuzz_regression_<what>.urdf with a line in tests/data/hostile/MANIFEST.tsv.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-"$ROOT/build-fuzz"}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
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
CXXFLAGS=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined
          -Wall -Wextra -DGEOLIN_FUZZING
          -I"$ROOT/include" -I"$ROOT/capi")
read -r -a PKG_CFLAGS <<<"$(pkg-config --cflags eigen3 urdfdom 2>/dev/null || echo -I/usr/include/eigen3)"
CXXFLAGS+=("${PKG_CFLAGS[@]}")
LIBS=(-lurdfdom_model -lconsole_bridge -lfmt)

mkdir -p "$BUILD/obj" "$BUILD/corpus" "$BUILD/artifacts"
sources=("$ROOT"/src/*.cpp "$ROOT"/capi/*.cpp)
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
echo "ci_fuzz: linking fuzz_load_urdf"
"$CXX" "${CXXFLAGS[@]}" -fsanitize=fuzzer,$SAN "$ROOT/tests/fuzz/fuzz_load_urdf.cpp" \
  "${objects[@]}" "${LIBS[@]}" -o "$BUILD/fuzz_load_urdf"

# --- corpus and run -------------------------------------------------------------------------
shopt -s nullglob
for seed in "$ROOT"/tests/data/hostile/*.urdf "$ROOT"/models/*.urdf "$ROOT"/tests/capi/*.urdf; do
  cp -f "$seed" "$BUILD/corpus/seed_$(basename "$seed")"
done
rm -f "$BUILD"/artifacts/*

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
echo "ci_fuzz: fuzzing for ${SECONDS_TO_RUN} s"
set +e
"$BUILD/fuzz_load_urdf" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=4096 -max_len=65536 \
  -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" "$BUILD/corpus" \
  2>&1 | tee "$BUILD/fuzz.log"
rc=${PIPESTATUS[0]}
set -e
artifacts=("$BUILD"/artifacts/*)
if ((rc != 0)) || ((${#artifacts[@]})); then
  echo "ci_fuzz: FAILED (exit code $rc); crashing inputs:" >&2
  for a in "${artifacts[@]}"; do echo "  $a" >&2; done
  exit 1
fi
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' "$BUILD/fuzz.log" || true
echo "ci_fuzz: no crash in ${SECONDS_TO_RUN} s"
