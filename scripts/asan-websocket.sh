#!/usr/bin/env bash
# Builds the WebSocket tests with AddressSanitizer and runs them against the real test servers.
#
# libwebsockets runs on our libuv loop and frees its memory from uv close callbacks, so the
# failures worth catching are use-after-free and leaks around teardown. libwebsockets and libuv
# are not instrumented: ASan checks our side of every call, freed memory is filled with garbage
# so that their reads of it crash, and LeakSanitizer sees memory that libwebsockets allocated and
# never freed (a context torn down only halfway, say).
#
# Leak checking stays on. The suppressions cover only what the XCTest/Foundation harness leaks
# on Linux by itself (test discovery, test runs); each pattern names
# a function that never appears in a stack through the WebSocket client.
set -euo pipefail

cd "$(dirname "$0")/.."
scratch=.build-asan

suppressions=$(mktemp)
trap 'rm -f "$suppressions"' EXIT
cat >"$suppressions" <<'SUPPRESSIONS'
leak:6XCTest11XCTMainMisc
leak:6XCTest0A4CaseC4name11testClosure
leak:6XCTest0A7CaseRunC4test
leak:6XCTest0A8SuiteRunC
leak:6XCTest21awaitUsingExpectation
SUPPRESSIONS

# Freed memory is filled with garbage: libuv is not instrumented either, so a handle it still
# walks after libwebsockets freed it would otherwise read stale but intact data and pass.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:max_free_fill_size=1048576:free_fill_byte=190"
export LSAN_OPTIONS="suppressions=$suppressions:print_suppressions=0"
# ASan reports crashes itself; Swift's backtracer attaching to an ASan process can hang.
export SWIFT_BACKTRACE=enable=no

swift build --build-tests -c debug --sanitize=address --scratch-path "$scratch" -j 2
# The bundle runs directly, under the deadline `make asan` passes, as in `make unit`.
tests=$(swift test list --skip-build -c debug --sanitize=address --scratch-path "$scratch" \
  | grep WebSocket | paste -sd,)
${DEADLINE:-} "$scratch/debug/ComposableActorPackageTests.xctest" "$tests"
