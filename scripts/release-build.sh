#!/usr/bin/env bash
# Builds a release product of a package, its own modules from scratch when a source changed
# since its last build: release-build.sh PACKAGE_DIR PRODUCT [swift build options...]
#
# Package.swift turns on cross-module optimization, which copies the core's generic code into
# the modules that use it. SwiftPM's incremental build does not recompile those modules when
# only a function body changed, so a release binary built over an older one can mix old and new
# code: a fix to `Store.cancel(id:)` did not reach the primes store's specialization of it, and
# callgrind measured the old code. Benchmarks and tests must run what the sources say.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
package=$1
product=$2
shift 2
swift=${SWIFT:-swift}
bin=$("$swift" build --package-path "$package" "$@" --show-bin-path)
stamp="$bin/.built-from-sources"
# The API docs' articles (*.docc) are no part of a binary.
if [ -e "$stamp" ] && [ -n "$(find "$root/Sources" "$root/Package.swift" "$package/Sources" \
  "$package/Package.swift" -newer "$stamp" -not -path '*.docc/*' -print -quit)" ]; then
  echo "release-build: sources changed since the last build; building $product's own modules from scratch" >&2
  # Only this repository's and the package's modules: dependencies (swift-syntax takes minutes
  # in release) never change under it, and nothing of ours is inlined into them.
  for dir in "$root" "$package"; do
    for target in $("$swift" package --package-path "$dir" dump-package | python3 -c \
      'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin)["targets"]))'); do
      # An executable's module is named with `_` for `-` (composable-actor: composable_actor).
      module=${target//-/_}
      rm -rf "$bin/$module.build" "$bin/$module-tool.build" "$bin/Modules/$module".* \
        "$bin/Modules-tool/$module".*
    done
  done
  # A package that depends on the framework by path keeps its plan of the framework's targets
  # (its build description), which leaves out files added since (see
  # Examples/custom-store/run-checks.sh): planned again, without rebuilding its dependencies.
  rm -f "$bin/description.json"
fi
"$swift" build --package-path "$package" "$@" --product "$product"
touch "$stamp"
