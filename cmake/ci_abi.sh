#!/usr/bin/env bash
# Check that libgeolin.so keeps the ABI of the checked-in baseline (docs/c-api.md, "Versioning
# policy"): any removed or changed function or type of capi/geolin.h fails; added functions pass.
#
#   cmake/ci_abi.sh [BUILD_DIR]          compare
#   cmake/ci_abi.sh --update [BUILD_DIR] rewrite the baseline (at a release: see docs/c-api.md)
#
# It brings the `geolin` shared-library target of BUILD_DIR up to date -- by default the Release
# tree <repo>/build when it is configured (CI's first job built it: nothing to compile), else
# its own tree <repo>/build-abi (Debug, -g -Og) -- and reads the C API's types from the debug
# information of capi/geolin_capi.cpp, compiled with -g in every build type
# (capi/CMakeLists.txt). It describes the library with abidw restricted to the public header
# (--header-file capi/geolin.h --drop-private-types --exported-interfaces-only: the C++ core
# behind the opaque handles and the wrapper's own types do not count) and compares that with
# capi/abi/libgeolin.so.<ABI>.abi using abidiff.
#
# The verdict, from abidiff's exit status (a bit field, `man abidiff`) and its summary:
#   bit 1 (ABIDIFF_ERROR) or 2 (ABIDIFF_USAGE_ERROR)  -> fail: the comparison did not run
#   bit 8 (ABIDIFF_ABI_INCOMPATIBLE_CHANGE)           -> fail: e.g. a function was removed
#   bit 4 (ABIDIFF_ABI_CHANGE) alone                  -> pass only if the report counts nothing
#        but additions: 0 removed and 0 changed functions and variables, 0 removed symbols,
#        no SONAME or architecture change. A changed parameter, return or struct type, or a
#        removed function, fails; new functions (a new minor version) pass and are listed.
#   0                                                 -> pass: the same ABI
# Logs go to BUILD_DIR/abi (libgeolin.abi, abidiff.txt).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UPDATE=0
if [[ "${1:-}" == --update ]]; then
  UPDATE=1
  shift
fi
BUILD=${1:-}
if [[ -z "$BUILD" ]]; then
  BUILD="$ROOT/build-abi"
  [[ -f "$ROOT/build/CMakeCache.txt" ]] && BUILD="$ROOT/build"
fi
JOBS=${GEOLIN_JOBS:-2}

if ! command -v abidw >/dev/null 2>&1 || ! command -v abidiff >/dev/null 2>&1; then
  echo "ci_abi: installing abigail-tools"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "ci_abi: abigail-tools missing and not root" >&2; exit 2; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq abigail-tools
fi

# --- build libgeolin.so with debug information -------------------------------------------------
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -Og" \
    -DCMAKE_CXX_FLAGS_DEBUG="-g -Og" -DGEOLIN_BUILD_TESTS=OFF "${launcher[@]}" >/dev/null
fi
echo "ci_abi: libgeolin.so of ${BUILD#"$ROOT"/}"
cmake --build "$BUILD" -j"$JOBS" --target geolin >/dev/null

ABI=$(sed -n 's/^set(GEOLIN_ABI_VERSION \([0-9]*\))/\1/p' "$ROOT/CMakeLists.txt")
[[ -n "$ABI" ]] || { echo "ci_abi: no GEOLIN_ABI_VERSION in CMakeLists.txt" >&2; exit 2; }
LIB="$BUILD/capi/libgeolin.so.$ABI"
[[ -f "$LIB" ]] || { echo "ci_abi: $LIB was not built" >&2; exit 2; }
BASELINE="$ROOT/capi/abi/libgeolin.so.$ABI.abi"
OUT="$BUILD/abi"
mkdir -p "$OUT"

# The public ABI only, without paths of this machine (so the file is the same everywhere).
describe() {
  abidw --header-file "$ROOT/capi/geolin.h" --drop-private-types --exported-interfaces-only \
    --drop-undefined-syms --no-corpus-path --no-comp-dir-path \
    --no-show-locs --out-file "$2" "$1"
}

if ((UPDATE)); then
  mkdir -p "$(dirname "$BASELINE")"
  describe "$LIB" "$BASELINE"
  echo "ci_abi: wrote the baseline ${BASELINE#"$ROOT"/} from $LIB"
  exit 0
fi
[[ -f "$BASELINE" ]] || { echo "ci_abi: no baseline ${BASELINE#"$ROOT"/} (a new ABI number?" \
  "create it with cmake/ci_abi.sh --update, see docs/c-api.md)" >&2; exit 2; }

describe "$LIB" "$OUT/libgeolin.abi"
set +e
abidiff --no-default-suppression --added-fns --added-vars "$BASELINE" "$OUT/libgeolin.abi" \
  >"$OUT/abidiff.txt" 2>&1
rc=$?
set -e

# Counts of the summary lines, e.g. "Functions changes summary: 0 Removed, 1 Changed, 2 Added
# functions"; only Added may be non-zero.
only_additions() {
  local report=$1
  if grep -Eq 'SONAME changed|architecture changed' "$report"; then return 1; fi
  if grep -E 'changes summary:' "$report" | grep -Eq '[1-9][0-9]* (Removed|Changed)'; then
    return 1
  fi
  if grep -E 'symbols changes summary:' "$report" | grep -Eq '[1-9][0-9]* Removed'; then
    return 1
  fi
  return 0
}

if ((rc == 0)); then
  echo "ci_abi: libgeolin.so.$ABI has the ABI of the baseline ${BASELINE#"$ROOT"/}"
  exit 0
fi
if ((rc & 3)); then
  echo "ci_abi: abidiff failed to compare (exit status $rc):" >&2
  cat "$OUT/abidiff.txt" >&2
  exit 2
fi
if ((rc & 8)) || ! only_additions "$OUT/abidiff.txt"; then
  echo "ci_abi: FAILED: the ABI of libgeolin.so.$ABI changed incompatibly with" \
       "${BASELINE#"$ROOT"/} (abidiff exit status $rc). Restore the function or type, or, for" \
       "an intended break, bump GEOLIN_ABI_VERSION and refresh the baseline (docs/c-api.md):" >&2
  cat "$OUT/abidiff.txt" >&2
  exit 1
fi
echo "ci_abi: only additions to libgeolin.so.$ABI (abidiff exit status $rc: ABI_CHANGE);" \
     "allowed in a minor version:"
cat "$OUT/abidiff.txt"
