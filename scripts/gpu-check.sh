#!/usr/bin/env bash
# gpu-check.sh — every check that needs a GPU, in one go, for a machine with
# one (CI has none: there these tests skip or run through the CPU shim).
#
#   scripts/gpu-check.sh [BUILD_DIR] [OUT_DIR]
#
# BUILD_DIR is a build tree, or a bundle of one (scripts/gpu-bundle.sh: the
# programs and their libraries, for a machine without this project's
# packages), whose part 2 runs the corpus through tssa-conform instead of
# ctest.
#
# Runs, each under its own time budget so that a short loan of a GPU still
# gives an answer for every part:
#   1. the machine: GPU, driver, toolkit, torch;
#   2. ctest's cuda tests on the GPU (`ctest -L cuda`: every corpus program
#      on --backend=cuda and with --devices 3, the driver test, a failing
#      launch) and kernels.cuda_source (NVRTC and nvcc compile every
#      program's CUDA);
#   3. experiments/bench_gpu.py: the TensorSSA paper's workloads against
#      PyTorch eager and torch.compile, then --devices 1,2,4;
#   4. streams and devices (devices_check, below): the stream check on the
#      GPU (an event orders two streams; two streams overlap), then
#      long_batch_map and mask_crop with --devices 1, 2, 4: median time per
#      run, launches, copies by kind, stream waits and the cost model's
#      predicted speedup, one line each (devices.log);
#   5. CUDA graphs (graphs_check, below): the graph check on the GPU (a
#      capture runs nothing, a replay runs its launches and a cuBLAS product
#      and sees rebound inputs, a download while capturing is refused), then
#      each workload bench_gpu.py exported (else the corpus' loop programs)
#      with and without --no-graphs: median time per run, whether the run
#      was replayed or why not, calls from the host per run (graphs.log).
# Logs and results go to OUT_DIR (default gpu-check/): ctest_cuda.log,
# bench.log, gpu/<date>-<host>.csv|.json and cases.tar.gz (each exported
# workload's model.ir and args.txt, to replay a failure elsewhere).
#
# Environment (seconds; an empty budget skips the part):
#   CTEST_BUDGET=150  BENCH_BUDGET=420  DEVICES_BUDGET=60  GRAPHS_BUDGET=90
#   (only part 4: CTEST_BUDGET= BENCH_BUDGET= scripts/gpu-check.sh build out)
#   DEVICE_CASES      case folders for part 4 (model.ir, args.txt), default
#                     tests/models/long_batch_map and mask_crop
#   DEVICE_REPEAT=20  timed runs per point
#   BENCH_ARGS        more options for bench_gpu.py (e.g. --no-compile --runs 10)
#   TRACE             workloads whose --trace to keep (trace_NAME.json), e.g. rnn_loop
#   NCU               workloads to run once under Nsight Compute (ncu_NAME.txt:
#                     each kernel's device time, DRAM bytes, grid and block)
#   PYTHON            the python with a CUDA build of torch (default python3)
set -uo pipefail
build=$(cd "${1:-build}" && pwd) || exit 2
out=$(mkdir -p "${2:-gpu-check}" && cd "${2:-gpu-check}" && pwd) || exit 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-python3}
ctest_budget=${CTEST_BUDGET-150}
bench_budget=${BENCH_BUDGET-420}
devices_budget=${DEVICES_BUDGET-60}
graphs_budget=${GRAPHS_BUDGET-90}
say() { printf '\n=== %s (%s)\n' "$*" "$(date +%T)"; }

