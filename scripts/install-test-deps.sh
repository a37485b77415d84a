#!/usr/bin/env bash
# Installs what only the tests need: Python test peers, mypy and flit_core (to build the Python
# client's package offline) from PyPI, openssl for the test
# CA, Node for the Node client's tests (Debian's nodejs when no node is installed), tsc
# (Debian's node-typescript) to check the Node client's types, and headless Chromium with its
# driver (Debian's chromium and chromium-driver) and selenium to drive the timeline page
# (selenium is given the driver's path: it downloads nothing), PostgreSQL's server (Debian's
# postgresql), which the tests of --state-url start in a temporary folder, and Ray for the Python
# client's cluster (composable_actor.cluster, the `ray` extra), and the official MCP SDK (`mcp`), the
# client `composable-actor mcp` is tested with (below 3: its next major version may drop the
# subscriptions and log levels of the protocol version the server answers with).
set -euo pipefail
here=$(dirname "$0")
node=()
if ! command -v node >/dev/null; then node=(nodejs); fi
"$here/install-deps.sh" openssl node-typescript chromium chromium-driver postgresql "${node[@]}"
"$here/install-python-deps.sh" pytest pytest_timeout=pytest-timeout jsonschema jsonpatch \
  hypothesis websockets mypy flit_core=flit-core selenium ray "mcp=mcp<3"
