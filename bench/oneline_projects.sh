#!/usr/bin/env bash
# Issue 27 on a GPU: the one line on projects nobody here wrote, as a user
# adds it: find_package(KernelBlaster) and kernelblaster_optimize(<target>
# BUDGET <s>) appended to the project's CMakeLists.txt, the CUDA architecture
# set to this GPU's (90), nothing else changed. Then configure, build, run
# the project's programs (each once plainly and once through
# kernelblaster_generated/record, both timed), build again (harnesses
# synthesized from the recorded launches, tuning), and ctest where the
# project has tests. Run from the repository root; results go to $OUT.
#   bench/oneline_projects.sh build             build and install the tool (/tmp/kb), the recorder's GPU test
#   bench/oneline_projects.sh run NAME          one project (NAME: imagelib, sgemmlike, sgemm_cuda, matrixMul,
#                                               reduction, mergeSort, convolutionSeparable, transpose, freshman,
#                                               howto_reduce, olcf); the
#                                               open-source ones are read from
#                                               $ONELINE_OSS (default oss/): SGEMM_CUDA/ (siboehm/SGEMM_CUDA) and
#                                               cuda-samples/ (NVIDIA/cuda-samples: Common, cmake, the samples),
#                                               CUDA_Freshman/ (Tony-Tan/CUDA_Freshman: include, CMakeLists.txt,
#                                               12_reduce_unrolling, 26_transform_shared_memory),
#                                               How_to_optimize_in_GPU/ (Liu-xiandong/...: reduce, elementwise) and
#                                               cuda-training-series/ (olcf/...: exercises/hw2, exercises/hw5)
#   STAGE=before|tune|after bench/oneline_projects.sh run NAME
#                                               one stage of it (each fits the device's 10-minute command
#                                               limit; "before" starts afresh, the others go on from it):
#                                               before = configure, build, the programs plainly and recorded;
#                                               tune = the second build; after = the programs again
#   ONELINE_BUDGET (default 30): the BUDGET of the one line; "default": none, as a user writes the line
#   BUILD_LABEL (default build2): the name of a STAGE=tune build in the logs (build2, build3, ...)
#   SGEMM_KERNELS (default 1 to 12): the kernels of SGEMM_CUDA whose programs run (and are recorded)
set -uo pipefail
source "$(dirname "$0")/clangroot.sh"  # the tool reads sources with libclang
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
OSS=${ONELINE_OSS:-oss}
BUDGET=${ONELINE_BUDGET:-30}
ROOT=$PWD

timed() {  # label, command...: wall seconds into $OUT/times.tsv
  local label=$1; shift
  local t0=$(date +%s.%N)
  "$@"
  local rc=$?
  local t1=$(date +%s.%N)
  printf "%s\t%s\t%s\t%d\n" "${NAME:-}" "$label" "$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")" "$rc" >> "$OUT/times.tsv"
  return $rc
}

one_line() {  # cmakelists, target: the user's edit (no BUDGET where ONELINE_BUDGET=default: as a user writes it)
  if [ "$BUDGET" = default ]; then
    printf '\nfind_package(KernelBlaster REQUIRED)\nkernelblaster_optimize(%s)\n' "$2" >> "$1"
  else
    printf '\nfind_package(KernelBlaster REQUIRED)\nkernelblaster_optimize(%s BUDGET %s)\n' "$2" "$BUDGET" >> "$1"
  fi
}

cmake_for() {  # dir, target:source ...: a CMakeLists for a project built with nvcc by hand, the one line per target
  local dir=$1; shift
  printf 'cmake_minimum_required(VERSION 3.24)\nproject(%s CUDA CXX)\nset(CMAKE_CUDA_ARCHITECTURES 90)\n' "$NAME" > "$dir/CMakeLists.txt"
  for pair in "$@"; do printf 'add_executable(%s %s)\n' "${pair%%:*}" "${pair#*:}" >> "$dir/CMakeLists.txt"; done
  for pair in "$@"; do one_line "$dir/CMakeLists.txt" "${pair%%:*}"; done
}

flow() {  # project source dir, then the programs to run (relative to the build dir, quoted)
  local src=$1; shift
  case "${STAGE:-all}" in
    before) flow_before "$src" "$@" ;;
    tune) flow_tune "$src" ;;
    after) flow_after "$src" "$@" ;;
    *) flow_before "$src" "$@" && flow_tune "$src" && flow_after "$src" "$@" ;;
  esac
}

