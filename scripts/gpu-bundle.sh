#!/usr/bin/env bash
# gpu-bundle.sh — a build's programs and the shared libraries they need, in
# one folder, to run on a GPU machine that has a CUDA driver, the toolkit and
# PyTorch but not this project's Debian packages (OpenBLAS, cJSON, Open MPI,
# hwloc, FFTW), nor a way to install them.
#
#   scripts/gpu-bundle.sh [BUILD_DIR] [BUNDLE_DIR]      (defaults: build .gpubundle)
#
# BUNDLE_DIR gets tssa-stream, tests/{tssa-conform,npy_compare,cuda_*_check,
# ...} and lib.tar.xz: lib/ with every library `ldd` resolves
# for them except the C library's own (libc, libm, libdl, libpthread, librt,
# the loader), which the machine has in a newer version. Compressed, the
# bundle is about 20 MB (OpenBLAS alone is 36 MB unpacked), under the 64 MiB
# a lent GPU machine's call carries. The CUDA libraries are
# not in it: the cuda backend opens the driver, NVRTC and cuBLAS of the
# machine it runs on (dlopen). On the GPU machine:
#
#   tar -xJf BUNDLE_DIR/lib.tar.xz -C BUNDLE_DIR
#   export LD_LIBRARY_PATH=$PWD/BUNDLE_DIR/lib:/usr/local/cuda/lib64
#   scripts/gpu-check.sh BUNDLE_DIR OUT_DIR
#
# (gpu-check.sh runs the corpus through BUNDLE_DIR/tests/tssa-conform where
# the folder has no ctest files.) Ignore the folder in git: it is a build
# output (.git/info/exclude, or name it under build/).
set -euo pipefail
build=${1:-build}
bundle=${2:-.gpubundle}
[[ -x "$build/tssa-stream" ]] || { echo "gpu-bundle.sh: no $build/tssa-stream: build first" >&2; exit 2; }
"$build/tssa-stream" --version | grep -q cuda ||
  { echo "gpu-bundle.sh: $build/tssa-stream is built without cuda" >&2; exit 2; }
rm -rf "$bundle"
mkdir -p "$bundle/tests" "$bundle/lib"
cp "$build/tssa-stream" "$bundle/"
programs=("$bundle/tssa-stream")
for t in tssa-conform npy_compare cuda_streams_check cuda_graph_check cuda_block_sync_check; do
  if [[ -x "$build/tests/$t" ]]; then
    cp "$build/tests/$t" "$bundle/tests/"
    programs+=("$bundle/tests/$t")
  fi
done
ldd "${programs[@]}" | awk '/=> \// { print $3 }' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
tar -cJf "$bundle/lib.tar.xz" -C "$bundle" lib
rm -rf "$bundle/lib"
du -sh "$bundle" | awk -v b="$bundle" '{ print "gpu-bundle.sh: " b ": " $1 }'
