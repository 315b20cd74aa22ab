#!/usr/bin/env bash
# --trace draws each OpenMP thread's share of a firing's parallel loop on
# the thread's own track: a program whose one kernel is big enough to be
# shared out (an outer sum of a row and a column, 1024 x 1024 elements,
# above KIR_PARALLEL_MIN), run with 2 threads, must give slices named after
# its filter on tracks 1 and 2 ("OpenMP thread 0" and "1"), and name both
# tracks.
#   test_trace_threads.sh TSSA_STREAM
set -uo pipefail
tssa="$1"
(( $(nproc) >= 2 )) || { echo "skip: one core, one thread"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A float32 .npy of zeros: magic, version 1.0, header length, the header
# padded with spaces to a multiple of 64 bytes (newline last), the data.
npy_zeros() {   # npy_zeros ROWS COLS FILE
  local header="{'descr': '<f4', 'fortran_order': False, 'shape': ($1, $2), }"
  local total=$(( (10 + ${#header} + 1 + 63) / 64 * 64 ))
  local pad=$(( total - 10 - ${#header} - 1 ))
  local len=$(( total - 10 ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((len % 256)))\\x$(printf %02x $((len / 256)))";
    printf '%s%*s\n' "$header" "$pad" ""; head -c $(( $1 * $2 * 4 )) /dev/zero; } >"$3"
}
npy_zeros 1 1024 "$work/row.npy"
npy_zeros 1024 1 "$work/col.npy"
cat >"$work/model.ir" <<'IR'
graph(%row : Float(1, 1024),
      %col : Float(1024, 1)):
  %one : int = prim::Constant[value=1]()
  %sum : Tensor = aten::add(%row, %col, %one)
  %out : Tensor = aten::tanh(%sum)
  return (%out)
IR
OMP_NUM_THREADS=2 "$tssa" "$work/model.ir" row="$work/row.npy" col="$work/col.npy" -o "$work/out" \
    --trace "$work/trace.json" >"$work/log" 2>&1 || { echo "FAIL: the run failed"; cat "$work/log"; exit 1; }
failures=0
for tid in 1 2; do
  grep -Eq "\"ph\":\"X\",\"name\":\"FusionGroup[^\"]*\",\"cat\":\"thread\",\"pid\":0,\"tid\":$tid," "$work/trace.json" ||
    { failures=$((failures + 1)); echo "FAIL: no FusionGroup slice on thread track $tid"; }
done
grep -q "OpenMP thread 0" "$work/trace.json" && grep -q "OpenMP thread 1" "$work/trace.json" ||
  { failures=$((failures + 1)); echo "FAIL: the thread tracks are not named"; }
if ((failures)); then head -c 3000 "$work/trace.json"; exit 1; fi
echo "ok: the kernel's two threads each have their slice"
