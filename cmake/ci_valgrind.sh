#!/usr/bin/env bash
# Run the C API test programs under valgrind (memcheck) and fail on any memory error or
# definite/indirect leak.
#
#   cmake/ci_valgrind.sh [BUILD_DIR]     (default: <repo>/build)
#
# The programs are those tests/capi/CMakeLists.txt builds (test_capi_c99, test_capi_threads,
# test_capi_dlopen, test_capi_noalloc, ...), found by the glob BUILD_DIR/tests/capi/test_capi_*.
# Their arguments are those of their ctest entries (ctest --show-only=json-v1) when ctest is
# available, else the test URDF tests/capi/tree.urdf. If none is built, the script says so and
# exits 0. The build must not be sanitized (valgrind cannot run ASan/TSan binaries). Logs go to
# $VALGRIND_LOG_DIR (default BUILD_DIR/valgrind-logs).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-"$ROOT/build"}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "ci_valgrind: no build directory '${1:-$ROOT/build}'" >&2; exit 2; }

if ! command -v valgrind >/dev/null 2>&1; then
  echo "ci_valgrind: installing valgrind"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "ci_valgrind: valgrind missing and not root" >&2; exit 2; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind
fi

LOGS=${VALGRIND_LOG_DIR:-"$BUILD/valgrind-logs"}
mkdir -p "$LOGS"

shopt -s nullglob
programs=()
for p in "$BUILD"/tests/capi/test_capi_*; do
  [[ -f "$p" && -x "$p" ]] && programs+=("$p")
done
if ((${#programs[@]} == 0)); then
  echo "ci_valgrind: SKIPPED: no C API test program (test_capi_*) under $BUILD/tests/capi;" \
       "build them first (cmake --build $BUILD)"
  exit 0
fi

# Command lines of the ctest entries, by executable path (python3 parses ctest's JSON).
declare -A cmdline=()
if command -v ctest >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
  while IFS=$'\t' read -r exe args; do
    [[ -n "$exe" ]] && cmdline["$exe"]="$args"
  done < <(cd "$BUILD" && ctest --show-only=json-v1 2>/dev/null | python3 -c '
import json, shlex, sys
try:
    data = json.load(sys.stdin)
except ValueError:
    sys.exit(0)
for t in data.get("tests", []):
    cmd = t.get("command") or []
    if cmd:
        print(cmd[0] + "\t" + " ".join(shlex.quote(a) for a in cmd[1:]))
' || true)
fi

failed=()
for p in "${programs[@]}"; do
  name=$(basename "$p")
  if [[ -n "${cmdline[$p]+x}" ]]; then
    eval "args=(${cmdline[$p]})"
  else
    args=("$ROOT/tests/capi/tree.urdf")
    [[ "$name" == test_capi_c99 ]] && args+=("$ROOT/models")
    [[ "$name" == test_capi_dlopen ]] && args=("$(ls "$BUILD"/capi/libgeolin.so.* 2>/dev/null | head -n1)" "$ROOT/tests/capi/tree.urdf")
  fi
  # A program that replaces malloc (test_capi_noalloc counts allocations) still runs under
  # valgrind, which intercepts the allocator first; its own check may then disagree, so only
  # valgrind's verdict (exit code 99) is taken from it.
  echo "ci_valgrind: $name ${args[*]}"
  set +e
  valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --track-origins=yes --quiet \
    --log-file="$LOGS/$name.log" "$p" "${args[@]}" >"$LOGS/$name.out" 2>&1
  rc=$?
  set -e
  if ((rc == 99)); then
    echo "ci_valgrind: $name: memory errors or leaks:" >&2
    cat "$LOGS/$name.log" >&2
    failed+=("$name")
  elif ((rc != 0)) && [[ "$name" != test_capi_noalloc ]]; then
    echo "ci_valgrind: $name failed (exit code $rc) under valgrind:" >&2
    tail -n 30 "$LOGS/$name.out" >&2
    failed+=("$name")
  elif ((rc != 0)); then
    echo "ci_valgrind: $name: exit code $rc (its malloc counting is not meaningful under" \
         "valgrind); valgrind found no error"
  else
    echo "ci_valgrind: $name: clean"
  fi
done
if ((${#failed[@]})); then
  echo "ci_valgrind: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "ci_valgrind: ${#programs[@]} program(s) clean"
