#!/usr/bin/env bash
# The seed stores (Sources/Stores/*) and the example's store with its feature's tests
# type-check against the modules a debug build made, compiled as another package's code:
# `package` and `@_spi(Hosting)` declarations, the process's own parts, are out of their reach
# as out of any user's. (Inside this package they could see the `package` ones, so their own
# build proves nothing about the public API.)
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

# A store's feature (state, actions, reducer, the interfaces of its dependencies) type-checks
# with only the modules ComposableDependencies brings in reach: no loop, HTTP or WebSocket
# client, storage, nor the runtime.
loop_free=$(mktemp -d)
trap 'rm -rf "$loop_free"' EXIT
for module in "$bin"/Modules/*.swiftmodule; do
  case $(basename "$module" .swiftmodule) in
    EventLoop | Networking | Storage | ComposableRuntime | ComposableHarness | ComposableActor | \
      *Feature | *Definition | TodoList*) ;;
    *) ln -s "$module" "$loop_free/" ;;
  esac
done
feature_flags=(-swift-version 6 -parse-as-library -warnings-as-errors -package-name outside
  -I "$loop_free" "${macros[@]}")
check_feature() {
  local module=$1
  shift
  echo "==> $module, without the loop"
  swiftc -typecheck "${feature_flags[@]}" -module-name "$module" "$@"
}

# Each seed store: its feature (Sources/Stores/X) without the loop, its definition
# (Sources/Stores/XDefinition) against everything, importing the feature the build made.
for feature in Sources/Stores/*/; do
  store=$(basename "$feature")
  case $store in *Definition) continue ;; esac
  check_feature "${store}Feature" "$feature"*.swift
  check "${store}Definition" "Sources/Stores/${store}Definition/"*.swift
done

# The example's feature likewise, then its definition against the feature's module, emitted
# here: the framework's build does not make it.
example=Examples/custom-store/Sources
check_feature TodoListFeature "$example"/TodoListFeature/*.swift
swiftc -emit-module "${feature_flags[@]}" -module-name TodoListFeature \
  -emit-module-path "$loop_free/TodoListFeature.swiftmodule" "$example"/TodoListFeature/*.swift
check TodoListStore -I "$loop_free" "$example"/TodoListStore/*.swift
echo "==> TodoListFeatureTests, without the loop"
swiftc -typecheck "${feature_flags[@]}" -module-name TodoListFeatureTests \
  "$example"/../Tests/TodoListFeatureTests/*.swift
echo "public API: every store type-checks as another package's code, its feature without the loop"
