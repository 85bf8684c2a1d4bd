#!/usr/bin/env bash
# libclang for the GPU machine, which has none (run here, from the repository
# root): the Debian packages of libclang 14 and what it needs, as .deb files,
# the clang-c headers and clang's own builtin headers, in .devclang/ (git-
# ignored; about 45 MiB, carried with a device run next to .devdeps).
# bench/gpu_session.sh build unpacks them when .devclang is there, so that
# the tool built there can read sources (harness init, capture shims, the
# CMake module's capture of a project without a harness).
set -euo pipefail
dest=.devclang
rm -rf "$dest"; mkdir -p "$dest/include"
[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' 2>/dev/null | head -1)" ] || apt-get update -qq
(cd "$dest" && apt-get download -qq libclang1-14 libllvm14 libz3-4 libedit2 libxml2 libicu72 libbsd0 libmd0 2>/dev/null)
for f in "$dest"/*%3a*; do [ -e "$f" ] && mv "$f" "${f//%3a/_}"; done
cp -r /usr/lib/llvm-14/include/clang-c "$dest/include/"
tar cJf "$dest/clang-resource-include.tar.xz" -C /usr/lib/llvm-14/lib/clang/14.0.6 include
du -sh "$dest"
