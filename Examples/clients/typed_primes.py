#!/usr/bin/env python3
"""The primes store through the Python client, typed with the generated Examples/clients/types.

    python3 Examples/clients/typed_primes.py [--binary PATH]
    MYPYPATH=clients/python:Examples/clients/types python3 -m mypy --strict \\
        --follow-imports=silent Examples/clients/typed_primes.py

`stores.py` is what `composable-actor types --language python` writes (`make types`). Its
`store(actor, "primes")` is a typed view of the client's primes store: mypy checks the store's
name, every action this program sends against the actions a host may send it, every member of
the state it reads, and the lines it gets back, narrowed by their `type`. The binary is
--binary, else $COMPOSABLE_ACTOR_BIN, else .build/release/composable-actor.
"""

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "clients/python"), str(ROOT / "Examples/clients/types")]
from composable_actor import AsyncClient, Client  # noqa: E402
from stores import PrimesAction, store  # noqa: E402


def nth_prime(actor: Client, n: int) -> int:
    primes = store(actor, "primes")
    primes.send({"type": "counter.countChanged", "value": n})
    # The prime is computed on the thread pool; settle=True waits until that is done.
    primes.send({"type": "counter.nthPrimeButtonTapped"}, settle=True)
    state = primes.state()
    alert = state["alertNthPrime"]  # PrimesStateAlertNthPrime | None: mypy asks for the check
    if alert is None:
        raise SystemExit(f"no prime number {n}: {state['alertNthPrimeFailure']}")
    return alert["prime"]


async def count_to(actor: AsyncClient, n: int) -> list[PrimesAction]:
    """The asyncio client's view: the same types, awaited."""
    primes = store(actor, "primes")
    actions: list[PrimesAction] = []
    for _ in range(n):
        for line in await primes.send({"type": "counter.incrTapped"}):
            if line["type"] == "action":  # narrowed: an ActionLine, whose action is a PrimesAction
                actions.append(line["action"])
    return actions


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--binary", help="the composable-actor binary")
    options = parser.parse_args()
    # A throw-away data directory, so the example never touches your saved favourites.
    with tempfile.TemporaryDirectory() as data:
        arguments = ["--clock", "virtual", "--data-dir", data]
        with Client(options.binary, arguments) as actor:
            primes = store(actor, "primes")
            for n in (7, 13):
                prime = nth_prime(actor, n)
                print(f"prime number {n} is {prime}")
                state = primes.state()
                if state["isPrime"] and not state["isFavorite"]:
                    primes.send({"type": "primeModal.saveFavoritePrimeTapped"})
            print("favourites:", primes.state()["favoritePrimes"])

        async def counted() -> list[PrimesAction]:
            async with AsyncClient(options.binary, arguments) as actor:
                return await count_to(actor, 3)

        print("actions:", [action["type"] for action in asyncio.run(counted())])


if __name__ == "__main__":
    main()
