#!/usr/bin/env bash
# A feedback loop's Stack keeps the state of the last step only, so each
# step's state goes back to the pool when the next step has read it
# (backends/cpu/cpu_exec.c, earlier_step_state). ta_lowpass_biquad carries
# three tensors through 600 steps ([3, 1, 600], [600, 3] and [3, 602]
# floats: 21.6 kB a step). With every step's state held until the loop
# ends, the pool peaks at 600 x 21.6 kB = 13 MB (12974484 bytes before this
# change); with one step's, at a few steps' worth plus the program's other
# tensors (a few dozen of at most 7.2 kB): under 1 MB.
#   test_loop_state_memory.sh TSSA_STREAM MODELS_DIR
set -uo pipefail
tssa=$(realpath "$1") dir=$(realpath "$2")/ta_lowpass_biquad
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mapfile -t bindings < <(tr ' ' '\n' <"$dir/args.txt" | sed '/^$/d')
(cd "$dir" && "$tssa" --backend=cpu --stats --repeat 2 model.ir "${bindings[@]}" -o "$out/r") 2>"$out/err"
status=$?
held=$(sed -n 's/.*stats: pool_bytes_held //p' "$out/err")
if ((status != 0)) || [[ -z "$held" ]]; then
  echo "FAIL: ta_lowpass_biquad: exit status $status"; head -3 "$out/err"; exit 1
fi
if ((held >= 1000000)); then
  echo "FAIL: ta_lowpass_biquad: the pool held $held bytes, expected under 1 MB (every step's state kept?)"
  exit 1
fi
exit 0
