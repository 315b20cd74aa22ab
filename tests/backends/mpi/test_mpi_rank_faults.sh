#!/usr/bin/env bash
# A failure on one rank only, where the others go on (README: several ranks):
# the whole job ends within seconds, with that rank's message on stderr, the
# right status and no outputs. Each case runs linear_sin (tests/models) on 2
# ranks through a launcher script that gives rank 1 alone another argument
# or environment, as node-local files and tools on several hosts would:
#   weights_missing   rank 1's --weights does not exist          exit 2
#   weights_corrupt   rank 1's --weights is no safetensors file   exit 2
#   weights_lacking   rank 1's --weights lacks linear.bias: rank 1
#                     fails compiling while rank 0 goes on         exit 2
#   options_bad       rank 1's arguments do not parse             exit 2
#   place_missing     rank 1's --place does not exist             exit 2
#   place_differs     rank 1's --place pins another placement     exit 2
#   trace_lacking     rank 1 runs without --trace (before, rank 0's
#                     gather of the events met rank 1's other
#                     messages: an MPI_ERR_TRUNCATE abort)          exit 2
#   repeat_differs    rank 1's --repeat is another count (before,
#                     the job hung in the timed runs)               exit 2
#   compile_fails     rank 1's $CC fails (its own kernel cache)   exit 1
#   device_fails      --backend=cuda on the CPU shim: rank 1's $CXX fails
#                     when rank 0 has already run (before, rank 0 wrote
#                     out0.npy while rank 1 failed)               exit 1
# Rank 1's compilers take 3 s to fail, so rank 0 is done with its part
# first. Every run is under `timeout 60`: a hang fails the case, and so does
# a run over 30 s (a failing rank must end the job promptly; 15 s was
# passed by 0.2 s on a loaded 2-core machine).
#   test_mpi_rank_faults.sh TSSA_STREAM MODELS_DIR
# Skips (77) where mpirun is missing or tssa-stream was built without MPI.
set -uo pipefail
tssa="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" models="$2"
command -v mpirun >/dev/null || { echo "SKIP: no mpirun"; exit 77; }
version="$("$tssa" --version)"
[[ "$version" == *" mpi"* ]] || { echo "SKIP: built without MPI"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0 cases=0 failures=0
export TSSA_CACHE_DIR="$work/cache0"

# The launcher: on rank 1, an argument equal to $RANK1_FROM becomes
# $RANK1_TO, and the NAME=VALUE words of $RANK1_ENV are exported.
cat >"$work/on_rank1.sh" <<'EOF'
#!/usr/bin/env bash
prog="$1"; shift
if [[ "${OMPI_COMM_WORLD_RANK:-0}" == 1 ]]; then
  args=()
  for a in "$@"; do
    [[ -n "${RANK1_FROM:-}" && "$a" == "$RANK1_FROM" ]] && a="$RANK1_TO"
    args+=("$a")
  done
  set -- "${args[@]}"
  for kv in ${RANK1_ENV:-}; do export "$kv"; done
fi
exec "$prog" "$@"
EOF
# A compiler that answers questions about itself and fails to compile.
cat >"$work/broken_cc.sh" <<'EOF'
#!/bin/sh
case " $* " in *" -dumpversion "*|*" -dumpmachine "*|*" --version "*) exec cc "$@";; esac
sleep 3
echo "broken_cc: error: this host's compiler is broken" >&2
exit 1
EOF
chmod +x "$work/on_rank1.sh" "$work/broken_cc.sh"
printf 'garbage, not safetensors\n' >"$work/corrupt.safetensors"
# linear_sin's weights without linear.bias (zeros for linear.weight): a
# safetensors file is an 8-byte little-endian header length, the JSON
# header (padded with spaces to 8 bytes) and the data.
header='{"linear.weight": {"dtype": "F32", "shape": [4, 6], "data_offsets": [0, 96]}}'
while (( ${#header} % 8 )); do header+=' '; done
{ printf "\\x$(printf %02x ${#header})\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; printf '%s' "$header"
  head -c 96 /dev/zero; } >"$work/lacking.safetensors"
printf '{"ranks": {}}' >"$work/all_on_0.json"
printf '{"ranks": {"linear_2": 1}}' >"$work/linear_on_1.json"

fail() { failures=$((failures + 1)); echo "FAIL: $case: $*"; }

# expect NAME STATUS TEXT -- ARGS...: runs the job with ARGS (the
# environment's RANK1_* set by the caller), then checks the status, TEXT
# on stderr, the time and that -o $work/out holds nothing.
expect() {
  case="$1"; local want="$2" text="$3"; shift 4
  cases=$((cases + 1))
  rm -rf "$work/out"
  local t0 t1 status elapsed_ms
  t0=$(date +%s%N)
  timeout 60 mpirun --oversubscribe --allow-run-as-root --bind-to none -np 2 \
    "$work/on_rank1.sh" "$tssa" "$@" -o "$work/out" >"$work/stdout" 2>"$work/stderr"
  status=$? t1=$(date +%s%N)
  elapsed_ms=$(( (t1 - t0) / 1000000 ))
  local before=$failures
  [[ "$status" == "$want" ]] || fail "status $status (want $want; 124: it hung)"
  (( elapsed_ms < 30000 )) || fail "took ${elapsed_ms} ms (want under 30 s)"
  grep -qF -- "$text" "$work/stderr" || fail "'$text' is not on stderr"
  if [[ -e "$work/out" && -n "$(ls -A "$work/out")" ]]; then
    fail "a failed job left outputs: $(ls -A "$work/out" | tr '\n' ' ')"
  fi
  if (( failures > before )); then
    failed=$((failed + 1))
    sed 's/^/  | /' "$work/stderr"
  else
    echo "ok: $case ($elapsed_ms ms, status $status)"
  fi
}

cd "$models/linear_sin" || exit 2
base=(model.ir x=inputs/x.npy --weights weights.safetensors)

RANK1_FROM=weights.safetensors RANK1_TO="$work/missing.safetensors" \
  expect weights_missing 2 "missing.safetensors: error" -- "${base[@]}"
RANK1_FROM=weights.safetensors RANK1_TO="$work/corrupt.safetensors" \
  expect weights_corrupt 2 "corrupt.safetensors: error" -- "${base[@]}"
RANK1_FROM=weights.safetensors RANK1_TO="$work/lacking.safetensors" \
  expect weights_lacking 2 "'linear.bias' is not in the weights file" -- "${base[@]}"
RANK1_FROM=--weights RANK1_TO=--frobnicate \
  expect options_bad 2 "frobnicate" -- "${base[@]}"
RANK1_FROM="$work/all_on_0.json" RANK1_TO="$work/missing.json" \
  expect place_missing 2 "missing.json: error" -- "${base[@]}" --place "$work/all_on_0.json"
RANK1_FROM="$work/all_on_0.json" RANK1_TO="$work/linear_on_1.json" \
  expect place_differs 2 "rank 1 planned another program or placement than rank 0" -- \
  "${base[@]}" --place "$work/all_on_0.json"
RANK1_FROM="--trace=$work/trace.json" RANK1_TO=--stats \
  expect trace_lacking 2 "rank 1 was started without --trace where rank 0 was started with it" -- \
  "${base[@]}" "--trace=$work/trace.json"
RANK1_FROM=--repeat=3 RANK1_TO=--repeat=4 \
  expect repeat_differs 2 "rank 1 was started with --repeat 4 where rank 0 has 3" -- "${base[@]}" --repeat=3
RANK1_ENV="CC=$work/broken_cc.sh TSSA_CACHE_DIR=$work/cache1" \
  expect compile_fails 1 "this host's compiler is broken" -- "${base[@]}"
if [[ "$version" == *" cuda"* ]]; then
  TSSA_CUDA_EMULATE=1 RANK1_ENV="CXX=$work/broken_cc.sh TSSA_CACHE_DIR=$work/cache1" \
    expect device_fails 1 "this host's compiler is broken" -- "${base[@]}" --backend=cuda
fi

echo "$((cases - failed)) of $cases cases passed"
[[ $failed == 0 ]]
