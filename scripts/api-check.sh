#!/usr/bin/env bash
# Fails when the public API a store author's package compiles against breaks what the last
# release offered: api-check.sh, or api-check.sh --baseline to record a new release's API.
#
# api/RELEASE names the release: its tag and that tag's commit. api/baseline/COMMIT/ holds the
# API of each module at that commit (swift-api-digester's JSON), written once by --baseline, so
# a check builds only the current tree. A break made on purpose is listed, in the digester's
# exact words, in api/allowed-breaks.txt, until the next release's baseline makes it history.
set -euo pipefail
cd "$(dirname "$0")/.."
read -r tag commit < api/RELEASE
# The library products' modules. The modules they re-export (StateCollections, JSON, Protocol,
# the HTTP values) are no products, and the command compares products' modules only.
modules=(ComposableCore ComposableDependencies ComposableRuntime ComposableTestSupport
  ComposableActor)
if [ "${1:-}" = "--baseline" ]; then
  # Recording the baseline once left swift-syntax's objects (.o, .d, .dia, .swiftdeps) in the
  # working directory, so it runs from a scratch folder, not the checkout.
  root=$PWD
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  (cd "$scratch" && swift package --package-path "$root" diagnose-api-breaking-changes \
    "$commit" --baseline-dir "$root/api/baseline" --targets "${modules[@]}" \
    --regenerate-baseline)
  exit
fi
# The command reads a baseline from a folder named after the commit it is given. Given HEAD,
# with the release's baseline filed under HEAD's name, it needs no history: a shallow clone, or
# one without the tag, checks the same.
baseline=$(mktemp -d)
trap 'rm -rf "$baseline"' EXIT
cp -r "api/baseline/$commit" "$baseline/$(git rev-parse HEAD)"
echo "api-check: the public API against release $tag ($commit)"
swift package diagnose-api-breaking-changes HEAD --baseline-dir "$baseline" \
  --breakage-allowlist-path api/allowed-breaks.txt --targets "${modules[@]}"