flow_before() {  # configure, first build, the programs plainly and under the recorder
  local src=$1; shift
  local b=$src/build
  cmake -S "$src" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/tmp/kb \
    -DKERNELBLASTER_CACHE_DIR=/tmp/oneline/$NAME-cache > "$OUT/$NAME.configure.full.log" 2>&1
  grep -i -A8 "kernelblaster\|error" "$OUT/$NAME.configure.full.log" | tee "$OUT/$NAME.configure.log"
  timed build1 cmake --build "$b" -j16 2>&1 | grep -E "kernelblaster:|error|FAILED" | tee "$OUT/$NAME.build1.log"
  for prog in "$@"; do
    (cd "$b" && timed "plain $prog" bash -c "$prog > '$OUT/$NAME.before.${prog//[^a-zA-Z0-9]/_}.txt' 2>&1")
    (cd "$b" && timed "recorded $prog" bash -c "kernelblaster_generated/record $prog > /dev/null 2> $OUT/$NAME.record.err")
  done
  if [ -f "$b/CTestTestfile.cmake" ] && ctest --test-dir "$b" -N | grep -q "Total Tests: [1-9]"; then
    timed ctest1 ctest --test-dir "$b" -LE kernelblaster 2>&1 | tail -5 | tee "$OUT/$NAME.ctest1.log"
  fi
  ls -la "$b/kernelblaster_generated/kernel_launches" > "$OUT/$NAME.launches.txt" 2>&1
  for f in "$b"/kernelblaster_generated/kernel_launches/k_*.jsonl; do
    [ -f "$f" ] && python3 -c "import json,sys; l=[json.loads(x) for x in open(sys.argv[1])]; print(len(l), l[0]['name'])" "$f"
  done >> "$OUT/$NAME.launches.txt"
}

