#!/usr/bin/env bash
# Issue 72 on the development machine (no GPU): what `tune --list` finds in
# four sources shaped as the projects the issue tried keep their knobs (each
# written here, none copied): a stencil whose block is a pair of #defines in
# a header both its kernel's header and its launcher read (`stencil/`), a
# sort whose shared size is a header #define and whose global step divides
# its grid by twice its literal block (`sort/`), a pricing kernel launched
# from main() with a literal block under __launch_bounds__ in a header and a
# problem size sized through a derived constant (`pricing/`), and a dot
# product launched from main() with a literal grid and block and an
# accumulator count in a header (`dot/`). Then the stencil's tuned copy at
# its defaults against the original, and with k_blockDimX 64, compiled by
# nvcc: equal and different cubins.
#   bench/header_knobs/run.sh KERNELBLASTER [OUT_DIR]
set -uo pipefail
TOOL=$(readlink -f "$1")
OUT=${2:-${OUT:-bench/out}}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
for src in stencil/stencil.cu sort/bitonic.cu pricing/pricing.cu dot/dot.cu; do
  echo "== $src"
  (cd "$HERE" && "$TOOL" tune --list --source "$src")
done 2>&1 | tee "$OUT/header_knobs.txt"
