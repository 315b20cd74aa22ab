#!/usr/bin/env bash
# The demo: a small sequence model written as imperative PyTorch
# (examples/stream_demo.py) whose stream graph has a data-parallel region, a
# split-join and an RNN's feedback loop, taken through the whole tool:
#   1. the PyTorch source and its export (frontend/export.py);
#   2. the stream graph, as text and as an SVG drawn by Graphviz;
#   3. its static schedule and placement over 2 ranks;
#   4. an `mpirun -np 2` run that writes a Chrome trace;
#   5. the outputs checked against PyTorch's.
# Everything goes into one folder, whose paths are printed at the end.
#
#   scripts/demo.sh [OUTDIR]      (default: a new folder under $TMPDIR or /tmp)
#
# Needs a build (scripts/setup.sh, then scripts/build.sh build) and mpirun.
# With PyTorch (scripts/setup.sh --dev) the program is exported afresh and
# checked against PyTorch run there and then; without it the committed export
# examples/stream_demo/ (made by the same command) is used and the outputs
# are checked against the PyTorch outputs stored in it. Graphviz is optional:
# without `dot` the demo says how to install it and goes on.
# Exits non-zero, naming the step, if any step fails.
# TSSA_STREAM and NPY_COMPARE name the binaries when the build is elsewhere,
# TSSA_DEMO_PYTHON the Python with PyTorch (default /usr/bin/python3, as the
# tests use; a path that does not exist takes the path without PyTorch).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tssa="${TSSA_STREAM:-$root/build/tssa-stream}"
npy_compare="${NPY_COMPARE:-$root/build/tests/npy_compare}"
python="${TSSA_DEMO_PYTHON:-/usr/bin/python3}"
[[ -x $python || -n ${TSSA_DEMO_PYTHON:-} ]] || python="$(command -v python3 || true)"

step_name="setup"
trap 'echo "demo: step \"$step_name\" failed (exit $?)" >&2' ERR
step() { step_name="$1"; echo; echo "== $1"; }
say() { echo "   $*"; }
fail() { echo "demo: $*" >&2; exit 1; }

[[ -x $tssa ]] || fail "no $tssa: build it first with scripts/setup.sh and scripts/build.sh build"
command -v mpirun >/dev/null || fail "no mpirun: scripts/setup.sh installs Open MPI (openmpi-bin)"
out="${1:-$(mktemp -d "${TMPDIR:-/tmp}/tssa-demo.XXXXXX")}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
case_dir="$out/case"

# The program's inputs: 16 time steps of a batch of 8, 32 features, a hidden
# state of 24. The committed examples/stream_demo/ is this export.
inputs=('x=torch.randn(16, 8, 32)' 'h0=torch.zeros(8, 24)'
        'w_value=torch.randn(32, 32) / 6' 'w_gate=torch.randn(32, 32) / 6'
        'w_ih=torch.randn(24, 32) / 6' 'w_hh=torch.randn(24, 24) / 5'
        'bias=torch.randn(24) / 10')
have_torch=no
if [[ -x $python ]] && "$python" -c 'import torch, numpy' 2>/dev/null; then have_torch=yes; fi

step "1/5 The program, as imperative PyTorch: examples/stream_demo.py"
sed -n '/^def stream_demo/,$p' examples/stream_demo.py
echo
if [[ $have_torch == yes ]]; then
  say "Exporting it: torch.jit.script, every call inlined, the graph text written as"
  say "model.ir, the inputs as .npy, PyTorch's own (eager) outputs as expected/:"
  say "frontend/export.py examples/stream_demo.py:stream_demo --inputs $(printf "'%s' " "${inputs[@]}")"
  rm -rf "$case_dir"
  "$python" frontend/export.py examples/stream_demo.py:stream_demo --source-root examples \
    --inputs "${inputs[@]}" -o "$case_dir"
else
  say "PyTorch is not installed here (scripts/setup.sh --dev installs it), so the demo"
  say "uses the committed export examples/stream_demo/, made by"
  say "frontend/export.py examples/stream_demo.py:stream_demo --inputs $(printf "'%s' " "${inputs[@]}")"
  rm -rf "$case_dir"
  cp -r examples/stream_demo "$case_dir"
fi
read -r -a bindings < "$case_dir/args.txt"
say "model.ir: $(wc -l < "$case_dir/model.ir") lines of TorchScript graph text; its two loops are prim::Loop nodes"
say "bindings (args.txt): ${bindings[*]}"

