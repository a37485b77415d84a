#!/usr/bin/env bash
# Every check of the Python client, against the binary in $COMPOSABLE_ACTOR_BIN (an absolute
# path): the tests, the types (mypy --strict over the package, Examples/clients/tour.py,
# Examples/clients/effects.py and Examples/custom-store/users.py), and the package as pip
# installs it, driving the binary found on PATH.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
root=$(cd ../.. && pwd)
binary=${COMPOSABLE_ACTOR_BIN:?set COMPOSABLE_ACTOR_BIN to the composable-actor binary}
binary=$(realpath "$binary")

echo "== pytest" >&2
python3 -m pytest -q tests

echo "== Examples/clients/many_callers.py: concurrent callers over one process" >&2
python3 ../../Examples/clients/many_callers.py --binary "$binary" --callers 20

echo "== mypy --strict" >&2
# The example imports the client and the test peers through sys.path: mypy gets them by MYPYPATH.
(cd "$root" && MYPYPATH=clients/python:Tests/servers python3 -m mypy --strict --no-incremental \
  clients/python/composable_actor Examples/clients/tour.py Examples/clients/effects.py Examples/clients/durable.py \
  Examples/clients/cluster.py Examples/clients/many_callers.py \
  Examples/custom-store/users.py)

echo "== pip install into a fresh virtual environment" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --disable-pip-version-check --quiet)
# The wheel is built from the checkout by the test environment's own flit_core (make test
# installs it), then installed into the fresh environment from the file: no index is needed.
# Building must leave the checkout as it was (no build/, no *.egg-info).
before=$(find "$here" -path "$here/tests" -prune -o -print | grep -v __pycache__ | sort)
timeout 120 python3 -m pip wheel --disable-pip-version-check --quiet --no-index \
  --no-build-isolation --no-deps --wheel-dir "$work/dist" "$here"
after=$(find "$here" -path "$here/tests" -prune -o -print | grep -v __pycache__ | sort)
if [ "$before" != "$after" ]; then
  echo "building the package changed the checkout:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
timeout 120 "${pip[@]}" install --no-index --no-deps "$work"/dist/composable_actor-*.whl

# Outside the repository, with the binary only on PATH.
mkdir "$work/bin" "$work/outside"
ln -s "$binary" "$work/bin/composable-actor"
cat >"$work/outside/drive.py" <<'EOF'
import asyncio
import os
import sys

import composable_actor
from composable_actor import AsyncClient, Client, find_binary

venv, bin_dir = sys.argv[1:]
assert composable_actor.__file__.startswith(venv), composable_actor.__file__
assert find_binary() == os.path.join(bin_dir, "composable-actor"), find_binary()
with Client(args=["--data-dir", "data"]) as actor:
    actor.send("primes", "counter.countChanged", value=7)
    actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
    assert actor.state("primes")["alertNthPrime"] == {"n": 7, "prime": 17}


async def main() -> None:
    async with AsyncClient(args=["--data-dir", "data"]) as actor:
        lines = await actor.send("primes", "counter.incrTapped")
        assert actor.state("primes")["count"] == 1 == lines[0]["patch"][0]["value"]


asyncio.run(main())
print("the installed package drove", find_binary())
EOF
# The installed package carries its types (py.typed): mypy --strict checks a program against it.
cat >"$work/outside/typed.py" <<'EOF'
from composable_actor import Client, Line


def count(actor: Client) -> int:
    line: Line = actor.send("primes", "counter.incrTapped")[0]
    value: int = line["patch"][0]["value"]
    return value
EOF
(
  cd "$work/outside"
  env -u COMPOSABLE_ACTOR_BIN -u PYTHONPATH PATH="$work/bin:/usr/bin:/bin" \
    timeout 60 "$work/venv/bin/python" drive.py "$work/venv" "$work/bin"
  python3 -m mypy --strict --no-incremental --python-executable "$work/venv/bin/python" typed.py
)
