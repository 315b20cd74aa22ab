#!/usr/bin/env bash
# Placement golden files: the partitioner's choice for a few programs at 2
# and 4 ranks (--emit=schedule --ranks N, no mpirun), with the rates fixed by
# placement/rates.json (20 GFLOP/s, 10 GB/s, 2 us per firing, links of 5 us
# and 5 GB/s) and --repeat 9 (ten input sets back to back), so the table
# does not depend on this machine. Each golden was checked by hand against
# partition.c's rules; the checks below restate the decisive ones, so a
# changed table that breaks them says why:
#   long_batch_map  (with --keep-loops: the loop stays a loop, so its
#                   firings are what the ranks share) the rows' product with the weight (x @ w, 10000 x 3 by
#                   3 x 4) is one GEMM before the loop (matmul_4, 0.042 ms);
#                   Body_L14 fires 10000 times (a row's bias, relu and abs
#                   sum): its few dozen flops and bytes are far below the
#                   2 us firing cost, so 20 ms per run, the rest under
#                   0.03 ms. Split over N ranks it costs 20/N ms
#                   plus the rows' messages (a row of x and of the product,
#                   28 B, 10000 times at 5 GB/s: 56 us, the bias once), so
#                   it becomes N copies, copy j
#                   on rank j, and everything else stays on rank 0 (home);
#   rnn_loop        its loop carries h: the feedback loop (Recurrence_L15,
#                   Body and Carry) stays whole on one rank (with ten sets
#                   the loop goes to rank 1 and overlaps rank 0's work on
#                   the next set); the stages after it stay on rank 1 too
#                   (a stage back on rank 0 would wait there for the loop's
#                   result of the same set before the next set could start:
#                   partition.c costs that as no overlap), so the only
#                   channel back to rank 0 is the output's, which rank 0
#                   takes one set late;
#   long_batch_map  without --keep-loops, on one host: the loop is one
#                   kernel over its 10000 iterations (kernels/horizontal.c),
#                   0.046 ms, which rank 0 shares out over all the host's
#                   cores; messages would only add to it, so all on rank 0;
#   attention_heads at its test size (4 heads of 8 x 4) the whole program
#                   costs about 22 us per run; a single run (no --repeat)
#                   stays on rank 0 and says so.
#   check_placement.sh TSSA_STREAM TESTS_DIR
set -uo pipefail
tssa="$1" tests="$2"
here="$tests/backends/mpi/placement"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checks=0

fail() { failures=$((failures + 1)); echo "FAIL: $*"; }

schedule() {   # schedule CASE N [extra...] -> $work/out
  local case="$1" n="$2"; shift 2
  (cd "$tests/models/$case" && read -r -a b < args.txt &&
   "$tssa" model.ir "${b[@]}" --emit=schedule --ranks "$n" --rates "$here/rates.json" --backend=cpu "$@") >"$work/out" 2>&1
}

for case in long_batch_map rnn_loop; do
  for n in 2 4; do
    checks=$((checks + 1))
    schedule "$case" "$n" --repeat 9 --keep-loops || { fail "$case --ranks $n: exit status $?"; cat "$work/out"; continue; }
    diff -u "$here/$case.ranks$n.schedule" "$work/out" >"$work/diff" ||
      { fail "$case --ranks $n differs from placement/$case.ranks$n.schedule"; cat "$work/diff"; }
  done
done

# The decisive facts, restated.
schedule long_batch_map 4 --repeat 9 --keep-loops
for j in 0 1 2 3; do
  checks=$((checks + 1))
  grep -Eq "Body_L14_fission/Body_L14_$j +filter( +[0-9]+){5} +$j +cpu" "$work/out" ||
    fail "long_batch_map: copy $j of Body_L14 is not on rank $j"
done
checks=$((checks + 1))
grep -Eq "Steps_L14/Unstack_L14 +filter( +[0-9]+){5} +0 +cpu" "$work/out" || fail "long_batch_map: Unstack_L14 left rank 0"
schedule rnn_loop 4 --repeat 9
checks=$((checks + 1))
sed -n '/^actors:/,/^init phase/p' "$work/out" | grep -E "^ +[0-9]+ +Program/.*Recurrence_L15/" >"$work/loop"
ranks=$(awk '{print $(NF-2)}' "$work/loop" | sort -u)
[[ $(wc -l <"$work/loop") -ge 3 && $(echo "$ranks" | wc -l) == 1 ]] ||
  fail "rnn_loop: the feedback loop is split over ranks $ranks"
schedule rnn_loop 2 --repeat 9 --keep-loops
checks=$((checks + 1))
back=$(sed -n '/^channels:/,$p' "$work/out" | grep -E -- "->0$" | grep -v " output ")
[[ -z "$back" ]] || fail "rnn_loop --ranks 2: a stage comes back to rank 0 before the output: $back"
schedule long_batch_map 4 --repeat 9
checks=$((checks + 1))
grep -q "all on rank 0: the estimated .* messages would cost more than they save" "$work/out" &&
  grep -Eq "Program/FusionGroup_[0-9]+ +filter( +[0-9]+){5} +0 +cpu" "$work/out" &&
  ! grep -q "Loop_L14" "$work/out" ||
  { fail "long_batch_map: the loop is not one kernel on rank 0"; cat "$work/out"; }
schedule attention_heads 2
checks=$((checks + 1))
grep -q "all on rank 0: the estimated .* messages would cost more than they save" "$work/out" ||
  { fail "attention_heads: a single run did not stay on rank 0"; cat "$work/out"; }

# Devices (--backend=cuda --devices 2, no GPU needed to plan): the loop
# body's two copies on cuda:0 and cuda:1, both on rank 0; data movers on
# the host.
schedule long_batch_map 1 --backend=cuda --devices 2
for j in 0 1; do
  checks=$((checks + 1))
  grep -Eq "Body_L14_fission/Body_L14_$j +filter( +[0-9]+){5} +0 +cuda:$j " "$work/out" ||
    { fail "long_batch_map: copy $j of Body_L14 is not on cuda:$j"; cat "$work/out"; }
done
checks=$((checks + 1))
grep -Eq "Body_L14_fission/split +split .* +0 +cpu " "$work/out" || fail "long_batch_map: the splitter is not on the host"

echo "$((checks - failures)) passed, $failures failed"
[[ $failures == 0 ]]
