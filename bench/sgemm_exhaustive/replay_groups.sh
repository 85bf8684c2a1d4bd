#!/usr/bin/env bash
# The default policy on a source whose launchers are judged group by group,
# replayed on the H200's exhaustive landscapes: kernels 5 and 6, and 6 and
# 10, each pair joined as one source's two groups (combine_replay.py), as
# `./sgemm 5; ./sgemm 6` recorded gives the one line. Per pair and number
# of evaluations: each kernel's mean best and the seeds within 2% of its
# best, and the seeds within the 5% band in both. No GPU.
#   bench/sgemm_exhaustive/replay_groups.sh [EVALS...]   (default 50 80 120 200)
# Environment: KB (build/tool/src/cli/kernelblaster), RESULTS (the exhaustive run's
# directory, bench/results/sgemm-exhaustive-h200-2026-11-29b), OUT (bench/out/replay-groups), SEEDS (10).
set -euo pipefail
here=$(dirname "$0")
KB=${KB:-build/tool/src/cli/kernelblaster}
RESULTS=${RESULTS:-bench/results/sgemm-exhaustive-h200-2026-11-29b}
OUT=${OUT:-bench/out/replay-groups}
evals=${*:-50 80 120 200}
mkdir -p "$OUT"
zcat "$RESULTS/space.json.gz" > "$OUT/space.json"
zcat "$RESULTS/screen.jsonl.gz" > "$OUT/screen.jsonl"
for k in 5 6 10; do
  python3 "$here/to_replay.py" "$OUT/space.json" "$RESULTS/listing.json" "$OUT/screen.jsonl" "$k" "$OUT/k$k.json" > /dev/null
done
python3 "$here/combine_replay.py" "$OUT/k5_6.json" "$OUT/k5.json" "$OUT/k6.json" > /dev/null
python3 "$here/combine_replay.py" "$OUT/k6_10.json" "$OUT/k6.json" "$OUT/k10.json" > /dev/null
echo "| kernels | evaluations | each kernel: mean best, seeds within 2% of its best | seeds within 5% in both |"
echo "|---|---|---|---|"
for pair in 5_6 6_10; do
  for n in $evals; do
    "$KB" policy replay --results "$OUT/k$pair.json" --policy default --policy-seeds "${SEEDS:-10}" \
      --max-evals "$n" --json > "$OUT/k$pair-$n.json"
    python3 - "$OUT/k$pair-$n.json" "$pair" "$n" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))
cells = []
for part, best in r["recorded_best_by_part"].items():
    got = [s["best_by_part"][part] for s in r["seeds"]]
    name = part.split(" (")[0].replace("SGEMM_CUDA ", "")
    cells.append(f"{name} (best {best:.3f}x): {statistics.mean(got):.3f}, {sum(g >= 0.98 * best for g in got)}/{len(got)}")
print(f"| {sys.argv[2].replace('_', ' and ')} | {sys.argv[3]} | {'; '.join(cells)} | "
      f"{r['seeds_reaching_band_in_every_part']}/{len(r['seeds'])} |")
PY
  done
done
