#!/usr/bin/env bash
# Fails when the public API a store author's package compiles against breaks what the last
# release offered: api-check.sh, or api-check.sh --baseline to record a new release's API.
#
# api/RELEASE names the release: its tag and that tag's commit. api/baseline/COMMIT/ holds the
# API of each module at that commit (swift-api-digester's JSON), written once by --baseline, so
# a check builds only the current tree, and works in a clone without the tag (the commit must be
# there). A break made on purpose is listed, with the digester's exact words, in
# api/allowed-breaks.txt, until the next release's baseline makes it history.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r tag commit < api/RELEASE
if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
  echo "api-check: commit $commit of release $tag is not in this clone (a shallow clone?)" >&2
  exit 1
fi
# The library products' modules. The modules they re-export (StateCollections, JSON, Protocol,
# the HTTP values) are no products, and the command compares products' modules only.
modules=(ComposableCore ComposableDependencies ComposableRuntime ComposableTestSupport
  ComposableActor)
regenerate=()
if [ "${1:-}" = "--baseline" ]; then regenerate=(--regenerate-baseline); fi
swift package diagnose-api-breaking-changes "$commit" --baseline-dir api/baseline \
  --breakage-allowlist-path api/allowed-breaks.txt --targets "${modules[@]}" "${regenerate[@]}"
