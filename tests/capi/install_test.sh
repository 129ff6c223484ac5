#!/usr/bin/env bash
# Installs the build into a temporary prefix and builds a small C consumer against it twice:
# with pkg-config and with find_package(geolin). Runs both.
# usage: install_test.sh <build dir> <work dir> <consumer source dir> <robot.urdf> <C compiler>
set -euo pipefail
build=$1 work=$2 consumer=$3 urdf=$4 cc=${5:-cc}
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
echo "installed into $prefix"
test -f "$prefix/include/geolin.h"
test -f "$prefix/include/geolin/model.hpp"
lib=$(find "$prefix" -name 'libgeolin.so.0' | head -1)
test -n "$lib"
libdir=$(dirname "$lib")
test -L "$libdir/libgeolin.so"
pcdir=$(dirname "$(find "$prefix" -name geolin.pc | head -1)")
echo "library: $lib"

# 1. pkg-config (the .pc file is relocatable: the prefix is found from its own location)
PKG_CONFIG_PATH="$pcdir" pkg-config --exists --print-errors geolin
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs geolin)
echo "pkg-config: $flags (version $(PKG_CONFIG_PATH="$pcdir" pkg-config --modversion geolin))"
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Werror "$consumer/consumer.c" $flags -Wl,-rpath,"$libdir" \
  -o "$work/consumer_pkgconfig"
"$work/consumer_pkgconfig" "$urdf"

# 2. find_package(geolin)
cmake -S "$consumer" -B "$work/consumer_build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" >"$work/consumer_configure.log"
cmake --build "$work/consumer_build" >"$work/consumer_build.log"
"$work/consumer_build/consumer" "$urdf"
echo "capi_install: passed"
