#!/usr/bin/env bash
# The command-line contract of tssa-stream (DESIGN.md, "Command line"):
# exit statuses, located messages, GNU-style option order, -o output files.
#   test_cli.sh TSSA_STREAM
# Each check names what it expects; the first failure is reported with the
# command's output.
set -uo pipefail
tssa="$1"
here="$(cd "$(dirname "$0")/.." && pwd)"      # tests/
model="$here/models/yolo_decode"   # a function: no weights
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checks=0

# expect STATUS PATTERN -- COMMAND...: runs COMMAND, checks its exit status
# and that stdout+stderr match the extended regex PATTERN ("" for any).
expect() {
  local want_status="$1" pattern="$2"; shift 3
  checks=$((checks + 1))
  "$@" >"$work/out" 2>&1
  local status=$?
  if [[ "$status" != "$want_status" ]] || { [[ -n "$pattern" ]] && ! grep -Eq -- "$pattern" "$work/out"; }; then
    failures=$((failures + 1))
    echo "FAIL: $* -> status $status (want $want_status), output:"; sed 's/^/  | /' "$work/out"
    [[ -n "$pattern" ]] && echo "  (wanted a line matching: $pattern)"
  fi
}

read -r -a bindings < "$model/args.txt"
abs_bindings=()
for b in "${bindings[@]}"; do
  name="${b%%=*}" value="${b#*=}"
  [[ "$value" == *.npy ]] && value="$model/$value"
  abs_bindings+=("$name=$value")
done

# usage
expect 0 "^usage: tssa-stream" -- "$tssa" --help
expect 0 "^tssa-stream [0-9]+\.[0-9]+" -- "$tssa" --version
expect 2 "no MODEL given" -- "$tssa"
expect 2 "unknown option '--frobnicate'" -- "$tssa" --frobnicate "$model/model.ir"
expect 2 "needs a value" -- "$tssa" "$model/model.ir" -o
expect 2 "unknown backend .gpu. \(backends: cpu, cuda, ref\)" -- "$tssa" --backend=gpu "$model/model.ir"
expect 2 "unknown stage" -- "$tssa" --emit=bogus "$model/model.ir"
expect 2 "--devices N places filters on CUDA devices" -- "$tssa" --backend=cpu --devices 2 "$model/model.ir"
# the backend's own limit (a build without cuda refuses the backend first)
if "$tssa" --version | grep -q "backends:.* cuda"; then
  expect 2 "the cuda backend places filters on at most 8 devices" -- "$tssa" --backend=cuda --devices 9 "$model/model.ir"
fi
expect 2 "N must be a whole number of devices from 1 to 1024" -- "$tssa" --backend=cuda --devices 0 "$model/model.ir"
expect 2 "--json only applies to --emit=schedule" -- "$tssa" --json "$model/model.ir"
expect 2 "not a NAME=VALUE binding" -- "$tssa" "$model/model.ir" other.ir

# bad input files: located messages, exit 2
printf 'graph(%%x : Tensor):\n  %%y : Tensor = aten::relu(%%z)\n  return (%%y)\n' > "$work/undefined.ir"
expect 2 "undefined.ir:2:[0-9]+: error: .*%z" -- "$tssa" --emit=ir "$work/undefined.ir"
expect 2 "missing.ir" -- "$tssa" --emit=ir "$work/missing.ir"
head -c 300 /dev/urandom > "$work/garbage.ir"
expect 2 "garbage.ir:[0-9]+:[0-9]+: error" -- "$tssa" --emit=ir "$work/garbage.ir"

# bindings: missing, unknown, malformed values, bad files -> exit 2 naming the input
expect 2 "input '${bindings[0]%%=*}'.*missing binding" -- "$tssa" "$model/model.ir"
expect 2 "no graph input named 'nosuch'" -- "$tssa" "$model/model.ir" "${abs_bindings[@]}" nosuch=1
echo "not numpy" > "$work/bad.npy"
expect 2 "bad.npy: error" -- "$tssa" "$model/model.ir" "${abs_bindings[@]:1}" "${bindings[0]%%=*}=$work/bad.npy"

