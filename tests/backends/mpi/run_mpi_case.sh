#!/usr/bin/env bash
# Runs one corpus program under mpirun on 1, 2, 3 and 4 ranks and checks
# that every run writes the same bytes as the run on 1 rank, and that run's
# outputs against PyTorch's (tests/case_lib.sh). The run on 1 rank is the
# reference: on one rank the spread rates below place nothing elsewhere, so
# a second run there would repeat it. (Under mpirun products are
# computed so that their bits do not depend on a rank's threads; a run
# without mpirun lets OpenBLAS block them by its thread count, which may
# change the last bits, within PyTorch's tolerance.)
#   run_mpi_case.sh TSSA_STREAM NPY_COMPARE CASE_DIR
# Each N of 2, 3 and 4 runs
#   spread   --rates spread.json: a free link and a costly firing, so the
#            partitioner spreads every data-parallel filter over the ranks
#            and, with --repeat 2 (three input sets), pipelines the stages:
#            as many channels between ranks as the program can have;
#   default  the calibrated rates and the link mpirun gives (N = 2 only):
#            the placement a user gets.
# A case with expect_error.txt must fail alike on every N, once (one
# message, not one per rank), with no output files.
# Skips (77) where mpirun is missing or tssa-stream was built without MPI.
# Oversubscribed (2 cores here): --oversubscribe; the sanitizer builds do
# not check Open MPI's own allocations for leaks (ASAN_OPTIONS).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../../case_lib.sh"
tssa="$1" compare="$2"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
[[ "$("$tssa" --version)" == *" mpi"* ]] || { echo "SKIP: built without MPI"; exit 77; }
case_begin "$3"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# A run that hangs fails after 5 minutes instead of holding the test.
mpi=(timeout 300 mpirun --oversubscribe --allow-run-as-root --bind-to none)

"${mpi[@]}" -np 1 "$tssa" --repeat 2 model.ir "${bindings[@]}" -o "$out/result" >"$out/stdout" 2>"$out/stderr"
case_verdict "$compare" $? "$out/stderr" --replaced || exit 1
[[ -d "$out/result" ]] && mv "$out/result" "$out/alone"

failed=0
for n in 2 3 4; do
  for mode in spread default; do
    [[ $mode == default && $n != 2 ]] && continue
    opts=(--repeat 2)
    [[ $mode == spread ]] && opts+=(--rates "$here/spread.json")
    rm -rf "$out/result"
    "${mpi[@]}" -np "$n" "$tssa" "${opts[@]}" model.ir "${bindings[@]}" -o "$out/result" \
      >"$out/stdout" 2>"$out/stderr"
    status=$?
    if [[ -f expect_error.txt ]]; then
      want=$(sed -n 2p expect_error.txt)
      copies=$(grep -cF -- "$want" "$out/stderr")
      if [[ "$status" == 0 || "$copies" -lt 1 ]] || compgen -G "$out/result/*" >/dev/null; then
        echo "FAIL: -np $n ($mode): status $status, the message $copies times, or outputs left"
        cat "$out/stderr"; failed=1
      fi
      continue
    fi
    if [[ "$status" != 0 ]]; then
      echo "FAIL: -np $n ($mode): exit status $status"; cat "$out/stderr"; failed=1; continue
    fi
    for f in "$out"/alone/*.npy; do
      cmp -s "$f" "$out/result/$(basename "$f")" ||
        { echo "FAIL: -np $n ($mode): $(basename "$f") differs from the run on 1 rank"; failed=1; }
    done
  done
done
exit $failed
