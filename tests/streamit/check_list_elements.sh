#!/usr/bin/env bash
# In-place writes through tensors kept in lists (bufs[i].add_(x),
# states[k][mask] = v, laterals[i - 1] += up; functionalize/list_elements.c)
# are functional after TensorSSA, so they no longer make the program or a
# loop one opaque filter:
#   - --emit=tssa has no "kept imperative" line;
#   - --emit=stream has no "one filter" line, except where the line's reason
#     matches ALLOWED (an extended regex; a loop whose trip count the run
#     computes is one filter for issue 30's run-time trip counts, not for
#     its writes).
# The outputs on every backend are the corpus runs' (conform.*.models).
# With --kept, the case is one whose writes must stay imperative (another
# name of the tensor is observed): each PATTERN (an extended regex) must
# match the reason of a "kept imperative:" line of --emit=tssa from its
# start, and every such line must match one of them (no other write, a
# clean list's, is kept for sharing a class with these).
#   check_list_elements.sh TSSA CASE_DIR [ALLOWED]
#   check_list_elements.sh TSSA CASE_DIR --kept PATTERN...
set -uo pipefail
tssa=$(realpath "$1") allowed="${3:-}"
source "$(dirname "$0")/../case_lib.sh"
case_begin "$2"
fail=0
"$tssa" --emit=tssa model.ir "${bindings[@]}" >"$out/tssa" 2>"$out/err" ||
  { echo "FAIL: --emit=tssa"; cat "$out/err"; exit 1; }
if [[ "$allowed" == --kept ]]; then
  shift 3
  grep 'kept imperative:' "$out/tssa" >"$out/kept"
  for pattern in "$@"; do
    grep -Eq -- "tssa: kept imperative: $pattern" "$out/kept" ||
      { echo "FAIL: no write kept imperative because: $pattern"; fail=1; }
    grep -Ev -- "tssa: kept imperative: $pattern" "$out/kept" >"$out/rest"; mv "$out/rest" "$out/kept"
  done
  if [[ -s "$out/kept" ]]; then
    cat "$out/kept"
    echo "FAIL: writes kept imperative for none of the expected reasons"; fail=1
  fi
  exit $fail
fi
if grep -n 'kept imperative:' "$out/tssa"; then
  echo "FAIL: a write is still kept imperative"; fail=1
fi
"$tssa" --emit=stream model.ir "${bindings[@]}" >"$out/stream" 2>"$out/err" ||
  { echo "FAIL: --emit=stream"; cat "$out/err"; exit 1; }
opaque=$(grep -n 'one filter' "$out/stream")
[[ -n "$allowed" && -n "$opaque" ]] && opaque=$(grep -Ev -- "$allowed" <<<"$opaque")
if [[ -n "$opaque" ]]; then
  echo "$opaque"
  echo "FAIL: the program (or a loop of it) is still one opaque filter"; fail=1
fi
exit $fail
