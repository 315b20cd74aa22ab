#!/usr/bin/env bash
# Loops too long for static rates, and loops that never end
# (tests/streamit/long_loops; README.md there derives the expected values).
#   test_long_loops.sh TSSA_STREAM CASES_DIR
#   1. huge_for_static: `for` over 10^12 iterations with a constant-true
#      condition. --emit=stream and --emit=schedule succeed (they used to
#      abort: "filter rate out of range", exit 134) and say the loop is a
#      hierarchical filter (its body a stream of its own, fired per
#      iteration) because its trip count is too large for static rates.
#   2. forever: `while True:` without a break (trip count 2^63 - 1, constant
#      true condition) runs until it is interrupted (timeout: status 124),
#      its memory flat: its resident size after 3 s is within 1.5x of that
#      after 1 s.
#   3. tests/models/scalar_steps (acc = acc * decay + x[i], carried state)
#      at 10^5 and 10^6 steps: the peak resident size at 10^6 is at most
#      1.5x that at 10^5 (before phased loops: 54 MB and 465 MB). x is 10^6
#      float32 zeros written here (a .npy header, then /dev/zero).
#   4. row_map (out[i] = x[i] * 2 + 1, data-parallel, kept per iteration by
#      --keep-loops): at 3000 rows it is phased (3 phases of 1024) and
#      equals the hand-derived expected/out0.npy bitwise phased, in phases
#      of 7, unphased (--loop-chunk=2^30), and with --fission=2, which
#      splits the body and so runs the loop unphased (--emit=stream says
#      which). On the 10^6 zeros: the peak resident size at 10^6 rows is at
#      most 1.5x that at 10^5 (data-parallel loops unphased: 56 MB and
#      449 MB), every output is 1.0, and at 10^5 the phased output equals
#      the unphased one bitwise.
set -uo pipefail
tssa="$1" cases="$2"
fail=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export TSSA_CACHE_DIR="$(cd "$(dirname "$tssa")" && pwd)/kernel-cache"
# Under AddressSanitizer freed memory waits in a quarantine of up to 256 MiB
# before it is reused (to catch uses after free), so resident size grows with
# the number of frees, not with what is live: measure without it. Other
# builds ignore the variable.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"

cd "$cases/huge_for_static" || exit 2
for emit in stream schedule; do
  "$tssa" model.ir x=inputs/x.npy --emit=$emit >"$out/$emit" 2>"$out/$emit.err"
  status=$?
  if [[ $status != 0 ]]; then
    echo "FAIL: --emit=$emit exits $status: $(head -c 300 "$out/$emit.err")"
    fail=1
  fi
done
grep -q "loop decided at run time (1000000000000 iterations are too many for static rates" "$out/stream" ||
  { echo "FAIL: --emit=stream does not say why the loop is decided at run time:"; cat "$out/stream"; fail=1; }
grep -q "pipeline Body_L3 {" "$out/stream" ||
  { echo "FAIL: the loop's body is not a stream of its own:"; cat "$out/stream"; fail=1; }
grep -q "Program/Loop_acc  *filter" "$out/schedule" ||
  { echo "FAIL: the schedule has no Loop_acc filter:"; cat "$out/schedule"; fail=1; }

