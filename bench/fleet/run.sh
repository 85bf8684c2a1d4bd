#!/usr/bin/env bash
# Issue 41's fleet targets, on one GPU machine standing for several.
#
#   bench/fleet/run.sh storage   two build trees standing for two machines, one remote storage
#                                server (tests/build_step/storage_server.py, or nginx where installed):
#                                A has the GPU and tunes; B sees no GPU (CUDA_VISIBLE_DEVICES=""),
#                                names A's GPU by fingerprint id in TARGET_GPU and must apply what A
#                                tuned, its line naming the server; then C (GPU) and D (no GPU), from
#                                empty caches, with the server killed while C tunes: both must build.
#   bench/fleet/run.sh shards    optimize --kernelbench over six problems of the published dataset,
#                                once whole and once in 3 shards at once, with scripted replies keyed
#                                by kernel (tests/gpu/scripted_llm.py): kept results, statuses and the
#                                merged KB's tries compared (bench/fleet/compare_shards.py).
#
# Needs the installed tool (bench/gpu_session.sh build: /tmp/kb) and, for
# shards, KERNELBLASTER_KERNELBENCH_DATA. Results: $OUT/fleet-*.log and a few
# files beside them (the device returns only a handful).
set -uo pipefail
OUT=${OUT:-bench/out}
mkdir -p "$OUT"
PREFIX=${KB_PREFIX:-/tmp/kb}
TOOL=$PREFIX/bin/kernelblaster
ROOT=$PWD
W=/tmp/fleet
stage=${1:?stage: storage or shards}

start_server() {  # $1: folder served; prints the port
  python3 "$ROOT/tests/build_step/storage_server.py" files "$1" >"$W/port" 2>/dev/null &
  echo $! >"$W/server.pid"
  for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
  cat "$W/port"
}

configure() {  # $1: build tree, $2: cache, then extra -D arguments
  local tree=$1 cache=$2
  shift 2
  cmake -S "$W/project" -B "$W/$tree" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" -DKERNELBLASTER_CACHE_DIR="$W/$cache" \
    -DKERNELBLASTER_LOCKFILE="$W/$tree.lock.json" "$@" >"$W/$tree.configure.log" 2>&1 || echo "configure $tree failed"
}

build() {  # $1: build tree; prints its kernelblaster lines and the exit status
  local s rc
  s=$(date +%s%N)
  cmake --build "$W/$1" >"$W/$1.build.log" 2>&1
  rc=$?
  grep -o 'kernelblaster: [a-z_]*\.cu: .*' "$W/$1.build.log" | cut -c1-400
  echo "build $1: exit $rc in $(( ($(date +%s%N) - s) / 1000000 )) ms"
}

