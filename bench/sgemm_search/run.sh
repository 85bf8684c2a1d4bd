#!/usr/bin/env bash
# Issue 38's SGEMM_CUDA target, kernel by kernel: where one evaluation's time
# goes, and what the one line's search finds in one kernel's space. Run from
# the repository root on the GPU machine, results in $OUT; each stage fits
# the device's 10-minute command limit.
#   bench/sgemm_search/run.sh before      build and install the tool (with libclang, gpu_session.sh build), then the project's configure, first build
#                                         and the programs of $SGEMM_KERNELS (default 10) plainly and recorded
#   bench/sgemm_search/run.sh eval        the original against itself through the harness the build
#                                         synthesized, built with one launcher's mask bit as the tuner judges
#                                         a group when $SGEMM_MASK is set (512: runSgemmWarptiling with all
#                                         twelve recorded), with eval's options in $SGEMM_EVAL_ARGS (e.g.
#                                         "--every-size --seeds 6 --back-to-back --memcheck", the winner's
#                                         second look): phases and each process's own phases (--json)
#   bench/sgemm_search/run.sh tune        the second build (the one line's tuning), its summary and run log
#   bench/sgemm_search/run.sh after       the programs again: their own figures on what the second build compiled
#   bench/sgemm_search/run.sh units       issue 40: `optimize` one kernel at a time (after "before", with several
#                                         kernels recorded, e.g. SGEMM_KERNELS="3 4 5"), on the harness and manifest
#                                         the one line wrote, with a scripted model (unit_replies.py: per kernel a
#                                         wrong rewrite, then an honest one); $SGEMM_UNIT_KERNELS (default 2) rounds;
#                                         the list, the run's artifacts and a table of steps with their prompts' sizes
#   bench/sgemm_search/run.sh sample SEED a landscape sample of the recorded kernels' space (after "tune"): `tune`
#                                         with the weighted draw (policies/weighted_random.lua, a fresh user KB) for 540 s,
#                                         nothing written (--min-speedup 100), every configuration in the log;
#                                         several seeds add up toward the exhaustive run issue 38 asks for
# Environment: ONELINE_OSS (default oss/, SGEMM_CUDA/ in it), ONELINE_BUDGET (default 240) read at "before".
# The program's figures before and after, against the exhaustive bests: bench/sgemm_search/figures.py OUT...
set -uo pipefail
source "$(dirname "$0")/../clangroot.sh"  # the installed tool reads sources with libclang
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
export SGEMM_KERNELS=${SGEMM_KERNELS:-10}
export ONELINE_BUDGET=${ONELINE_BUDGET:-240}
W=/tmp/oneline/sgemm_cuda

case "${1:-}" in
  before)
    bash bench/gpu_session.sh build && STAGE=before bash bench/oneline_projects.sh run sgemm_cuda
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
    ;;
  eval)
    harness=$(ls "$W"/build/kernelblaster_generated/*/harness/*.cu | head -1)
    manifest=$(ls "$W"/build/kernelblaster_generated/*/manifest.txt | head -1)
    cp "$harness" "$OUT/"
    mask=()
    [ -n "${SGEMM_MASK:-}" ] && mask=(-D "KERNELBLASTER_LAUNCHER_MASK=$SGEMM_MASK")
    tag=${SGEMM_EVAL_TAG:-original}
    # shellcheck disable=SC2086  # the options are words
    /tmp/kb/bin/kernelblaster eval --source "$W/src/runner.cu" --harness "$harness" --manifest "$manifest" \
      "${mask[@]}" ${SGEMM_EVAL_ARGS:-} --json > "$OUT/eval-$tag.json" 2> "$OUT/eval-$tag.err"
    python3 - "$OUT/eval-$tag.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("status", r.get("status"), "wall", r.get("wall_seconds"), "compile", r.get("compile_seconds"))
for key in ("phase_seconds", "process_phase_seconds"):
    for p in r.get(key, []):
        print(f"  {key}: {p['phase']}: {p['seconds']:.3f}")
EOF
    ;;
  tune)
    STAGE=tune bash bench/oneline_projects.sh run sgemm_cuda
    ;;
  after)
    STAGE=after bash bench/oneline_projects.sh run sgemm_cuda
    ;;
  units)
    harness=$(ls "$W"/build/kernelblaster_generated/*/harness/*.cu | head -1)
    manifest=$(ls "$W"/build/kernelblaster_generated/*/manifest.txt | head -1)
    tool=/tmp/kb/bin/kernelblaster
    cp "$harness" "$OUT/units-harness.cu"
    "$tool" optimize --list --json --source "$W/src/runner.cu" --manifest "$manifest" > "$OUT/units-list.json"
    python3 bench/sgemm_search/unit_replies.py script "$OUT/units-list.json" /tmp/sgemm-units-script.json
    rm -rf /tmp/sgemm-units-state /tmp/sgemm-units-kb.json "$OUT/units" "$OUT/units-requests.txt"
    s=$(date +%s)
    "$tool" optimize --source "$W/src/runner.cu" --harness "$harness" --manifest "$manifest" \
      --kernels "${SGEMM_UNIT_KERNELS:-2}" --trajectories 1 --steps 1 --fix-attempts 1 --review-every 0 \
      --kb /tmp/sgemm-units-kb.json --provider command --model scripted \
      --command "tee -a $OUT/units-requests.txt | python3 $PWD/tests/gpu/scripted_llm.py /tmp/sgemm-units-script.json /tmp/sgemm-units-state" \
      --out "$OUT/units" --json > "$OUT/units.summary.json" 2> "$OUT/units.err"
    echo "optimize: exit $? in $(( $(date +%s) - s )) s"
    grep -E "kernel |kept|not optimized|cannot" "$OUT/units.err" | head -20
    python3 bench/sgemm_search/unit_replies.py summary "$OUT/units"
    ;;
  sample)
    seed=${2:?seed}
    harness=$(ls "$W"/build/kernelblaster_generated/*/harness/*.cu | head -1)
    manifest=$(ls "$W"/build/kernelblaster_generated/*/manifest.txt | head -1)
    partial=()
    [ "${SGEMM_KERNELS}" != "1 2 3 4 5 6 7 8 9 10 11 12" ] && partial=(--partial-harness)
    /tmp/kb/bin/kernelblaster tune --source "$W/src/runner.cu" --harness "$harness" --manifest "$manifest" \
      "${partial[@]}" --policy policies/weighted_random.lua --kb /tmp/sgemm-sample-kb.json --seed "$seed" \
      --budget 540 --min-speedup 100 --out /tmp/sgemm-sample.cu --log "$OUT/sample-$seed.json" --json \
      > "$OUT/sample-$seed.summary.json" 2> "$OUT/sample-$seed.err"
    python3 -c "import json,sys; l=json.load(open(sys.argv[1])); e=l['evaluations']; ok=[x for x in e if x.get('status')=='ok']; print(len(e), 'tried,', len(ok), 'verified, best', max([x.get('speedup',0) for x in ok] or [0]))" "$OUT/sample-$seed.json"
    ;;
  *) sed -n 2,24p "$0"; exit 2 ;;
esac
