#!/usr/bin/env python3
"""The primes store through the Python client, typed with the generated Examples/clients/types.

    python3 Examples/clients/typed_primes.py [--binary PATH]
    MYPYPATH=clients/python:Examples/clients/types python3 -m mypy --strict \\
        --follow-imports=silent Examples/clients/typed_primes.py

`stores.py` is what `composable-actor types --language python` writes (`make types`): mypy
checks every action this program sends against the actions a host may send the primes store,
and every member of the state it reads. The binary is --binary, else $COMPOSABLE_ACTOR_BIN,
else .build/release/composable-actor.
"""

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "clients/python"), str(ROOT / "Examples/clients/types")]
from composable_actor import Client  # noqa: E402
from stores import PrimesHostAction, PrimesState  # noqa: E402


def send(actor: Client, action: PrimesHostAction, *, settle: bool = False) -> None:
    """The client takes any mapping; this signature is what lets mypy check each action."""
    actor.send("primes", action, settle=settle)


def nth_prime(actor: Client, n: int) -> int:
    send(actor, {"type": "counter.countChanged", "value": n})
    # The prime is computed on the thread pool; settle=True waits until that is done.
    send(actor, {"type": "counter.nthPrimeButtonTapped"}, settle=True)
    state: PrimesState = actor.state("primes")
    alert = state["alertNthPrime"]  # PrimesStateAlertNthPrime | None: mypy asks for the check
    if alert is None:
        raise SystemExit(f"no prime number {n}: {state['alertNthPrimeFailure']}")
    return alert["prime"]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--binary", help="the composable-actor binary")
    options = parser.parse_args()
    # A throw-away data directory, so the example never touches your saved favourites.
    with tempfile.TemporaryDirectory() as data, Client(
        options.binary, ["--clock", "virtual", "--data-dir", data]
    ) as actor:
        for n in (7, 13):
            prime = nth_prime(actor, n)
            print(f"prime number {n} is {prime}")
            state: PrimesState = actor.state("primes")
            if state["isPrime"] and not state["isFavorite"]:
                send(actor, {"type": "primeModal.saveFavoritePrimeTapped"})
        favourites: list[int] = actor.state("primes")["favoritePrimes"]
        print("favourites:", favourites)


if __name__ == "__main__":
    main()
