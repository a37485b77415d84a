#!/usr/bin/env python3
"""Prints what keeping instances in PostgreSQL (`run --state-url`) costs, against memory only and
against SQLite (`--state-dir`, `--fsync batch`), in one run: counter taps per second piped in
(one commit per loop iteration, so a burst shares its round trip), one action at a time (one
round trip per action: the latency a waiting host sees), resuming an instance, start-up, and
handing instances from one process to another (stop on one, first action on the other), as
rebalancing a cluster does.

The server is a throwaway one (Tests/servers/postgres_server.py) on this machine, over TCP on
127.0.0.1, with fsync off: the figures are the product's and the protocol's, not a disk's.
Figures, not pass/fail.
"""

import argparse
import functools
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
print = functools.partial(print, flush=True)  # noqa: A001 (each figure as soon as it is measured)
sys.path.insert(0, str(ROOT / "Tests/servers"))
from postgres_server import PostgresServer  # noqa: E402

# The counter lines and the timed piped run are durability.py's, which this compares against.
from durability import incr, lines, run as piped  # noqa: E402


def encode(message) -> bytes:
    return lines([message])


class Process:
    """A running binary spoken to one line at a time."""

    def __init__(self, binary, *args):
        self.process = subprocess.Popen(
            [binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b""
        self.read()

    def read(self) -> dict:
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], 30)
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                raise SystemExit(f"no line: {self.process.stderr.read().decode()}")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def ask(self, message) -> dict:
        self.process.stdin.write(encode(message))
        self.process.stdin.flush()
        return self.read()

    def burst(self, messages) -> list[dict]:
        """Sends `messages` in chunks, reading each chunk's lines before the next: writing them
        all first would fill both pipes (the process stops reading while its output waits)."""
        answers = []
        for start in range(0, len(messages), 256):
            chunk = messages[start:start + 256]
            self.process.stdin.write(b"".join(encode(message) for message in chunk))
            self.process.stdin.flush()
            answers += [self.read() for _ in chunk]
        return answers

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def throughput(binary, server, work, count, repeats):
    data = b"".join(encode(incr()) for _ in range(count))
    spread = b"".join(encode(incr(f"user-{n % 100}")) for n in range(count))
    print(f"\n## Counter taps per second ({count:,} piped in; median of {repeats})")
    print("| run | default instance | 100 named instances, round robin |")
    print("|---|---|---|")
    base = None
    for label in ("in memory", "--state-dir (SQLite, --fsync batch)", "--state-url (PostgreSQL)"):
        rates = []
        for payload in (data, spread):
            times = []
            for attempt in range(repeats):
                args = ["--data-dir", str(work / "data")]
                if label.startswith("--state-dir"):
                    args += ["--state-dir", str(work / f"state-{attempt}-{len(rates)}")]
                elif label.startswith("--state-url"):
                    server.psql("DROP SCHEMA IF EXISTS composable_actor CASCADE")
                    args += ["--state-url", server.url, "--process-id", "bench"]
                times.append(piped(binary, payload, *args))
            rates.append(count / statistics.median(times))
        base = base or rates
        ratios = [rate / first for rate, first in zip(rates, base)]
        print(f"| {label} | {rates[0]:,.0f}/s ({ratios[0]:.2f}×) | {rates[1]:,.0f}/s "
              f"({ratios[1]:.2f}×) |")


def round_trips(binary, server, work, count):
    print(f"\n## One action at a time ({count:,} sends, each waiting for its line)")
    print("| run | median | p99 |")
    print("|---|---|---|")
    for label in ("in memory", "--state-dir (SQLite, --fsync batch)", "--state-url (PostgreSQL)"):
        args = ["--data-dir", str(work / "data")]
        if label.startswith("--state-dir"):
            args += ["--state-dir", str(work / "round-trips")]
        elif label.startswith("--state-url"):
            args += ["--state-url", server.url, "--process-id", "bench"]
        process = Process(binary, *args)
        samples = []
        for n in range(count):
            start = time.perf_counter()
            process.ask(incr("k"))
            samples.append(time.perf_counter() - start)
        process.close()
        samples.sort()
        print(f"| {label} | {samples[len(samples) // 2] * 1e6:.0f} µs | "
              f"{samples[int(len(samples) * 0.99)] * 1e6:.0f} µs |")


