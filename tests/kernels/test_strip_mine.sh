#!/usr/bin/env bash
# Data-parallel loops cut into slices (kernels/strip_mine.c), on the three
# loops of tests/kernels/strip_mine (exported from PyTorch, expected/ is
# PyTorch's eager output) and tests/models/long_batch_map:
#   1. --devices 1..4 on the cuda backend (the CPU shim without a GPU): the
#      outputs match PyTorch's; --print-after=strip_mine shows the loop cut
#      into slices where it can be (a loop over c slices of an inner loop),
#      and left whole for 37 iterations (a prime: no divisor shares them);
#   2. long_batch_map on 2 devices launches at most twice the kernels of one
#      device (one kernel per slice, the rows copied by the copy engine);
#   3. under mpirun with --simulate-hosts (ranks on separate hosts: the
#      loops are cut for the ranks, each slice's products in whole panels),
#      np 1..3 give the same bytes as a plain run, for every case; and with
#      --keep-loops (one row per firing, kept on the rank that made it and
#      gathered once) 2 ranks give a plain --keep-loops run's bytes.
#   test_strip_mine.sh TSSA_STREAM NPY_COMPARE TESTS_DIR
set -uo pipefail
tssa=$(realpath "$1") compare=$(realpath "$2") tests=$(realpath "$3")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../case_lib.sh"
kernel_cache_in_build
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  export TSSA_CUDA_EMULATE=1
fi
cases=("$tests/kernels/strip_mine/rows_and_index" "$tests/kernels/strip_mine/prime_trips"
       "$tests/kernels/strip_mine/stacked_rows" "$tests/models/long_batch_map")

for dir in "${cases[@]}"; do
  name=$(basename "$dir")
  read -r -a bindings <"$dir/args.txt"
  for d in 1 2 3 4; do
    (cd "$dir" && "$tssa" --backend=cuda --devices "$d" model.ir "${bindings[@]}" -o "$out/$name.d$d") \
      >"$out/log" 2>&1 || { fail "$name --devices $d: $(tail -2 "$out/log")"; continue; }
    "$compare" "$out/$name.d$d/out0.npy" "$dir/expected/out0.npy" >/dev/null ||
      fail "$name --devices $d differs from PyTorch"
  done
  # slices: an outer loop whose body holds the inner loop (two prim::Loop lines)
  (cd "$dir" && "$tssa" --backend=cuda --devices 2 model.ir "${bindings[@]}" --print-after=strip_mine) >"$out/cut.ir" 2>&1
  loops=$(grep -c "prim::Loop" "$out/cut.ir")
  if [[ $name == prime_trips ]]; then
    [[ $loops == 1 ]] || fail "$name: 37 iterations were cut ($loops loops)"
  else
    [[ $loops == 2 ]] || fail "$name: not cut into slices for 2 devices ($loops loops)"
  fi
done

# 2. one kernel per slice
dir="$tests/models/long_batch_map"
read -r -a bindings <"$dir/args.txt"
for d in 1 2; do
  (cd "$dir" && "$tssa" --backend=cuda --devices "$d" model.ir "${bindings[@]}" --stats) >/dev/null 2>"$out/stats.$d"
done
l1=$(sed -n 's/.*stats: launches_per_run \([0-9]*\)$/\1/p' "$out/stats.1")
l2=$(sed -n 's/.*stats: launches_per_run \([0-9]*\)$/\1/p' "$out/stats.2")
[[ -n $l1 && -n $l2 ]] && ((l2 <= 2 * l1)) ||
  fail "long_batch_map: --devices 2 launches $l2 kernels, more than twice one device's $l1"

# 3. ranks on simulated hosts: the same bytes for every rank count
if command -v mpirun >/dev/null && "$tssa" --version | grep -q mpi; then
  root=()
  [[ $(id -u) == 0 ]] && root=(--allow-run-as-root)
  for dir in "${cases[@]}"; do
    name=$(basename "$dir")
    read -r -a bindings <"$dir/args.txt"
    (cd "$dir" && "$tssa" model.ir "${bindings[@]}" -o "$out/$name.plain") >/dev/null 2>&1 ||
      { fail "$name: plain run"; continue; }
    for np in 1 2 3; do
      # (sanitizer builds: Open MPI's own allocations are not leak-checked,
      # as in tests/backends/mpi/run_mpi_case.sh)
      (cd "$dir" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        mpirun "${root[@]}" --oversubscribe -np "$np" "$tssa" --simulate-hosts model.ir "${bindings[@]}" \
        -o "$out/$name.np$np") >"$out/log" 2>&1 || { fail "$name -np $np: $(grep -m2 error "$out/log")"; continue; }
      cmp -s "$out/$name.plain/out0.npy" "$out/$name.np$np/out0.npy" ||
        fail "$name: -np $np --simulate-hosts gives other bytes than a plain run"
    done
  done
  # --keep-loops: the loop's rows are single iterations spread over the
  # ranks; each rank keeps its rows (select_rev writes) until rank 0
  # gathers them for the output: the bytes of a plain --keep-loops run
  dir="$tests/models/long_batch_map"
  read -r -a bindings <"$dir/args.txt"
  (cd "$dir" && "$tssa" --keep-loops model.ir "${bindings[@]}" -o "$out/keep.plain") >/dev/null 2>&1
  (cd "$dir" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    mpirun "${root[@]}" --oversubscribe -np 2 "$tssa" --simulate-hosts --keep-loops model.ir "${bindings[@]}" \
    -o "$out/keep.np2") >"$out/log" 2>&1 || fail "long_batch_map --keep-loops -np 2: $(grep -m2 error "$out/log")"
  cmp -s "$out/keep.plain/out0.npy" "$out/keep.np2/out0.npy" ||
    fail "long_batch_map --keep-loops: rows gathered from 2 simulated hosts differ from a plain run"
else
  echo "note: no mpirun or no MPI build: the rank counts are not checked"
fi
[[ $status == 0 ]] && echo "strip_mine: all checks passed"
exit $status
