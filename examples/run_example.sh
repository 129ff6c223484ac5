#!/usr/bin/env bash
# Runs an example as a test.
#   run_example.sh output EXE TEXT [ARGS...]  exit status 0 and TEXT in its standard output
#   run_example.sh error EXE TEXT ARG         exit status 1, nothing on standard output, and
#                                             TEXT and ARG (the path) in its standard error
#   run_example.sh contacts EXE URDF         exit status 0, the trunk falls (tau = 0), the ground
#                                             pushes every foot up, and less than the weight
#                                             carries (Newton: sum fz = m (g + a_z) with a_z < 0)
#   run_example.sh readme README.md FILE.c    the first ```c block of README.md is FILE.c
#                                             (the block capi_install compiles and runs)
set -uo pipefail
mode=$1
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
case $mode in
output)
  exe=$2 text=$3
  shift 3
  out=$("$exe" "$@") || fail "exit status $? (output: $out)"
  echo "$out"
  [[ "$out" == *"$text"* ]] || fail "expected '$text' in the output"
  ;;
error)
  exe=$2 text=$3 arg=$4
  out=$("$exe" "$arg" 2>"$arg.stderr")
  rc=$?
  err=$(cat "$arg.stderr")
  rm -f "$arg.stderr"
  echo "exit status $rc; stderr: $err"
  ((rc == 1)) || fail "expected exit status 1"
  [[ -z "$out" ]] || fail "expected no output, got '$out'"
  [[ "$err" == *"$text"* && "$err" == *"$arg"* ]] || fail "expected '$text' and '$arg' in stderr"
  ;;
contacts)
  exe=$2 urdf=$3
  out=$("$exe" "$urdf") || fail "exit status $? (output: $out)"
  echo "$out"
  # trunk z-acceleration A m/s^2; foot forces fz = F1 F2 F3 F4 N; weight W N
  read -r acc f1 f2 f3 f4 weight < <(awk '{print $3, $9, $10, $11, $12, $15}' <<<"$out")
  awk -v a="$acc" -v f1="$f1" -v f2="$f2" -v f3="$f3" -v f4="$f4" -v w="$weight" 'BEGIN {
    ok = a < 0 && f1 > 0 && f2 > 0 && f3 > 0 && f4 > 0 && f1 + f2 + f3 + f4 < w && w > 0
    exit !ok }' || fail "expected a < 0, every fz > 0 and sum fz < weight"
  ;;
readme)
  readme=$2 source=$3
  block=$(awk '/^```c$/ {inside = 1; next} inside && /^```/ {exit} inside {print}' "$readme")
  [[ "$block" == "$(cat "$source")" ]] ||
    fail "$readme's first C block differs from $source: copy the file into it" \
      "$(diff <(echo "$block") "$source")"
  echo "$readme shows $source"
  ;;
*) fail "unknown mode '$mode'" ;;
esac
