"""The HTTP benchmark: 1,000 todo fetches from the local fixture server, one at a time
and 50 in flight, through the product's HTTP client (bench/http-bench) and through the binary,
beside curl's command-line tool doing the same in the same run.

Client CPU per request is the client process's user + system time divided by the requests;
the fixture server (Python) is the bottleneck for requests/s, so CPU is the figure to compare.
"""

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/servers"))
from peers import FixtureServer  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds and CPU seconds of a child process, and its stdout."""
    cpu, start = children_cpu(), time.monotonic()
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return time.monotonic() - start, children_cpu() - cpu, output


def http_bench(tool: Path, url: str, count: int, concurrency: int) -> tuple[float, float]:
    result = json.loads(subprocess.run(
        [str(tool), url, str(count), str(concurrency)], check=True, capture_output=True, text=True
    ).stdout)
    assert result["failures"] == 0, result
    return count / result["seconds"], result["cpuSeconds"] / count


def curl(url: str, count: int, concurrency: int) -> tuple[float, float]:
    with tempfile.NamedTemporaryFile("w", suffix=".curl") as config:
        for index in range(count):
            config.write(f'url = "{url}/todos/{index % 100 + 1}"\noutput = "/dev/null"\n')
        config.flush()
        command = ["curl", "--silent", "--fail", "--config", config.name]
        if concurrency > 1:
            command += ["--parallel", "--parallel-max", str(concurrency)]
        seconds, cpu, _ = timed(command)
    return count / seconds, cpu / count


def through_the_binary(binary: Path, url: str, count: int) -> tuple[float, float]:
    """`clickButton` round trips, each waiting for its fetchResult: the whole product."""
    process = subprocess.Popen(
        [str(binary), "--todos-url", url, "--seed", "1"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
    )
    process.stdout.readline()  # ready
    click = '{"store":"randomTodo","action":"clickButton"}\n'
    cpu_before = children_cpu()
    start = time.monotonic()
    for _ in range(count):
        process.stdin.write(click)
        process.stdin.flush()
        while '"fetchResult.' not in process.stdout.readline():
            pass
    seconds = time.monotonic() - start
    process.stdin.close()
    process.wait()
    # The process's CPU includes start-up and the exit, a few milliseconds in all.
    return count / seconds, (children_cpu() - cpu_before) / count


def rows(binary: Path, tool: Path, count: int = 1000) -> list[tuple[str, str, str]]:
    server = FixtureServer()
    try:
        measured = []
        for concurrency in (1, 50):
            label = "sequential" if concurrency == 1 else f"{concurrency} in flight"
            for name, (rate, cpu) in (
                ("HTTP client", http_bench(tool, server.url, count, concurrency)),
                ("curl CLI", curl(server.url, count, concurrency)),
            ):
                measured.append((f"{count:,} fetches, {label}, {name}",
                                 f"{rate:,.0f} req/s, {cpu * 1e6:.0f} µs CPU/req", ""))
        rate, cpu = through_the_binary(binary, server.url, count)
        measured.append((f"{count:,} clickButton round trips through the binary",
                         f"{rate:,.0f} req/s, {cpu * 1e6:.0f} µs CPU/req", ""))
        return measured
    finally:
        server.stop()
