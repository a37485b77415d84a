#!/usr/bin/env bash
# The seed stores (Sources/Stores/*) and the example's store with its tests type-check against
# the modules a debug build made, compiled as another package's code: `package` declarations,
# the process's own parts, are out of their reach as out of any user's. (Inside this package
# they could see them, so their own build proves nothing about the public API.)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
bin=$("$SWIFT" build --show-bin-path)
# The action enums' macro runs as the compiler plugin the build made.
macros=(-load-plugin-executable "$bin/ComposableMacros-tool#ComposableMacros")
flags=(-typecheck -swift-version 6 -parse-as-library -warnings-as-errors -package-name outside
  -I "$bin/Modules" "${macros[@]}")
for map in "$bin"/*.build/module.modulemap Sources/C*/module.modulemap; do
  # The build machine's copies, made for a compiler plugin, define the same modules.
  case $map in *-tool.build/*) continue ;; esac
  flags+=(-Xcc "-fmodule-map-file=$map")
done
for include in Sources/C*/include; do flags+=(-Xcc -I -Xcc "$include"); done

check() {
  local module=$1
  shift
  echo "==> $module"
  swiftc "${flags[@]}" -module-name "$module" "$@"
}
for store in Sources/Stores/*/; do
  check "$(basename "$store")Feature" "$store"*.swift
done
example=Examples/custom-store
check TodoListStore "$example"/Sources/TodoListStore/*.swift

# A store's feature (the files that do not import the runtime: state, actions, reducer, the
# interfaces of its dependencies) type-checks with only the modules ComposableDependencies
# brings in reach: no loop, HTTP or WebSocket client, storage, nor the runtime.
loop_free=$(mktemp -d)
trap 'rm -rf "$loop_free"' EXIT
for module in "$bin"/Modules/*.swiftmodule; do
  case $(basename "$module" .swiftmodule) in
    EventLoop | Networking | Storage | ComposableRuntime | ComposableHarness | ComposableActor | \
      *Feature) ;;
    *) ln -s "$module" "$loop_free/" ;;
  esac
done
for store in Sources/Stores/*/; do
  mapfile -t feature < <(grep -L '^import ComposableRuntime$' "$store"*.swift)
  echo "==> $(basename "$store")Feature without the loop: ${#feature[@]} files"
  swiftc -typecheck -swift-version 6 -parse-as-library -warnings-as-errors \
    -package-name outside -I "$loop_free" "${macros[@]}" -module-name "$(basename "$store")Feature" \
    "${feature[@]}"
done
echo "public API: every store type-checks as another package's code, its feature without the loop"
