#!/usr/bin/env bash
# CUDA graphs for --repeat's timed runs (backends/cuda/cuda_backend.c,
# "graphs"), on the GPU where there is one, else on the CPU shim, whose
# streams record a capture and replay the recording. TSSA_CUDA_GRAPH_CHECK=1
# keeps the first run's outputs and compares every timed run's with them
# (a replay's read back from the graph's output buffers, whose inputs are
# cleared before each rebinding upload: a replay that missed an upload
# differs). Cases:
#   rnn_loop, lstm_loop (tests/models)  the first timed run captured, the
#       other three replayed: 3 of 4 replayed, the replays checked, the
#       same kernels and products per run on the device as --no-graphs, the
#       calls from the host per run fewer (a replay is one); the outputs written
#       (the warm-up's) match the corpus' PyTorch results;
#   --no-graphs  every timed run through the executor: graphs disabled,
#       none replayed, the same outputs;
#   seq2seq_greedy (tests/models)  its start tokens are made on the host
#       in every run (aten::full): captured as a copy from pinned memory
#       the graph keeps, replayed and checked;
#   loop_reads_nothing (tests/models)  a host op reads an input: the input
#       is guarded (kept, compared before each replay), replayed, checked;
#   graphs/branch.ir  an `if` on a tensor's value (y = 2x; y + 2 if
#       y.sum() > 0 else y - 2): the host reads device data, the capture
#       ends there (what it took runs) and every run is a plain one, with
#       the reason and source line in --stats; outputs [[2,4,6],[8,10,12]]
#       (by hand for x = [[0,1,2],[3,4,5]]);
#   graphs/item.ir  y * y.sum().item(): the same fallback, y * 30 by hand;
#   graphs/prints.ir  y = 2x; print("rows", y.shape); y + 2: a replay would
#       not print, so the capture ends at the print and every run is a
#       plain one that prints (5 lines: the warm-up and 4 timed runs);
#       outputs as branch.ir's;
#   greedy_decode_break (tests/models)  a loop that ends on a token's value
#       (data-dependent trip count): the same fallback, the corpus' outputs.
#   test_graphs.sh TSSA_STREAM NPY_COMPARE
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../case_lib.sh"
kernel_cache_in_build
cuda_on_gpu_or_shim
models=$(cd "$here/../../models" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
stat() { sed -n "s/^tssa-stream: stats: $2 //p" "$1" | head -1; }

# run NAME DIR MODEL [options...]: DIR's model with its args.txt (if any), 4
# timed runs, --stats into $out/NAME.err, outputs into $out/NAME
run() {
  local name=$1 dir=$2 model=$3 args=()
  shift 3
  [[ -f "$dir/args.txt" ]] && read -r -a args <"$dir/args.txt"
  (cd "$dir" && TSSA_CUDA_GRAPH_CHECK=1 "$tssa" --backend=cuda --repeat 4 --stats "$@" "$model" "${args[@]}" \
     -o "$out/$name") 2>"$out/$name.err"
  local rc=$?
  [[ $rc == 0 ]] || { fail "$name: exit $rc"; cat "$out/$name.err"; }
  grep -q "graph_checked_runs 4 of 4 timed" "$out/$name.err" ||
    fail "$name: not every timed run's outputs were checked: $(stat "$out/$name.err" graph_checked_runs)"
}

# outputs of a corpus case against its expected/ (PyTorch's)
same_as_expected() {
  local name=$1 dir=$2
  for e in "$dir"/expected/*.npy; do
    "$compare" "$e" "$out/$name/$(basename "$e")" || fail "$name: $(basename "$e") differs from PyTorch's"
  done
}

for m in rnn_loop lstm_loop; do
  run "$m" "$models/$m" model.ir
  grep -q "graphs captured in the first timed run" "$out/$m.err" || fail "$m: not captured: $(stat "$out/$m.err" graphs)"
  [[ "$(stat "$out/$m.err" graph_replayed_runs)" == "3 of 4 timed" ]] ||
    fail "$m: replayed $(stat "$out/$m.err" graph_replayed_runs), expected 3 of 4"
  grep -q "graph_launches_per_replay .*from the host 1 (cuGraphLaunch)" "$out/$m.err" || fail "$m: no launches-per-replay line"
  same_as_expected "$m" "$models/$m"
  run "$m.plain" "$models/$m" model.ir --no-graphs
  grep -q "graphs disabled (--no-graphs)" "$out/$m.plain.err" || fail "$m --no-graphs: graphs not disabled"
  [[ "$(stat "$out/$m.plain.err" graph_replayed_runs)" == "0 of 4 timed" ]] || fail "$m --no-graphs: replayed"
  same_as_expected "$m.plain" "$models/$m"
  # the device runs the same kernels; the host makes fewer calls
  for k in launches_per_run gemms_per_run; do
    [[ "$(stat "$out/$m.err" $k)" == "$(stat "$out/$m.plain.err" $k)" ]] ||
      fail "$m: $k $(stat "$out/$m.err" $k) with graphs, $(stat "$out/$m.plain.err" $k) without"
  done
  with=$(stat "$out/$m.err" host_launches_per_run) without=$(stat "$out/$m.plain.err" host_launches_per_run)
  awk -v a="$with" -v b="$without" 'BEGIN { exit !(a < b) }' ||
    fail "$m: calls from the host per run $with with graphs, not below $without without"
  echo "$m: launches and products from the host per run $with with graphs, $without without"
done

# a tensor the host makes in the run (aten::full: the start tokens) goes to
# the device through pinned memory the graph keeps; replays copy it again
run seq2seq "$models/seq2seq_greedy" model.ir
grep -q "graphs captured in the first timed run (.*, [1-9][0-9]* copies of host data," "$out/seq2seq.err" ||
  fail "seq2seq_greedy: not captured with its host data: $(stat "$out/seq2seq.err" graphs)"
[[ "$(stat "$out/seq2seq.err" graph_replayed_runs)" == "3 of 4 timed" ]] || fail "seq2seq_greedy: not replayed"
same_as_expected seq2seq "$models/seq2seq_greedy"

# a host op on an input (interpolate, no device path): the input is
# guarded (its bytes kept, compared before each replay) and the host's
# result goes to the device from pinned memory
run guarded "$models/loop_reads_nothing" model.ir
grep -q "graphs captured in the first timed run (.*, [1-9][0-9]* copies of host data, 1 inputs read on the host and guarded)" \
  "$out/guarded.err" || fail "loop_reads_nothing: not captured with a guard: $(stat "$out/guarded.err" graphs)"
[[ "$(stat "$out/guarded.err" graph_replayed_runs)" == "3 of 4 timed" ]] || fail "loop_reads_nothing: not replayed"
same_as_expected guarded "$models/loop_reads_nothing"

for c in branch item; do
  run "$c" "$here/graphs" "$c.ir" x=x.npy
  grep -q "graphs off: the host read device data during the run (aten::[A-Za-z]* at $c.py:3:" "$out/$c.err" ||
    fail "$c: no fallback with the reason: $(stat "$out/$c.err" graphs)"
  [[ "$(stat "$out/$c.err" graph_replayed_runs)" == "0 of 4 timed" ]] || fail "$c: replayed"
  "$compare" "$here/graphs/expected_$c.npy" "$out/$c/out0.npy" || fail "$c: wrong outputs"
done

# a print is the host's: every run makes it, so no run is a replay
run prints "$here/graphs" prints.ir x=x.npy >"$out/prints.stdout"
grep -q "graphs off: the run prints (prim::Print at prints.py:3:" "$out/prints.err" ||
  fail "prints: no fallback with the reason: $(stat "$out/prints.err" graphs)"
[[ "$(stat "$out/prints.err" graph_replayed_runs)" == "0 of 4 timed" ]] || fail "prints: replayed"
[[ "$(grep -c '^rows \[2, 3\]$' "$out/prints.stdout")" == 5 ]] ||
  fail "prints: printed $(grep -c . "$out/prints.stdout") lines, expected 5 (the warm-up and 4 timed runs)"
"$compare" "$here/graphs/expected_branch.npy" "$out/prints/out0.npy" || fail "prints: wrong outputs"

run greedy "$models/greedy_decode_break" model.ir
grep -q "graphs off: the host read device data during the run" "$out/greedy.err" ||
  fail "greedy_decode_break: no fallback: $(stat "$out/greedy.err" graphs)"
same_as_expected greedy "$models/greedy_decode_break"
exit $status
