#!/usr/bin/env bash
# Fuzzes the input path (line → JSON → envelope → action → reducer → output) for a bounded time
# with libFuzzer, seeded with Tests/FuzzCorpus. A crash leaves its input in fuzz-artifacts/:
# copy it into Tests/FuzzCorpus so the end-to-end suite replays it forever after.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
# lld, because gold hits an internal error linking the sanitizer runtimes here.
swift build -c release --scratch-path .build-fuzz --product fuzz-protocol \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING \
  -Xswiftc -use-ld=lld
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p fuzz-artifacts
.build-fuzz/release/fuzz-protocol -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
  -artifact_prefix=fuzz-artifacts/ "$work" Tests/FuzzCorpus 2>&1 | tail -n 12
