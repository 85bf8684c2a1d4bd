#!/usr/bin/env bash
# `kernelblaster tune --list` on open-source CUDA sources nobody here wrote:
# what the launch sites' tunables are (#defines, const locals, literal
# template arguments), the constraints read from the code and the valid
# space, per source, with the seconds each listing took. No GPU. Run from
# the repository root:
#   bench/launch_tunables/run.sh [KERNELBLASTER] [OUT]
# The projects are read from $ONELINE_OSS (default oss/, git-ignored):
#   SGEMM_CUDA/   siboehm/SGEMM_CUDA at 60cba6f
#   cuda-samples/ NVIDIA/cuda-samples at c94ff366 (Common/ and the samples named below)
#   llm.c/        karpathy/llm.c at f1e2ace
#   cuda_hgemm/   Bruce-Lee-LY/cuda_hgemm at 0d26c2e
set -uo pipefail
TOOL=${1:-build/tool/src/cli/kernelblaster}
OUT=${2:-bench/results/launch-tunables}
OSS=${ONELINE_OSS:-oss}
mkdir -p "$OUT"
: > "$OUT/seconds.tsv"

list() {  # name, source, include dirs...
  local name=$1 src=$2; shift 2
  local inc=()
  for d in "$@"; do inc+=(-I "$d"); done
  local t0=$(date +%s.%N)
  "$TOOL" tune --list --source "$src" "${inc[@]}" > "$OUT/$name.txt" 2>&1
  "$TOOL" tune --list --json --source "$src" "${inc[@]}" > "$OUT/$name.json" 2>/dev/null
  local t1=$(date +%s.%N)
  printf "%s\t%s\t%s\n" "$name" "${src#$OSS/}" "$(awk "BEGIN{printf \"%.2f\", ($t1 - $t0) / 2}")" >> "$OUT/seconds.tsv"
}

S=$OSS/cuda-samples/Samples
list sgemm_cuda.runner "$OSS/SGEMM_CUDA/src/runner.cu" "$OSS/SGEMM_CUDA/src"
list samples.transpose "$S/6_Performance/transpose/transpose.cu" "$OSS/cuda-samples/Common"
list samples.convolutionSeparable "$S/2_Concepts_and_Techniques/convolutionSeparable/convolutionSeparable.cu" "$OSS/cuda-samples/Common"
list samples.matrixMul "$S/0_Introduction/matrixMul/matrixMul.cu" "$OSS/cuda-samples/Common"
list samples.reduction "$S/2_Concepts_and_Techniques/reduction/reduction_kernel.cu" "$OSS/cuda-samples/Common"
list samples.histogram64 "$S/2_Concepts_and_Techniques/histogram/histogram64.cu" "$OSS/cuda-samples/Common"
list samples.histogram256 "$S/2_Concepts_and_Techniques/histogram/histogram256.cu" "$OSS/cuda-samples/Common"
list samples.scalarProd "$S/2_Concepts_and_Techniques/scalarProd/scalarProd.cu" "$OSS/cuda-samples/Common"
list samples.bitonicSort "$S/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu" "$OSS/cuda-samples/Common"
list samples.dct8x8 "$S/2_Concepts_and_Techniques/dct8x8/dct8x8.cu" "$OSS/cuda-samples/Common"
list llm.c.matmul_backward_bias "$OSS/llm.c/dev/cuda/matmul_backward_bias.cu" "$OSS/llm.c/dev/cuda"
list llm.c.attention_forward "$OSS/llm.c/dev/cuda/attention_forward.cu" "$OSS/llm.c/dev/cuda"
list llm.c.layernorm_forward "$OSS/llm.c/dev/cuda/layernorm_forward.cu" "$OSS/llm.c/dev/cuda"
list cuda_hgemm.mma_async "$OSS/cuda_hgemm/src/mma/mma_async.cu" "$OSS/cuda_hgemm/src/common"
list cuda_hgemm.wmma_naive "$OSS/cuda_hgemm/src/wmma/wmma_naive.cu" "$OSS/cuda_hgemm/src/common"
python3 "$(dirname "$0")/summary.py" "$OUT" > "$OUT/summary.md"
cat "$OUT/summary.md"
