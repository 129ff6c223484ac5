#!/usr/bin/env bash
# capi_rust_consumer: a user's binary crate (tests/capi/rust_consumer) that depends on the geolin
# crate by path, built offline and run as a user would run it -- the binary itself, from another
# directory, without LD_LIBRARY_PATH:
#  1. against the build tree: GEOLIN_LIB_DIR=<build>/capi, crate from the source tree;
#  2. against an installed prefix: `cmake --install` into a temporary prefix, crate from
#     <prefix>/share/geolin/rust, library found by pkg-config (PKG_CONFIG_PATH), no GEOLIN_LIB_DIR;
#     the binary's RUNPATH must name the prefix, not the build tree;
#  3. the same crate without its build.rs: the rpath of the geolin crate does not reach the
#     binary, which then needs LD_LIBRARY_PATH (the documented alternative).
# usage: rust_consumer_test.sh <cargo> <build dir> <work dir> <consumer source> <capi/rust> <urdf>
set -euo pipefail
cargo=$1 build=$2 work=$3 consumer=$4 crate=$5 urdf=$6
libdir_build=$(cd "$build/capi" && pwd)
rm -rf "$work"
mkdir -p "$work/elsewhere"
export CARGO_TARGET_DIR="$work/target"
unset LD_LIBRARY_PATH GEOLIN_LIB_DIR PKG_CONFIG_PATH
fail() {
  echo "capi_rust_consumer: FAIL: $*" >&2
  exit 1
}
system_copy=0
if ldconfig -p 2>/dev/null | grep -q 'libgeolin\.so\.0'; then
  system_copy=1
  echo "note: a libgeolin.so.0 is known to ldconfig; runs without rpath are not conclusive"
fi

# copy_consumer <dest> <path of the geolin crate> [no-build-rs]
copy_consumer() {
  mkdir -p "$1/src"
  cp "$consumer/src/main.rs" "$1/src/"
  [[ "${3:-}" == no-build-rs ]] || cp "$consumer/build.rs" "$1/"
  sed "s|^geolin = { path = .*|geolin = { path = \"$2\" }|" "$consumer/Cargo.toml" >"$1/Cargo.toml"
  grep -q "path = \"$2\"" "$1/Cargo.toml" || fail "could not point $1/Cargo.toml at $2"
}
bin="$CARGO_TARGET_DIR/debug/geolin_rust_consumer"
runpath() { readelf -d "$1" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\].*/\2/p'; }

# --- 1. build tree -----------------------------------------------------------------------------
copy_consumer "$work/from_build_tree" "$(cd "$crate" && pwd)"
GEOLIN_LIB_DIR="$libdir_build" "$cargo" build --offline --quiet \
  --manifest-path "$work/from_build_tree/Cargo.toml"
echo "1. build tree: RUNPATH $(runpath "$bin")"
(cd "$work/elsewhere" && "$bin" "$urdf")

# --- 2. installed prefix -----------------------------------------------------------------------
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
pcfile=$(find "$prefix" -name geolin.pc | head -1)
[[ -n "$pcfile" ]] || fail "no geolin.pc in $prefix"
test -f "$prefix/share/geolin/rust/Cargo.toml" || fail "the crate is not installed"
copy_consumer "$work/from_prefix" "$prefix/share/geolin/rust"
PKG_CONFIG_PATH=$(dirname "$pcfile") "$cargo" build --offline --quiet \
  --manifest-path "$work/from_prefix/Cargo.toml"
rp=$(runpath "$bin")
echo "2. installed prefix: RUNPATH $rp"
prefix_real=$(cd "$prefix" && pwd -P)
[[ "$rp" == *"$prefix"* || "$rp" == *"$prefix_real"* ]] ||
  fail "RUNPATH '$rp' does not name the prefix $prefix"
[[ "$rp" != *"$libdir_build"* ]] || fail "RUNPATH '$rp' names the build tree"
(cd "$work/elsewhere" && "$bin" "$prefix/share/geolin/models/humanoid.urdf")

# --- 3. without the user's build.rs: LD_LIBRARY_PATH ------------------------------------------
copy_consumer "$work/no_build_rs" "$(cd "$crate" && pwd)" no-build-rs
GEOLIN_LIB_DIR="$libdir_build" "$cargo" build --offline --quiet \
  --manifest-path "$work/no_build_rs/Cargo.toml"
if ((system_copy == 0)); then
  if (cd "$work/elsewhere" && "$bin" "$urdf") >"$work/no_rpath.out" 2>&1; then
    fail "without build.rs the binary found libgeolin.so.0 without LD_LIBRARY_PATH"
  fi
  grep -q 'libgeolin.so.0' "$work/no_rpath.out" ||
    fail "unexpected error: $(cat "$work/no_rpath.out")"
  echo "3. without build.rs: $(head -1 "$work/no_rpath.out") (as documented)"
fi
(cd "$work/elsewhere" && LD_LIBRARY_PATH="$libdir_build" "$bin" "$urdf")
echo "capi_rust_consumer: passed"
