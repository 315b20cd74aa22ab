#!/usr/bin/env bash
# The stream graph of a loop does not grow with its trip count: the case's
# program lowered with args.txt (thousands of iterations) and with
# args10.txt (the same program bound to 10 iterations) must print the same
# stream (--emit=stream) up to the numbers in it (rates, repetition counts)
# and the comments: the same actors, channels and names. Neither may fall
# back to one opaque filter for the whole program.
#   check_trip_invariance.sh TSSA_STREAM CASE_DIR
set -uo pipefail
tssa="$1" case_dir="$2"
cd "$case_dir" || exit 2
read -r -a long < args.txt || true
read -r -a short < args10.txt || true
shape() { grep -v '^ *//' | sed -E 's/[0-9]+/N/g'; }
a=$("$tssa" --emit=stream model.ir "${long[@]}") || { echo "FAIL: lowering with args.txt"; exit 1; }
b=$("$tssa" --emit=stream model.ir "${short[@]}") || { echo "FAIL: lowering with args10.txt"; exit 1; }
if grep -q "whole program is one filter" <<<"$a"; then
  echo "FAIL: the program is one opaque filter:"; grep "whole program" <<<"$a"; exit 1
fi
diff -u <(shape <<<"$b") <(shape <<<"$a") || { echo "FAIL: the stream graph depends on the trip count"; exit 1; }
echo "same stream graph at both trip counts: $(shape <<<"$a" | grep -cE '^ *(body |loop )?(filter|identity|separator)') filters"
