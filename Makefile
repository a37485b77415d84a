# The two commands of the README: `make demo` (install, build, run an example) and `make test`.
SWIFT ?= swift
# The shipped binary links the Swift runtime (and libstdc++, when the machine has its archive)
# statically: it starts faster (see bench/ and scripts/static-cxx.sh). It is linked at a fixed
# address (-no-pie): a position-independent one had 48,000 relocations to apply at every start,
# which wrote to (and copied) 107 of its pages, a fifth of an empty run's time. Libraries, the
# stack and the heap are still placed at random.
RELEASE_FLAGS := -c release --static-swift-stdlib $(shell scripts/static-cxx.sh) \
  -Xswiftc -Xclang-linker -Xswiftc -no-pie
BIN := .build/release/composable-actor
FUZZ_SECONDS ?= 20
TEST_STEP_SECONDS ?= 600
## A test step that hangs fails within minutes instead of holding CI, and line-buffered output
## ends with the test that hung. (The pytest runs have a per-test timeout of their own.)
DEADLINE := stdbuf -oL -eL timeout --kill-after=10 $(TEST_STEP_SECONDS)

.PHONY: demo demo-deps build deps test test-deps test-builds release-then-debug-build unit \
  unit-build api-check e2e clients example example-build asan asan-build tsan fuzz fuzz-build \
  bench schemas types format docs docs-check

demo: build demo-deps
	scripts/demo.sh $(BIN)

## The demo's WebSocket echo server (Tests/servers/ws_servers.py) runs on the websockets package.
demo-deps:
	scripts/install-python-deps.sh websockets

deps:
	scripts/install-deps.sh

## From scratch when a source changed: see scripts/release-build.sh.
build: deps
	SWIFT=$(SWIFT) scripts/release-build.sh . composable-actor $(RELEASE_FLAGS)

test-deps:
	scripts/install-test-deps.sh

## Every test: Swift unit tests, a bounded fuzz run, end-to-end tests through the release binary,
## the Python and Node clients' tests (each suite in its own run: they have their own settings),
## the package outside the framework that hosts a store of its own, the API documentation with
## its warnings as errors, and AddressSanitizer over the WebSocket client's unit tests and the
## whole end-to-end suite (scripts/asan.sh). The builds come first, side by side (test-builds).
test: test-deps test-builds
	$(MAKE) unit api-check docs-check fuzz e2e clients example asan

## The five builds the tests run, each from scratch on a new clone: the release binary, the debug
## tree with the tests, the fuzzer, the sanitized tree and the example's package. One after
## another they took over an hour on two cores, much of it in one compiler process at a time
## (swift-syntax's, each module's whole-module optimization) with the other core idle. Three at
## a time keep both busy. The release build is the long chain of single compiler processes: it
## starts first, and the debug builds of the fuzzer, the sanitized tree and the example run at a
## lower priority, taking the idle core rather than its share. The release and debug builds
## share .build, whose lock would run them in turn anyway: the release one first.
test-builds: deps
	$(MAKE) -j3 --output-sync=target release-then-debug-build fuzz-build asan-build example-build \
	  BACKGROUND="nice -n 10"

release-then-debug-build: build
	$(MAKE) unit-build

## The stores type-check as another package's code (scripts/check-public-api.sh): they use only
## the public API. The test bundle runs directly because `swift test` would start it in a
## process group of its own, out of the deadline's reach.
unit: unit-build
	SWIFT=$(SWIFT) scripts/check-public-api.sh
	$(DEADLINE) "$$($(SWIFT) build --show-bin-path)/ComposableActorPackageTests.xctest"

unit-build:
	$(SWIFT) build --build-tests

## The library products' public API against the last release's (api/RELEASE), kept in
## api/baseline: a break fails unless api/allowed-breaks.txt lists it (scripts/api-check.sh).
api-check:
	$(DEADLINE) scripts/api-check.sh

## The API reference and its articles (Sources/*/*.docc) for the modules a store is written
## against, as one archive whose pages link across them; the plugin prints where it is
## (.build/plugins/Swift-DocC/outputs/). `make test` builds it with warnings as errors, so a
## broken symbol link fails the suite.
DOCC_TARGETS := StateCollections ComposableCore ComposableTestSupport ComposableDependencies \
  ComposableRuntime
DOCC := $(SWIFT) package --disable-sandbox generate-documentation \
  --enable-experimental-combined-documentation $(addprefix --target ,$(DOCC_TARGETS))
## The runtime's modules need the C libraries' headers, which `deps` installs.
docs: deps
	$(DOCC)

docs-check:
	$(DEADLINE) $(DOCC) --warnings-as-errors

