# Sourced by the GPU-machine scripts: the libclang that `gpu_session.sh
# build` unpacked into /tmp/clangroot (the GPU machine has none), found
# through LD_LIBRARY_PATH after the system's own libraries, which win where
# both have one. Call use_clangroot again after the build has unpacked it.
use_clangroot() {
  [ -d /tmp/clangroot ] &&
    export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/tmp/clangroot/usr/lib/x86_64-linux-gnu:/tmp/clangroot/usr/lib/llvm-14/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  return 0
}
use_clangroot