cd "$cases/forever" || exit 2
"$tssa" model.ir x=inputs/x.npy -o "$out/forever" 2>"$out/forever.err" &
pid=$!
sleep 1
rss1=$(awk '/VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null)
sleep 2
rss3=$(awk '/VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null)
if kill -0 $pid 2>/dev/null; then
  kill $pid
  wait $pid 2>/dev/null
  if [[ -z "$rss1" || -z "$rss3" ]] || (( rss3 * 2 > rss1 * 3 )); then
    echo "FAIL: while True: resident size $rss1 KB after 1 s, $rss3 KB after 3 s"
    fail=1
  fi
else
  wait $pid
  echo "FAIL: while True ended by itself (status $?): $(head -c 300 "$out/forever.err")"
  fail=1
fi
[[ -e "$out/forever/out0.npy" ]] && { echo "FAIL: an interrupted run wrote outputs"; fail=1; }
cd "$cases/../../models/scalar_steps" || exit 2
header="{'descr': '<f4', 'fortran_order': False, 'shape': (1000000,), }"
while (( (${#header} + 11) % 64 != 0 )); do header+=" "; done
{ printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(( (${#header} + 1) % 256 )))\\x$(printf %02x $(( (${#header} + 1) / 256 )))";
  printf '%s\n' "$header"; head -c 4000000 /dev/zero; } >"$out/x.npy"
for n in 100000 1000000; do
  /usr/bin/time -f %M -o "$out/rss$n" "$tssa" model.ir x="$out/x.npy" decay=0.999 n=$n -o "$out/steps$n" 2>"$out/steps$n.err" ||
    { echo "FAIL: scalar_steps n=$n: $(head -c 300 "$out/steps$n.err")"; fail=1; }
done
small=$(tail -1 "$out/rss100000") big=$(tail -1 "$out/rss1000000")
if (( big * 2 > small * 3 )); then
  echo "FAIL: scalar_steps peak resident size $small KB at 10^5 steps, $big KB at 10^6"
  fail=1
fi

cd "$cases/row_map" || exit 2
for opts in "" "--loop-chunk=7" "--loop-chunk=1073741824" "--fission=2"; do
  rm -rf "$out/row_map"
  if ! "$tssa" model.ir x=inputs/x.npy n=3000 --keep-loops $opts -o "$out/row_map" 2>"$out/row_map.err"; then
    echo "FAIL: row_map --keep-loops $opts: $(head -c 300 "$out/row_map.err")"
    fail=1
  elif ! cmp -s "$out/row_map/out0.npy" expected/out0.npy; then
    echo "FAIL: row_map --keep-loops $opts: out0 differs from expected/out0.npy"
    fail=1
  fi
done
"$tssa" model.ir x=inputs/x.npy n=3000 --keep-loops --emit=stream >"$out/row_map.str" 2>&1
grep -q "// phased: 3 phases of 1024 iterations (the last 952)" "$out/row_map.str" ||
  { echo "FAIL: the kept data-parallel loop is not phased:"; cat "$out/row_map.str"; fail=1; }
"$tssa" model.ir x=inputs/x.npy n=3000 --keep-loops --fission=2 --emit=stream >"$out/row_map.str" 2>&1
grep -q "// unphased: a filter of the loop is split into data-parallel copies" "$out/row_map.str" ||
  { echo "FAIL: the split loop does not say it runs unphased:"; cat "$out/row_map.str"; fail=1; }
for run in 100000:1024 100000:1073741824 1000000:1024; do
  n=${run%:*} chunk=${run#*:}
  /usr/bin/time -f %M -o "$out/rss.$n.$chunk" "$tssa" model.ir x="$out/x.npy" n=$n --keep-loops \
    --loop-chunk=$chunk -o "$out/map.$n.$chunk" 2>"$out/map.err" ||
    { echo "FAIL: row_map n=$n --loop-chunk=$chunk: $(head -c 300 "$out/map.err")"; fail=1; }
done
cmp -s "$out/map.100000.1024/out0.npy" "$out/map.100000.1073741824/out0.npy" ||
  { echo "FAIL: row_map at 10^5 rows: the phased output differs from the unphased one"; fail=1; }
ones=$(tail -c 4000000 "$out/map.1000000.1024/out0.npy" | od -An -tx4 | sort -u | tr -s ' ' | tr '\n' ';')
[[ "$ones" == " 3f800000 3f800000 3f800000 3f800000;*;" ]] ||
  { echo "FAIL: row_map at 10^6 rows: not every output is 1.0: $ones"; fail=1; }
small=$(tail -1 "$out/rss.100000.1024") big=$(tail -1 "$out/rss.1000000.1024")
if (( big * 2 > small * 3 )); then
  echo "FAIL: row_map --keep-loops peak resident size $small KB at 10^5 rows, $big KB at 10^6"
  fail=1
fi
exit $fail
