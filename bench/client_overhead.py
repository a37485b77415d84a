#!/usr/bin/env python3
"""Host CPU per action through each client at 1, 10 and 100 concurrent senders, beside a raw pipe
in the same language, in one run.

Each sender loops: send `counter.incrTapped`, await its answer, again. The figure is the CPU
time (user + system) of the host process itself, Python's or Node's, divided by the actions:
what a client costs the program it runs in, whatever the binary and the machine's load do to
wall time. The raw pipes do the least a correct concurrent caller must: write the line with an
id, read lines, parse each one and hand it to the sender waiting for that id; they set no
time limit on a wait. The clients also bound every wait (10 s by default) and keep the mirror,
the backlog and each call's lines. A third column sends with
`until="counter.incrTapped"` (each send waits for an action type as well), with the 99th
percentile of those sends' round trips: what a line costs must not grow with the sends waiting.

Each row first sends WARM_UP actions untimed: what is measured is a client that has been
running, not Node compiling its code: after 300, Node's raw pipe at 1 sender took 28–32 µs an
action over 3,000 actions and 14.5 over 20,000 (the compiler's threads are the process's CPU
time too). The warm-up goes past the 10,000 lines a client keeps by default, so that its
backlog is full before the timing starts, as in a client that has been running: with a warm-up
of 3,000 it filled among the actions timed, and Node then dropped the optimized code of the
client's line handling for the path that drops the oldest line (`--trace-deopt`: #keep and
#receive) and compiled it again, on the clock of the row.

The sync client is one flow of control: it runs at 1 sender only, beside a blocking raw pipe.
The rows take turns over several rounds (so a noisy neighbour slows them all alike), and the
medians over rounds are printed. No pass/fail: the ratio to the raw pipe of the same run is the
figure.

    python3 bench/client_overhead.py [path/to/composable-actor] [--actions 10000] [--rounds 3]
"""

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "clients/python"))
sys.path.insert(0, str(HERE))
from composable_actor import AsyncClient, Client  # noqa: E402
from raw_pipe import RawPipe  # noqa: E402

SENDERS = (1, 10, 100)
WARM_UP = 12_000

# argv: mode ("raw", "client" or "until"), binary, data dir, senders, actions, the client's URL,
# the actions of the warm-up.
# Prints the CPU microseconds used during the timed actions, and the p99 round trip (ns).
NODE_SCRIPT = """
import { spawn } from 'node:child_process';
const [mode, binary, data, senders, actions, client, warmUp] = process.argv.slice(1);
const times = [];
const run = async (send, count) => {
  let left = count;
  const sender = async () => {
    while (left-- > 0) {
      const start = process.hrtime.bigint();
      await send();
      times.push(Number(process.hrtime.bigint() - start));
    }
  };
  await Promise.all(Array.from({ length: Number(senders) }, sender));
};
const timed = async (send) => {
  await run(send, Number(warmUp));
  times.length = 0;
  const before = process.cpuUsage();
  await run(send, Number(actions));
  const used = process.cpuUsage(before);
  return used.user + used.system;
};
let used;
if (mode === 'raw') {
  const child = spawn(binary, ['--data-dir', data], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let partial = '';
  let ready;
  const readyLine = new Promise((resolve) => (ready = resolve));
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (partial + chunk).split('\\n');
    partial = lines.pop();
    for (const text of lines) {
      const line = JSON.parse(text);
      if (line.type === 'ready') ready();
      const wake = waiting.get(line.id);
      if (wake) { waiting.delete(line.id); wake(line); }
    }
  });
  await readyLine;
  let id = 0;
  used = await timed(() => new Promise((resolve) => {
    const mine = ++id;
    waiting.set(mine, resolve);
    child.stdin.write(`{"store":"primes","action":"counter.incrTapped","id":${mine}}\\n`);
  }));
  child.stdin.end();
} else {
  const { Client } = await import(client);
  const actor = await Client.start({ binary, args: ['--data-dir', data] });
  const options = mode === 'until' ? { until: 'counter.incrTapped' } : undefined;
  used = await timed(options ? () => actor.send('primes', 'counter.incrTapped', {}, options) : () => actor.send('primes', 'counter.incrTapped'));
  await actor.close();
}
times.sort((a, b) => a - b);
console.log(used, times[Math.floor(times.length * 0.99)]);
"""


def cpu() -> float:
    return time.process_time()


async def senders(send, count: int, concurrency: int) -> list[int]:
    """Each send's round trip (ns)."""
    left = count
    times = []

    async def sender() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            start = time.perf_counter_ns()
            await send()
            times.append(time.perf_counter_ns() - start)

    await asyncio.gather(*(sender() for _ in range(concurrency)))
    return times


def p99(times: list[int]) -> float:
    """The 99th percentile of round trips, in ms."""
    return sorted(times)[int(len(times) * 0.99)] / 1e6


async def timed(send, actions: int, concurrency: int) -> tuple[float, float]:
    """CPU µs per action of this process over `actions` sends (after a warm-up), and the p99
    round trip in ms."""
    await senders(send, WARM_UP, concurrency)
    before = cpu()
    times = await senders(send, actions, concurrency)
    return (cpu() - before) * 1e6 / actions, p99(times)


