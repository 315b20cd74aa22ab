#!/usr/bin/env bash
# check_linear_list_writes.sh TSSA CASE_DIR N: the functionalized graph of
# the case (--emit=tssa) run on the ref interpreter with n=N pushes and
# pops at the end of a list in loops. Each new version reuses the old list
# in place when nothing reads the old one again (eval_arg_take), so the run
# is linear in N; copying each version is quadratic (N = 200000: about 40 s
# on a 2-core machine against 0.2 s), which the test's TIMEOUT catches.
# The outputs for a small n are checked against PyTorch by conform.*.
set -euo pipefail
tssa="$1" case_dir="$2" n="$3"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tssa" --emit=tssa "$case_dir/model.ir" >"$out/model.tssa"
start=$(date +%s%N)
"$tssa" "$out/model.tssa" "n=$n" --backend=ref -o "$out/result" >/dev/null
echo "n=$n: $(( ($(date +%s%N) - start) / 1000000 )) ms"
