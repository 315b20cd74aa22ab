#!/usr/bin/env bash
# The main job on a shipped example: installs dependencies, builds, prints the
# parsed graph of a YOLOv3-style box decoder and runs it on the ref backend,
# writing its outputs to out/ and checking them against PyTorch's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
model=tests/models/yolo_decode
echo "== $model/model.ir, as tssa-stream reads it (--emit=ir)"
build/tssa-stream --emit=ir "$model/model.ir"
read -r -a bindings < "$model/args.txt"
echo "== running it: tssa-stream --backend=ref model.ir ${bindings[*]} -o out/"
(cd "$model" && ../../../build/tssa-stream --backend=ref model.ir "${bindings[@]}" -o ../../../out)
ls -l out/
for expected in "$model"/expected/out*.npy; do
  build/tests/npy_compare "$expected" "out/$(basename "$expected")" && echo "$(basename "$expected"): matches PyTorch"
done
