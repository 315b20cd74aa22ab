#!/usr/bin/env bash
# Every fused group of a corpus program runs as its compiled kernel: a
# kernel is built for the dtypes and shapes shape inference gave, and a call
# whose inputs differ is interpreted instead (correct, but then inference
# was wrong: growing_loop's body kept its first iteration's sizes once).
# --stats' groups_interpreted_per_run must be 0, or the count a case's
# interpreted.txt derives (runtime_index_assign: x[i - 1] at i = 0 is
# x[-1], outside the kernel's index guard: 1 call per run).
#   check_kernels_fit.sh TSSA_STREAM MODELS_DIR
set -uo pipefail
tssa="$1" models="$2"
# as tests/case_lib.sh: warning-free kernels, cached in the build tree
export TSSA_KERNEL_CFLAGS="${TSSA_KERNEL_CFLAGS:--Wall -Wextra -Werror}"
export TSSA_CACHE_DIR="${TSSA_CACHE_DIR:-$(cd "$(dirname "$tssa")" && pwd)/kernel-cache}"
failures=0 checked=0
for dir in "$models"/*/; do
  [[ -f "$dir/args.txt" && -d "$dir/expected" ]] || continue
  read -r -a bindings < "$dir/args.txt" || true
  want=0
  [[ -f "$dir/interpreted.txt" ]] && want=$(head -1 "$dir/interpreted.txt")
  got=$(cd "$dir" && "$tssa" model.ir "${bindings[@]}" --stats 2>&1 >/dev/null |
        sed -n 's/^tssa-stream: stats: groups_interpreted_per_run //p')
  checked=$((checked + 1))
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: $(basename "$dir"): groups_interpreted_per_run ${got:-missing}, expected $want"
    failures=$((failures + 1))
  fi
done
echo "$checked programs, $failures whose kernels did not fit their inputs"
[[ $checked -gt 0 && $failures -eq 0 ]]