# devices_check BUILD OUT BUDGET: the streams check, then each case at
# --devices 1, 2, 4 (stopping when the budget runs out). One line a point:
#   CASE devices N: median MS ms/run (Xx devices 1), launches L, peer P,
#   staged S, none-needed K, waits W | predicted: the --emit=schedule line
devices_check() {
  local build=$1 out=$2 budget=$3 end=$((SECONDS + $3)) tmp
  tmp=$(mktemp -d)
  echo "-- cuda_streams_check (ordering by an event; two streams overlapping)"
  timeout 30 "$build/tests/cuda_streams_check"; echo "cuda_streams_check exit $?"
  local cases=${DEVICE_CASES:-"$root/tests/models/long_batch_map $root/tests/models/mask_crop"}
  for dir in $cases; do
    [[ -f "$dir/args.txt" ]] || { echo "$dir: no args.txt"; continue; }
    local name base="" args
    name=$(basename "$dir")
    read -r -a args <"$dir/args.txt"
    for n in 1 2 4; do
      local left=$((end - SECONDS))
      ((left > 3)) || { echo "devices_check: budget of $budget s spent"; break 2; }
      (cd "$dir" && timeout "$left" "$build/tssa-stream" --backend=cuda --devices "$n" --repeat "${DEVICE_REPEAT:-20}" \
         --stats model.ir "${args[@]}" -o "$tmp/o" >/dev/null 2>"$tmp/err") || { echo "$name devices $n: failed"; tail -3 "$tmp/err"; continue; }
      local ms stat
      ms=$(sed -n 's/.*median \([0-9.e+-]*\) ms per run.*/\1/p' "$tmp/err")
      stat() { sed -n "s/^tssa-stream: stats: $1_per_run //p" "$tmp/err" | head -1; }
      [[ $n == 1 ]] && base=$ms
      local predicted=""
      ((n > 1)) && predicted=$(cd "$dir" && timeout 20 "$build/tssa-stream" --backend=cuda --devices "$n" \
         --emit=schedule model.ir "${args[@]}" 2>/dev/null | sed -n 's/^devices: [0-9]*, //p' | cut -c1-160)
      printf '%s devices %d: median %s ms/run (%sx devices 1), launches %s, peer %s, staged %s, none-needed %s, waits %s%s\n' \
        "$name" "$n" "$ms" "$(awk -v a="$base" -v b="$ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')" \
        "$(stat launches)" "$(stat copies_peer)" "$(stat copies_staged)" "$(stat copies_none_needed)" \
        "$(stat stream_waits)" "${predicted:+ | $predicted}"
    done
  done
  grep -h "gpu_choice" "$tmp/err" 2>/dev/null | head -1
  rm -rf "$tmp"
}

# graphs_check BUILD BUDGET CASE_DIR...: the graph check on the GPU, then
# each case with graphs (the default) and --no-graphs, one line a case:
#   CASE: graphs MS ms/run (Xx --no-graphs MS ms), host calls H (of K),
#   replayed R of T | STATE
graphs_check() {
  local build=$1 budget=$2 end=$(($2 + SECONDS)) tmp
  shift 2
  tmp=$(mktemp -d)
  echo "-- cuda_graph_check (capture, replay, rebound inputs, a refused download)"
  timeout 30 "$build/tests/cuda_graph_check"; echo "cuda_graph_check exit $?"
  for dir in "$@"; do
    [[ -f "$dir/args.txt" ]] || continue
    local left=$((end - SECONDS)) name args ms=()
    ((left > 3)) || { echo "graphs_check: budget of $budget s spent"; break; }
    name=$(basename "$dir")
    read -r -a args <"$dir/args.txt"
    stat() { sed -n "s/^tssa-stream: stats: $2 //p" "$tmp/$1" | head -1; }
    for mode in graphs plain; do
      local flag=()
      [[ $mode == plain ]] && flag=(--no-graphs)
      (cd "$dir" && TSSA_CUDA_GRAPH_CHECK=${GRAPH_CHECK:-0} timeout "$left" "$build/tssa-stream" --backend=cuda \
         --repeat "${GRAPH_REPEAT:-30}" --stats "${flag[@]}" model.ir "${args[@]}" -o "$tmp/o_$mode" \
         >/dev/null 2>"$tmp/$mode") || { echo "$name $mode: failed"; tail -3 "$tmp/$mode"; continue 2; }
      ms+=("$(sed -n 's/.*median \([0-9.e+-]*\) ms per run.*/\1/p' "$tmp/$mode")")
    done
    printf '%s: graphs %s ms/run (%sx --no-graphs %s ms), host calls %s (of %s + %s), replayed %s | %s\n' \
      "$name" "${ms[0]}" "$(awk -v a="${ms[1]}" -v b="${ms[0]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }')" \
      "${ms[1]}" "$(stat graphs host_launches_per_run)" "$(stat graphs launches_per_run)" \
      "$(stat graphs gemms_per_run)" "$(stat graphs graph_replayed_runs)" "$(stat graphs graphs)"
  done
  rm -rf "$tmp"
}

say machine
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
  --format=csv,noheader || echo "gpu-check: nvidia-smi failed: no GPU here?"
command -v nvcc >/dev/null && nvcc --version | tail -1
"$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
    torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")'
"$build/tssa-stream" --version
nproc