case "$stage" in
  storage)
    rm -rf "$W" && mkdir -p "$W/storage"
    cp -r examples/kernels "$W/project" && rm -f "$W/project/kernelblaster.lock.json"
    sed -i "s|kernelblaster_optimize(kbexamples BUDGET 30)|kernelblaster_optimize(kbexamples SOURCES src/vector_add.cu src/rmsnorm.cu BUDGET ${FLEET_BUDGET:-60})|" \
      "$W/project/CMakeLists.txt"
    {
      port=$(start_server "$W/storage")
      url=http://127.0.0.1:$port/kb
      echo "== A: the GPU machine, empty cache, remote storage $url"
      configure a cache-a -DKERNELBLASTER_REMOTE_STORAGE="$url"
      build a
      echo "stored: $(cd "$W/storage" && find . -name '*.json' | sort | tr '\n' ' ')"
      id=$(ls "$W/storage/kb" | head -1)
      echo "== B: no GPU (CUDA_VISIBLE_DEVICES=\"\"), TARGET_GPU $id, empty cache, the same server"
      export CUDA_VISIBLE_DEVICES=""
      configure b cache-b -DKERNELBLASTER_REMOTE_STORAGE="$url" -DKERNELBLASTER_TARGET_GPU="$id"
      build b
      unset CUDA_VISIBLE_DEVICES
      for s in vector_add rmsnorm; do
        g=kernelblaster_generated/kbexamples/src/$s.cu
        if cmp -s "$W/a/$g" "$W/b/$g" && cmp -s "$W/a/$g.rsp" "$W/b/$g.rsp"; then
          echo "$s: B compiles what A compiles (source and flags identical; $(wc -c <"$W/a/$g.rsp") bytes of flags)"
        else echo "$s: B compiles something else than A"; fi
      done
      kill "$(cat "$W/server.pid")"
      echo "== C (GPU) and D (no GPU): empty caches, a new server killed 8 s into C's build"
      rm -rf "$W/storage2" && mkdir -p "$W/storage2"
      port=$(start_server "$W/storage2")
      url=http://127.0.0.1:$port/kb
      configure c cache-c -DKERNELBLASTER_REMOTE_STORAGE="$url"
      CUDA_VISIBLE_DEVICES="" configure d cache-d -DKERNELBLASTER_REMOTE_STORAGE="$url" -DKERNELBLASTER_TARGET_GPU="$id"
      (sleep 8; kill "$(cat "$W/server.pid")"; echo "server killed at 8 s") &
      build c
      CUDA_VISIBLE_DEVICES="" build d
      wait
    } 2>&1 | tee "$OUT/fleet-storage.log"
    tar czf "$OUT/fleet-storage-logs.tgz" -C "$W" --exclude='*/CMakeFiles' a.build.log b.build.log c.build.log d.build.log storage
    ;;
  shards)
    data=${KERNELBLASTER_KERNELBENCH_DATA:?dataset}
    rm -rf "$W" && mkdir -p "$W/problems"
    for p in 019_ReLU 020_LeakyReLU 021_Sigmoid 023_Softmax 036_RMSNorm 022_Tanh; do ln -s "$data/level1/$p" "$W/problems/$p"; done
    k=.kb-data/kernelbench-cuda/level1
    cat >"$W/script.json" <<EOF
{"relu_fp16_kernel": [{"file": "$k/019_ReLU/init.cu"}],
 "leaky_relu_fp16_kernel": [{"file": "$k/020_LeakyReLU/init.cu"}],
 "sigmoid_fp16_kernel": [{"file": "$k/021_Sigmoid/init.cu"}],
 "softmax_fp16_kernel": [{"file": "tests/kernelbench/hostile/softmax_zeros.cu"}, {"file": "$k/023_Softmax/init.cu"}],
 "rmsnorm_forward_fp16": [{"file": "tests/gpu/rewrites/rmsnorm_coalesced.cu"}]}
EOF
    run() {  # $1: name, $2: output folder, then optimize's extra arguments
      local name=$1 out=$2 s
      shift 2
      s=$(date +%s%N)
      "$TOOL" optimize --kernelbench "$W/problems" --out "$W/$out" --kb "$W/$name.kb.json" --trajectories 1 --steps 1 \
        --fix-attempts 1 --review-every 0 --provider command --model scripted \
        --command "python3 $ROOT/tests/gpu/scripted_llm.py $W/script.json $W/$name.calls" "$@" >"$W/$name.log" 2>&1
      echo "$name: exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms"
    }
    {
      run whole whole
      # The job array: three shards at once, one output folder, a KB each.
      for i in 0 1 2; do run "shard$i" sharded --shard "$i/3" & done
      wait
      cp "$W/shard0.kb.json" "$W/merged.kb.json"
      for i in 1 2; do "$TOOL" kb merge "$W/merged.kb.json" "$W/shard$i.kb.json"; done
      "$TOOL" report "$W/sharded" --html "$W/sharded.html" >/dev/null && echo "report over the shards' folder: written"
      python3 "$ROOT/bench/fleet/compare_shards.py" "$W/whole" "$W/sharded" "$W/whole.kb.json" "$W/merged.kb.json"
    } 2>&1 | tee "$OUT/fleet-shards.log"
    tar czf "$OUT/fleet-shards-runs.tgz" -C "$W" whole sharded sharded.html whole.kb.json merged.kb.json whole.log shard0.log shard1.log shard2.log
    ;;
  *) echo "unknown stage $stage" >&2; exit 2 ;;
esac
