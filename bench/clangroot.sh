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

# The carried libclang (.devclang, bench/prep_gpu_libclang.sh) unpacked into
# /tmp/clangroot; sets clang_args, the CMake arguments that name it (empty
# when nothing was carried).
unpack_clangroot() {
  clang_args=()
  [ -d .devclang ] || return 0
  local inc=/tmp/clangroot/usr/lib/llvm-14/lib/clang/14.0.6
  for f in .devclang/*.deb; do dpkg -x "$f" /tmp/clangroot; done
  mkdir -p "$inc" && tar xJf .devclang/clang-resource-include.tar.xz -C "$inc"
  use_clangroot
  clang_args=(-DKERNELBLASTER_LIBCLANG=/tmp/clangroot/usr/lib/llvm-14/lib/libclang.so.1
              -DKERNELBLASTER_LIBCLANG_INCLUDE="$PWD/.devclang/include")
}
