#!/usr/bin/env bash
# Every check of the example: builds the package and its tests, runs the reducer tests, the
# scenario file, a bounded simulation, the Python client against the fixture server, the patch
# property test, a recorded sync turned into a scenario, element actions through the binary,
# the Node client, and 500 users as instances. Exits non-zero on any failure. TEST_STEP_SECONDS (600) bounds
# each step, as in the root Makefile.
set -euo pipefail
cd "$(dirname "$0")"
SWIFT=${SWIFT:-swift}
deadline=(stdbuf -oL -eL timeout --kill-after=10 "${TEST_STEP_SECONDS:-600}")

step() { echo "==> $*"; }

# SwiftPM plans the targets of a package it depends on by path once: a file added to the
# framework since is left out of the build ("cannot find 'X' in scope"). Build from scratch
# when the framework's list of files changed.
files=$(cd ../.. && find Sources Package.swift -type f | sort | md5sum)
if [ -e .build/framework-files ] && [ "$(cat .build/framework-files)" != "$files" ]; then
  echo "==> the framework's files changed since the last build: building from scratch"
  rm -rf .build
fi
step "swift build --build-tests"
"$SWIFT" build --build-tests
echo "$files" > .build/framework-files
# `run-checks.sh --build-only` stops here (the root `make test` builds this beside the others).
[[ ${1:-} != --build-only ]] || exit 0
bin=$("$SWIFT" build --show-bin-path)

# Run directly rather than through `swift test`, which would start the bundle in a process
# group of its own, out of the deadline's reach.
step "reducer tests"
"${deadline[@]}" "$bin/TodoActorPackageTests.xctest"

step "todo-actor test scenarios/todos.jsonl"
"${deadline[@]}" "$bin/todo-actor" test scenarios/todos.jsonl

# The framework's simulation on this store: generated actions (element actions on ids the
# list holds), clock advances and HTTP faults, every invariant checked after each step.
step "todo-actor simulate --seed 1 --steps 500; --seed 2"
"${deadline[@]}" "$bin/todo-actor" simulate --seed 1 --steps 500 --check 'length(/todos) <= 1000'
"${deadline[@]}" "$bin/todo-actor" simulate --seed 2 --steps 500

step "python3 client.py --binary $bin/todo-actor"
"${deadline[@]}" python3 client.py --binary "$bin/todo-actor"

step "python3 -m pytest test_patch_properties.py test_recorded_sync.py test_element_actions.py"
TODO_ACTOR="$bin/todo-actor" "${deadline[@]}" python3 -m pytest -q test_patch_properties.py \
  test_recorded_sync.py test_element_actions.py -p no:cacheprovider
rm -rf .hypothesis

step "node client.mjs --binary $bin/todo-actor"
"${deadline[@]}" node client.mjs --binary "$bin/todo-actor"

# 500 users keep the step quick; the count it prints must be theirs.
step "python3 users.py --binary $bin/todo-actor --users 500"
"${deadline[@]}" python3 users.py --binary "$bin/todo-actor" --users 500 | tee .build/users.out
grep -qx "instances: 500" .build/users.out

echo "==> every check passed"