# tssa-stream runs in the case folder, as `cd case && tssa-stream model.ir
# $(cat args.txt)` does: the bindings are relative paths.
tssa_in_case() { (cd "$case_dir" && "$tssa" "$@" model.ir "${bindings[@]}"); }

step "2/5 The stream graph (--emit=stream, --emit=dot)"
tssa_in_case --emit=stream > "$out/stream.str"
tssa_in_case --emit=fused > "$out/fused.ir"
tssa_in_case --emit=dot > "$out/stream.dot"
say "Every value live between two ops is a channel; the identity filters that carry"
say "values past a layer are left out here (all of it: $out/stream.str)."
grep -v '^ *identity ' "$out/stream.str"
echo
# The filters are named after the graph value they compute (%65 is matmul_65).
data_parallel="$(grep -o '%[0-9]* : [^=]* = tssa::FusionGroup\[iterations=[0-9]*\]' "$out/fused.ir" | head -1 || true)"
[[ -n $data_parallel ]] || fail "no data-parallel FusionGroup[iterations=N] in $out/fused.ir"
data_parallel_filter="FusionGroup_$(sed 's/^%\([0-9]*\).*/\1/' <<< "$data_parallel")"
iterations="$(sed 's/.*iterations=\([0-9]*\).*/\1/' <<< "$data_parallel")"
value_id="$(grep -o '^ *%[0-9]* : Tensor = aten::matmul(%normed[^,]*, %w_value' "$case_dir/model.ir" | grep -o '%[0-9]*' | head -1 || true)"
gate_id="$(grep -o '^ *%[0-9]* : Tensor = aten::matmul(%normed[^,]*, %w_gate' "$case_dir/model.ir" | grep -o '%[0-9]*' | head -1 || true)"
[[ -n $value_id && -n $gate_id ]] || fail "the two branches' matmuls are not in $case_dir/model.ir"
gate_filter="matmul_${gate_id#%}"
feedback="$(grep -o 'feedbackloop [A-Za-z_0-9]*' "$out/stream.str" | head -1 || true)"
[[ -n $feedback ]] || fail "no feedbackloop in $out/stream.str"
say "The three shapes:"
say "  data-parallel region: $data_parallel_filter, the normalisation loop (no state carried"
say "    between steps) fused horizontally into one kernel over its $iterations iterations"
say "  split-join: matmul_${value_id#%} (value branch) and $gate_filter (gate branch) read the"
say "    same features side by side and are joined by the tanh * sigmoid product"
loop_tag="${feedback#feedbackloop Recurrence_}"
say "  feedback loop: ${feedback#feedbackloop }, the RNN step (Body_$loop_tag) whose hidden"
say "    state Carry_$loop_tag feeds back into the next step (enqueue 1: h0, before step 0)"
if command -v dot >/dev/null; then
  dot -Tsvg "$out/stream.dot" -o "$out/stream.svg"
  say "Graphviz drew it: open $out/stream.svg in a browser"
else
  say "Graphviz's dot is not installed, so there is no SVG; install it with"
  say "  sudo apt-get install graphviz     (or scripts/setup.sh --dev)"
  say "and draw it with: dot -Tsvg $out/stream.dot -o $out/stream.svg"
fi

step "3/5 The static schedule and its placement over 2 ranks (--emit=schedule --ranks 2)"
tssa_in_case --emit=schedule --ranks 2 > "$out/schedule.txt"
# The summary, the filters that compute (not the splits, joins, identities
# and routing filters) and the steady state's loop; all of it is in the file.
show_schedule() {
  awk '/^actors:/ { table = 1 }
       /^channels:/ { exit }
       !table && NF { print; next }
       table && ($2 == "actor" || ($3 == "filter" && $2 !~ /Route[0-9]*$/)) { print; next }
       table && /phase|repeat the last/ { print }' "$1"
}
show_schedule "$out/schedule.txt"
say "(\"repeat the last N phases\" is the feedback loop: its phases once per step.)"
say "That is the partitioner's choice (full schedule: $out/schedule.txt)."
say "To see the split-join's branches run on two ranks at once, pin the gate"
say "branch $gate_filter to rank 1 (--place place.json; the rest stays on rank 0):"
printf '{"ranks": {"%s": 1}}\n' "$gate_filter" > "$out/place.json"
cat "$out/place.json"
tssa_in_case --emit=schedule --ranks 2 --place "$out/place.json" > "$out/schedule_placed.txt"
sed -n '3p' "$out/schedule_placed.txt"
awk '$2 == "actor" || ($3 == "filter" && $(NF - 2) == 1)' "$out/schedule_placed.txt"
say "(full schedule with the pin: $out/schedule_placed.txt)"

