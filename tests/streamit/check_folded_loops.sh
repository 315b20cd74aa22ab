#!/usr/bin/env bash
# Scalar loops run at compile time (lower_specialize.c's fold_scalar_loop):
# the lowering statistics of CASE_DIR must show `loops_folded WANT`, and
# with WANT > 0 no loop of any kind may be left in the stream (the case's
# only loops are the folded ones). The case's results are checked
# separately against PyTorch (conform.cpu.loop_cases).
#   check_folded_loops.sh LOWER_TOOL CASE_DIR WANT
set -uo pipefail
tool="$1" case_dir="$2" want="$3"
cd "$case_dir" || exit 2
read -r -a bindings < args.txt || true
stats=$("$tool" --stats model.ir "${bindings[@]}") || { echo "FAIL: lowering"; exit 1; }
stat() { sed -n "s/^$1 //p" <<<"$stats"; }
got=$(stat loops_folded)
if [[ "$got" != "$want" ]]; then
  echo "FAIL: loops_folded $got, expected $want"; exit 1
fi
if [[ "$want" != 0 ]]; then
  for kind in parallel feedback serial nested; do
    if [[ "$(stat "loops_$kind")" != 0 ]]; then
      echo "FAIL: loops_$kind $(stat "loops_$kind"), expected 0 (every loop folded)"; exit 1
    fi
  done
fi
echo "ok: loops_folded $got"
