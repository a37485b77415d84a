#!/usr/bin/env python3
"""Prints what instances cost: memory per idle instance at growing counts, the
cost of activating one, a counter action among many live instances against one, the size of an
instance's lines, and instances in one process against a process per session.

Figures, not pass/fail. Memory is read from /proc (RSS for the instances of one process;
private memory from smaps_rollup for a process per session, whose RSS counts the shared binary);
instructions from callgrind, as the difference of two runs so that start-up cancels out.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lines(messages) -> bytes:
    return b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in messages)


def incr(store, key=None):
    message = {"store": store, "action": INCREMENT[store]}
    if key is not None:
        message["instance"] = key
    return message


# One action that changes each store's state a little: a counter tap, a todo added.
INCREMENT = {"primes": "counter.incrTapped", "todos": {"type": "add", "title": "milk"}}


def status_kib(pid, field):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def private_kib(pid):
    """Private memory (clean and dirty) of a process: what it costs beyond the shared binary."""
    total = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(("Private_Clean:", "Private_Dirty:")):
            total += int(line.split()[1])
    return total


class Process:
    """A running binary: send lines, wait for the answer to a command."""

    def __init__(self, binary, *args):
        self.process = subprocess.Popen(
            [str(binary), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.process.stdout.readline()  # ready

    def send_and_wait(self, data: bytes, store: str):
        """Writes `data` then an `instances` request for `store`, from a thread (the process
        stops reading while its output waits); reads up to the answer."""
        request = lines([{"cmd": "instances", "store": store, "limit": 1}])

        def write():
            self.process.stdin.write(data + request)
            self.process.stdin.flush()

        writer = threading.Thread(target=write)
        writer.start()
        marker = b'"type":"instances"'
        while marker not in (line := self.process.stdout.readline()):
            if not line:
                raise RuntimeError("the process ended")
        writer.join()
        return json.loads(line)

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def memory_per_instance(binary, store, counts):
    """RSS per instance, in bytes, after activating `count` instances with one action each."""
    results = {}
    for count in counts:
        process = Process(binary, "--max-instances", str(count + 1))
        process.send_and_wait(lines([incr(store, "warm-up")]), store)
        before = status_kib(process.process.pid, "VmRSS")
        chunk = 10_000
        for start in range(0, count, chunk):
            batch = [incr(store, f"user-{n}") for n in range(start, min(count, start + chunk))]
            answer = process.send_and_wait(lines(batch), store)
        assert answer["count"] == count + 1, answer
        after = status_kib(process.process.pid, "VmRSS")
        results[count] = (after - before) * 1024 / count
        process.close()
    return results


def instructions(binary, data: bytes, *args) -> int:
    with tempfile.TemporaryDirectory() as folder:
        stripped = Path(folder) / "actor"
        subprocess.run(["strip", "--strip-debug", str(binary), "-o", str(stripped)], check=True)
        out = Path(folder) / "callgrind.out"
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(stripped), *args],
            input=data, capture_output=True, check=True)
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no totals in callgrind's output")


def per_line(binary, make_lines, small, large, *args) -> float:
    """Instructions per line: the difference of two runs, of `small` and `large` lines."""
    return (instructions(binary, make_lines(large), *args) - instructions(binary, make_lines(small), *args)) / (
        large - small)


def timed(binary, data: bytes, *args) -> float:
    started = time.perf_counter()
    subprocess.run([str(binary), *args], input=data, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def process_per_session(binary, sessions):
    """Spawns one process per session and returns (seconds to start them all, private KiB
    each)."""
    started = time.perf_counter()
    processes = [Process(binary) for _ in range(sessions)]
    elapsed = time.perf_counter() - started
    for process in processes:
        process.process.stdin.write(lines([incr("primes")]))
        process.process.stdin.flush()
        process.process.stdout.readline()
    private = sorted(private_kib(process.process.pid) for process in processes)
    for process in processes:
        process.close()
    return elapsed, private[len(private) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actor", default=ROOT / ".build/release/composable-actor", type=Path)
    parser.add_argument("--todo-actor", type=Path)
    parser.add_argument("--counts", default="10000,100000,1000000")
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--no-callgrind", action="store_true")
    options = parser.parse_args()
    counts = [int(count) for count in options.counts.split(",")]

    print("Instances: memory per idle instance, RSS growth / instances, each activated by one action")
    stores = [("primes", options.actor)]
    if options.todo_actor:
        stores.append(("todos", options.todo_actor))
    for store, binary in stores:
        figures = memory_per_instance(binary, store, counts)
        print(f"  {store:<7}" + "".join(f"  {count:>9,}: {bytes_:6.0f} B" for count, bytes_ in figures.items()))

    print("Activating an instance and a counter action among many (instructions per line; time per line)")
    if not options.no_callgrind and shutil.which("valgrind"):
        new = per_line(options.actor, lambda n: lines(incr("primes", f"k{i}") for i in range(n)), 2000, 6000,
                       "--max-instances", "10000")
        same = per_line(options.actor, lambda n: lines(incr("primes", "k") for _ in range(n)), 2000, 6000)
        default = per_line(options.actor, lambda n: lines(incr("primes") for _ in range(n)), 2000, 6000)
        print(f"  first action of a new instance: {new:8,.0f}   action of an active one: {same:6,.0f}"
              f"   default instance: {default:6,.0f}")
    # Wall time: first actions on new instances against as many taps on the default one, runs
    # alternated, the median of five differences.
    activations = 100_000
    fresh = lines(incr("primes", f"new-{n}") for n in range(activations))
    taps = lines(incr("primes") for _ in range(activations))
    differences = sorted(
        timed(options.actor, fresh, "--max-instances", str(activations + 1)) - timed(options.actor, taps)
        for _ in range(5))
    print(f"  activating a new instance (past the 1,024 kept active): "
          f"{differences[2] / activations * 1e6:4.1f} µs, median of 5 (goal: 5 µs)")
    for live in (1, 100_000):
        setup = [incr("primes", f"live-{n}") for n in range(live)]
        work = [incr("primes", "live-0") for _ in range(200_000)]
        base = timed(options.actor, lines(setup), "--max-instances", str(live + 1))
        total = timed(options.actor, lines(setup + work), "--max-instances", str(live + 1))
        print(f"  counter action on one instance with {live:>7,} live: {(total - base) / len(work) * 1e9:6.0f} ns")

    key = "user-123456"
    printed = subprocess.run(
        [str(options.actor)], input=lines([incr("primes"), incr("primes", key)]), capture_output=True,
        check=True).stdout.splitlines()
    default_line, instance_line = (json.loads(line) for line in printed[1:3])
    assert default_line["patch"] == instance_line["patch"]
    print(f"Line sizes: the counter's action line is {len(printed[1])} B on the default instance and "
          f"{len(printed[2])} B on the instance {key!r}; the patch is the same "
          f"({len(json.dumps(default_line['patch'], separators=(',', ':')))} B)")

    sessions = options.sessions
    elapsed, private = process_per_session(options.actor, sessions)
    process = Process(options.actor)
    before = status_kib(process.process.pid, "VmRSS")
    started = time.perf_counter()
    process.send_and_wait(lines(incr("primes", f"s{n}") for n in range(sessions)), "primes")
    in_one = time.perf_counter() - started
    grown = status_kib(process.process.pid, "VmRSS") - before
    process.close()
    print(f"{sessions:,} sessions: a process each: {elapsed:.2f} s to start, {private:,} KiB private each, "
          f"{private * sessions / 1024:,.0f} MiB in all; instances of one process: {in_one * 1000:.0f} ms, "
          f"{grown / 1024:.1f} MiB in all")


if __name__ == "__main__":
    sys.exit(main())
