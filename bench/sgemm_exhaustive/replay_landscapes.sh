#!/usr/bin/env bash
# The default policy on every recorded landscape at hand: SGEMM_CUDA's
# kernels 5, 6, 8, 9, 10 and 12 (its 800 fastest at 4096, the objective the
# one line optimizes) from the H200's exhaustive runs, and the five
# Kernel Tuner recordings where bench/kt_replay converted them. Mean
# distance from each landscape's best and seeds within $BAND (0.02) of it,
# at 25, 50, 100 and 200 evaluations (EVALS). No GPU.
#   bench/sgemm_exhaustive/replay_landscapes.sh [SEEDS]     (default 10)
# Environment: KB (build/tool/src/cli/kernelblaster), OUT (bench/out/landscapes),
# KT_WORK (oss/kt_replay: the converted recordings, *.log.json), REPLAY_ARGS
# (more `policy replay` options, e.g. "--builders 16 --build-s 11.5
# --measure-s 2 --noise 0.01": a GPU run's conditions).
set -euo pipefail
here=$(dirname "$0")
R=bench/results
KB=${KB:-build/tool/src/cli/kernelblaster}
OUT=${OUT:-bench/out/landscapes}
mkdir -p "$OUT"
zcat $R/sgemm-exhaustive-h200-2026-11-29b/space.json.gz > "$OUT/space-29b.json"
zcat $R/sgemm-exhaustive-h200-2026-11-29b/screen.jsonl.gz > "$OUT/screen-29b.jsonl"
zcat $R/sgemm-exhaustive-h200-2026-11-29c/screen.jsonl.gz > "$OUT/screen-29c.jsonl"
zcat $R/sgemm-exhaustive-h200-2026-11-30b/space.json.gz > "$OUT/space-30b.json"
zcat $R/sgemm-exhaustive-h200-2026-11-30b/screen.jsonl.gz > "$OUT/screen-30b.jsonl"
for k in 5 6 10; do
  python3 "$here/to_replay.py" "$OUT/space-29b.json" $R/sgemm-exhaustive-h200-2026-11-29b/listing.json \
    "$OUT/screen-29b.jsonl" $k "$OUT/sgemm_k$k.json" > /dev/null
done
python3 "$here/to_replay.py" "$OUT/space-29b.json" $R/sgemm-exhaustive-h200-2026-11-29b/listing.json \
  "$OUT/screen-29c.jsonl" 9 "$OUT/sgemm_k9.json" > /dev/null
python3 "$here/to_replay.py" "$OUT/space-30b.json" $R/sgemm-exhaustive-h200-2026-11-30b/listing.json \
  "$OUT/screen-30b.jsonl" 8 "$OUT/sgemm_k8.json" > /dev/null
X=$R/sgemm-exhaustive-h200-2026-11-30c
zcat $X/space.json.gz > "$OUT/space-30c.json"
zcat $X/screen.jsonl.gz > "$OUT/screen-30c.jsonl"
zcat $X/time-4096-top400.jsonl.gz > "$OUT/time-30c-a.jsonl"
zcat $X/time-4096-next400.jsonl.gz > "$OUT/time-30c-b.jsonl"
python3 "$here/to_replay.py" "$OUT/space-30c.json" $R/sgemm-exhaustive-h200-2026-11-30b/listing.json \
  "$OUT/screen-30c.jsonl" 12 "$OUT/sgemm_k12.json" --times="$OUT/time-30c-a.jsonl,$OUT/time-30c-b.jsonl" > /dev/null
lands=("$OUT"/sgemm_k5.json "$OUT"/sgemm_k6.json "$OUT"/sgemm_k8.json "$OUT"/sgemm_k9.json "$OUT"/sgemm_k10.json "$OUT"/sgemm_k12.json)
for f in "${KT_WORK:-oss/kt_replay}"/*.log.json; do [ -f "$f" ] && lands+=("$f"); done
# shellcheck disable=SC2086  # EVALS is a list
python3 "$here/replay_table.py" "$KB" "${1:-10}" ${EVALS:-25 50 100 200} -- "${lands[@]}"