# options after MODEL and bindings (GNU style); -o writes every output
expect 0 "" -- "$tssa" "$model/model.ir" "${abs_bindings[@]}" -o "$work/result" --backend=ref
checks=$((checks + 1))
n_expected=$(ls "$model"/expected/out*.npy | wc -l)
n_written=$(ls "$work"/result/out*.npy 2>/dev/null | wc -l)
if [[ "$n_expected" == 0 || "$n_expected" != "$n_written" ]]; then
  failures=$((failures + 1)); echo "FAIL: -o wrote $n_written files, expected $n_expected"
fi
# the default backend (cpu) and the oracle give the same files
expect 0 "" -- "$tssa" "$model/model.ir" "${abs_bindings[@]}" -o "$work/result_cpu"
checks=$((checks + 1))
for f in "$work"/result/out*.npy; do
  cmp -s "$f" "$work/result_cpu/$(basename "$f")" || { failures=$((failures + 1)); echo "FAIL: cpu and ref differ on $(basename "$f")"; }
done
# without -o: one summary line per output
expect 0 "^out0: " -- "$tssa" "${abs_bindings[@]}" "$model/model.ir"

# runtime failure: exit 1 naming the op and its source line, no output files
raise="$here/models/raise_taken"
read -r -a raise_bindings < "$raise/args.txt"
expect 1 "prim::RaiseException" -- bash -c "cd '$raise' && '$tssa' model.ir ${raise_bindings[*]} -o '$work/raised'"
checks=$((checks + 1))
if compgen -G "$work/raised/*" >/dev/null; then
  failures=$((failures + 1)); echo "FAIL: a failed run left output files"
fi

