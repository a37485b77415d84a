#!/usr/bin/env bash
# Installs what only the tests need: Python test peers from PyPI, and openssl for the test CA.
set -euo pipefail
"$(dirname "$0")/install-deps.sh" openssl
if ! python3 -c "import pytest, pytest_timeout, jsonschema, jsonpatch, hypothesis, websockets" 2>/dev/null; then
  python3 -m pip install --quiet --disable-pip-version-check \
    pytest pytest-timeout jsonschema jsonpatch hypothesis websockets
fi
