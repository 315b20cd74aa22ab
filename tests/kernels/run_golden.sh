#!/usr/bin/env bash
# Golden texts of the kernel printer: for each tests/kernels/golden/NAME.ir
# (a typed program) with its bindings in NAME.args, --emit=c must print
# NAME.c.expected and --emit=cuda NAME.cu.expected.
#   run_golden.sh TSSA_STREAM GOLDEN_DIR [--update]
set -uo pipefail
tssa="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" dir="$2" update="${3:-}"
cd "$dir" || exit 2
status=0
for ir in *.ir; do
  name=${ir%.ir}
  read -r -a bindings < "$name.args" || true
  for target in c cu; do
    emit=$([[ $target == c ]] && echo c || echo cuda)
    if ! got=$("$tssa" "$ir" "${bindings[@]}" --emit=$emit 2>&1); then
      echo "FAIL: $name --emit=$emit exited with an error:"; printf '%s\n' "$got"
      status=1
      continue
    fi
    if [[ "$update" == --update ]]; then
      printf '%s\n' "$got" > "$name.$target.expected"
    elif ! diff -u "$name.$target.expected" <(printf '%s\n' "$got"); then
      echo "FAIL: $name --emit=$emit differs from $name.$target.expected"
      status=1
    fi
  done
done
exit $status