async def raw_asyncio(binary: str, data: str, concurrency: int, actions: int) -> tuple[float, float]:
    process = await asyncio.create_subprocess_exec(
        binary, "--data-dir", data, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 26,
    )
    waiting: dict[int, asyncio.Future] = {}

    async def read() -> None:
        while text := await process.stdout.readline():
            line = json.loads(text)
            future = waiting.pop(line.get("id"), None)
            if future is not None:
                future.set_result(line)

    await process.stdout.readline()  # ready
    reader = asyncio.create_task(read())
    loop = asyncio.get_running_loop()
    ids = iter(range(1, 1 << 62))

    async def send():
        id = next(ids)
        waiting[id] = future = loop.create_future()
        process.stdin.write(b'{"store":"primes","action":"counter.incrTapped","id":%d}\n' % id)
        await process.stdin.drain()
        return await future

    used = await timed(send, actions, concurrency)
    process.stdin.close()
    await process.wait()
    await reader
    return used


async def asyncio_client(binary: str, data: str, concurrency: int, actions: int, until: bool) -> tuple[float, float]:
    async with AsyncClient(binary, ["--data-dir", data]) as actor:
        if until:
            return await timed(lambda: actor.send("primes", "counter.incrTapped", until="counter.incrTapped"),
                               actions, concurrency)
        return await timed(lambda: actor.send("primes", "counter.incrTapped"), actions, concurrency)


def raw_blocking(binary: str, data: str, actions: int) -> tuple[float, float]:
    pipe = RawPipe(binary, data)
    pipe.line()
    ids = iter(range(1, 1 << 62))

    def send() -> dict:
        id = next(ids)
        pipe.write(b'{"store":"primes","action":"counter.incrTapped","id":%d}\n' % id)
        while (answer := json.loads(pipe.line())).get("id") != id:
            pass
        return answer

    used = timed_blocking(send, actions)
    pipe.close()
    return used


def timed_blocking(send, actions: int) -> tuple[float, float]:
    for _ in range(WARM_UP):
        send()
    times = []
    before = cpu()
    for _ in range(actions):
        start = time.perf_counter_ns()
        send()
        times.append(time.perf_counter_ns() - start)
    return (cpu() - before) * 1e6 / actions, p99(times)


def blocking_client(binary: str, data: str, actions: int, until: bool) -> tuple[float, float]:
    with Client(binary, ["--data-dir", data]) as actor:
        if until:
            return timed_blocking(lambda: actor.send("primes", "counter.incrTapped", until="counter.incrTapped"), actions)
        return timed_blocking(lambda: actor.send("primes", "counter.incrTapped"), actions)


def node(mode: str, binary: str, data: str, concurrency: int, actions: int) -> tuple[float, float]:
    client = (HERE.parent / "clients/node/index.js").as_uri()
    output = subprocess.run(
        ["node", "--input-type=module", "-e", NODE_SCRIPT, mode, binary, data, str(concurrency), str(actions), client,
         str(WARM_UP)],
        check=True, capture_output=True, text=True,
    ).stdout
    used, slowest = output.split()
    return float(used) / actions, float(slowest) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?", default=str(HERE.parent / ".build/release/composable-actor"))
    parser.add_argument("--actions", type=int, default=10000, help="timed actions per row and round")
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    binary = str(Path(arguments.binary).resolve())
    n = arguments.actions
    rows = {
        "Python, blocking": {
            1: {"raw": lambda d, c: raw_blocking(binary, d, n),
                "client": lambda d, c: blocking_client(binary, d, n, False),
                "until": lambda d, c: blocking_client(binary, d, n, True)},
        },
        "Python, asyncio": {
            c: {"raw": lambda d, c: asyncio.run(raw_asyncio(binary, d, c, n)),
                "client": lambda d, c: asyncio.run(asyncio_client(binary, d, c, n, False)),
                "until": lambda d, c: asyncio.run(asyncio_client(binary, d, c, n, True))}
            for c in SENDERS
        },
        "Node": {
            c: {mode: (lambda mode: lambda d, c: node(mode, binary, d, c, n))(mode) for mode in ("raw", "client", "until")}
            for c in SENDERS
        },
    }
    figures: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as data:
        for _ in range(arguments.rounds):
            for language, by_senders in rows.items():
                for concurrency, modes in by_senders.items():
                    for mode, measure in modes.items():
                        figures.setdefault((language, concurrency, mode), []).append(measure(data, concurrency))
    print(f"host CPU per action, µs (median of {arguments.rounds} rounds of {n:,} counter.incrTapped "
          f"after {WARM_UP} warm-up); ×: over the raw pipe of the same run; p99: of the round trips "
          "of a send with until, ms")
    print(f"{'client':<18} {'senders':>7} {'raw pipe':>9} {'client':>9} {'×':>5} {'until type':>11} {'×':>5} {'p99':>6}")
    for language, by_senders in rows.items():
        for concurrency in by_senders:
            raw, client, until = (statistics.median(cpu for cpu, _ in figures[language, concurrency, mode])
                                  for mode in ("raw", "client", "until"))
            slowest = statistics.median(late for _, late in figures[language, concurrency, "until"])
            print(f"{language:<18} {concurrency:>7} {raw:9.1f} {client:9.1f} {client / raw:5.2f} {until:11.1f} "
                  f"{until / raw:5.2f} {slowest:6.2f}")


if __name__ == "__main__":
    main()