if [[ -n "$ctest_budget" && ! -f "$build/CTestTestfile.cmake" ]]; then
  # a bundle (scripts/gpu-bundle.sh): the corpus through tssa-conform
  say "tssa-conform --mode=cuda,devices3 on the corpus (budget ${ctest_budget} s)"
  timeout "$ctest_budget" "$build/tests/tssa-conform" --mode=cuda,devices3 --jobs="$(nproc)" \
    "$root/tests/models" "$root/tests/functionalize/cases" "$root/tests/streamit/cases" \
    >"$out/ctest_cuda.log" 2>&1
  echo "tssa-conform exit $?"
  grep -E "^FAIL" "$out/ctest_cuda.log" | head -40
  tail -1 "$out/ctest_cuda.log"
elif [[ -n "$ctest_budget" ]]; then
  say "ctest -L cuda (budget ${ctest_budget} s)"
  timeout "$ctest_budget" ctest --test-dir "$build" -L cuda -j "$(nproc)" --timeout "$ctest_budget" \
    --output-on-failure >"$out/ctest_cuda.log" 2>&1
  echo "ctest exit $?"
  grep -E "tests passed|tests failed|Total Test time" "$out/ctest_cuda.log"
  grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess|Not Run)" "$out/ctest_cuda.log" | head -40
  timeout 60 ctest --test-dir "$build" -R '^kernels\.cuda_source$' --output-on-failure \
    >"$out/ctest_cuda_source.log" 2>&1
  echo "kernels.cuda_source exit $?"; tail -3 "$out/ctest_cuda_source.log"
fi

if [[ -n "$bench_budget" ]]; then
  say "bench_gpu.py (budget ${bench_budget} s)"
  cases=$(mktemp -d)
  # shellcheck disable=SC2086  # BENCH_ARGS is a list of options
  PYTHONUNBUFFERED=1 timeout "$bench_budget" "$python" "$root/experiments/bench_gpu.py" \
    --tssa "$build/tssa-stream" --out "$out" --keep "$cases" ${BENCH_ARGS:-} >"$out/bench.log" 2>&1
  echo "bench_gpu.py exit $?"
  # a Chrome trace of each workload named in TRACE (where its time goes)
  for name in ${TRACE:-}; do
    [[ -f "$cases/$name/args.txt" ]] || continue
    mapfile -t args < <(tr ' ' '\n' <"$cases/$name/args.txt" | sed '/^$/d')
    (cd "$cases/$name" && timeout 60 "$build/tssa-stream" --backend=cuda --repeat 3 \
       --trace "$out/trace_$name.json" model.ir "${args[@]}" >/dev/null 2>&1) &&
      echo "wrote $out/trace_$name.json"
  done
  # Nsight Compute on each workload named in NCU: every kernel's time on
  # the device and its DRAM bytes (how far from the bandwidth floor)
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  for name in ${NCU:-}; do
    [[ -n "$ncu" && -f "$cases/$name/args.txt" ]] || continue
    mapfile -t args < <(tr ' ' '\n' <"$cases/$name/args.txt" | sed '/^$/d')
    (cd "$cases/$name" && timeout 120 "$ncu" --metrics \
       gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size \
       "$build/tssa-stream" --backend=cuda model.ir "${args[@]}" -o ncu_out) >"$out/ncu_$name.txt" 2>&1
    echo "ncu $name exit $? ($out/ncu_$name.txt)"
  done
  (cd "$cases" && find . -name model.ir -o -name args.txt -o -name 'stderr*' | \
     tar czf "$out/cases.tar.gz" -T -) 2>/dev/null
  if [[ -n "$graphs_budget" ]]; then
    say "CUDA graphs on the exported workloads (budget ${graphs_budget} s)"
    graphs_check "$build" "$graphs_budget" "$cases"/*/ 2>&1 | tee "$out/graphs.log"
    graphs_budget=""
  fi
  rm -rf "$cases"
  tail -60 "$out/bench.log"
fi
if [[ -n "$devices_budget" ]]; then
  say "streams and devices (budget ${devices_budget} s)"
  devices_check "$build" "$out" "$devices_budget" 2>&1 | tee "$out/devices.log"
fi
if [[ -n "$graphs_budget" ]]; then
  say "CUDA graphs on the corpus' loop programs (budget ${graphs_budget} s)"
  graphs_check "$build" "$graphs_budget" "$root"/tests/models/{rnn_loop,lstm_loop,gru_loop,nasrnn,seq2seq_greedy,attention_heads,fastrnns_lstm} 2>&1 | tee "$out/graphs.log"
fi
say done