# stages
expect 0 "^graph\(" -- "$tssa" --emit=ir "$model/model.ir"
expect 0 "^graph\(" -- "$tssa" --emit=tssa "$model/model.ir" "${abs_bindings[@]}"
expect 0 "^pipeline " -- "$tssa" --emit=stream "$model/model.ir" "${abs_bindings[@]}"
expect 0 "reps" -- "$tssa" --emit=schedule "$model/model.ir" "${abs_bindings[@]}"
expect 0 "digraph" -- "$tssa" --emit=dot "$model/model.ir" "${abs_bindings[@]}"
expect 0 "tssa::FusionGroup" -- "$tssa" --emit=fused "$model/model.ir" "${abs_bindings[@]}"
expect 2 "drop --no-fuse" -- "$tssa" --emit=fused --no-fuse "$model/model.ir" "${abs_bindings[@]}"
expect 2 "missing binding" -- "$tssa" --emit=fused "$model/model.ir"
expect 2 "missing binding" -- "$tssa" --emit=stream "$model/model.ir"
str=$(ls "$here"/streamit/graphs/*.str | head -1)
expect 0 "" -- "$tssa" --emit=stream "$str"
expect 0 "repetitions|reps" -- "$tssa" --emit=schedule "$str"
expect 0 "^\{" -- "$tssa" --emit=schedule --json "$str"
# a hierarchical filter's inner schedule, in the table and in the JSON
hier="$here/streamit/golden/hierarchical.str"
expect 0 "^inner schedule of Program/Loop \(a hierarchical filter" -- "$tssa" --emit=schedule "$hier"
expect 0 "^inner schedule of Body_L3/Inner " -- "$tssa" --emit=schedule "$hier"
expect 0 "\"inner\":[[:space:]]*\{" -- "$tssa" --emit=schedule --json "$hier"
expect 0 "digraph" -- "$tssa" --emit=dot "$str"
expect 2 "stream graph \(.str\) is inspected with" -- "$tssa" "$str"

# --fission=K: K from 1 (off) to 4096, where the stream graph is used
for bad in 0 -1 abc 2x " 2" +2 "" 4097 99999999999999999999; do
  expect 2 "--fission=.*K must be a whole number of copies from 1 \(off\) to 4096" -- "$tssa" --emit=stream --fission="$bad" "$str"
done
expect 2 "needs a value" -- "$tssa" --emit=stream "$str" --fission
expect 2 "--fission applies to the stream graph" -- "$tssa" --fission=2 --emit=tssa "$model/model.ir" "${abs_bindings[@]}"
expect 2 "--fission applies to the stream graph" -- "$tssa" --fission=2 --backend=ref "$model/model.ir" "${abs_bindings[@]}"
for k in 2 3; do
  expect 0 "" -- "$tssa" --emit=stream --fission=$k "$here/streamit/golden/fission.str"
  checks=$((checks + 1))
  cmp -s "$work/out" "$here/streamit/golden/fission$k.stream" ||
    { failures=$((failures + 1)); echo "FAIL: --emit=stream --fission=$k differs from golden/fission$k.stream"; }
  expect 0 "" -- "$tssa" --emit=schedule --fission=$k "$here/streamit/golden/fission.str"
  checks=$((checks + 1))
  # The driver places the graph (one rank here): golden/fission$k.schedule
  # (the scheduler's own table, unplaced) with rank 0, device cpu and each
  # filter's estimate: reps x 2 us (no flops or bytes in a .str graph),
  # and the cost model's lines (all on rank 0: L = B = the work), less its
  # rates line (this host's calibrated flop/s and B/s).
  grep -v '^cost model:' "$work/out" >"$work/out.norates"
  cmp -s "$work/out.norates" "$here/streamit/golden/fission$k.placed.schedule" ||
    { failures=$((failures + 1)); echo "FAIL: --emit=schedule --fission=$k differs from golden/fission$k.placed.schedule"; }
done

# --inputs DIR: one run per set folder (name order; hidden folders are not
# sets), OUT/SET/out0.npy each, the same bytes as a run on that set alone;
# every set must have the first's shapes (yolo_decode's bindings read
# inputs/*.npy, so a set folder holds inputs/).
mkdir -p "$work/sets/one/inputs" "$work/sets/two/inputs" "$work/sets/.hidden"
cp "$model"/inputs/*.npy "$work/sets/one/inputs/"
cp "$model"/inputs/*.npy "$work/sets/two/inputs/"
(cd "$model" && "$tssa" model.ir "${bindings[@]}" -o "$work/single") >/dev/null 2>&1
expect 0 "inputs: 2 sets in" -- "$tssa" "$model/model.ir" "${bindings[@]}" --inputs "$work/sets" -o "$work/set_out"
for set in one two; do
  checks=$((checks + 1))
  cmp -s "$work/set_out/$set/out0.npy" "$work/single/out0.npy" ||
    { failures=$((failures + 1)); echo "FAIL: --inputs: $set/out0.npy is not the single run's"; }
done
checks=$((checks + 1))
[[ ! -e "$work/set_out/.hidden" ]] || { failures=$((failures + 1)); echo "FAIL: --inputs ran a hidden folder"; }
cp "$here/models/batch_loop/inputs/x.npy" "$work/sets/two/inputs/pred.npy"     # another shape
expect 2 "sets/two: error: input 'pred' is not as in the first set \(one\)" -- \
  "$tssa" "$model/model.ir" "${bindings[@]}" --inputs "$work/sets" -o "$work/set_out2"
checks=$((checks + 1))
[[ ! -e "$work/set_out2/one" ]] || { failures=$((failures + 1)); echo "FAIL: a bad set still left outputs"; }
expect 2 "nothing: error" -- "$tssa" "$model/model.ir" "${bindings[@]}" --inputs "$work/nothing"
mkdir -p "$work/empty_sets"
expect 2 "no input sets" -- "$tssa" "$model/model.ir" "${bindings[@]}" --inputs "$work/empty_sets"
expect 2 "takes no --emit" -- "$tssa" "$model/model.ir" "${bindings[@]}" --inputs "$work/sets" --emit=schedule

# Placement options (--ranks, --place, --rates, --trace) and --emit=topology.
for bad in 0 -1 abc 2x 4097; do
  expect 2 "--ranks $bad: N must be a whole number of ranks from 1 to 4096" -- "$tssa" --emit=schedule --ranks "$bad" "$str"
done
expect 2 "--ranks, --place and --rates plan the placement" -- "$tssa" --ranks 2 --emit=tssa "$model/model.ir" "${abs_bindings[@]}"
expect 2 "--ranks N only plans the placement" -- "$tssa" --ranks 2 "$model/model.ir" "${abs_bindings[@]}"
expect 2 "--trace records a run on the cpu or cuda backend" -- "$tssa" --trace "$work/t.json" --emit=schedule "$str"
expect 2 "--emit=topology reads no MODEL" -- "$tssa" --emit=topology "$str"
# hwloc's PCI plugin (libpciaccess) leaks about 1 KiB that LeakSanitizer
# reports in the sanitizer build: this check reads the topology without it.
expect 0 "" -- env HWLOC_COMPONENTS=-pci "$tssa" --emit=topology
checks=$((checks + 1))
grep -q "^rank 0 (local 0 of 1): cores 0-" "$work/out" ||
  { failures=$((failures + 1)); echo "FAIL: --emit=topology shows no binding for rank 0"; cat "$work/out"; }
printf '{"ranks": {"Down": 1}}' > "$work/place.json"
expect 0 "" -- "$tssa" --emit=schedule --ranks 2 --place "$work/place.json" "$here/streamit/golden/fission.str"
checks=$((checks + 1))
grep -Eq "^ +[0-9]+ +Fiss/Down +filter( +[0-9]+){5} +1 +cpu" "$work/out" ||
  { failures=$((failures + 1)); echo "FAIL: --place did not put Down on rank 1"; cat "$work/out"; }
expect 2 "place.json: error: \"ranks\": filter 'Down' needs a rank from 0 to 0" -- \
  "$tssa" --emit=schedule --place "$work/place.json" "$here/streamit/golden/fission.str"
printf '{"ranks": {"Nowhere": 0}}' > "$work/place.json"
expect 2 "no filter 'Nowhere'" -- "$tssa" --emit=schedule --ranks 2 --place "$work/place.json" "$str"
printf '{"rank": {}}' > "$work/place.json"
expect 2 "expected only \"fission\" and \"ranks\"" -- "$tssa" --emit=schedule --ranks 2 --place "$work/place.json" "$str"
printf '[1, 2' > "$work/place.json"
expect 2 "place.json: error: not a JSON object" -- "$tssa" --emit=schedule --place "$work/place.json" "$str"
expect 2 "nothing.json: error" -- "$tssa" --emit=schedule --place "$work/nothing.json" "$str"
printf '{"flops_per_s": -1}' > "$work/rates.json"
expect 2 "rates.json: error: .*flops_per_s" -- "$tssa" --emit=schedule --rates "$work/rates.json" "$str"
expect 0 "" -- "$tssa" --emit=stream --fission=1 "$here/streamit/golden/fission.str"
checks=$((checks + 1))
grep -q "_fission" "$work/out" && { failures=$((failures + 1)); echo "FAIL: --fission=1 split filters"; }
expect 0 "_fission" -- "$tssa" --emit=dot --fission=2 "$here/streamit/golden/fission.str"
expect 0 "" -- "$tssa" --fission=3 "$model/model.ir" "${abs_bindings[@]}" -o "$work/result_fission"
checks=$((checks + 1))
for f in "$work"/result_cpu/out*.npy; do
  cmp -s "$f" "$work/result_fission/$(basename "$f")" || { failures=$((failures + 1)); echo "FAIL: --fission=3 changed $(basename "$f")"; }
done

echo "$((checks - failures)) passed, $failures failed"
[[ "$failures" == 0 ]]