## Tests/planted-stores: the test-only binary whose store crashes, for test_simulate_crash.py.
## The slowest tests are listed at the end: CI has 90 minutes for all of `make test`.
e2e:
	$(SWIFT) build --product planted-stores
	PLANTED_STORES_BIN="$$($(SWIFT) build --show-bin-path)/planted-stores" \
	  COMPOSABLE_ACTOR_BIN=$(BIN) python3 -m pytest -q --durations=15 Tests/e2e

## Each client's checks (tests, types, packaging) are its own script.
clients:
	COMPOSABLE_ACTOR_BIN=$(abspath $(BIN)) clients/python/check.sh
	COMPOSABLE_ACTOR_BIN=$(abspath $(BIN)) TEST_STEP_SECONDS=$(TEST_STEP_SECONDS) clients/node/check.sh

## Examples/custom-store: its own package and binary, built against this one by path; its
## reducer tests, its scenario file through its binary's `test`, and its Python program.
example-build:
	$(BACKGROUND) Examples/custom-store/run-checks.sh --build-only

example:
	TEST_STEP_SECONDS=$(TEST_STEP_SECONDS) Examples/custom-store/run-checks.sh

## The end-to-end suite takes several times longer through the sanitized debug binary.
asan:
	DEADLINE="$(DEADLINE)" E2E_DEADLINE="stdbuf -oL -eL timeout --kill-after=10 $$(( 3 * $(TEST_STEP_SECONDS) ))" scripts/asan.sh

asan-build:
	$(BACKGROUND) scripts/asan.sh --build-only

## Not part of `make test`: ThreadSanitizer over the end-to-end tests of the loop, HTTP and
## WebSocket (about a minute and a half after a 10-minute first build).
TSAN_TESTS := $(addprefix Tests/e2e/test_,websocket.py websocket_conformance.py random_todo.py \
  votes.py primes.py lifecycle.py stdin.py virtual_clock.py protocol.py)
tsan:
	$(SWIFT) build -c debug --sanitize=thread --scratch-path .build-tsan -j 2 --product composable-actor
	TSAN_OPTIONS=halt_on_error=0 scripts/sanitized-e2e.sh thread .build-tsan/debug/composable-actor $(TSAN_TESTS)

fuzz-build:
	$(BACKGROUND) scripts/fuzz.sh --build-only

fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

TODO_ACTOR := Examples/custom-store/.build/release/todo-actor
## The scaling table comes last: each store's cost per action at growing state sizes,
## in CPU time and in callgrind's instructions (5 to 10 minutes). SCALING_ARGS passes options
## (`python3 bench/scaling.py --help`), e.g. "--budget 300"; the figures also go to SCALING_JSON.
SCALING_JSON ?= .build/bench-scaling.json
SCALING_ARGS ?=

## postgres.py and cluster.py start a throwaway PostgreSQL (and cluster.py a local Ray cluster):
## `make test-deps` installs both.
bench: build test-deps
	$(SWIFT) build -c release --product http-bench
	$(SWIFT) build -c release --product ws-bench
	SWIFT=$(SWIFT) scripts/release-build.sh Examples/custom-store todo-actor $(RELEASE_FLAGS)
	python3 bench/run.py --binary $(BIN) --http-bench .build/release/http-bench --ws-bench .build/release/ws-bench \
	  --todo-actor $(TODO_ACTOR)
	python3 bench/client_latency.py $(BIN)
	python3 bench/client_overhead.py $(BIN)
	python3 bench/mcp_calls.py --actor $(BIN)
	python3 bench/instances.py --actor $(BIN) --todo-actor $(TODO_ACTOR)
	python3 bench/durability.py --actor $(BIN)
	python3 bench/postgres.py --actor $(BIN)
	python3 bench/cluster.py --actor $(BIN)
	python3 bench/scaling.py --actor $(BIN) --todo-actor $(TODO_ACTOR) --json $(SCALING_JSON) $(SCALING_ARGS)
	$(SWIFT) build --build-tests
	python3 bench/simulate.py --actor $(BIN) --todo-actor $(TODO_ACTOR) \
	  --tests "$$($(SWIFT) build --show-bin-path)/ComposableActorPackageTests.xctest" \
	  --planted "$$($(SWIFT) build --show-bin-path)/planted-stores"

## Regenerates schemas/stores from the stores' descriptors (a test checks they match).
schemas: build
	$(BIN) schemas --output schemas/stores
	for file in schemas/stores/*.json; do python3 -m json.tool --indent 2 "$$file" "$$file.tmp" && mv "$$file.tmp" "$$file"; done

## Regenerates the stores' Python and TypeScript types in Examples/clients/types (a test checks
## they match).
types: build
	$(BIN) types --language python --output Examples/clients/types/stores.py
	$(BIN) types --language typescript --output Examples/clients/types/stores.d.ts

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift
