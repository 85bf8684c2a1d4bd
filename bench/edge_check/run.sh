#!/usr/bin/env bash
# Issue 38 item 3 on a GPU: a tuned winner checked at its launchers' branch
# edges (tuner/edge_check.h). Builds the tool alone (no tests) and tunes
# three examples at once with `kernelblaster tune`, each with a BUDGET of
# $EDGE_BUDGET seconds (default 30); their launchers' guards (`if (n <= 0)
# return;` and kin) give edges at size 1. Run from the repository root on
# the GPU machine; each summary and log goes to $OUT. With $EDGE_TOOL (an
# installed kernelblaster, e.g. /tmp/kb/bin/kernelblaster after
# `gpu_session.sh build`) nothing is built; $EDGE_EXAMPLES picks examples.
set -uo pipefail
source "$(dirname "$0")/../clangroot.sh"
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
B=build-gpu
T=${EDGE_TOOL:-$B/tool/src/cli/kernelblaster}
if [ -z "${EDGE_TOOL:-}" ]; then
  s=$(date +%s)
  unpack_clangroot
  cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release "${clang_args[@]}" >"$OUT/build.log" 2>&1 &&
    cmake --build $B -j"$(nproc)" --target kernelblaster kernelblaster-gpu kernelblaster_harness >>"$OUT/build.log" 2>&1
  echo "build: exit $? in $(( $(date +%s) - s )) s"
fi
for e in ${EDGE_EXAMPLES:-vector_add rmsnorm matmul}; do
  ( s=$(date +%s)
    timeout 200 "$T" tune --source examples/kernels/src/$e.cu --harness examples/kernels/harness/${e}_harness.cu \
      -I examples/kernels/include --budget "${EDGE_BUDGET:-30}" --json --out "/tmp/$e.tuned.cu" \
      --kb "/tmp/edge-kb-$e.json" >"$OUT/$e.json" 2>"$OUT/$e.err"
    echo "$e: exit $? in $(( $(date +%s) - s )) s" ) &
done
wait
for e in ${EDGE_EXAMPLES:-vector_add rmsnorm matmul}; do
  echo "== $e"
  grep -E "edge|re-verifying" "$OUT/$e.err" | cut -c1-400
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d.get('status'), d.get('speedup'), d.get('seconds'), d.get('evaluations'), d.get('reason', ''), '|', d.get('edge_check', '-'))" "$OUT/$e.json" 2>&1 | cut -c1-400
done
