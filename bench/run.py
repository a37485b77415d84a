#!/usr/bin/env python3
"""Prints the benchmark table: throughput, round-trip latency, start-up, each also as a ratio
to the reference peers measured in the same run (bench/peers.py), peak RSS, instructions per
action for the counter and each store's commonest payload action, HTTP fetches against the
local fixture server, WebSocket echoes against the local
echo server, what effects cost as a burst of them grows, and what the timeline costs
as a recording grows.

Figures, not pass/fail: this machine is small (2 cores) and noisy, so each figure is a median
or a percentile of several runs, and ratios are taken within one run.
"""

import argparse
import importlib.util
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import action_instructions  # noqa: E402
import custom_store  # noqa: E402
import effects  # noqa: E402
import http_fetches  # noqa: E402
import orderbook  # noqa: E402
import timeline  # noqa: E402
import ws_echo  # noqa: E402

# bench/peers.py by its path: http_fetches puts Tests/servers first on the path, whose module of
# the same name `import peers` would find.
_spec = importlib.util.spec_from_file_location("bench_peers", HERE / "peers.py")
peers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peers)
INCR = b'{"store":"primes","action":"counter.incrTapped"}\n'
DECR = b'{"store":"primes","action":"counter.decrTapped"}\n'


def build_host(out: Path) -> Path:
    host = out / "host"
    source = HERE / "host.c"
    if not host.exists() or host.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["cc", "-O2", "-o", str(host), str(source)], check=True)
    return host


def action_file(out: Path, count: int) -> Path:
    path = out / f"actions-{count}.jsonl"
    if not path.exists():
        path.write_bytes((INCR + DECR) * (count // 2))
    return path


def run_file(host: Path, binary: Path, path: Path, *args: str) -> tuple[float, int]:
    """Seconds to reduce every line of `path` with stdout to /dev/null, and peak RSS in KiB."""
    output = subprocess.run(
        [str(host), str(binary), "file", str(path), *args], check=True, capture_output=True, text=True
    ).stdout
    nanoseconds, rss = output.split()
    return int(nanoseconds) / 1e9, int(rss)


def percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def latency(host: Path, binary: Path, count: int, pinned: bool) -> tuple[float, float]:
    command = [str(host), str(binary), "latency", str(count)]
    if pinned:
        command = ["taskset", "-c", "0", *command]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    samples = [int(line) / 1000 for line in output.split()]
    return percentile(samples, 0.50), percentile(samples, 0.99)


def startup(host: Path, binary: Path, count: int) -> float:
    output = subprocess.run(
        [str(host), str(binary), "startup", str(count)], check=True, capture_output=True, text=True
    ).stdout
    return statistics.median(int(line) / 1e6 for line in output.split())


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binary", type=Path, default=Path(".build/release/composable-actor"))
    parser.add_argument("--compare", type=Path, help="a second binary to measure start-up against")
    parser.add_argument("--actions", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=20_000)
    parser.add_argument("--http-bench", type=Path, default=Path(".build/release/http-bench"))
    parser.add_argument("--ws-bench", type=Path, default=Path(".build/release/ws-bench"))
    parser.add_argument("--todo-actor", type=Path,
                        help="Examples/custom-store's binary: adds its rows")
    arguments = parser.parse_args()
    out = Path(tempfile.gettempdir()) / "composable-actor-bench"
    out.mkdir(exist_ok=True)
    host = build_host(out)
    binary = arguments.binary.resolve()

    rows = []
    big = action_file(out, arguments.actions)
    runs = [run_file(host, binary, big) for _ in range(arguments.runs)]
    seconds = statistics.median(elapsed for elapsed, _ in runs)
    rows.append((f"throughput, {arguments.actions:,} actions from a file to /dev/null",
                 f"{arguments.actions / seconds:,.0f} actions/s", ">= 1,000,000"))
    ticks = statistics.median(
        run_file(host, binary, big, "--emit", "ticks")[0] for _ in range(arguments.runs)
    )
    rows.append(("throughput, same, with --emit ticks",
                 f"{arguments.actions / ticks:,.0f} actions/s", ""))
    # Recording and plain runs alternate, so that both see the same machine load.
    plain, recorded = [], []
    for _ in range(arguments.runs):
        plain.append(run_file(host, binary, big)[0])
        recorded.append(run_file(host, binary, big, "--record", str(out / "recording.jsonl"))[0])
    cost = statistics.median(recorded) / statistics.median(plain) - 1
    rows.append(("throughput, same, with --record",
                 f"{arguments.actions / statistics.median(recorded):,.0f} actions/s", f"{cost:+.0%} time vs not recording"))
    small = action_file(out, arguments.actions // 10)
    _, small_rss = run_file(host, binary, small)
    big_rss = max(rss for _, rss in runs)
    rows.append(("peak RSS, 1M actions", f"{big_rss / 1024:.1f} MB", "<= 30 MB"))
    rows.append(("peak RSS, 100k actions (flatness)", f"{small_rss / 1024:.1f} MB", "same as 1M"))
    p50, p99 = latency(host, binary, arguments.round_trips, pinned=True)
    rows.append(("round trip, pinned to CPU 0: p50 / p99", f"{p50:.1f} / {p99:.1f} µs", "<= 15 / 30 µs"))
    p50, p99 = latency(host, binary, arguments.round_trips, pinned=False)
    rows.append(("round trip, unpinned: p50 / p99", f"{p50:.1f} / {p99:.1f} µs", ""))
    rows += peers.rows(binary, out, arguments.actions, arguments.runs, arguments.round_trips)
    if arguments.compare:
        rows.append((f"start-up of {arguments.compare.name}, median of 50",
                     f"{startup(host, arguments.compare.resolve(), 50):.2f} ms", ""))

    rows += action_instructions.rows(binary, arguments.todo_actor and arguments.todo_actor.resolve(), out)
    rows += effects.rows(binary, out)
    rows += timeline.rows(binary, out)
    if arguments.todo_actor:
        rows += custom_store.rows(host, arguments.todo_actor.resolve(), out, seconds / arguments.actions)
    rows += http_fetches.rows(binary, arguments.http_bench.resolve())
    rows += ws_echo.rows(arguments.ws_bench.resolve())
    rows += orderbook.rows(binary)

    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure'.ljust(width)}  {'result':>24}  target")
    for name, value, target in rows:
        print(f"{name.ljust(width)}  {value:>24}  {target}")
    print(ws_echo.NOTE)


if __name__ == "__main__":
    main()
