#!/usr/bin/env bash
# The ABI check of libgeolin.so (docs/c-api.md rule 7):
#  1. every exported (dynamic, defined) symbol is geolin_*;
#  2. the SONAME is libgeolin.so.<ABI>;
#  3. geolin.h includes only <stddef.h>;
#  4. the functions declared in geolin.h, the checked-in list capi/abi_functions.txt and the
#     exported functions are the same set (a removal or rename is caught; an addition must be
#     added to the list on purpose).
# usage: check_symbols.sh <libgeolin.so> <geolin.h> <abi_functions.txt> <abi number>
set -euo pipefail
lib=$1 header=$2 list=$3 abi=$4
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Defined dynamic symbols; the version node (GEOLIN_0, an absolute symbol) is not a function.
nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
if grep -v '^geolin_' "$tmp/exported" >"$tmp/foreign"; then
  echo "FAIL: symbols exported that are not geolin_*:"
  sed 's/^/  /' "$tmp/foreign" | head -50
  status=1
else
  echo "ok: all $(wc -l <"$tmp/exported") exported symbols are geolin_*"
fi

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [[ "$soname" != "libgeolin.so.$abi" ]]; then
  echo "FAIL: SONAME is '$soname', expected 'libgeolin.so.$abi'"
  status=1
else
  echo "ok: SONAME $soname"
fi

# Versioned symbols: every export belongs to the version node GEOLIN_<abi>.
if nm -D --defined-only --with-symbol-versions "$lib" >/dev/null 2>&1; then
  if nm -D --defined-only --with-symbol-versions "$lib" | awk '$2 != "A" {print $3}' |
      grep -v "@@GEOLIN_$abi\$" >"$tmp/unversioned"; then
    echo "FAIL: exports without the version GEOLIN_$abi:"
    sed 's/^/  /' "$tmp/unversioned"
    status=1
  else
    echo "ok: every export has version GEOLIN_$abi"
  fi
fi

# The header includes nothing beyond <stddef.h> (docs/c-api.md rule 1).
if grep -E '^[[:space:]]*#[[:space:]]*include' "$header" | grep -qv '<stddef.h>'; then
  echo "FAIL: geolin.h includes more than <stddef.h>:"
  grep -E '^[[:space:]]*#[[:space:]]*include' "$header" | sed 's/^/  /'
  status=1
else
  echo "ok: geolin.h includes only <stddef.h>"
fi

grep -v '^#' "$list" | sed '/^[[:space:]]*$/d' | sort -u >"$tmp/listed"
# Function declarations of the header: "GEOLIN_API <type> name(" (possibly "*name(").
tr '\n' ' ' <"$header" | grep -o 'GEOLIN_API[^;(]*(' | grep -o 'geolin_[a-z0-9_]*($' |
  tr -d '(' | sort -u >"$tmp/declared"

compare() {  # compare <file a> <name a> <file b> <name b>
  if ! diff -u "$1" "$3" >"$tmp/diff"; then
    echo "FAIL: $2 and $4 differ ('-' only in $2, '+' only in $4):"
    grep '^[-+][a-z]' "$tmp/diff" | sed 's/^/  /'
    status=1
  else
    echo "ok: $2 = $4 ($(wc -l <"$1") functions)"
  fi
}
compare "$tmp/listed" "abi_functions.txt" "$tmp/declared" "geolin.h"
compare "$tmp/listed" "abi_functions.txt" "$tmp/exported" "exports of $(basename "$lib")"

# Undefined symbols are fine (libc, libstdc++, urdfdom), but none may be geolin's C++ core.
if nm -D --undefined-only "$lib" | grep -q '_ZN6geolin'; then
  echo "FAIL: libgeolin.so needs geolin C++ symbols from elsewhere"
  status=1
fi

if [[ $status -eq 0 ]]; then echo "capi_symbols: passed"; else echo "capi_symbols: FAILED"; fi
exit $status
