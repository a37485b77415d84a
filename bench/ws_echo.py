"""The WebSocket benchmark: 100,000 echo round trips over one socket, one in flight and 64
in flight, against the project's echo server (Tests/servers/ws_servers.py, `/echo`), through the
product's WebSocket client (bench/ws-bench) and through a Python `websockets` asyncio client
doing exactly the same in the same run (this file, run as a child process: `client` below).

Both clients send the same 64-byte text messages (message i is i in 8 digits padded with "x"),
send the first K at once and then one per echo, check that every echo is the next message in
order, and fail (rather than print a figure) on anything else or on 10 s without an echo. Both
time only the round trips: connecting and one warm-up echo, which also skips the server's
welcome, come first.

Client CPU per message is the client process's user + system time over the round trips, read
with getrusage inside the client, divided by the messages. The echo server (Python) is the
bottleneck for messages/s, so CPU per message is the figure to compare; the server's own CPU per
message (from /proc) is printed too.

Standalone: python3 bench/ws_echo.py [--ws-bench .build/release/ws-bench] [--count N]
"""

import argparse
import asyncio
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/servers"))
from peers import WebSocketServers  # noqa: E402

COUNT = 100_000
WINDOWS = (1, 64)
MESSAGE_BYTES = 64
STALL_SECONDS = 10
NOTE = (
    "WebSocket rows: the echo server is Python `websockets` on the same 2 cores and is the "
    "bottleneck for msg/s, so client CPU per message is the figure to compare."
)


def server_cpu(pid: int) -> float:
    """User + system seconds of a process so far (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(command: list[str], count: int, window: int, size: int) -> dict:
    """Runs one client; its JSON line, checked to describe the run asked for."""
    completed = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if completed.returncode != 0:
        raise RuntimeError(
            f"{command[0]} failed ({completed.returncode}): {completed.stderr.strip()}")
    result = json.loads(completed.stdout)
    expected = {"messages": count, "inFlight": window, "bytes": size}
    if any(result.get(key) != value for key, value in expected.items()):
        raise RuntimeError(f"{command[0]} measured {result}, not {expected}")
    return result


def rows(tool: Path, count: int = COUNT, size: int = MESSAGE_BYTES) -> list[tuple[str, str, str]]:
    server = WebSocketServers()
    url = f"{server.url}/echo"
    clients = (
        ("WebSocket client", [str(tool), url, str(count)]),
        ("Python websockets", [sys.executable, str(Path(__file__).resolve()), "client", url,
                               str(count)]),
    )
    try:
        table = []
        for window in WINDOWS:
            label = "one in flight" if window == 1 else f"{window} in flight"
            server_figures = []
            for name, command in clients:
                before = server_cpu(server.process.pid)
                result = measured([*command, str(window), str(size)], count, window, size)
                server_figures.append(
                    f"{(server_cpu(server.process.pid) - before) / count * 1e6:.0f} µs")
                table.append((
                    f"{count:,} WebSocket echoes, {label}, {name}",
                    f"{count / result['seconds']:,.0f} msg/s, "
                    f"{result['cpuSeconds'] / count * 1e6:.0f} µs CPU/msg", ""))
            table.append((f"  echo server's CPU per message, {label} (ours / websockets)",
                           " / ".join(server_figures), ""))
        return table
    finally:
        server.stop()


# The Python client, run as `ws_echo.py client URL COUNT IN-FLIGHT BYTES`: the same protocol
# and output as bench/ws-bench.

async def python_client(url: str, count: int, window: int, size: int) -> dict:
    from websockets.asyncio.client import connect

    padding = "x" * (size - 8)
    payloads = [f"{index:08d}{padding}" for index in range(count)]
    # As ws-bench and the server: no compression, no keepalive pings.
    async with connect(url, compression=None, ping_interval=None, proxy=None) as socket:
        await socket.send("warm-up")
        while await socket.recv() != "warm-up":
            pass
        start, start_cpu = time.perf_counter(), cpu_seconds()
        sent = 0
        while sent < min(window, count):
            await socket.send(payloads[sent])
            sent += 1
        for received in range(count):
            text = await socket.recv()
            if text != payloads[received]:
                fail(f"echo {received} of {count} is {text!r}, expected {payloads[received]}")
            if received % 1024 == 0:
                signal.alarm(STALL_SECONDS)
            if sent < count:
                await socket.send(payloads[sent])
                sent += 1
        user, system = (end - begin for end, begin in zip(cpu_seconds(), start_cpu))
        seconds = time.perf_counter() - start
    signal.alarm(0)
    return {"messages": count, "inFlight": window, "bytes": size, "seconds": seconds,
            "cpuSeconds": user + system, "userSeconds": user, "systemSeconds": system,
            "maxRSSKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}


def cpu_seconds() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def fail(message: str):
    print(f"ws_echo.py client: {message}", file=sys.stderr, flush=True)
    os._exit(1)


def client_main(arguments: list[str]) -> None:
    url, count, window, size = arguments[0], *map(int, arguments[1:4])
    signal.signal(signal.SIGALRM, lambda *_: fail(f"no echo for {STALL_SECONDS} s"))
    signal.alarm(STALL_SECONDS)
    try:
        result = asyncio.run(python_client(url, count, window, size))
    except Exception as error:  # a closed socket, a refused connect: no figure
        fail(f"{type(error).__name__}: {error}")
    print(json.dumps(result), flush=True)


def main() -> None:
    if len(sys.argv) == 6 and sys.argv[1] == "client":
        client_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ws-bench", type=Path, default=Path(".build/release/ws-bench"))
    parser.add_argument("--count", type=int, default=COUNT)
    arguments = parser.parse_args()
    table = rows(arguments.ws_bench.resolve(), arguments.count)
    width = max(len(name) for name, _, _ in table)
    for name, value, _ in table:
        print(f"{name.ljust(width)}  {value:>28}")
    print(NOTE)


if __name__ == "__main__":
    main()
