#!/usr/bin/env python3
"""Prints what durable instances (`run --state-dir`) cost: actions per second against memory
only, per fsync policy; bytes on disk per action and per idle instance, and their growth over a
million actions; resuming one instance; start-up on a folder of a million instances; memory with
a million instances passivated against a million in memory.

Figures, not pass/fail: ratios in one run, on whatever disk the temporary folder is on (say
which when you quote them).
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lines(messages) -> bytes:
    return b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in messages)


def incr(key=None):
    message = {"store": "primes", "action": "counter.incrTapped"}
    if key is not None:
        message["instance"] = key
    return message


def run(binary, data: bytes, *args) -> float:
    """Seconds for the binary to take `data` and end, its output read and dropped."""
    start = time.perf_counter()
    result = subprocess.run(
        [binary, *args], input=data, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{binary} {' '.join(args)} failed: {result.stderr.decode()}")
    return elapsed


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.iterdir() if path.is_file())


def actions_per_second(binary, work, count, repeats):
    print(f"\n## Counter taps per second ({count:,} taps piped in; median of {repeats})")
    data = lines([incr() for _ in range(count)])
    spread = lines([incr(f"user-{n % 100}") for n in range(count)])
    print("| run | default instance | 100 named instances, round robin |")
    print("|---|---|---|")
    memory = None
    for label, extra in [("in memory", None), ("always", "always"), ("batch", "batch"),
                         ("never", "never")]:
        rates = []
        for payload in (data, spread):
            times = []
            for attempt in range(repeats):
                args = ["--data-dir", str(work / "data")]
                if extra:
                    folder = work / f"state-{extra}-{attempt}-{len(rates)}"
                    args += ["--state-dir", str(folder), "--fsync", extra]
                times.append(run(binary, payload, *args))
            rates.append(count / statistics.median(times))
        if memory is None:
            memory = rates
        ratio = [rate / base for rate, base in zip(rates, memory)]
        label = label if extra is None else f"--fsync {label}"
        print(f"| {label} | {rates[0]:,.0f}/s ({ratio[0]:.2f}×) | {rates[1]:,.0f}/s "
              f"({ratio[1]:.2f}×) |")


def disk_growth(binary, work, counts):
    print("\n## Bytes on disk as one instance's actions grow (state.sqlite, its log, lock)")
    print("| actions | bytes | bytes per action |")
    print("|---|---|---|")
    for count in counts:
        folder = work / f"growth-{count}"
        run(binary, lines([incr() for _ in range(count)]), "--state-dir", str(folder),
            "--data-dir", str(work / "data"))
        size = folder_bytes(folder)
        print(f"| {count:,} | {size:,} | {size / count:.2f} |")


def idle_instances(binary, work, count):
    folder = work / "idle"
    run(binary, lines([incr(f"user-{n}") for n in range(count)]), "--state-dir", str(folder),
        "--data-dir", str(work / "data"))
    size = folder_bytes(folder)
    print(f"\n## Idle instances on disk\n{count:,} instances of one action each: {size:,} bytes, "
          f"{size / count:.0f} bytes per instance")
    return folder


def resume(binary, work, stored_folder, count):
    """Snapshots of `count` stored instances in a new process, against as many new ones."""
    keys = [f"user-{n}" for n in range(count)]
    snapshots = lines({"cmd": "snapshot", "store": "primes", "instance": key} for key in keys)
    fresh = lines({"cmd": "snapshot", "store": "primes", "instance": f"new-{key}"} for key in keys)
    args = ["--data-dir", str(work / "data")]
    stored = min(run(binary, snapshots, "--state-dir", str(stored_folder), *args) for _ in range(3))
    new = min(run(binary, fresh, "--state-dir", str(work / "resume-empty"), *args)
              for _ in range(3))
    print(f"\n## Resuming an instance\n{count:,} snapshots of stored instances in a new process: "
          f"{stored * 1e6 / count:.1f} µs each; of new instances: {new * 1e6 / count:.1f} µs "
          f"each; reading one back costs {max(0.0, stored - new) * 1e6 / count:.1f} µs more")


def ready_time(binary, *args) -> float:
    start = time.perf_counter()
    process = subprocess.Popen(
        [binary, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait()
    return elapsed


def start_up(binary, work, stored_folder, count, repeats):
    data = ["--data-dir", str(work / "data")]
    empty = work / "startup-empty"
    run(binary, b"", "--state-dir", str(empty), *data)
    figures = {}
    for label, args in [("without --state-dir", []),
                        ("on an empty folder", ["--state-dir", str(empty)]),
                        (f"on {count:,} stored instances", ["--state-dir", str(stored_folder)])]:
        figures[label] = statistics.median(ready_time(binary, *args, *data) for _ in range(repeats))
    print(f"\n## Start-up to the ready line (median of {repeats})")
    for label, seconds in figures.items():
        print(f"- {label}: {seconds * 1000:.2f} ms")


def rss_kib(pid) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise KeyError("VmRSS")


def memory(binary, work, count):
    print(f"\n## Memory with {count:,} instances (RSS after each had one action)")
    for label, active in [("passivated (--max-active 1024)", 1024),
                          ("in memory (--max-active all of them)", count)]:
        folder = work / f"memory-{active}"
        process = subprocess.Popen(
            [binary, "--state-dir", str(folder), "--max-active", str(active),
             "--data-dir", str(work / "data")],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        batch = 50_000
        for start in range(0, count, batch):
            process.stdin.write(lines(incr(f"user-{n}") for n in range(start, min(count, start + batch))))
        process.stdin.write(b'{"cmd":"snapshot","store":"primes","id":"end"}\n')
        process.stdin.flush()
        # The snapshot is the last line: once stdout is quiet, every line was handled.
        time.sleep(1)
        previous = -1
        while (current := rss_kib(process.pid)) != previous:
            previous = current
            time.sleep(1)
        print(f"- {label}: {current / 1024:,.1f} MiB")
        process.stdin.close()
        process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actor", default=str(ROOT / ".build/release/composable-actor"))
    parser.add_argument("--actions", type=int, default=200_000)
    parser.add_argument("--instances", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="durability-bench-") as temporary:
        work = Path(temporary)
        (work / "data").mkdir()
        device = os.stat(work).st_dev
        print(f"# Durable instances ({options.actor}; folder on device {device:#x})")
        actions_per_second(options.actor, work, options.actions, options.repeats)
        disk_growth(options.actor, work, [10_000, 100_000, 1_000_000])
        stored = idle_instances(options.actor, work, options.instances)
        resume(options.actor, work, stored, min(options.instances, 10_000))
        start_up(options.actor, work, stored, options.instances, 10 * options.repeats)
        memory(options.actor, work, options.instances)


if __name__ == "__main__":
    main()