def store_instances(binary, server, work, count):
    server.psql("DROP SCHEMA IF EXISTS composable_actor CASCADE")
    data = b"".join(encode(incr(f"user-{n}")) for n in range(count))
    piped(binary, data, "--data-dir", str(work / "data"), "--state-url", server.url,
          "--process-id", "writer")


def resume(binary, server, work, count):
    store_instances(binary, server, work, count)
    args = ["--data-dir", str(work / "data"), "--state-url", server.url, "--process-id", "reader"]
    stored = b"".join(
        encode({"cmd": "snapshot", "store": "primes", "instance": f"user-{n}"}) for n in range(count))
    fresh = b"".join(
        encode({"cmd": "snapshot", "store": "primes", "instance": f"new-{n}"}) for n in range(count))
    stored_seconds = min(piped(binary, stored, *args) for _ in range(3))
    fresh_seconds = min(piped(binary, fresh, *args) for _ in range(3))
    print(f"\n## Resuming an instance\n{count:,} snapshots of stored instances in a new process: "
          f"{stored_seconds * 1e6 / count:.0f} µs each; of new ones (a claim, nothing to read): "
          f"{fresh_seconds * 1e6 / count:.0f} µs each")


def start_up(binary, server, work, repeats):
    def ready(*args):
        start = time.perf_counter()
        process = subprocess.Popen([binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        process.stdout.readline()
        elapsed = time.perf_counter() - start
        process.stdin.close()
        process.wait()
        return elapsed

    data = ["--data-dir", str(work / "data")]
    memory = statistics.median(ready(*data) for _ in range(repeats))
    database = statistics.median(
        ready(*data, "--state-url", server.url, "--process-id", "start") for _ in range(repeats))
    print(f"\n## Start-up to the ready line (median of {repeats})\n- in memory: {memory * 1e3:.2f} ms"
          f"\n- --state-url (connect, check the tables, start the process): {database * 1e3:.2f} ms")


def handover(binary, server, work, count):
    """Process A holds `count` instances; each is stopped there and its next action goes to B,
    as rebalancing onto a new process does it, in one burst each way."""
    store_instances(binary, server, work, count)
    args = ["--data-dir", str(work / "data"), "--state-url", server.url]
    # Past --max-active (1,024 by default) idle instances would leave memory, released already.
    old = Process(binary, *args, "--process-id", "old", "--max-active", str(count))
    new = Process(binary, *args, "--process-id", "new")
    keys = [f"user-{n}" for n in range(count)]
    old.burst([incr(key) for key in keys])
    start = time.perf_counter()
    stopped = old.burst([{"cmd": "stop", "store": "primes", "instance": key} for key in keys])
    assert all(line["type"] == "stopped" for line in stopped)
    released = time.perf_counter()
    for line in new.burst([incr(key) for key in keys]):
        assert line["type"] == "action" and line["patch"][0]["value"] == 3, line
    done = time.perf_counter()
    old.close()
    new.close()
    print(f"\n## Handing {count:,} instances from one process to another\n"
          f"stopped and released on the old one: {(released - start) * 1e3:.0f} ms; claimed, "
          f"read back and each given an action on the new one: {(done - released) * 1e3:.0f} ms; "
          f"{(done - start) * 1e6 / count:.0f} µs per instance in all")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actor", default=str(ROOT / ".build/release/composable-actor"))
    parser.add_argument("--actions", type=int, default=100_000)
    parser.add_argument("--round-trips", type=int, default=2_000)
    parser.add_argument("--instances", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="postgres-bench-") as temporary, \
            PostgresServer() as server:
        work = Path(temporary)
        (work / "data").mkdir()
        print(f"# Instances in PostgreSQL ({options.actor}; a local server over TCP, fsync off)")
        throughput(options.actor, server, work, options.actions, options.repeats)
        round_trips(options.actor, server, work, options.round_trips)
        resume(options.actor, server, work, options.instances)
        start_up(options.actor, server, work, 10 * options.repeats)
        handover(options.actor, server, work, options.instances)


if __name__ == "__main__":
    main()