flow_tune() {  # a build after the recording: harnesses synthesized, tuning (BUILD_LABEL: build2, build3, ...)
  local b=$1/build label=${BUILD_LABEL:-build2}
  timed "$label" cmake --build "$b" -j16 2>&1 | grep -E "kernelblaster:|\[tune\]|error|FAILED" | tee "$OUT/$NAME.$label.log"
  mkdir -p "$OUT/$NAME.harness"
  cp "$b"/kernelblaster_generated/*/harness/*.cu "$OUT/$NAME.harness/" 2>/dev/null
  find "$b/kernelblaster_generated" \( -name "*.tuned.cu.json" -o -name "*.tuned.cu.log.json" \) \
    -exec sh -c 'cp "$1" "$2/$3.$(basename "$1")"' _ {} "$OUT/$NAME.harness" "$label" \;
  find /tmp/oneline/$NAME-cache -name search.json -exec sh -c 'cp "$1" "$2/$3.search.json"' _ {} "$OUT/$NAME.harness" "$label" \;
}

flow_after() {  # the programs again on what the second build compiled: their own figures before and after
  local src=$1; shift
  local b=$src/build
  for prog in "$@"; do
    (cd "$b" && timed "after $prog" bash -c "$prog > '$OUT/$NAME.after.${prog//[^a-zA-Z0-9]/_}.txt' 2>&1")
  done
  if ctest --test-dir "$b" -N 2>/dev/null | grep -q "Total Tests: [1-9]"; then
    timed ctest2 ctest --test-dir "$b" 2>&1 | tail -15 | tee "$OUT/$NAME.ctest2.log"
  fi
}

case "${1:-}" in
  build)
    cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release > "$OUT/configure.log" 2>&1 &&
      cmake --build build-gpu -j16 2>&1 | tail -2 && cmake --install build-gpu --prefix /tmp/kb > /dev/null &&
      ctest --test-dir build-gpu -R recorder_launches --output-on-failure 2>&1 | tee "$OUT/recorder.log" | tail -3
    ;;
  run)
    NAME=$2
    W=/tmp/oneline/$NAME
    if [ "${STAGE:-all}" = all ] || [ "${STAGE:-all}" = before ]; then
      rm -rf "$W" /tmp/oneline/$NAME-cache
      mkdir -p /tmp/oneline
      fresh=1
    else
      fresh=0
    fi
    case "$NAME" in
      imagelib|sgemmlike)
        cp -r "tests/cmake/projects/$NAME" "$W"
        flow "$W" ;;
      sgemm_cuda)
        if [ $fresh = 1 ]; then
          cp -r "$OSS/SGEMM_CUDA" "$W"
          sed -i 's/set(CUDA_COMPUTE_CAPABILITY 86)/set(CUDA_COMPUTE_CAPABILITY 90)/' "$W/CMakeLists.txt"
          one_line "$W/CMakeLists.txt" sgemm
        fi
        progs=()
        for k in ${SGEMM_KERNELS:-1 2 3 4 5 6 7 8 9 10 11 12}; do progs+=("./sgemm $k"); done
        flow "$W" "${progs[@]}" ;;
      freshman)  # Tony-Tan/CUDA_Freshman: one program per folder, its own CMakeLists each
        if [ $fresh = 1 ]; then
          cp -r "$OSS/CUDA_Freshman" "$W"
          # The architecture where the author sets it (compute_35 is gone from
          # CUDA 13; the other flags, -g -G -O3, stay), and only the two programs copied.
          sed -i 's/-arch=compute_35/-arch=sm_90/; /add_subdirectory/d' "$W/CMakeLists.txt"
          printf 'add_subdirectory(12_reduce_unrolling)\nadd_subdirectory(26_transform_shared_memory)\n' >> "$W/CMakeLists.txt"
          one_line "$W/12_reduce_unrolling/CMakeLists.txt" reduceUnrolling
          one_line "$W/26_transform_shared_memory/CMakeLists.txt" transform_shared_memory
        fi
        flow "$W" "./12_reduce_unrolling/reduceUnrolling" "./26_transform_shared_memory/transform_shared_memory 0" \
          "./26_transform_shared_memory/transform_shared_memory 1" "./26_transform_shared_memory/transform_shared_memory 2" \
          "./26_transform_shared_memory/transform_shared_memory 3" "./26_transform_shared_memory/transform_shared_memory 4" ;;
      howto_reduce)  # Liu-xiandong/How_to_optimize_in_GPU: a Makefile of nvcc lines; the CMakeLists a user would write
        if [ $fresh = 1 ]; then
          mkdir -p "$W" && cp "$OSS"/How_to_optimize_in_GPU/reduce/*.cu "$OSS"/How_to_optimize_in_GPU/elementwise/*.cu "$W/"
          cmake_for "$W" reduce_v5:reduce_v5_completely_unroll.cu reduce_v7:reduce_v7_shuffle.cu \
            elementwise_add:elementwise_add.cu
        fi
        flow "$W" ./reduce_v5 ./reduce_v7 ./elementwise_add ;;
      olcf)  # olcf/cuda-training-series: exercise solutions built with nvcc by hand; the CMakeLists a user would write
        if [ $fresh = 1 ]; then
          mkdir -p "$W" && cp "$OSS"/cuda-training-series/exercises/hw2/matrix_mul_shared_solution.cu \
            "$OSS"/cuda-training-series/exercises/hw5/reductions.cu "$W/"
          cmake_for "$W" matrix_mul_shared:matrix_mul_shared_solution.cu reductions:reductions.cu
        fi
        flow "$W" ./matrix_mul_shared ./reductions ;;
      matrixMul|mergeSort|reduction|convolutionSeparable|transpose)
        [ $fresh = 1 ] && rm -rf /tmp/oneline/cuda-samples && cp -r "$OSS/cuda-samples" /tmp/oneline/cuda-samples
        S=$(ls -d /tmp/oneline/cuda-samples/Samples/*/$NAME)
        if [ $fresh = 1 ]; then
          sed -i 's/set(CMAKE_CUDA_ARCHITECTURES .*)/set(CMAKE_CUDA_ARCHITECTURES 90)/' "$S/CMakeLists.txt"
          one_line "$S/CMakeLists.txt" "$NAME"
        fi
        case "$NAME" in
          reduction) flow "$S" "./reduction --kernel=0" "./reduction --kernel=1" "./reduction --kernel=2" \
                       "./reduction --kernel=3" "./reduction --kernel=4" "./reduction --kernel=5" "./reduction --kernel=6" ;;
          *) flow "$S" "./$NAME" ;;
        esac ;;
    esac
    ;;
  *) sed -n 2,17p "$0"; exit 2 ;;
esac
