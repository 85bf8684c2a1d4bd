#!/usr/bin/env bash
# The GPU runs behind this folder's README, in two stages that each fit the
# device tool's 10-minute limit, on one warm machine. From the repository
# root, after `source .devdeps/env.sh`; logs go to $OUT (one tar per stage).
#   bash bench/results/back-to-back-h200-2026-11-28/run.sh 1   build, examples against themselves, transpose before + tune
#   bash bench/results/back-to-back-h200-2026-11-28/run.sh 2   transpose after (+ its own timing A/B when a tuned source
#                                                                was written), convolutionSeparable before + tune + after
set -uo pipefail
R=${OUT:-bench/out}/logs
mkdir -p "$R"
export PATH=/tmp/kb/bin:$PATH
CS=/tmp/oneline/cuda-samples
stage() { STAGE=$1 ONELINE_BUDGET=60 OUT=$R bash bench/oneline_projects.sh run "$2" > "$R/$2-$1.log" 2>&1; echo "$2 $1 rc=$?"; }
case "$1" in
  1)
    bash bench/gpu_session.sh build > "$R/build.log" 2>&1; echo "build rc=$?"; tail -2 "$R/build.log"
    bash bench/ab_program/back_to_back.sh 5 1024 2048 > "$R/back_to_back.log" 2>&1; tail -6 "$R/back_to_back.log"
    python3 tests/gpu/run_cases.py /tmp/kb/bin/kernelblaster self 20 > "$R/self20.log" 2>&1; tail -3 "$R/self20.log"
    stage before transpose
    stage tune transpose
    grep -h "kernelblaster:" "$R"/transpose-tune.log | head -20
    ;;
  2)
    stage after transpose
    S=$(ls -d $CS/Samples/*/transpose)
    T=$S/build/kernelblaster_generated/transpose/transpose.cu.tuned.cu
    if [ -f "$T" ]; then
      bash bench/ab_program/run.sh "$S/transpose.cu" "$T" "-O3 -arch=sm_90 -I$CS/Common" 9 > "$R/transpose-ab.log" 2>&1
      tail -12 "$R/transpose-ab.log"
    else
      echo "transpose: no tuned source written"
    fi
    stage before convolutionSeparable
    stage tune convolutionSeparable
    grep -h "kernelblaster:" "$R"/convolutionSeparable-tune.log | head -20
    stage after convolutionSeparable
    ;;
esac
tar -czf "${OUT:-bench/out}/stage$1.tgz" -C "$R" .
