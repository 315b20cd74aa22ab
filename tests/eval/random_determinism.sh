#!/usr/bin/env bash
# random_determinism.sh TSSA_STREAM — the random ops' numbers depend on
# --seed, the node and the loop iteration only (eval/ops_random.c):
#   random/loop.ir         aten::rand in a 3-iteration loop (collected with
#                          append and stacked), randn, dropout
#   random/all_ops.ir      every random op once, and rand_like in a loop
#                          nested in a loop
#   random/sliced_loop.ir  dropout and rand_like of x[i] in a loop whose
#                          body fuses (the lowering's sliced loop)
#   random/state_loop.ir   dropout and randn_like in a loop carrying state
#                          (a feedback loop with a data-parallel Pre filter)
# For each: ref, cpu, cpu --no-fuse, cpu --fission=2, cuda through its CPU
# shim, and mpirun -np 2 (where mpirun and an MPI build are there) give
# byte-identical outputs; another --seed gives other numbers; the default is
# --seed 0. And in loop.ir each iteration draws its own numbers: the
# program's out2 says row 0 and row 1 of the stack differ everywhere (a
# hoisted or merged draw would repeat one row), and its out4 that two
# identical randn calls differ everywhere (CSE must not merge them), both
# expected true.npy.
set -u
tssa=$1
dir=$(cd "$(dirname "$0")/random" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TSSA_CACHE_DIR="${TSSA_CACHE_DIR:-$(cd "$(dirname "$tssa")" && pwd)/kernel-cache}"
fail=0
program=
run() {  # run NAME ARGS...: $program's outputs in $work/NAME
  local name=$1; shift
  if ! "$@" "$dir/$program.ir" "x=$dir/$input" -o "$work/$name" >"$work/$name.log" 2>&1; then
    echo "FAIL: $program: $name exited with an error:"; cat "$work/$name.log"; fail=1
  fi
}
same() {  # same A B: every output byte-identical
  local f
  for f in "$work/$1"/out*.npy; do
    cmp -s "$f" "$work/$2/$(basename "$f")" || { echo "FAIL: $program: $1 and $2 differ in $(basename "$f")"; fail=1; }
  done
}
with_mpi=false
command -v mpirun >/dev/null && "$tssa" --version | grep -q " mpi" && with_mpi=true
with_cuda=false
"$tssa" --version | grep -q " cuda" && with_cuda=true
for case in loop:x.npy all_ops:x43.npy sliced_loop:x43.npy state_loop:x43.npy; do
  program=${case%%:*} input=${case#*:}
  rm -rf "${work:?}"/*
  run ref "$tssa" --backend=ref
  run ref_seed0 "$tssa" --backend=ref --seed 0
  run ref_seed7 "$tssa" --backend=ref --seed 7
  run cpu "$tssa" --backend=cpu
  run cpu_nofuse "$tssa" --backend=cpu --no-fuse
  run cpu_fission "$tssa" --backend=cpu --fission=2
  run cpu_seed7 "$tssa" --backend=cpu --seed=7
  same ref ref_seed0
  same ref cpu
  same ref cpu_nofuse
  same ref cpu_fission
  same ref_seed7 cpu_seed7
  cmp -s "$work/ref/out0.npy" "$work/ref_seed7/out0.npy" && { echo "FAIL: $program: --seed 7 repeats seed 0"; fail=1; }
  if $with_cuda; then
    run cuda env TSSA_CUDA_EMULATE=1 "$tssa" --backend=cuda
    same ref cuda
  fi
  if $with_mpi; then
    # (sanitizer builds: Open MPI's own allocations are not checked for
    # leaks, as in tests/backends/mpi/run_mpi_case.sh)
    run mpi2 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
      timeout 120 mpirun --oversubscribe --allow-run-as-root --bind-to none -np 2 "$tssa" --backend=cpu
    same ref mpi2
  fi
  if [ "$program" = loop ]; then
    for b in ref cpu; do
      cmp -s "$work/$b/out2.npy" "$dir/true.npy" || { echo "FAIL: loop: $b: iterations drew the same numbers"; fail=1; }
      cmp -s "$work/$b/out4.npy" "$dir/true.npy" ||
        { echo "FAIL: loop: $b: two identical randn calls drew the same numbers"; fail=1; }
    done
  fi
done
[ $fail = 0 ] && echo "random_determinism: all checks passed"
exit $fail
