#!/usr/bin/env bash
# --simulate-hosts under mpirun (every rank alone on its own host, on one
# machine). Three checks, picked by the third argument:
#   case CASE_DIR  the program's outputs under mpirun -np 1..4 with
#                  --simulate-hosts (the calibrated rates, and at 2 and 3
#                  ranks also tests/backends/mpi/spread.json's free link with
#                  --repeat 2, which places filters on every rank and sends
#                  items between them over TCP) are the same bytes as a run
#                  under mpirun -np 1 without it
#   topology       --emit=topology shows two ranks, each its own simulated
#                  host (local 0 of 1) on its own half of the cores, and Open
#                  MPI says it uses TCP over lo and never opens vader (shared
#                  memory)
#   binding        a program the partitioner keeps on rank 0 (yolo_decode):
#                  with --simulate-hosts rank 0 runs only its own share of
#                  the cores (--stats: rank0.threads, rank0.cores), where
#                  without it rank 0 takes the idle rank's cores too
#   test_simulate_hosts.sh TSSA_STREAM MODELS_DIR case|topology|binding [CASE_DIR]
# Skips (77) where mpirun is missing or tssa-stream was built without MPI,
# and the topology and binding checks on a machine of one core.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../../case_lib.sh"
tssa="$1" models="$2" check="$3"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
[[ "$("$tssa" --version)" == *" mpi"* ]] || { echo "SKIP: built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
unset OMP_NUM_THREADS
mpi=(timeout 300 mpirun --oversubscribe --allow-run-as-root --bind-to none)
failed=0

# The machine's physical cores, as tssa-stream counts them.
machine_cores() {
  "$tssa" --emit=topology | sed -n 's/^cores: \([0-9]*\) physical.*/\1/p'
}

case "$check" in
case)
  case_begin "$4"
  "${mpi[@]}" -np 1 "$tssa" model.ir "${bindings[@]}" -o "$out/alone" >"$out/stdout" 2>"$out/stderr" ||
    { echo "FAIL: the run on 1 rank without --simulate-hosts"; cat "$out/stderr"; exit 1; }
  for n in 1 2 3 4 spread2 spread3; do
    opts=(--simulate-hosts)
    np=$n
    if [[ $n == spread* ]]; then
      np=${n#spread}
      opts+=(--rates "$here/spread.json" --repeat 2)
    fi
    rm -rf "$out/result"
    if ! "${mpi[@]}" -np "$np" "$tssa" "${opts[@]}" model.ir "${bindings[@]}" -o "$out/result" \
         >"$out/stdout" 2>"$out/stderr"; then
      echo "FAIL: -np $np ${opts[*]}: exit status $?"; cat "$out/stderr"; failed=1; continue
    fi
    for f in "$out"/alone/*.npy; do
      cmp -s "$f" "$out/result/$(basename "$f")" ||
        { echo "FAIL: -np $np ${opts[*]}: $(basename "$f") differs from the run on 1 rank"; failed=1; }
    done
  done
  ;;
topology)
  cores=$(machine_cores)
  [[ "$cores" -ge 2 ]] || { echo "SKIP: one core"; exit 77; }
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  OMPI_MCA_btl_base_verbose=100 "${mpi[@]}" -np 2 "$tssa" --simulate-hosts --emit=topology >"$log" 2>&1 ||
    { echo "FAIL: --emit=topology exited $?"; cat "$log"; exit 1; }
  for r in 0 1; do
    first=$((r * cores / 2)) last=$(((r + 1) * cores / 2 - 1)) threads=$(((r + 1) * cores / 2 - r * cores / 2))
    want="rank $r (its own simulated host, local 0 of 1): cores $first-$last, $threads threads"
    grep -qxF "$want" "$log" || { echo "FAIL: no line '$want'"; failed=1; }
  done
  grep -q "btl: tcp: Using interface: lo" "$log" || { echo "FAIL: Open MPI does not say it uses tcp over lo"; failed=1; }
  ! grep -q "initializing btl component vader" "$log" || { echo "FAIL: Open MPI opened vader (shared memory)"; failed=1; }
  [[ $failed == 0 ]] || cat "$log"
  ;;
binding)
  cores=$(machine_cores)
  [[ "$cores" -ge 2 ]] || { echo "SKIP: one core"; exit 77; }
  case_begin "$models/yolo_decode"
  share=$((cores / 2))
  for mode in simulated plain; do
    opts=(--stats)
    [[ $mode == simulated ]] && opts+=(--simulate-hosts)
    "${mpi[@]}" -np 2 "$tssa" "${opts[@]}" model.ir "${bindings[@]}" >"$out/stdout" 2>"$out/stderr" ||
      { echo "FAIL: $mode: exit status $?"; cat "$out/stderr"; failed=1; continue; }
    threads=$(sed -n 's/.*stats: rank0\.threads \([0-9]*\)$/\1/p' "$out/stderr")
    cores0=$(sed -n 's/.*stats: rank0\.cores \(.*\)$/\1/p' "$out/stderr")
    if [[ $mode == simulated ]]; then
      want_threads=$share want_cores="0-$((share - 1))"
    else                          # everything on rank 0: it takes rank 1's cores
      want_threads=$cores want_cores="0-$((cores - 1))"
    fi
    [[ "$threads" == "$want_threads" && "$cores0" == "$want_cores" ]] ||
      { echo "FAIL: $mode: rank 0 runs $threads threads on cores $cores0, not $want_threads on $want_cores"
        grep "stats: rank" "$out/stderr" | grep -E "threads|cores"; failed=1; }
  done
  ;;
*)
  echo "usage: test_simulate_hosts.sh TSSA_STREAM MODELS_DIR case|topology|binding [CASE_DIR]"; exit 2 ;;
esac
exit $failed
