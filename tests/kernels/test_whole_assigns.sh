#!/usr/bin/env bash
# Assigns through views that cover their whole base (kernels/
# invert_whole_assigns.c): TensorSSA's t_rev, transpose_rev, squeeze_rev and
# unsqueeze_rev become views of the written value, which fuse, so a write
# through x.squeeze(1).t()[i] costs no whole-tensor copies of its own. On
# the cpu backend (--stats, per run), counted by hand:
#   writes_through_views (tests/streamit/cases)  8 steps, each two int
#       remainders and one kernel (the squeeze/t/select assigns, transpose,
#       unsqueeze and the no-op squeeze all fused): kernels 8, fallbacks 0
#       (before: 40 kernels, 56 reference fallbacks)
#   ta_lowpass_biquad (tests/models)  600 steps, each the state's
#       select, the window's slice and the output's select_rev by the
#       reference kernels (3) and one kernel; 2 fallbacks and 3 kernels
#       outside the loop: fallbacks 1802, kernels 603 (1803 until
#       reshape_decide.c made a reshape a view at compile time; before: 3009 and
#       1205: t_rev and squeeze_rev ran as copies of the whole signal every
#       step; then 1808 and 604 until the filter coefficients, tensors of
#       compile-time values, were computed at compile time)
# and --emit=fused keeps none of those four assigns.
#   test_whole_assigns.sh TSSA_STREAM STREAMIT_CASES_DIR MODELS_DIR
set -uo pipefail
tssa=$(realpath "$1") cases=$(realpath "$2") models=$(realpath "$3")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
rows=(
  "$cases/writes_through_views 8 0"
  "$models/ta_lowpass_biquad 603 1802"
)
for row in "${rows[@]}"; do
  read -r dir kernels fallbacks <<<"$row"
  name=$(basename "$dir")
  mapfile -t bindings < <(tr ' ' '\n' <"$dir/args.txt" | sed '/^$/d')
  (cd "$dir" && "$tssa" --backend=cpu --stats model.ir "${bindings[@]}" -o "$out/r") 2>"$out/err"
  status=$?
  got_kernels=$(sed -n 's/.*stats: kernels_per_run //p' "$out/err")
  got_fallbacks=$(sed -n 's/.*stats: fallbacks_per_run //p' "$out/err")
  if ((status != 0)) || [[ -z "$got_kernels" || -z "$got_fallbacks" ]]; then
    echo "FAIL: $name: exit status $status"; head -3 "$out/err"; fail=1; continue
  fi
  if [[ "$got_kernels $got_fallbacks" != "$kernels $fallbacks" ]]; then
    echo "FAIL: $name: kernels_per_run $got_kernels, fallbacks_per_run $got_fallbacks;" \
         "expected $kernels and $fallbacks"
    fail=1
  fi
  (cd "$dir" && "$tssa" --backend=cpu --emit=fused model.ir "${bindings[@]}") >"$out/fused" 2>&1
  if grep -E 'immut::(t|transpose|squeeze|unsqueeze)_rev' "$out/fused" >"$out/left"; then
    echo "FAIL: $name: --emit=fused still assigns through a whole view:"; head -3 "$out/left"; fail=1
  fi
done
exit $fail
