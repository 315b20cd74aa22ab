#!/usr/bin/env bash
# Loops decided at run time (a while loop, a break, a trip count from tensor
# data or from the size of a tensor shape inference cannot know) are still
# streams: in --emit=stream of the case, each is a hierarchical filter
# (`filter NAME ... {` with its body's stream inside) and none is one opaque
# filter: no "the loop is one filter", "the loop body is one filter" or
# "the whole program is one filter" line. NESTED is the number of
# hierarchical filters the case must have, and every inner stream has at
# least 2 work filters (the body taken apart, not one filter inside braces).
# With MAX_FALLBACKS, a cpu run's --stats must show at most that many
# reference-kernel fallbacks per run (the body's work in fused kernels).
#   check_nested_loops.sh TSSA CASE_DIR NESTED [MAX_FALLBACKS]
set -uo pipefail
tssa="$1" case_dir="$2" want="$3" max_fallbacks="${4:-}"
tests_dir="$(cd "$(dirname "$0")/.." && pwd)"
source "$tests_dir/case_lib.sh"
kernel_cache_in_build
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$tssa" --emit=stream model.ir "${bindings[@]}" > "$tmp/stream" || { echo "FAIL: --emit=stream"; exit 1; }
fail=0
if grep -n "loop is one filter\|loop body is one filter\|whole program is one filter" "$tmp/stream"; then
  echo "FAIL: an opaque loop or program filter"; fail=1
fi
got=$(grep -c "^ *filter [A-Za-z0-9_]*[^;]*{\$" "$tmp/stream")
if [[ "$got" != "$want" ]]; then
  echo "FAIL: $got hierarchical filters, expected $want"; fail=1
fi
# Work filters directly inside each inner stream (a filter's `{` opens it,
# the matching `}` at the filter's indent closes it).
awk '
  /^ *filter [A-Za-z0-9_]*[^;]*\{$/ { match($0, /^ */); depth[++n] = RLENGTH; count[n] = 0; next }
  n > 0 && /^ *\}$/ { match($0, /^ */); if (RLENGTH == depth[n]) { if (count[n] < 2) bad++; n--; next } }
  n > 0 && /^ *filter / { count[n]++ }
  END { exit bad ? 1 : 0 }' "$tmp/stream" ||
  { echo "FAIL: an inner stream with fewer than 2 work filters"; fail=1; }
[[ $fail == 0 ]] || cat "$tmp/stream"
if [[ -n "$max_fallbacks" ]]; then
  "$tssa" --backend=cpu --stats model.ir "${bindings[@]}" -o "$tmp/out" 2> "$tmp/stats" > /dev/null ||
    { echo "FAIL: --backend=cpu --stats"; cat "$tmp/stats"; exit 1; }
  got=$(sed -n 's/^tssa-stream: stats: fallbacks_per_run //p' "$tmp/stats")
  if [[ -z "$got" ]] || awk -v g="$got" -v m="$max_fallbacks" 'BEGIN { exit !(g > m) }'; then
    echo "FAIL: fallbacks_per_run '$got', expected at most $max_fallbacks"; fail=1
  fi
fi
exit $fail
