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
#   run.sh pack     the built programs of $KERNELS, stripped, with space.json and programs.json, into
#                   $PACK (oss/exh-pack/k<KERNELS>.tar.xz): built on any machine with nvcc and cuBLAS,
#                   carried to the GPU machine (its device minutes then go to screening only)
#   run.sh unpack   every archive in $PACK_DIR (oss/exh-pack) into $EXH, programs.json merged
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
  pack)
    kernels=${KERNELS:?name the kernels to pack}
    dir=${PACK_DIR:-oss/exh-pack}
    mkdir -p "$dir"
    pack=${PACK:-$dir/k${kernels// /_}.tar.xz}
    # The archive's programs.json names only the programs it holds.
    names=$(python3 -c 'import json, sys
index = json.load(open(sys.argv[1]))
ks = sys.argv[2].split()
subset = {key: {k: v for k, v in index[key].items() if k in ks} for key in ("programs", "compile_failed")}
json.dump(subset, open(sys.argv[3], "w"))
print(" ".join("bin/" + x["name"] for k in ks for x in index["programs"].get(k, [])))' \
      "$EXH/bin/programs.json" "$kernels" "$EXH/packed-programs.json")
    [ -n "$names" ] || { echo "no built program of kernels $kernels in $EXH/bin" >&2; exit 1; }
    (cd "$EXH" && ${STRIP:-strip} $names &&
      tar -cf - --transform 's,^packed-programs.json$,bin/programs.json,' gen/space.json packed-programs.json $names) |
      xz -T0 -6 > "$pack"
    echo "$pack: $(du -h "$pack" | cut -f1)"
    ;;
  unpack)
    mkdir -p "$EXH/bin"
    for pack in "${PACK_DIR:-oss/exh-pack}"/*.tar.xz; do
      tmp=$(mktemp -d)
      tar -xJf "$pack" -C "$tmp" || exit 1
      python3 - "$tmp/bin/programs.json" "$EXH/bin/programs.json" <<'PY'
import json, os, sys
new = json.load(open(sys.argv[1]))
old = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else {"programs": {}, "compile_failed": {}}
for key in ("programs", "compile_failed"):
    old[key].update(new[key])
json.dump(old, open(sys.argv[2], "w"))
PY
      mkdir -p "$EXH/gen"
      cp "$tmp/gen/space.json" "$EXH/gen/space.json"
      find "$tmp/bin" -type f ! -name programs.json -exec mv -t "$EXH/bin" {} +
      rm -rf "$tmp"
      echo "unpacked $pack"
    done
    ;;
  *) sed -n 2,18p "$0"; exit 2 ;;
esac
