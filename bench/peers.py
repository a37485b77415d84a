"""The binary beside the reference peers of ../shared/peers, measured in the same run the way
their README says, each figure a ratio to a peer:

- counter actions per CPU second: 1,000,000 counter lines (the peers' `gen.py`) from a file to
  /dev/null, the binary, Node 20 (`node_peer.mjs`), Python (`python_fast.py`) and the C floor
  (`limit_prefixed.c`) interleaved, median of 5; CPU is the child's user + system time;
- start-up to the ready line: `pingpong -s 50` on the binary and on the C floor, and on the
  binary given arguments as hosts give them;
- round trip p99, pinned to CPU 0: `taskset -c 0 pingpong -n 20000 -w 1000` on both.

The C programs are compiled with `gcc -O2` into the benchmark's temporary folder. Run alone:
`python3 bench/peers.py --binary .build/release/composable-actor`.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from action_instructions import RUN_ARGUMENTS  # noqa: E402

PEERS = Path(__file__).resolve().parent.parent.parent / "shared" / "peers"
# The binary's counter actions are named within its primes store.
ACTION_LINE = '{"store":"primes","action":{"type":"counter.incrTapped"}}'


def peers_folder() -> Path:
    return Path(os.environ.get("PEERS_DIR", PEERS))


def compile_c(name: str, out: Path) -> Path:
    source = peers_folder() / f"{name}.c"
    program = out / name
    if not program.exists() or program.stat().st_mtime < source.stat().st_mtime:
        subprocess.run(["gcc", "-O2", "-o", str(program), str(source)], check=True)
    return program


def cpu_seconds(command: list[str], path: Path) -> float:
    """User + system seconds of `command` reading `path` with stdout to /dev/null."""
    with open(path, "rb") as stdin:
        process = subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} exited with {process.returncode}")
    return usage.ru_utime + usage.ru_stime


def pingpong(program: Path, command: list[str], *options: str, pinned=False) -> str:
    line = [str(program), *options, "--", *command]
    if pinned:
        line = ["taskset", "-c", "0", *line]
    env = {**os.environ, "PINGPONG_LINE": ACTION_LINE}
    return subprocess.run(line, check=True, capture_output=True, text=True, env=env).stdout


def figure(output: str, name: str) -> float:
    return float(re.search(rf"{name} ([0-9.]+)", output).group(1))


def rows(binary: Path, out: Path, actions=1_000_000, runs=5, round_trips=20_000):
    limit = compile_c("limit_prefixed", out)
    pingpong_program = compile_c("pingpong", out)
    lines = out / f"peer-lines-{actions}.jsonl"
    if not lines.exists():
        with open(lines, "wb") as file:
            subprocess.run(
                [sys.executable, str(peers_folder() / "gen.py"), str(actions), "--prefix=counter."],
                stdout=file, check=True)
    programs = {"binary": [str(binary)], "C floor": [str(limit)]}
    if shutil.which("node"):
        programs["Node"] = ["node", str(peers_folder() / "node_peer.mjs")]
    programs["Python"] = [sys.executable, str(peers_folder() / "python_fast.py")]
    seconds = {name: [] for name in programs}
    for _ in range(runs):
        for name, command in programs.items():
            seconds[name].append(cpu_seconds(command, lines))
    rate = {name: actions / statistics.median(values) for name, values in seconds.items()}
    result = [(f"counter, {actions:,} lines to /dev/null, per CPU second, median of {runs}",
               f"{rate['binary']:,.0f} actions/s", "")]
    for name in ("Node", "Python", "C floor"):
        if name in rate:
            result.append((f"  {name} peer, same run", f"{rate[name]:,.0f} actions/s",
                           f"binary {rate['binary'] / rate[name]:.2f}x"
                           + (" (goal >= 5x)" if name == "Node" else "")))

    startups = {"binary": [], "C floor": []}
    for _ in range(3):
        for name in startups:
            startups[name].append(figure(pingpong(pingpong_program, programs[name], "-s", "50"),
                                         "median"))
    ours, floor = statistics.median(startups["binary"]), statistics.median(startups["C floor"])
    result.append(("start-up to ready, pingpong -s 50, median of 3",
                   f"{ours:.2f} / {floor:.2f} ms", f"{ours / floor:.1f}x the C floor (goal <= 3x)"))
    # How the cluster starts each process: `run` with options of its own and a store's.
    given = statistics.median(
        figure(pingpong(pingpong_program, [*programs["binary"], *RUN_ARGUMENTS], "-s", "50"),
               "median") for _ in range(3))
    result.append(("  the same, given run's arguments (" + " ".join(RUN_ARGUMENTS) + ")",
                   f"{given:.2f} ms", f"{given / floor:.1f}x the C floor"))

    p99s = {"binary": [], "C floor": []}
    for _ in range(3):
        for name in p99s:
            output = pingpong(pingpong_program, programs[name], "-n", str(round_trips), "-w", "1000",
                              pinned=True)
            p99s[name].append(figure(output, "p99"))
    ours, floor = statistics.median(p99s["binary"]), statistics.median(p99s["C floor"])
    result.append((f"round trip p99, pinned to CPU 0, {round_trips:,}, median of 3",
                   f"{ours:.1f} / {floor:.1f} µs", f"{ours / floor:.2f}x the C floor (goal <= 1.2x)"))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=Path(".build/release/composable-actor"))
    parser.add_argument("--actions", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=20_000)
    arguments = parser.parse_args()
    out = Path(tempfile.gettempdir()) / "composable-actor-bench"
    out.mkdir(exist_ok=True)
    table = rows(arguments.binary.resolve(), out, arguments.actions, arguments.runs,
                 arguments.round_trips)
    width = max(len(name) for name, _, _ in table)
    for name, value, note in table:
        print(f"{name.ljust(width)}  {value:>24}  {note}")


if __name__ == "__main__":
    main()
