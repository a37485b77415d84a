#!/usr/bin/env python3
"""Round trip per action through each host client, next to the raw pipe, in one run.

Each row sends `counter.incrTapped` one at a time (after a warm-up) and times from the write to
the answer in hand: for the raw pipes, the line's bytes; for the clients, the parsed line with
the mirror patched. The difference to the raw pipe of the same language is the client's own cost.
The rows take turns over several rounds, so a noisy neighbour slows them all alike, and
everything runs pinned to CPU 0 (unless --unpinned): on the small, noisy development machine
cross-CPU wake-ups otherwise swing the raw pipe alone between 10 and 100 µs from run to run.

    python3 bench/client_latency.py [path/to/composable-actor] [--count 2000] [--warm-up 200]
                                    [--rounds 5] [--unpinned]
"""

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "clients/python"))
sys.path.insert(0, str(HERE))
from composable_actor import AsyncClient, Client  # noqa: E402
from run import percentile  # noqa: E402
from raw_pipe import RawPipe  # noqa: E402

INCR = b'{"store":"primes","action":"counter.incrTapped"}\n'

# argv: mode ("raw" or "client"), binary, data dir, warm-up, count, the client's URL.
# Prints the samples (ns) as JSON.
NODE_SCRIPT = """
import { spawn } from 'node:child_process';
const [mode, binary, data, warmUp, count, client] = process.argv.slice(1);
const samples = [];
const time = async (roundTrip) => {
  for (let i = 0; i < Number(warmUp) + Number(count); i++) {
    const start = process.hrtime.bigint();
    await roundTrip();
    if (i >= Number(warmUp)) samples.push(Number(process.hrtime.bigint() - start));
  }
};
if (mode === 'raw') {
  const child = spawn(binary, ['--data-dir', data], { stdio: ['pipe', 'pipe', 'inherit'] });
  let lines = 0;
  let wake = null;
  child.stdout.on('data', (chunk) => {
    for (const byte of chunk) if (byte === 10) lines++;
    if (lines > 0 && wake) { lines--; wake(); wake = null; }
  });
  const line = () => new Promise((resolve) => { if (lines > 0) { lines--; resolve(); } else wake = resolve; });
  await line();
  await time(() => { const answer = line(); child.stdin.write('{"store":"primes","action":"counter.incrTapped"}\\n'); return answer; });
  child.stdin.end();
} else {
  const { Client } = await import(client);
  const actor = await Client.start({ binary, args: ['--data-dir', data] });
  await time(() => actor.send('primes', 'counter.incrTapped'));
  await actor.close();
}
console.log(JSON.stringify(samples));
"""


def raw_pipe(binary: str, data: str, warm_up: int, count: int) -> list[int]:
    """Python writing and reading the pipe itself: no JSON, just the bytes up to the newline."""
    pipe = RawPipe(binary, data)
    pipe.line()
    samples = []
    for i in range(warm_up + count):
        start = time.perf_counter_ns()
        pipe.write(INCR)
        pipe.line()
        if i >= warm_up:
            samples.append(time.perf_counter_ns() - start)
    pipe.close()
    return samples


def python_client(binary: str, data: str, warm_up: int, count: int) -> list[int]:
    samples = []
    with Client(binary, ["--data-dir", data]) as actor:
        for i in range(warm_up + count):
            start = time.perf_counter_ns()
            actor.send("primes", "counter.incrTapped")
            if i >= warm_up:
                samples.append(time.perf_counter_ns() - start)
    return samples


async def asyncio_client(binary: str, data: str, warm_up: int, count: int) -> list[int]:
    samples = []
    async with AsyncClient(binary, ["--data-dir", data]) as actor:
        for i in range(warm_up + count):
            start = time.perf_counter_ns()
            await actor.send("primes", "counter.incrTapped")
            if i >= warm_up:
                samples.append(time.perf_counter_ns() - start)
    return samples


def node(mode: str, binary: str, data: str, warm_up: int, count: int) -> list[int]:
    client = (HERE.parent / "clients/node/index.js").as_uri()
    output = subprocess.run(
        ["node", "--input-type=module", "-e", NODE_SCRIPT, mode, binary, data, str(warm_up), str(count), client],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=str(HERE.parent / ".build/release/composable-actor"))
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--warm-up", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--unpinned", action="store_true", help="let the scheduler place the processes")
    arguments = parser.parse_args()
    if not arguments.unpinned:
        os.sched_setaffinity(0, {0})  # every process started from here inherits it
    binary = str(Path(arguments.binary).resolve())
    runs = arguments.warm_up, arguments.count // arguments.rounds
    paths = {
        "raw pipe, Python (os.read to the newline)": lambda data: raw_pipe(binary, data, *runs),
        "Python client, Client.send": lambda data: python_client(binary, data, *runs),
        "Python client, AsyncClient.send": lambda data: asyncio.run(asyncio_client(binary, data, *runs)),
        "raw pipe, Node (stdout 'data' to the newline)": lambda data: node("raw", binary, data, *runs),
        "Node client, send": lambda data: node("client", binary, data, *runs),
    }

    samples: dict[str, list[int]] = {name: [] for name in paths}
    with tempfile.TemporaryDirectory() as data:
        for _ in range(arguments.rounds):
            for name, measure in paths.items():
                samples[name] += measure(data)

    rows = list(samples.items())
    raw = {"Python": percentile(rows[0][1], 0.5), "Node": percentile(rows[3][1], 0.5)}
    width = max(len(name) for name, _ in rows)
    print(f"round trip per action, µs, {'unpinned' if arguments.unpinned else 'pinned to CPU 0'}: "
          f"{arguments.count:,} counter.incrTapped one at a time per row, "
          f"in {arguments.rounds} rounds each after {arguments.warm_up:,} warm-up")
    print(f"{'path'.ljust(width)}  {'p50':>7}  {'p99':>7}  {'p50 over its raw pipe':>21}")
    for name, samples in rows:
        p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
        baseline = raw["Node" if "Node" in name else "Python"]
        over = "" if name.startswith("raw") else f"+{(p50 - baseline) / 1000:.1f}"
        print(f"{name.ljust(width)}  {p50 / 1000:7.1f}  {p99 / 1000:7.1f}  {over:>21}")


if __name__ == "__main__":
    main()
