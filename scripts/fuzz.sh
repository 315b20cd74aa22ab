#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/) and runs each one,
# as many at once as there are cores.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 60)
# Seeds: the project's own valid inputs (graph texts, .npy, safetensors).
# A crash leaves its input in build-fuzz/findings/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
scripts/setup.sh
CC=clang scripts/build.sh build-fuzz -DTSSA_FUZZ=ON -DTSSA_BUILD_TESTS=OFF
mkdir -p build-fuzz/findings

# fuzz_target NAME: seeds NAME from the test data and runs it for $seconds;
# returns 1 (after printing its log's tail) when it finds a failure.
fuzz_target() {
  local name="$1" target="build-fuzz/fuzz/$1" seeds="build-fuzz/seeds/$1"
  mkdir -p "$seeds"
  case "$name" in
    fuzz_ir_parser) find tests -name '*.ir' -size -64k -exec cp -t "$seeds" {} + 2>/dev/null || true ;;
    fuzz_npy) find tests -name '*.npy' -size -64k | head -200 | xargs -r cp -t "$seeds" 2>/dev/null || true ;;
    fuzz_str_parser) find tests/streamit -name '*.str' -size -64k -exec cp -t "$seeds" {} + 2>/dev/null || true ;;
    fuzz_safetensors) find tests -name '*.safetensors' -size -64k -exec cp -t "$seeds" {} + 2>/dev/null || true ;;
    fuzz_module_attributes)
      printf '[1, 2, 3]' > "$seeds/list"; printf '{"x": 0.5, "y": [true, null]}' > "$seeds/dict"
      printf '[[1], [2, {"__tensor__": "w"}]]' > "$seeds/nested"; printf '{"__tensor__": "w"}' > "$seeds/tied"
      printf '[{"__object__": "a.0"}, {"__object__": "a.1"}]' > "$seeds/objects"
      printf '{"k": {"__object__": "a.k"}}' > "$seeds/object_dict"; printf 'None' > "$seeds/none" ;;
    fuzz_bindings) printf 'n=3\nf=1.5\nb=true\ns=hello\nx=2\nd=cpu\no=none\ng=nan\n' > "$seeds/all" ;;
  esac
  echo "fuzz: $name for ${seconds}s"
  if ! "$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="build-fuzz/findings/$name-" -print_final_stats=0 "$seeds" 2>"build-fuzz/$name.log"; then
    echo "fuzz: $name found a failure:"; tail -40 "build-fuzz/$name.log"; return 1
  fi
}

# The targets run side by side, one per core (each is one process with a
# time budget of its own), so the run takes about SECONDS per round of
# $(nproc) targets rather than SECONDS per target.
status=0
running=0
for target in build-fuzz/fuzz/fuzz_*; do
  [[ -x "$target" ]] || continue
  if ((running >= $(nproc))); then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_target "$(basename "$target")" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
