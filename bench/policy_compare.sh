#!/usr/bin/env bash
# The examples tuned by two builds of the tool on one GPU, alternating, each
# with the examples' budget (30 s) and a fresh KB: does a change to the
# search keep their speedups? Run on the GPU machine from the repository
# root after `bench/gpu_session.sh build` twice (the new tool in /tmp/kb, the
# old one with BUILD_SRC=<old tree> BUILD_PREFIX=/tmp/kbold). Results in $OUT.
#   bench/policy_compare.sh [kernels...]     (default: vector_add softmax rmsnorm)
set -uo pipefail
OUT=${OUT:-bench/out}
BUDGET=${COMPARE_BUDGET:-30}
mkdir -p "$OUT"
[ -d /tmp/clangroot ] && export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/tmp/clangroot/usr/lib/x86_64-linux-gnu:/tmp/clangroot/usr/lib/llvm-14/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
kernels=${*:-vector_add softmax rmsnorm}
for k in $kernels; do
  for v in new old; do
    tool=/tmp/kb/bin/kernelblaster; [ "$v" = old ] && tool=/tmp/kbold/bin/kernelblaster
    rm -f "/tmp/kb-$v-$k.json"
    "$tool" tune --source "examples/kernels/src/$k.cu" --harness "examples/kernels/harness/${k}_harness.cu" \
      -I examples/kernels/include --budget "$BUDGET" --kb "/tmp/kb-$v-$k.json" --log "$OUT/$k-$v.log.json" \
      --quiet --json > "$OUT/$k-$v.summary.json"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], {x: d.get(x) for x in ('status','speedup','config','flags','evaluations','space_size','seconds','gpu')})" \
      "$OUT/$k-$v.summary.json" "$k" "$v"
  done
done 2>&1 | tee "$OUT/compare.log"
