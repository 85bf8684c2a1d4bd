#!/usr/bin/env bash
# Issue 72 on a GPU machine, in stages that each fit one device command
# (run from the repository root; results under $OUT, packed into one
# archive per stage, since a device call returns at most 8 files):
#   bench/issue72_gpu.sh setup          build and install the tool (/tmp/kb),
#                                       SGEMM_CUDA configured with the line as a user writes it (no BUDGET),
#                                       built, and its programs for kernels SGEMM_KERNELS run plainly and recorded
#   bench/issue72_gpu.sh shimcost       the shim's cost (bench/shim_cost)
#   bench/issue72_gpu.sh builds N...    SGEMM_CUDA built again once per label (build2 build3 ...): each build
#                                       resumes the search the one before kept in the results cache
#   bench/issue72_gpu.sh after          the programs again on the last build's sources
# SGEMM_CUDA is read from $ONELINE_OSS/SGEMM_CUDA (default oss/).
set -uo pipefail
source "$(dirname "$0")/clangroot.sh"  # the installed tool loads the carried libclang
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export ONELINE_BUDGET=default
export SGEMM_KERNELS=${SGEMM_KERNELS:-2 3 4 5 6 7 8 9 10 12}
pack() {  # the stage's files as one archive
  (cd "$OUT" && tar czf "issue72-$1.tar.gz" --exclude='*.tar.gz' . && find . -maxdepth 1 ! -name '*.tar.gz' ! -name . -exec rm -rf {} +)
}
case "${1:-}" in
  setup)
    bash bench/gpu_session.sh build 2>&1 | tee "$OUT/build.log"
    STAGE=before bash bench/oneline_projects.sh run sgemm_cuda 2>&1 | tail -40 > "$OUT/sgemm_before.log"
    pack setup ;;
  shimcost)
    ROUNDS=5 bash bench/shim_cost/run.sh /tmp/kb/bin/kernelblaster "$OUT" 2>&1 | tee "$OUT/shim_cost.log"
    pack shimcost ;;
  builds)
    shift
    for label in "$@"; do
      BUILD_LABEL=$label STAGE=tune bash bench/oneline_projects.sh run sgemm_cuda 2>&1 | tail -5
      pack "$label"
    done ;;
  after)
    STAGE=after bash bench/oneline_projects.sh run sgemm_cuda 2>&1 | tail -5
    pack after ;;
  *) sed -n 2,13p "$0"; exit 2 ;;
esac
