#!/usr/bin/env bash
# Fuzzes every way input reaches the product, each for a bounded time, with libFuzzer:
#   protocol   stdin lines through all four stores, seeded with Tests/FuzzCorpus
#   scenario   scenario files as `test` reads them, seeded with Examples/scenarios
#   recording  recordings as `replay` and `timeline` read and draw them and `replay
#              --to-scenario` turns them into scenarios, seeded with Examples/recordings
# Every target mutates with scripts/fuzz.dict: the ends of the number ranges files are read into.
# SECONDS (default 20) is each target's time. A crash leaves its input in fuzz-artifacts/: for
# the protocol target, copy it into Tests/FuzzCorpus so the end-to-end suite replays it forever
# after; for a file target, into Tests/FuzzFiles/<target>/ (created then), which seeds it too.
# `fuzz.sh --build-only` builds the fuzzer and stops (`make test` builds it beside the others).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
# A debug build, with the sanitizers in our own modules only (Package.swift reads
# COMPOSABLE_ACTOR_FUZZ): a release one runs about three times the inputs a second, but its build
# took longer than all the fuzzing `make test` does, compiling swift-syntax once more.
COMPOSABLE_ACTOR_FUZZ=1 swift build --scratch-path .build-fuzz --product fuzz
[[ $seconds != --build-only ]] || exit 0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"
mkdir -p fuzz-artifacts

# fuzz TARGET MAX_LEN SEED_DIR...: Tests/FuzzFiles/TARGET joins the seeds when it exists.
fuzz() {
  local target="$1" max_len="$2"
  shift 2
  mkdir -p "$work/$target"
  if [[ -d "Tests/FuzzFiles/$target" ]]; then set -- "$@" "Tests/FuzzFiles/$target"; fi
  echo "== $target"
  FUZZ_TARGET="$target" .build-fuzz/debug/fuzz -max_total_time="$seconds" -max_len="$max_len" \
    -dict=scripts/fuzz.dict -print_final_stats=1 -artifact_prefix="fuzz-artifacts/$target-" \
    "$work/$target" "$@" 2>&1 \
    | tail -n 12
}

fuzz protocol 4096 Tests/FuzzCorpus
fuzz scenario 16384 Examples/scenarios
fuzz recording 16384 Examples/recordings
