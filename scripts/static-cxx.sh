#!/usr/bin/env bash
# Prints the swift build flags that link libstdc++ and libgcc into the shipped binary, or
# nothing when this machine has no static libstdc++ (the binary then loads the shared one).
#
# The static Swift runtime needs libstdc++. Loading and relocating libstdc++.so and libgcc_s.so
# cost 1.8M of the 23.9M instructions from exec to `ready` (callgrind), and their pages. The
# runtime's link arguments name `-lstdc++`, so a directory holding only the archive, searched
# first, is what makes the linker take the static library.
set -euo pipefail
archive=$(clang -print-file-name=libstdc++.a 2>/dev/null || true)
if [[ "$archive" != /* || ! -f "$archive" ]]; then exit 0; fi
directory=.build/static-cxx
mkdir -p "$directory"
ln -sfn "$archive" "$directory/libstdc++.a"
echo "-Xlinker -L$PWD/$directory -Xswiftc -Xclang-linker -Xswiftc -static-libgcc"
