#!/usr/bin/env bash
# The layer check (scripts/check-layers.sh) on a small fixture tree
# (tests/layers/fixture: layers low < mid {mid_a, mid_b} < high): the tree as
# it is passes, and each kind of arrow against the order fails with a message
# that names the file and the symbol or header:
#   a call from a lower layer into a higher one,
#   an include of a higher layer's public header,
#   an include of another folder's private header,
#   a call between sibling folders of one layer.
#   test_check_layers.sh CHECK_SCRIPT C_COMPILER
set -uo pipefail
check="$1" cc="$2"
here="$(cd "$(dirname "$0")" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# Copies the fixture, applies "PATH<TAB>TEXT" additions from stdin (TEXT
# appended to PATH), compiles every .c the way CMake names its objects, and
# runs the check; leaves its output in $tmp/out and returns its status.
run_check() {
  rm -rf "$tmp/tree" "$tmp/objs"
  cp -r "$here/fixture" "$tmp/tree"
  while IFS=$'\t' read -r path text; do
    [[ -n "$path" ]] && printf '%b\n' "$text" >> "$tmp/tree/$path"
  done
  (cd "$tmp/tree" && find . -name '*.c' | sed 's|^\./||') | while read -r src; do
    obj="$tmp/objs/CMakeFiles/fixture.dir/$src.o"
    mkdir -p "$(dirname "$obj")"
    "$cc" -c -I"$tmp/tree/include" -I"$tmp/tree" "$tmp/tree/$src" -o "$obj" || exit 2
  done
  "$check" --root "$tmp/tree" --objects "$tmp/objs" > "$tmp/out" 2>&1
}

# expect STATUS TEXT NAME: the last check exited with STATUS and said TEXT.
expect() {
  local want="$1" text="$2" name="$3" got="$4"
  if [[ "$got" != "$want" ]] || ! grep -qF -- "$text" "$tmp/out"; then
    echo "FAIL: $name: want status $want and '$text', got status $got:"
    sed 's/^/  /' "$tmp/out"
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

run_check < /dev/null; expect 0 "every include run downward" "the fixture as it is" $?

printf 'low/up.c\t#include "tssa/low.h"\\nint high_value(void);\\nint up(void) { return high_value(); }\n' | run_check
expect 1 "low/up.c: calls high_value (high/high.c, layer high) from layer low below it" "upward call" $?

printf 'low/up_include.c\t#include "tssa/high.h"\\nint up_include(void) { return 0; }\n' | run_check
expect 1 "low/up_include.c:1: includes include/tssa/high.h of layer high, above low" "upward include" $?

printf 'high/peek.c\t#include "low/low_private.h"\\nint peek(void) { return LOW_SECRET; }\n' | run_check
expect 1 "high/peek.c:1: includes low/low_private.h, a private header of low/" "private header" $?

printf 'mid_a/sideways.c\t#include "tssa/mid.h"\\nint sideways(void) { return mid_b_value(); }\n' | run_check
expect 1 "mid_a/sideways.c: calls mid_b_value (mid_b/mid_b.c) of sibling folder mid_b/" "sibling call" $?

printf 'include/tssa/stray.h\t#include "tssa/low.h"\n' | run_check
expect 1 "include/tssa/stray.h: public header is in no layer of layers.txt" "unlisted public header" $?

((failures == 0)) || { echo "$failures case(s) failed"; exit 1; }
echo "all layer-check cases behave"
