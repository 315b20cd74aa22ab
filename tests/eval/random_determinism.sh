#!/usr/bin/env bash
# random_determinism.sh TSSA_STREAM — the random ops' numbers depend on
# --seed, the node and the loop iteration only (eval/ops_random.c):
#   - random/loop.ir draws aten::rand in a 3-iteration loop (collected with
#     append, stacked), randn and a dropout outside it;
#   - ref, cpu, cpu --no-fuse, cpu --fission=2 (and mpirun -np 2 where
#     mpirun and an MPI build are there) give byte-identical outputs;
#   - each iteration draws its own numbers: the program's out2 says row 0
#     and row 1 of the stack differ everywhere (a hoisted or merged draw
#     would repeat one row), expected true.npy;
#   - another --seed gives other numbers; the default is --seed 0.
set -u
tssa=$1
dir=$(cd "$(dirname "$0")/random" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TSSA_CACHE_DIR="${TSSA_CACHE_DIR:-$(cd "$(dirname "$tssa")" && pwd)/kernel-cache}"
fail=0
run() {  # run NAME ARGS...: outputs in $work/NAME
  local name=$1; shift
  if ! "$@" "$dir/loop.ir" "x=$dir/x.npy" -o "$work/$name" >"$work/$name.log" 2>&1; then
    echo "FAIL: $name exited with an error:"; cat "$work/$name.log"; fail=1
  fi
}
same() {  # same A B: every output byte-identical
  for i in 0 1 2 3; do
    cmp -s "$work/$1/out$i.npy" "$work/$2/out$i.npy" || { echo "FAIL: $1 and $2 differ in out$i"; fail=1; }
  done
}
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
cmp -s "$work/ref/out2.npy" "$dir/true.npy" || { echo "FAIL: iterations drew the same numbers"; fail=1; }
for i in 0 3; do
  cmp -s "$work/ref/out$i.npy" "$work/ref_seed7/out$i.npy" && { echo "FAIL: --seed 7 repeats seed 0 in out$i"; fail=1; }
done
if command -v mpirun >/dev/null && "$tssa" --version | grep -q " mpi"; then
  run mpi2 timeout 120 mpirun --oversubscribe --allow-run-as-root --bind-to none -np 2 "$tssa" --backend=cpu
  same ref mpi2
fi
[ $fail = 0 ] && echo "random_determinism: all checks passed"
exit $fail
