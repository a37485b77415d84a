#!/usr/bin/env python3
"""Sessions that outlive their process: counters of three users in `run --state-dir`, the
process killed with SIGKILL, a new one on the same folder, then one user forgotten and another's
history exported as a recording and replayed.

    python3 Examples/clients/durable.py [--binary PATH]

Prints what each step shows and exits 1 when a check fails. The binary is --binary, else
$COMPOSABLE_ACTOR_BIN, else composable-actor on PATH, else .build/release/composable-actor.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "clients/python")]
from composable_actor import Client  # noqa: E402

USERS = {"alice": 3, "bob": 2, "carol": 1}


def binary_path(given: str | None) -> str:
    """The binary the client would start, for the commands run beside it."""
    found = given or os.environ.get("COMPOSABLE_ACTOR_BIN") or shutil.which("composable-actor")
    return found or str(ROOT / ".build/release/composable-actor")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the composable-actor binary")
    binary = binary_path(parser.parse_args().binary)
    problems = []
    with tempfile.TemporaryDirectory() as work:
        args = ["--state-dir", f"{work}/state", "--data-dir", f"{work}/data"]
        first = Client(binary, args=args)
        for user, taps in USERS.items():
            for _ in range(taps):
                # Once this returns, the action's line was read: its change is stored.
                first.send("primes", "counter.incrTapped", instance=user)
        os.kill(first.pid, signal.SIGKILL)
        first.close()
        print(f"killed process {first.pid} after {sum(USERS.values())} taps")

        second = Client(binary, args=args)
        print("stored:", ", ".join(second.instances("primes")))
        for user, taps in USERS.items():
            # A new client mirrors an instance read back once it has its snapshot.
            count = second.snapshot("primes", instance=user)["count"]
            print(f"{user}: count {count}")
            if count != taps:
                problems.append(f"{user} came back with {count}, not {taps}")
        second.send("primes", "counter.incrTapped", instance="alice")
        second.forget("primes", "carol")
        print("after forgetting carol:", ", ".join(second.instances("primes")))
        if second.instances("primes") != ["alice", "bob"]:
            problems.append("carol was not forgotten")
        second.close()

        recording = f"{work}/alice.jsonl"
        subprocess.run(
            [binary, "export", "--state-dir", f"{work}/state", "--store", "primes",
             "--instance", "alice", "-o", recording],
            check=True)
        replayed = subprocess.run(
            [binary, "replay", recording], capture_output=True, text=True, check=True)
        print(replayed.stdout.strip().replace(recording, "alice's history"))
        if "4 actions replayed, every state matched" not in replayed.stdout:
            problems.append(f"the replay said: {replayed.stdout.strip()}")
    for problem in problems:
        print("problem:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
