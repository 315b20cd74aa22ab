#!/usr/bin/env bash
# Issue 30: every corpus program becomes a stream graph. Over every case of
# MODELS_DIR (but those that must fail), --emit=stream must have no line
# saying the whole program, a loop or a loop body is one (opaque) filter,
# except for the cases listed in KEPT_FILE (one per line: the case, a tab,
# and the words its line must contain: why it stays whole, each a write
# TensorSSA keeps in place on purpose). A listed case that is taken apart
# fails too (the list must shrink with the work).
#   check_taken_apart.sh TSSA MODELS_DIR KEPT_FILE
set -uo pipefail
tssa="$1" models="$2" kept="$3"
tests_dir="$(cd "$(dirname "$0")/.." && pwd)"
source "$tests_dir/case_lib.sh"
kernel_cache_in_build
fail=0 checked=0
for dir in "$models"/*/; do
  dir=${dir%/} name=$(basename "$dir")
  [[ -f "$dir/model.ir" && ! -f "$dir/expect_error.txt" ]] || continue
  checked=$((checked + 1))
  read -r -a bindings < "$dir/args.txt" || true
  line=$(cd "$dir" && "$tssa" --emit=stream model.ir "${bindings[@]}" 2>/dev/null |
         grep -m1 "whole program is one filter\|loop is one filter\|loop body is one filter")
  want=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$kept")
  if [[ -z "$want" && -n "$line" ]]; then
    echo "FAIL: $name: $line"; fail=1
  elif [[ -n "$want" && -z "$line" ]]; then
    echo "FAIL: $name is taken apart now: remove it from $(basename "$kept")"; fail=1
  elif [[ -n "$want" && "$line" != *"$want"* ]]; then
    echo "FAIL: $name stays whole for another reason than '$want': $line"; fail=1
  fi
done
echo "$checked cases checked"
exit $fail
