#!/usr/bin/env bash
# Issue 38's exhaustive run of SGEMM_CUDA's kernels 4-12: every configuration
# of each kernel's space as `kernelblaster tune --list` finds it (space.py),
# checked against cuBLAS and timed, so what the one line keeps can be set
# beside the best there is. Stages, each under the GPU machine's 10 minutes:
#   run.sh gen      the listing and the generated sources (here or there; needs the tool: $KB, default
#                   build/tool/src/cli/kernelblaster, then /tmp/kb/bin/kernelblaster)
#   run.sh build    compile every chunk on every core ($BIN)
#   run.sh screen   check at 128 and 2048, time at 2048; resumable, stops itself after $SCREEN_S (500) s
#   run.sh time     the $TOP (24) fastest of each kernel at 2048: checked at every size, timed at 4096
#                   against the author's configuration; then summary.md
# Environment: SGEMM_SRC (oss/SGEMM_CUDA/src), EXH (oss/sgemm_exhaustive: gen/, bin/, the jsonl files),
# OUT (bench/out), KERNELS (4 ... 12).
set -uo pipefail
here=$(dirname "$0")
OUT=${OUT:-bench/out}
EXH=${EXH:-oss/sgemm_exhaustive}
SGEMM_SRC=${SGEMM_SRC:-oss/SGEMM_CUDA/src}
export SGEMM_SRC
mkdir -p "$OUT" "$EXH"
keep() { cp "$EXH"/*.jsonl "$EXH"/listing.json "$EXH"/gen/space.json "$EXH"/bin/programs.json "$EXH"/bin/compile.log "$OUT"/ 2>/dev/null; true; }

case "${1:-}" in
  gen)
    kb=${KB:-build/tool/src/cli/kernelblaster}
    [ -x "$kb" ] || kb=/tmp/kb/bin/kernelblaster
    "$kb" tune --list --json --source "$SGEMM_SRC/runner.cu" -I "$SGEMM_SRC" > "$EXH/listing.json"
    rm -rf "$EXH/gen"
    python3 "$here/space.py" "$EXH/listing.json" "$EXH/gen" --kernels "${KERNELS:-4 5 6 7 8 9 10 11 12}"
    ;;
  build)
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt" 2>/dev/null
    nice python3 "$here/exhaustive.py" build "$EXH/gen" "$EXH/bin"
    keep
    ;;
  screen)
    python3 "$here/exhaustive.py" screen "$EXH/gen" "$EXH/bin" "$EXH/screen.jsonl" --until "${SCREEN_S:-500}" \
      --kernels "${KERNELS:-}"
    keep
    ;;
  time)
    rm -f "$EXH/time.jsonl"
    python3 "$here/exhaustive.py" time "$EXH/gen" "$EXH/bin" "$EXH/screen.jsonl" "$EXH/time.jsonl" --top "${TOP:-24}"
    python3 "$here/exhaustive.py" summary "$EXH/gen" "$EXH/bin" "$EXH/screen.jsonl" "$EXH/time.jsonl" | tee "$OUT/summary.md"
    keep
    ;;
  *) sed -n 2,14p "$0"; exit 2 ;;
esac
