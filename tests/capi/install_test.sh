#!/usr/bin/env bash
# capi_install: what `cmake --install` gives a user (README "Installing").
#  1. installs the build into a temporary prefix and checks its contents: the library, geolin.h,
#     the pkg-config and CMake files, the models in share/geolin/models, the bindings -- and no
#     C++ header (include/geolin/ is internal; libgeolin.so exports only the C ABI);
#  2. builds the README's C example with pkg-config and an rpath and runs it from another
#     directory on the installed humanoid; shows that without an rpath the loader does not find
#     libgeolin.so.0 unless LD_LIBRARY_PATH names the directory (what the README says);
#  3. builds a C and a C++ consumer with find_package(geolin) and runs them from another
#     directory (the C one finds the model through geolin_MODELS_DIR).
# usage: install_test.sh <build dir> <work dir> <consumer source dir> <robot.urdf> <C compiler>
#                        <C++ compiler> <README.md>
set -euo pipefail
build=$1 work=$2 consumer=$3 urdf=$4 cc=${5:-cc} cxx=${6:-c++} readme=${7:-}
rm -rf "$work"
mkdir -p "$work/elsewhere"
prefix="$work/prefix"
fail() {
  echo "capi_install: FAIL: $*" >&2
  exit 1
}

# --- 1. the installed tree ---------------------------------------------------------------------
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
echo "installed into $prefix"
test -f "$prefix/include/geolin.h" || fail "no include/geolin.h"
if [[ -e "$prefix/include/geolin" ]]; then
  fail "include/geolin/ is installed, but libgeolin.so exports no C++ symbol:" \
    "$(find "$prefix/include/geolin" | head -5)"
fi
lib=$(find "$prefix" -name 'libgeolin.so.0' | head -1)
[[ -n "$lib" ]] || fail "no libgeolin.so.0"
libdir=$(dirname "$lib")
test -L "$libdir/libgeolin.so" || fail "no libgeolin.so link"
test -x "$prefix/bin/geolin" || fail "no bin/geolin"
pcfile=$(find "$prefix" -name geolin.pc | head -1)
[[ -n "$pcfile" ]] || fail "no geolin.pc"
pcdir=$(dirname "$pcfile")
models="$prefix/share/geolin/models"
for m in "$consumer"/../../../models/*.urdf; do
  test -f "$models/$(basename "$m")" || fail "model $(basename "$m") not in $models"
done
for f in fortran/geolin.f90 python/geolin.py rust/Cargo.toml rust/build.rs rust/src/lib.rs; do
  test -f "$prefix/share/geolin/$f" || fail "binding file share/geolin/$f not installed"
done
echo "library: $lib; models: $models"

# --- 2. pkg-config -----------------------------------------------------------------------------
export PKG_CONFIG_PATH="$pcdir"
pkg-config --exists --print-errors geolin
flags=$(pkg-config --cflags --libs geolin)
pc_libdir=$(pkg-config --variable=libdir geolin)
pc_models=$(pkg-config --variable=modelsdir geolin)
echo "pkg-config: $flags (version $(pkg-config --modversion geolin)); modelsdir $pc_models"
[[ "$(cd "$pc_libdir" && pwd -P)" == "$(cd "$libdir" && pwd -P)" ]] ||
  fail "pkg-config libdir '$pc_libdir' is not the installed $libdir"
test -f "$pc_models/humanoid.urdf" || fail "pkg-config modelsdir '$pc_models' has no humanoid.urdf"

# The README's example, as a user copies it: the first ```c block of README.md.
if [[ -n "$readme" ]]; then
  awk '/^```c$/ {inside = 1; next} inside && /^```/ {exit} inside {print}' "$readme" \
    >"$work/demo.c"
  grep -q geolin_linearize "$work/demo.c" || fail "no C example found in $readme"
  # shellcheck disable=SC2086
  "$cc" -std=c99 -Wall -Wextra -Werror "$work/demo.c" $flags -Wl,-rpath,"$pc_libdir" \
    -o "$work/demo"
  out=$(cd "$work/elsewhere" && "$work/demo" "$pc_models/humanoid.urdf")
  echo "README example: $out"
  [[ "$out" == *"v_dot_z ="* ]] || fail "the README example printed '$out'"
fi

# The consumer with the model directory compiled in, without an rpath: the loader must not find
# the library (unless a copy is installed system-wide), and must with LD_LIBRARY_PATH.
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Werror "$consumer/consumer.c" $flags \
  -DGEOLIN_MODELS_DIR="\"$pc_models\"" -o "$work/consumer_pkgconfig"
if ldconfig -p 2>/dev/null | grep -q 'libgeolin\.so\.0'; then
  echo "note: a libgeolin.so.0 is known to ldconfig; the no-rpath failure is not checked"
elif (cd "$work/elsewhere" && env -u LD_LIBRARY_PATH "$work/consumer_pkgconfig") \
  >"$work/no_rpath.out" 2>&1; then
  fail "a program without rpath found libgeolin.so.0 without LD_LIBRARY_PATH"
else
  grep -q 'libgeolin.so.0' "$work/no_rpath.out" ||
    fail "unexpected error without rpath: $(cat "$work/no_rpath.out")"
  echo "without rpath: $(head -1 "$work/no_rpath.out") (as documented)"
fi
(cd "$work/elsewhere" && LD_LIBRARY_PATH="$pc_libdir" "$work/consumer_pkgconfig")

# --- 3. find_package(geolin) -------------------------------------------------------------------
cmake -S "$consumer" -B "$work/consumer_build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >"$work/consumer_configure.log"
cmake --build "$work/consumer_build" >"$work/consumer_build.log"
(cd "$work/elsewhere" && "$work/consumer_build/consumer")
(cd "$work/elsewhere" && "$work/consumer_build/consumer_cxx" "$models/humanoid.urdf")
(cd "$work/elsewhere" && "$work/consumer_build/consumer" "$urdf")
echo "capi_install: passed"
