#!/usr/bin/env bash
# Every check of the Python client, against the binary in $COMPOSABLE_ACTOR_BIN.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pytest -q tests
