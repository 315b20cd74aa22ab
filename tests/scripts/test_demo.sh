#!/usr/bin/env bash
# Runs scripts/demo.sh as a user would and checks what it leaves behind:
# exit 0, the stream graph with its three shapes (a data-parallel fused loop,
# the split-join's two matmuls, a feedback loop), a schedule over 2 ranks,
# the 2-rank run's outputs, a trace (valid JSON, both ranks, a message between
# them) and the check against PyTorch passed. Twice: with PyTorch (a fresh
# export, which must also match the committed examples/stream_demo/, so the
# committed case stays the export of examples/stream_demo.py) and without it
# (TSSA_DEMO_PYTHON set to nothing runnable: the committed case, compared by
# npy_compare).
#   test_demo.sh TSSA_STREAM NPY_COMPARE WORK_DIR
# Skips (77) where mpirun is missing or tssa-stream was built without MPI;
# the PyTorch half is left out where /usr/bin/python3 cannot import torch.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tssa="$1" compare="$2" work="$3"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
[[ "$("$tssa" --version)" == *" mpi"* ]] || { echo "SKIP: built without MPI"; exit 77; }
export TSSA_STREAM="$tssa" NPY_COMPARE="$compare"
python="$(command -v python3 || echo /usr/bin/python3)"  # the trace check needs only json
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
failed=0
check() { # check WHAT COMMAND...: runs COMMAND, reports WHAT when it fails
  local what="$1"; shift
  "$@" || { echo "FAIL: $what"; failed=1; }
}

# check_folder DIR LOG: what every demo run must leave in DIR and print.
check_folder() {
  local dir="$1" log="$2"
  check "stream graph has a feedback loop" grep -q 'feedbackloop Recurrence_L' "$dir/stream.str"
  check "stream graph has the split-join's matmuls" \
    grep -q 'matmul_[0-9]* pop 2 push 1;' "$dir/stream.str"
  check "the normalisation loop is one fused kernel" \
    grep -q 'tssa::FusionGroup\[iterations=16\]' "$dir/fused.ir"
  check "stream.dot is a digraph" grep -q '^digraph' "$dir/stream.dot"
  if command -v dot >/dev/null; then
    check "Graphviz drew stream.svg" grep -q '<svg' "$dir/stream.svg"
  else
    check "demo says how to install Graphviz" grep -q 'apt-get install graphviz' "$log"
  fi
  check "schedule over 2 ranks" grep -q '^placement: 2 ranks' "$dir/schedule.txt"
  check "pinned schedule puts a filter on rank 1" \
    awk '$3 == "filter" && $(NF - 2) == 1 { found = 1 } END { exit !found }' "$dir/schedule_placed.txt"
  check "outputs written" test -s "$dir/out/out0.npy" -a -s "$dir/out/out1.npy"
  check "trace has both ranks and a message" "$python" -c '
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
ranks = {e["pid"] for e in events if e.get("name") == "process_name"}
assert ranks == {0, 1}, ranks
assert any(e.get("cat") == "mpi" for e in events), "no message"
' "$dir/trace.json"
  check "demo says where to open the trace" grep -q 'ui.perfetto.dev' "$log"
  check "demo lists its files" grep -q "The demo's files, in $dir" "$log"
}

rm -rf "$work"
mkdir -p "$work"
if /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
  if "$root/scripts/demo.sh" "$work/torch" >"$work/torch.log" 2>&1; then
    check_folder "$work/torch" "$work/torch.log"
    check "checked against PyTorch run in the demo" \
      test "$(grep -c '^out[01]\.npy (.*): matches PyTorch' "$work/torch.log")" -eq 2
    # The committed export is the same command's output (expected/ within
    # the tolerance: eager results may differ in the last bits elsewhere).
    for f in model.ir args.txt inputs/x.npy inputs/h0.npy inputs/w_value.npy inputs/w_gate.npy \
             inputs/w_ih.npy inputs/w_hh.npy inputs/bias.npy; do
      check "committed examples/stream_demo/$f is the export's" \
        cmp -s "$work/torch/case/$f" "$root/examples/stream_demo/$f"
    done
    for f in out0.npy out1.npy; do
      check "committed expected/$f is PyTorch's" \
        "$compare" "$work/torch/case/expected/$f" "$root/examples/stream_demo/expected/$f"
    done
    [[ $failed == 0 ]] || echo "(examples/stream_demo.py says how to refresh the committed export)"
  else
    echo "FAIL: scripts/demo.sh with PyTorch exited $?"; failed=1
  fi
  [[ $failed == 0 ]] || tail -30 "$work/torch.log"
else
  echo "note: /usr/bin/python3 has no torch: only the demo without PyTorch runs"
fi

if TSSA_DEMO_PYTHON=/nonexistent "$root/scripts/demo.sh" "$work/plain" >"$work/plain.log" 2>&1; then
  check_folder "$work/plain" "$work/plain.log"
  check "used the committed export" grep -q 'uses the committed export' "$work/plain.log"
  check "checked against PyTorch's stored outputs" \
    test "$(grep -c 'out[01].npy: matches PyTorch' "$work/plain.log")" -eq 2
else
  echo "FAIL: scripts/demo.sh without PyTorch exited $?"; failed=1
fi
[[ $failed == 0 ]] || tail -30 "$work/plain.log"
exit $failed
