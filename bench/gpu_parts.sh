#!/usr/bin/env bash
# The GPU suite (ctest -L gpu) and the fleet benchmark in parts that can run at
# once on one GPU machine, so a 30-minute lease holds them all. Run from the
# repository root on the GPU machine:
#
#   bench/gpu_parts.sh build            build with tests (build-gpu) and install the tool (/tmp/kb)
#   bench/gpu_parts.sh run PART...      run the parts at once, each under PART_LIMIT seconds (default 540),
#                                       each into $OUT/<part>.log; then one line per part
#
# Parts: short (every gpu test but the four long ones; gpu_header_rewrite among
# them, about 4 minutes), kbhostile, adversarial,
# kbproblems (the ctest tests of those names), opt-examples-hostile,
# opt-kernelbench, opt-transfer (gpu_optimize_scripted's parts; the last two
# share /tmp/optimize-kb.json), fleet-storage, fleet-shards (bench/fleet/run.sh),
# states (bench/states/run.sh), states-I-K (its I-th of K shards, so K of them at
# once profile the problems in a K-th of the time), sgemm-units (SGEMM_CUDA's
# kernels 3-5 recorded by the one line, then `optimize` one kernel at a time
# with a scripted model: bench/sgemm_search/run.sh units).
# Each part's whole log is $OUT/part-<part>.log; $OUT/parts.txt has their exits.
# Parts at once share the GPU: their timings are not comparable with a part
# run alone (the judge times original and candidate in turn, so it compares
# like with like).
set -uo pipefail
source "$(dirname "$0")/clangroot.sh"
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export KERNELBLASTER_KERNELBENCH_DATA=${KERNELBLASTER_KERNELBENCH_DATA:-$PWD/.kb-data/kernelbench-cuda}
B=build-gpu
stage=${1:?stage: build or run}
shift

part() {  # the command of one part
  case "$1" in
    short) exec ctest --test-dir $B -L gpu -E 'adversarial|kernelbench|optimize' --no-tests=error --output-on-failure ;;
    kbhostile) exec ctest --test-dir $B -R gpu_kernelbench_hostile --no-tests=error --output-on-failure ;;
    adversarial) exec ctest --test-dir $B -R gpu_adversarial_rejected --no-tests=error --output-on-failure ;;
    kbproblems) exec ctest --test-dir $B -R gpu_kernelbench_problems --no-tests=error --output-on-failure ;;
    opt-examples-hostile) python3 tests/gpu/optimize_scripted_test.py $B/tool/src/cli/kernelblaster examples,hostile ;;
    opt-kernelbench) KERNELBLASTER_OPTIMIZE_KB=/tmp/optimize-kb.json \
      python3 tests/gpu/optimize_scripted_test.py $B/tool/src/cli/kernelblaster kernelbench ;;
    opt-transfer) KERNELBLASTER_OPTIMIZE_KB=/tmp/optimize-kb.json \
      python3 tests/gpu/optimize_scripted_test.py $B/tool/src/cli/kernelblaster transfer ;;
    fleet-storage) bash bench/fleet/run.sh storage ;;
    fleet-shards) bash bench/fleet/run.sh shards ;;
    states) TOOL=$B/tool/src/cli/kernelblaster bash bench/states/run.sh ;;
    sgemm-units) export SGEMM_KERNELS=${SGEMM_KERNELS:-3 4 5}  # oss/SGEMM_CUDA carried; ~8 minutes
      STAGE=before bash bench/oneline_projects.sh run sgemm_cuda && bash bench/sgemm_search/run.sh units ;;
    states-*-*) s=${1#states-}; TOOL=$B/tool/src/cli/kernelblaster STATES_SHARD=${s%-*}/${s#*-} bash bench/states/run.sh ;;
    *) echo "unknown part $1"; return 2 ;;
  esac
}

case "$stage" in
  build)
    s=$(date +%s)
    unpack_clangroot
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release "${clang_args[@]}" >"$OUT/build.log" 2>&1 &&
      cmake --build $B -j"$(nproc)" >>"$OUT/build.log" 2>&1 && cmake --install $B --prefix /tmp/kb >/dev/null &&
      /tmp/kb/bin/kernelblaster gpu info
    echo "build: exit $? in $(( $(date +%s) - s )) s"
    ;;
  run)
    for p in "$@"; do
      ( s=$(date +%s); timeout -k 10 "${PART_LIMIT:-540}" bash -c "$(declare -f part); B=$B; part $p" >"$OUT/part-$p.log" 2>&1
        echo "$p: exit $? in $(( $(date +%s) - s )) s" | tee -a "$OUT/parts.txt" ) &
    done
    wait
    for p in "$@"; do
      echo "== $p"
      grep -E 'tests passed|passed, [0-9]+ failed|differences$|^build [a-d]:|Failed|\*\*\*|FAIL' "$OUT/part-$p.log" | head -20
    done
    ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