step "4/5 Running it on 2 MPI ranks, with a trace (mpirun -np 2 ... --trace)"
mpi=(mpirun -np 2)
# Open MPI refuses root without --allow-run-as-root, and more ranks than
# cores without --oversubscribe; ask for each only where it is needed.
[[ $(id -u) -eq 0 ]] && mpi+=(--allow-run-as-root)
cores="$(lscpu -p=Core,Socket 2>/dev/null | grep -v '^#' | sort -u | wc -l || true)"
[[ ${cores:-0} -ge 1 ]] || cores="$(nproc)"
((cores >= 2)) || mpi+=(--oversubscribe)
rm -rf "$out/out"
say "${mpi[*]} tssa-stream --place place.json --trace trace.json model.ir \$(cat args.txt) -o out/"
(cd "$case_dir" && "${mpi[@]}" "$tssa" --place "$out/place.json" --trace "$out/trace.json" \
   model.ir "${bindings[@]}" -o "$out/out")
ls -l "$out/out"
if [[ -x $python ]]; then
  "$python" - "$out/trace.json" <<'PY'
import collections, json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
ranks = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
firings = collections.Counter(e["pid"] for e in events if e.get("cat") == "filter")
messages = sum(1 for e in events if e.get("cat") == "mpi" and e.get("ph") == "s")
for pid in sorted(ranks):
    print(f"   {ranks[pid]}: {firings[pid]} filter firings traced")
print(f"   {messages} messages between the ranks")
PY
fi
say "The trace: every firing per rank, each OpenMP thread's share, every message"
say "between the ranks. Open $out/trace.json in Perfetto (https://ui.perfetto.dev,"
say "Open trace file) or in Chrome at chrome://tracing (Load)."

step "5/5 The outputs checked against PyTorch's"
if [[ $have_torch == yes ]]; then
  say "PyTorch runs the same function eagerly on the same inputs; float32 outputs must"
  say "agree within rtol 1e-5, atol 1e-6 (the tolerance export.py checks scripting with):"
  compare_py='
import sys
import numpy as np
import torch
sys.path.insert(0, "examples")
from stream_demo import stream_demo
case, out = sys.argv[1], sys.argv[2]
names = ["x", "h0", "w_value", "w_gate", "w_ih", "w_hh", "bias"]
inputs = {n: torch.from_numpy(np.load(f"{case}/inputs/{n}.npy")) for n in names}
for i, want in enumerate(stream_demo(**inputs)):
    got = np.load(f"{out}/out{i}.npy")
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)
    print(f"out{i}.npy {tuple(got.shape)}: matches PyTorch (largest difference {np.abs(got - want.numpy()).max():.2g})")
'
  echo "$compare_py" | sed '/^$/d; s/^/     /'
  "$python" -c "$compare_py" "$case_dir" "$out/out"
else
  [[ -x $npy_compare ]] || fail "no $npy_compare to compare with (scripts/build.sh build makes it)"
  say "Without PyTorch here, against the outputs PyTorch computed at export time"
  say "(examples/stream_demo/expected/), with the tests' tolerance (npy_compare):"
  for expected in "$case_dir"/expected/out*.npy; do
    "$npy_compare" "$expected" "$out/out/$(basename "$expected")"
    say "$(basename "$expected"): matches PyTorch"
  done
fi

step_name="listing"
echo
echo "== The demo's files, in $out:"
say "case/             the export: model.ir, inputs/, args.txt, expected/"
say "stream.str        the stream graph as text"
say "stream.dot        the stream graph for Graphviz$([[ -f $out/stream.svg ]] && echo "; stream.svg: drawn")"
say "fused.ir          the graph with its fused kernels (--emit=fused)"
say "schedule.txt      the schedule over 2 ranks; schedule_placed.txt with place.json"
say "out/              the outputs of the 2-rank run (out0.npy, out1.npy)"
say "trace.json        its trace (ui.perfetto.dev or chrome://tracing)"
