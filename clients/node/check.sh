#!/usr/bin/env bash
# Every check of the Node client, against the binary in $COMPOSABLE_ACTOR_BIN.
# TEST_STEP_SECONDS (600) bounds each step, as in the root Makefile.
set -euo pipefail
cd "$(dirname "$0")"
deadline=(stdbuf -oL -eL timeout --kill-after=10 "${TEST_STEP_SECONDS:-600}")
"${deadline[@]}" node --test test/
