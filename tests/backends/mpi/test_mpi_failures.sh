#!/usr/bin/env bash
# How a job under mpirun fails (README: exit status):
#   bad input      found by rank 0 before any work: every rank exits 2 and
#                  the message is printed once, not once per rank;
#   bad usage      likewise (a --place file naming a rank the job lacks);
#   runtime        a filter that fails on rank 1 ends the whole job (no rank
#                  waits for it forever): status 1, one message naming the
#                  rank, the filter and the source line; no output files.
#   test_mpi_failures.sh TSSA_STREAM MODELS_DIR
# Skips (77) where mpirun is missing or tssa-stream was built without MPI.
set -uo pipefail
tssa="$1" models="$2"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
[[ "$("$tssa" --version)" == *" mpi"* ]] || { echo "SKIP: built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checks=0

# run NP WANT_STATUS TEXT TIMES -- ARGS...: runs mpirun -np NP tssa-stream ARGS
# (300 s at most: a hang fails) and checks the status and that TEXT is in its
# output exactly TIMES times.
run() {
  local np="$1" want="$2" text="$3" times="$4"; shift 5
  checks=$((checks + 1))
  timeout 300 mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$np" "$tssa" "$@" \
    >"$work/log" 2>&1
  local status=$? count
  count=$(grep -cF -- "$text" "$work/log")
  if [[ "$status" != "$want" || "$count" != "$times" ]]; then
    failures=$((failures + 1))
    echo "FAIL: -np $np $* -> status $status (want $want), '$text' $count times (want $times)"
    sed 's/^/  | /' "$work/log"
  fi
}

case_dir="$models/raise_taken"     # raises at run time: n=5 exceeds the 3 rows
cd "$case_dir" || exit 2
for np in 2 3; do
  run "$np" 2 "x.npy: error" 1 -- model.ir x=missing/x.npy n=5 -o "$work/out"
  run "$np" 2 "missing binding" 1 -- model.ir x=inputs/x.npy -o "$work/out"
  run "$np" 2 "unknown option" 1 -- model.ir x=inputs/x.npy n=5 --frobnicate
done
printf '{"ranks": {"Program": 5}}' > "$work/place.json"
run 2 2 "needs a rank from 0 to 1" 1 -- model.ir x=inputs/x.npy n=5 --place "$work/place.json"

printf '{"ranks": {"Program": 1}}' > "$work/place.json"
for np in 2 4; do
  rm -rf "$work/out"
  run "$np" 1 "raise_taken.py:8: error: prim::RaiseException: n=5 exceeds the 3 rows" 1 -- \
    model.ir x=inputs/x.npy n=5 --place "$work/place.json" -o "$work/out"
  checks=$((checks + 1))
  grep -qF "rank 1 of $np stops the job: filter 'Program' failed" "$work/log" ||
    { failures=$((failures + 1)); echo "FAIL: -np $np: the message does not name rank 1 and the filter"; }
  checks=$((checks + 1))
  [[ ! -e "$work/out" ]] || { failures=$((failures + 1)); echo "FAIL: -np $np: a failed job left $work/out"; }
done
# Every rank reads the input files itself (nothing travels through rank
# 0): the same files give PyTorch's result; a rank whose file differs (its
# host's copy) stops the job before any work, with exit 2, said by that
# rank once, and leaves no output.
cp inputs/x.npy "$work/x_other.npy"
size=$(stat -c %s "$work/x_other.npy")
printf '\x7f' | dd of="$work/x_other.npy" bs=1 seek=$((size - 1)) conv=notrunc status=none
{
  echo '#!/usr/bin/env bash'
  echo 'x=inputs/x.npy'
  echo "[[ \"\${OMPI_COMM_WORLD_RANK:-0}\" == 1 && \"\$1\" == differ ]] && x='$work/x_other.npy'"
  echo "exec '$tssa' model.ir x=\"\$x\" n=2 -o '$work/out_'\"\$1\""
} > "$work/per_rank.sh"
chmod +x "$work/per_rank.sh"
tssa_real="$tssa"
tssa="$work/per_rank.sh"
run 3 0 "error" 0 -- same
run 3 2 "rank 1 read inputs that differ from rank 0's" 1 -- differ
tssa="$tssa_real"
checks=$((checks + 2))
[[ -f "$work/out_same/out0.npy" ]] || { failures=$((failures + 1)); echo "FAIL: every rank reading its files made no output"; }
[[ ! -e "$work/out_differ" ]] || { failures=$((failures + 1)); echo "FAIL: differing inputs left $work/out_differ"; }
echo "$((checks - failures)) passed, $failures failed"
[[ $failures == 0 ]]
