#!/usr/bin/env python3
"""PrimeTime through the Python client: nth primes, favourites saved and loaded back.

    python3 Examples/clients/primes.py [path/to/composable-actor]

Without a path the client uses $COMPOSABLE_ACTOR_BIN, then .build/release/composable-actor.
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients/python"))
from composable_actor import Client  # noqa: E402


def main(binary: str | None) -> None:
    # A throw-away data directory, so the example never touches your saved favourites.
    with tempfile.TemporaryDirectory() as data, Client(binary, ["--data-dir", data]) as actor:
        for n in (7, 13, 100):
            actor.send("primes", "counter.countChanged", value=n)
            actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
            print(f"prime number {n} is {actor.state('primes')['alertNthPrime']['prime']}")
            if actor.state("primes")["isPrime"]:
                actor.send("primes", "primeModal.saveFavoritePrimeTapped")
        actor.send("primes", "favoritePrimes.saveButtonTapped", until="favoritePrimes.savedFavoritePrimes")
        actor.send("primes", "favoritePrimes.deleteFavoritePrimes", indices=[0])
        print("favourites after deleting the first:", actor.state("primes")["favoritePrimes"])
        actor.send("primes", "favoritePrimes.loadButtonTapped", until="favoritePrimes.loadedFavoritePrimes")
        state = actor.state("primes")
        print("favourites loaded back:", state["favoritePrimes"], f"({len(state['activityFeed'])} in the feed)")
        assert state == actor.snapshot("primes"), "the local mirror drifted from the process"


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
