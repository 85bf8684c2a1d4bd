#!/usr/bin/env bash
# Whether a loop of short launches is paced by the kernels or by the host
# (issue 38, the cuda-samples transpose). Run on the GPU machine:
#   bench/launch_bound/run.sh [CUDA_SAMPLES_DIR]
# Prints launch_bound.cu's table; with a cuda-samples checkout, also the
# transpose sample's own figures at BLOCK_ROWS 16 against 8, alternating runs
# (bench/ab_program/run.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
nvcc -O3 -arch=sm_90 "$here/launch_bound.cu" -o "$w/launch_bound"
"$w/launch_bound"
if [ $# -ge 1 ]; then
  s="$1/Samples/6_Performance/transpose/transpose.cu"
  sed 's/^#define BLOCK_ROWS 16$/#define BLOCK_ROWS 8/' "$s" > "$w/transpose_rows8.cu"
  grep -q '^#define BLOCK_ROWS 8$' "$w/transpose_rows8.cu"
  cp "$s" "$w/transpose_rows16.cu"
  echo "transpose sample, BLOCK_ROWS 16 (original) against 8 (tuned), its own Time = lines:"
  bash "$here/../ab_program/run.sh" "$w/transpose_rows16.cu" "$w/transpose_rows8.cu" "-O3 -arch=sm_90 -I$1/Common" 9
fi
rm -rf "$w"
