#!/usr/bin/env bash
# geolin bootstrap: install what is missing, build, and run the main job or the tests.
#
#   bash cmake/bootstrap.sh run    install the build dependencies (Debian/Ubuntu), build a
#                                  Release tree in build/, run `build/src/cli/geolin linearize`
#   bash cmake/bootstrap.sh test   install the build and test dependencies, build build/, run
#                                  ctest, then the extra jobs: an ASan+UBSan build (build-asan/,
#                                  the library, the C API tests and the memory-relevant tests),
#                                  cmake/tsan.sh build-tsan and cmake/ci_*.sh (abi, fuzz, valgrind)
#
# Idempotent: packages are installed only when missing (apt-get update only then), and build
# trees are reused. Each configuration is built once, with only the targets its job runs.
# Environment: GEOLIN_JOBS (parallel jobs, default 2), GEOLIN_SKIP_INSTALL=1 (never call
# apt-get), GEOLIN_SKIP_ASAN=1 (test: skip the sanitizer job).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
MODE=${1:-run}
JOBS=${GEOLIN_JOBS:-2}

BUILD_PACKAGES=(build-essential cmake pkg-config libeigen3-dev liburdfdom-dev libfmt-dev
                libgtest-dev nlohmann-json3-dev)
TEST_PACKAGES=(gfortran python3 python3-numpy clang valgrind abigail-tools)

log() { printf '\n==> [geolin] %s\n' "$*"; }
die() { printf '\n!!! [geolin] %s\n' "$*" >&2; exit 1; }

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

# --- packages ----------------------------------------------------------------------------------

missing_packages() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      echo "$p"
    fi
  done
}

install_packages() {
  if [ "${GEOLIN_SKIP_INSTALL:-0}" = 1 ]; then
    log "GEOLIN_SKIP_INSTALL=1: not installing packages"
    return 0
  fi
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    log "not a Debian-like system (no dpkg/apt-get): install by hand: $*"
    return 0
  fi
  local missing
  missing=$(missing_packages "$@" | tr '\n' ' ')
  if [ -z "${missing// /}" ]; then
    log "packages: all present"
    return 0
  fi
  log "installing missing packages: $missing"
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install these packages: $missing"
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  # shellcheck disable=SC2086
  "${sudo[@]}" apt-get install -y -q --no-install-recommends $missing
}

# --- builds ------------------------------------------------------------------------------------

# configure PRESET: `cmake --preset` (CMakePresets.json: release -> build/, asan -> build-asan/).
# Reuses an existing tree; re-applies the preset's cache variables.
configure() {
  cmake --preset "$1"
}

build() {
  local dir=$1
  shift
  cmake --build "$ROOT/$dir" -j "$JOBS" "$@"
}

run_tests() {
  local dir=$1
  shift
  ctest --test-dir "$ROOT/$dir" --output-on-failure -j "$JOBS" "$@"
}

# --- jobs --------------------------------------------------------------------------------------

job_run() {
  install_packages "${BUILD_PACKAGES[@]}"
  log "job: configure and build build/ (Release)"
  configure release
  build build --target geolin_cli
  log "job: main: build/src/cli/geolin linearize (the bundled humanoid at the default state)"
  "$ROOT/build/src/cli/geolin" linearize
}

# timed NAME COMMAND...: runs a job and records its duration for the summary.
JOB_TIMES=()
timed() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  JOB_TIMES+=("$(printf '%-34s %4d s' "$name" $((SECONDS - start)))")
}

job_release() {
  log "job 1: Release build in build/ and its tests (ctest -j $JOBS)"
  configure release
  build build
  run_tests build
}

job_asan() {
  log "job 2: ASan+UBSan build in build-asan/ (library, C API tests, memory-relevant tests)"
  configure asan
  build build-asan
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    run_tests build-asan -E 'install|rust|fortran|python|docs_references'
}

job_test() {
  install_packages "${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
  local start=$SECONDS

  timed "Release build + ctest" job_release

  if [ "${GEOLIN_SKIP_ASAN:-0}" = 1 ]; then
    log "job 2: ASan+UBSan skipped (GEOLIN_SKIP_ASAN=1)"
  else
    timed "ASan+UBSan build + ctest" job_asan
  fi

  if [ -f "$ROOT/cmake/tsan.sh" ]; then
    log "job: ThreadSanitizer (cmake/tsan.sh build-tsan)"
    timed "ThreadSanitizer (cmake/tsan.sh)" bash "$ROOT/cmake/tsan.sh" "$ROOT/build-tsan"
  fi

  local script
  for script in "$ROOT"/cmake/ci_*.sh; do
    [ -f "$script" ] || continue
    log "job: ${script#"$ROOT"/}"
    timed "${script#"$ROOT"/}" bash "$script"
  done

  log "all test jobs passed in $((SECONDS - start)) s:"
  printf '    %s\n' "${JOB_TIMES[@]}"
}

case "$MODE" in
  run) job_run ;;
  test) job_test ;;
  -h | --help | help) usage ;;
  *)
    usage >&2
    die "unknown mode '$MODE' (run or test)"
    ;;
esac
