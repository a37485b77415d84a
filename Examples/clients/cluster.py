#!/usr/bin/env python3
"""composable-actor processes on a Ray cluster (composable_actor.cluster): two processes sharing
one PostgreSQL database, counters of 100 users sent through them, a third process added, and
where each user lives before and after.

    python3 Examples/clients/cluster.py [--url postgresql://...] [--binary PATH] [--address RAY]

Without --url it starts a throwaway PostgreSQL server (Tests/servers/postgres_server.py, Debian's
postgresql package); --folder uses a state folder per process instead (nothing shared: an
instance that moves starts afresh). Without --address Ray starts on this machine. Needs the
`ray` extra (pip install 'clients/python[ray]'). Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "clients/python"), str(ROOT / "Tests/servers")]
from composable_actor.cluster import ActorCluster  # noqa: E402

USERS = [f"user-{n}" for n in range(100)]


@contextlib.contextmanager
def storage(url: str | None, folder: bool) -> Iterator[str]:
    if url:
        yield url
    elif folder:
        with tempfile.TemporaryDirectory() as work:
            yield work
    else:
        from postgres_server import PostgresServer

        with PostgresServer() as server:
            yield server.url


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--url", help="a PostgreSQL URL (else a throwaway server)")
    parser.add_argument("--folder", action="store_true", help="a state folder per process instead of PostgreSQL")
    parser.add_argument("--binary", help="the composable-actor binary (it must take --state-url)")
    parser.add_argument("--address", help="a running Ray cluster (else one starts here)")
    options = parser.parse_args()
    binary = options.binary or os.environ.get("COMPOSABLE_ACTOR_BIN")
    problems = []
    with storage(options.url, options.folder) as where:
        began = time.monotonic()
        with ActorCluster(binary=binary, processes=2, storage=where, address=options.address) as cluster:
            print(f"{len(cluster.processes)} processes up in {time.monotonic() - began:.1f} s: {cluster.processes}")
            began = time.monotonic()
            for round in range(3):
                for user in USERS:
                    cluster.send("primes", "counter.incrTapped", instance=user)
            print(f"300 sends to 100 users in {time.monotonic() - began:.2f} s")
            before = {user: cluster.owner("primes", user) for user in USERS}
            print("users per process:", dict(sorted(collections.Counter(before.values()).items())))
            added = cluster.add_process()
            after = {user: cluster.owner("primes", user) for user in USERS}
            moved = [user for user in USERS if after[user] != before[user]]
            print(f"added {added}: {len(moved)} users moved to it, the others stayed;",
                  "users per process:", dict(sorted(collections.Counter(after.values()).items())))
            for user in USERS:
                cluster.send("primes", "counter.incrTapped", instance=user)
            counts = collections.Counter(cluster.state("primes", instance=user)["count"] for user in USERS)
            print("counts after one more tap each:", dict(counts))
            expected = 4 if not options.folder else None
            if expected is not None and counts != {expected: len(USERS)}:
                problems.append(f"every user should count {expected}, got {dict(counts)}")
            if any(after[user] != added for user in moved):
                problems.append("a user moved to a process other than the new one")
            print(f"{moved[0] if moved else '-'} lives in {after[moved[0]] if moved else '-'}; "
                  f"{USERS[0]} lives in {after[USERS[0]]}")
    for problem in problems:
        print("FAILED:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
