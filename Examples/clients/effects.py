#!/usr/bin/env python3
"""Every effect of a short primes session, with the action that started it and how it ended,
from `run --trace effects` through the Python client.

    python3 Examples/clients/effects.py [--binary PATH]

Three nth-prime requests are sent; the second replaces the first while it runs (the store's
request is `cancellable(id:cancelInFlight:)`), and the favourites are saved to a file. The
binary is --binary, else $COMPOSABLE_ACTOR_BIN, else composable-actor on PATH, else
.build/release/composable-actor.
"""

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "clients/python")]
from composable_actor import Client, Line  # noqa: E402


def session(actor: Client) -> None:
    actor.send("primes", "counter.countChanged", value=1_000_000_000)
    actor.send("primes", "counter.nthPrimeButtonTapped")  # takes a while: replaced below
    actor.send("primes", "counter.countChanged", value=7)
    actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
    actor.send("primes", "primeModal.saveFavoritePrimeTapped")
    actor.send("primes", "favoritePrimes.saveButtonTapped", until="favoritePrimes.savedFavoritePrimes")


def table(lines: list[Line]) -> list[str]:
    """One row per effect: its number, operator and id, the action that started it, how it
    ended and when (milliseconds since the start)."""
    actions = {line["seq"]: line["action"]["type"] for line in lines if line["type"] == "action"}
    started: dict[int, Line] = {}
    rows = []
    for line in lines:
        if line["type"] != "effect":
            continue
        if line["event"] == "started":
            started[line["effect"]] = line
            continue
        start = started.pop(line["effect"])
        ending = line["event"]
        if "by" in line:
            by = line["by"]
            ending += f" ({by['reason']}" + (f" by {actions[by['seq']]}" if "seq" in by else "") + ")"
        if "error" in line:
            ending += f" ({line['error']})"
        name = line["operator"] + (f" {line['cancelID']}" if "cancelID" in line else "")
        rows.append(
            f"effect {line['effect']}: {name}, started by {actions[line['cause']]} at "
            f"{start['t']} ms, {ending} at {line['t']} ms"
        )
    rows += [f"effect {number}: still running" for number in started]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the composable-actor binary")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        with Client(arguments.binary, args=["--trace", "effects", "--data-dir", data]) as actor:
            session(actor)
        # Closed: the end of input let the last effects end, and their lines are in the backlog.
        lines = list(actor.backlog)
    for row in table(lines):
        print(row)


if __name__ == "__main__":
    main()
