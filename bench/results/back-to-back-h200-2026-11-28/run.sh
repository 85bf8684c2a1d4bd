#!/usr/bin/env bash
# The GPU runs behind this folder's README, in two stages that each fit the
# device tool's 10-minute limit, on one warm machine. From the repository
# root, after `source .devdeps/env.sh`; logs go to $OUT (one tar per stage).
#   bash bench/results/back-to-back-h200-2026-11-28/run.sh 1   build, examples against themselves, transpose before + tune
#   bash bench/results/back-to-back-h200-2026-11-28/run.sh 2   transpose after (+ its own timing A/B when a tuned source
#                                                                was written), convolutionSeparable before + tune + after
#   bash bench/results/back-to-back-h200-2026-11-28/run.sh 3   build; transpose before, then `tune` on its synthesized
#                                                                harness trying BLOCK_ROWS=8 alone (block_rows_8_first.lua),
#                                                                whose winner is re-verified back to back; and `eval` of it
#                                                                without and with --back-to-back
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
  3)
    bash bench/gpu_session.sh build > "$R/build.log" 2>&1; echo "build rc=$?"
    stage before transpose
    S=$(ls -d $CS/Samples/*/transpose)
    G=$S/build/kernelblaster_generated/transpose
    H=$(ls $G/harness/*.cu 2>/dev/null | head -1)
    if [ -z "$H" ]; then stage tune transpose; H=$(ls $G/harness/*.cu | head -1); fi
    here=bench/results/back-to-back-h200-2026-11-28
    kernelblaster tune --source "$S/transpose.cu" --harness "$H" -I "$CS/Common" --policy "$here/block_rows_8_first.lua" \
      --no-flags --min-speedup 1.0 --budget 60 --kb /tmp/kb-empty.json --out "$R/rows8.cu" --log "$R/rows8.log.json" \
      --json > "$R/rows8.tune.json" 2> "$R/rows8.tune.err"; echo "tune rc=$?"; tail -4 "$R/rows8.tune.err"
    if [ -f "$R/rows8.cu" ]; then
      for extra in "" --back-to-back; do
        kernelblaster eval --source "$S/transpose.cu" --harness "$H" --candidate "$R/rows8.cu" -I "$CS/Common" $extra \
          > "$R/rows8.eval${extra}.txt" 2>&1; echo "eval $extra rc=$?"; grep -i "speedup\|back to back\|slower" "$R/rows8.eval${extra}.txt" | head -8
      done
    fi
    ;;
esac
tar -czf "${OUT:-bench/out}/stage$1.tgz" -C "$R" .
