#!/usr/bin/env bash
# AddressSanitizer, with leak checks, over the WebSocket client's unit tests and over the whole
# end-to-end suite through a sanitized binary. Zero reports, or this fails.
#
# libwebsockets, libcurl and libuv are not instrumented: ASan checks our side of every call,
# freed memory is filled with garbage so that their reads of it crash, and LeakSanitizer sees
# memory they allocated for us and never got back (a context torn down only halfway, say).
# The suppressions (scripts/lsan-suppressions.txt) each say why.
#
# The end-to-end run (scripts/sanitized-e2e.sh) sets COMPOSABLE_ACTOR_SANITIZED=1: the few tests
# that bound memory or speed skip themselves (ASan's shadow memory and quarantine, and a debug
# build, make those bounds meaningless), and the conformance run leaves out its limits group
# (messages of up to 16 MiB and thousands of round trips, the same code paths as the framing
# cases, at many times the time). Every report of every process lands in a file of its own.
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-asan

# Freed memory is filled with garbage: libuv is not instrumented either, so a handle it still
# walks after libwebsockets freed it would otherwise read stale but intact data and pass.
asan_options="detect_leaks=1:detect_stack_use_after_return=1:max_free_fill_size=1048576:free_fill_byte=190"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"
# ASan reports crashes itself; Swift's backtracer attaching to an ASan process can hang.
export SWIFT_BACKTRACE=enable=no

swift build --build-tests -c debug --sanitize=address --scratch-path "$scratch" -j 2
swift build -c debug --sanitize=address --scratch-path "$scratch" -j 2 --product composable-actor
# `asan.sh --build-only` stops here (`make test` builds this beside the other builds).
[[ ${1:-} != --build-only ]] || exit 0

echo "== WebSocket unit tests"
# The bundle runs directly, under the deadline `make asan` passes, as in `make unit`.
tests=$(swift test list --skip-build -c debug --sanitize=address --scratch-path "$scratch" \
  | grep WebSocket | paste -sd,)
ASAN_OPTIONS="$asan_options:halt_on_error=1" \
  ${DEADLINE:-} "$scratch/debug/ComposableActorPackageTests.xctest" "$tests"

echo "== end-to-end suite through the sanitized binary"
ASAN_OPTIONS="$asan_options" scripts/sanitized-e2e.sh address "$scratch/debug/composable-actor"
