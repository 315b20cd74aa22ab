#!/usr/bin/env bash
# Under mpirun a product's bits must not depend on how many threads a rank
# runs (a rank's cores depend on -np). products/model.ir (products.py: two
# 256 x 256 products of data made in the program) gives different last bits
# on OpenBLAS with 1 and 2 threads; under mpirun tssa-stream runs them on
# single-threaded OpenBLAS in panels of fixed shape (tensor/linalg.c), so
# -np 1 with 1 and with 2 threads and -np 2 and 3 must write the same bytes.
#   test_mpi_products.sh TSSA_STREAM DIR_OF_THIS_SCRIPT
# Skips (77) where mpirun is missing or tssa-stream was built without MPI.
set -uo pipefail
tssa="$1" here="$2"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
[[ "$("$tssa" --version)" == *" mpi"* ]] || { echo "SKIP: built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
run() {   # run NAME THREADS NP
  OMP_NUM_THREADS="$2" timeout 300 mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$3" \
    "$tssa" "$here/products/model.ir" n=256 -o "$work/$1" >"$work/log" 2>&1 ||
    { echo "FAIL: $1: exit status $?"; cat "$work/log"; failed=1; }
}
run np1_threads2 2 1
run np1_threads1 1 1
run np2 2 2
run np3 2 3
for r in np1_threads1 np2 np3; do
  cmp -s "$work/np1_threads2/out0.npy" "$work/$r/out0.npy" ||
    { echo "FAIL: $r differs from -np 1 with 2 threads"; failed=1; }
done
[[ $failed == 0 ]] && echo "the same bytes on every rank and thread count"
exit $failed
