#!/usr/bin/env bash
# shape_inference_reach.sh — fused groups, nodes fused and tensors of unknown
# shape of every corpus program (tests/models, tests/streamit/cases) under
# two builds of tssa-stream, side by side: the effect of a change to shape
# inference on what fuses (issue 28: shapes from the op itself).
#
#   experiments/shape_inference_reach.sh BEFORE_BIN AFTER_BIN [CASE_DIR...]
# Prints one markdown row per program: before -> after of fused_groups,
# nodes_fused, tensors_of_unknown_shape, and a mark: WORSE where fewer
# nodes fuse, more tensors are unknown, or groups were lost with no more
# nodes fused; "groups merged" where fewer groups hold more nodes.
set -uo pipefail
before=$(realpath "$1") after=$(realpath "$2")
shift 2
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -eq 0 ]; then
  set -- "$repo"/tests/models/*/ "$repo"/tests/streamit/cases/*/
fi
stat_of() {   # BIN CASE_DIR -> "groups nodes unknown"
  local out
  out=$(cd "$2" && "$1" --backend=cpu --stats model.ir $(cat args.txt) -o /tmp/shape_reach_out.$$ 2>&1 >/dev/null)
  local g n u
  g=$(sed -n 's/.*stats: fused_groups \([0-9]*\).*/\1/p' <<<"$out" | head -1)
  n=$(sed -n 's/.*stats: nodes_fused \([0-9]*\).*/\1/p' <<<"$out" | head -1)
  u=$(sed -n 's/.*stats: tensors_of_unknown_shape \([0-9]*\).*/\1/p' <<<"$out" | head -1)
  echo "${g:--} ${n:--} ${u:--}"
}
echo "| program | fused_groups | nodes_fused | tensors_of_unknown_shape | |"
echo "|---|---|---|---|---|"
for dir in "$@"; do
  [ -f "$dir/model.ir" ] && [ -f "$dir/args.txt" ] || continue
  read -r g0 n0 u0 <<<"$(stat_of "$before" "$dir")"
  read -r g1 n1 u1 <<<"$(stat_of "$after" "$dir")"
  mark=""
  if [[ $g0 =~ ^[0-9]+$ && $g1 =~ ^[0-9]+$ ]]; then
    { [ "$n1" -lt "$n0" ] || [ "$u1" -gt "$u0" ] || { [ "$g1" -lt "$g0" ] && [ "$n1" -eq "$n0" ]; }; } && mark="WORSE"
    { [ "$mark" = "" ] && { [ "$n1" -gt "$n0" ] || [ "$u1" -lt "$u0" ]; }; } && mark="better"
    { [ "$mark" = "better" ] && [ "$g1" -lt "$g0" ]; } && mark="better (groups merged)"
  fi
  name=${dir%/}; name=${name#"$repo"/tests/}
  echo "| $name | $g0 -> $g1 | $n0 -> $n1 | $u0 -> $u1 | $mark |"
done
rm -rf /tmp/shape_reach_out.$$
