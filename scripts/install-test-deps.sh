#!/usr/bin/env bash
# Installs what only the tests need: Python test peers from PyPI, openssl for the test CA, and
# Node for the Node client's tests (Debian's nodejs when no node is installed).
set -euo pipefail
node=()
if ! command -v node >/dev/null; then node=(nodejs); fi
"$(dirname "$0")/install-deps.sh" openssl "${node[@]}"
if ! python3 -c "import pytest, pytest_timeout, jsonschema, jsonpatch, hypothesis, websockets" 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check \
    pytest pytest-timeout jsonschema jsonpatch hypothesis websockets
fi
