#!/usr/bin/env python3
"""A tool call's round trip under `composable-actor mcp`, next to the same action over the
plain JSON-lines protocol (`run`), in one run.

Each row sends one action at a time (after a warm-up) and times from the write to the answer in
hand: for JSON lines, the action's line (for the nth prime, the effect's answer line); for MCP
over a raw pipe, the `tools/call` result's line; for MCP through the official Python SDK
(`mcp`), `call_tool`'s return. Two actions: `counter.incrTapped` (no effect), and
`counter.nthPrimeButtonTapped` at count 1000 (an effect on the thread pool, which the call waits
for). The rows take turns over several rounds, so a noisy neighbour slows them all alike, and
everything runs pinned to CPU 0 (unless --unpinned), as bench/client_latency.py does.

    python3 bench/mcp_calls.py [--actor path/to/composable-actor] [--count 1000] [--warm-up 100]
                               [--rounds 5] [--unpinned]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import percentile  # noqa: E402

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
TOOLS = {"counter.incrTapped": "primes__counter_incrTapped", "counter.nthPrimeButtonTapped": "primes__counter_nthPrimeButtonTapped"}


class Pipe:
    def __init__(self, binary, data, *args):
        self.process = subprocess.Popen(
            [binary, *args, "--data-dir", data], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def write(self, message):
        self.process.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        self.process.stdin.flush()

    def read(self):
        return json.loads(self.process.stdout.readline())

    def close(self):
        self.process.stdin.close()
        self.process.wait(30)


def json_lines(binary, data, action, warm_up, count):
    pipe = Pipe(binary, data)
    pipe.read()  # ready
    pipe.write({"store": "primes", "action": {"type": "counter.countChanged", "value": 1000}})
    pipe.read()
    samples = []
    for i in range(warm_up + count):
        start = time.perf_counter_ns()
        pipe.write({"store": "primes", "action": action, "id": i})
        while True:
            line = pipe.read()
            if action != "counter.nthPrimeButtonTapped" or line["action"]["type"] == "counter.nthPrimeResponse":
                break
        if i >= warm_up:
            samples.append(time.perf_counter_ns() - start)
    pipe.close()
    return samples


def mcp_raw(binary, data, action, warm_up, count):
    pipe = Pipe(binary, data, "mcp")
    pipe.write(INITIALIZE)
    pipe.read()
    pipe.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    pipe.write({**call, "id": -1, "params": {"name": "primes__counter_countChanged", "arguments": {"value": 1000}}})
    pipe.read()
    samples = []
    for i in range(warm_up + count):
        start = time.perf_counter_ns()
        pipe.write({**call, "id": i, "params": {"name": TOOLS[action]}})
        answer = pipe.read()
        assert answer["result"]["structuredContent"]["settled"], answer
        if i >= warm_up:
            samples.append(time.perf_counter_ns() - start)
    pipe.close()
    return samples


def mcp_sdk(binary, data, action, warm_up, count):
    samples = []

    async def body():
        server = StdioServerParameters(command=binary, args=["mcp", "--data-dir", data])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.call_tool("primes__counter_countChanged", {"value": 1000})
                for i in range(warm_up + count):
                    start = time.perf_counter_ns()
                    result = await session.call_tool(TOOLS[action], {})
                    assert result.structured_content["settled"], result
                    if i >= warm_up:
                        samples.append(time.perf_counter_ns() - start)

    anyio.run(body)
    return samples


ROWS = [("JSON lines (run)", json_lines), ("MCP, raw pipe", mcp_raw), ("MCP, Python SDK", mcp_sdk)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actor", default=str(HERE.parent / ".build/release/composable-actor"))
    parser.add_argument("--count", type=int, default=1000, help="timed round trips per row and round")
    parser.add_argument("--warm-up", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--unpinned", action="store_true", help="let the scheduler place the processes")
    arguments = parser.parse_args()
    if not arguments.unpinned:
        os.sched_setaffinity(0, {0})  # every process started from here inherits it
    print(
        f"round trip per action, µs, {'unpinned' if arguments.unpinned else 'pinned to CPU 0'}: "
        f"median and p90 of {arguments.count} × {arguments.rounds} rounds"
    )
    for action in TOOLS:
        samples = {name: [] for name, _ in ROWS}
        for _ in range(arguments.rounds):
            for name, row in ROWS:
                with tempfile.TemporaryDirectory() as data:
                    samples[name] += row(arguments.actor, data, action, arguments.warm_up, arguments.count)
        base = statistics.median(samples[ROWS[0][0]])
        print(f"\n{action}")
        for name, _ in ROWS:
            median = statistics.median(samples[name])
            print(
                f"  {name:18} {median / 1000:8.1f}  p90 {percentile(samples[name], 0.9) / 1000:8.1f}"
                f"  ×{median / base:5.2f}"
            )


if __name__ == "__main__":
    main()
