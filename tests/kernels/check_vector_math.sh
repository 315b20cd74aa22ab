#!/usr/bin/env bash
# Fused math after a select with a constant arm still calls glibc's vector
# math (libmvec): GCC's partial redundancy elimination used to split such a
# loop on the constant arm (the math computed once for it, a branch per
# element), so log10(clamp(x, min=1e-10)) and exp(relu(x)) ran scalar, 8x
# slower (kir_print.c's prelude turns the pass off for the kernels). For
# each case of CASES_DIR but the control,
# the compiled kernel must reference a _ZGV* vector variant of its math.
# Skips (77) when the control (exp of a product, no select) does not: no
# libmvec, or a compiler that does not vectorize through it.
#   check_vector_math.sh TSSA_STREAM CASES_DIR
set -uo pipefail
tssa=$(realpath "$1") dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }

# vector_calls CASE: the _ZGV symbols its compiled kernels import
vector_calls() {
  local cache="$tmp/$1"
  mkdir -p "$cache"
  (cd "$dir/$1" && read -r -a bindings < args.txt &&
   TSSA_CACHE_DIR="$cache" "$tssa" model.ir "${bindings[@]}" -o "$cache/out") >"$tmp/$1.log" 2>&1 ||
    { echo "FAIL: $1 did not run:"; cat "$tmp/$1.log"; return 2; }
  local so
  for so in "$cache"/*.so; do
    nm -D --undefined-only "$so" | grep -o '_ZGV[A-Za-z0-9_]*' || true
  done
}

control=$(vector_calls control_exp) || exit 1
if [[ -z "$control" ]]; then
  echo "SKIP: exp(x * 0.5) does not call vector math here"
  exit 77
fi
status=0
for case in clamp_log10 relu_exp clamp_log10_max; do
  calls=$(vector_calls "$case") || { status=1; continue; }
  if [[ -z "$calls" ]]; then
    echo "FAIL: $case: its kernel calls only scalar math"
    status=1
  else
    echo "ok: $case calls $(echo $calls | tr '\n' ' ')"
  fi
done
exit $status
