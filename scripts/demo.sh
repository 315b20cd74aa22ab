#!/usr/bin/env bash
# The main job on a shipped example: installs dependencies, builds, and shows
# a YOLOv3-style box decoder (written with slice assignments) going through
# the compiler: its graph, the functionalized graph, the stream graph and its
# static schedule; then runs it on the cpu backend, writing its outputs to
# out/ and checking them against PyTorch's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
model=tests/models/yolo_decode
echo "== $model/model.ir, as tssa-stream reads it (--emit=ir)"
build/tssa-stream --emit=ir "$model/model.ir"
read -r -a bindings < "$model/args.txt"
for stage in tssa stream schedule; do
  echo "== --emit=$stage"
  (cd "$model" && ../../../build/tssa-stream --emit=$stage model.ir "${bindings[@]}")
done
echo "== running it: tssa-stream model.ir ${bindings[*]} -o out/"
(cd "$model" && ../../../build/tssa-stream model.ir "${bindings[@]}" -o ../../../out)
ls -l out/
for expected in "$model"/expected/out*.npy; do
  build/tests/npy_compare "$expected" "out/$(basename "$expected")" && echo "$(basename "$expected"): matches PyTorch"
done
