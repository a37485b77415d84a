#!/usr/bin/env python3
"""Prints what composable_actor.cluster (ActorCluster over Ray, instances in PostgreSQL) costs and
how fast it recovers, in one run:

1. a send's round trip through the cluster (one process) against a plain `Client` on the same
   database and a plain `Client` in memory, sends interleaved one by one so that the machine's
   drift falls on all three alike; the Ray hop is the difference;
2. throughput with 1, 2 and 3 processes over `--instances` instances: `AsyncActorCluster` with
   `--concurrency` sends in flight, and `ActorCluster` one send at a time, with the CPU time
   each kind of process used meanwhile (from /proc/PID/stat), so that it shows where the time
   went;
3. rebalancing: 2 processes, `--rebalance-instances` instances touched once, `add_process()`
   timed (it starts the process and stops the moved share on the old ones) and then the first
   send to every moved instance, on the new process; once with the binary's default
   `--max-active` (1,024: idle instances past it leave memory, released already, and are not
   stopped) and once with every instance kept active;
4. failover: a 3-node Ray cluster (`ray.cluster_utils.Cluster`, every node on this machine),
   one process per node; a worker node holding one is removed and a send to an instance that
   process owned is tried again at once after each error until one succeeds; then SIGKILL of a
   binary, the same way.

Everything runs on this machine: Ray's nodes are processes here, PostgreSQL is a throwaway
server (Tests/servers/postgres_server.py, TCP on 127.0.0.1, fsync off) with a fresh database
per measurement. Figures, not pass/fail.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import functools
import os
import signal
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
print = functools.partial(print, flush=True)  # noqa: A001 (each figure as soon as it is measured)
sys.path[:0] = [str(ROOT / "clients/python"), str(ROOT / "Tests/servers")]

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import composable_actor  # noqa: E402
from composable_actor import Client  # noqa: E402
from composable_actor.cluster import ActorCluster, AsyncActorCluster  # noqa: E402
from postgres_server import PostgresServer  # noqa: E402

STORE = "primes"
ACTION = "counter.incrTapped"
LEASE = 3
# Ray notices a node gone within about a second (its default is 5 failures of a 5 s check).
HEALTH = {"health_check_period_ms": 200, "health_check_failure_threshold": 5, "health_check_timeout_ms": 500}
TICK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def value(lines) -> int:
    """The count an incrTapped's line set."""
    return lines[0]["patch"][0]["value"]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2], ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


class Databases:
    """A fresh database of the throwaway server per measurement."""

    def __init__(self, server: PostgresServer):
        self.server = server
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        name = f"bench{self.count}"
        self.server.psql(f"CREATE DATABASE {name}", database="postgres")
        return self.server.url_with(database=name)


# Where the CPU time went: every process's utime + stime, read from /proc.

def processes() -> dict[int, tuple[str, int, float]]:
    """pid: (comm, ppid, CPU seconds) of every process now."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                text = file.read()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        rest = text[text.rindex(")") + 2:].split()
        found[int(entry)] = (comm, int(rest[1]), (int(rest[11]) + int(rest[12])) / TICK)
    return found


def machine_busy() -> float:
    """CPU seconds all cores were busy since boot (/proc/stat)."""
    with open("/proc/stat") as file:
        fields = [int(part) for part in file.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / TICK


class CpuWindow:
    """CPU seconds per kind of process between start() and stop(): the binaries (pids given),
    their Ray actors (the binaries' parents), this driver, PostgreSQL, and the rest (Ray's
    raylets, GCS, idle workers, the kernel's threads)."""

    def start(self, binaries: list[int]) -> None:
        self.binaries = set(binaries)
        self.before = processes()
        self.busy = machine_busy()
        self.began = time.monotonic()

    def stop(self) -> None:
        self.wall = time.monotonic() - self.began
        after = processes()
        self.machine = machine_busy() - self.busy
        hosts = {after[pid][1] for pid in self.binaries if pid in after}
        self.kinds: dict[str, float] = collections.defaultdict(float)
        for pid, (comm, _, cpu) in after.items():
            used = cpu - self.before[pid][2] if pid in self.before else cpu
            if pid in self.binaries:
                kind = "composable-actor binaries"
            elif pid in hosts:
                kind = "their Ray actors (Python)"
            elif pid == os.getpid():
                kind = "this driver (Python)"
            elif comm.startswith("postgres"):
                kind = "PostgreSQL"
            elif comm in ("raylet", "gcs_server"):
                kind = "Ray's raylets and GCS"
            else:
                kind = "the rest (idle clusters, Ray's idle workers, …)"
            self.kinds[kind] += max(0.0, used)

    def table(self, sends: int) -> None:
        print(f"CPU while measuring ({self.wall:.2f} s of wall time, {CORES} cores: "
              f"{self.wall * CORES:.2f} CPU s at most; the machine was busy {self.machine:.2f} CPU s):")
        print("| processes | CPU s | share of the machine's busy time | CPU µs per send |")
        print("|---|---|---|---|")
        order = ["composable-actor binaries", "their Ray actors (Python)", "this driver (Python)",
                 "Ray's raylets and GCS", "PostgreSQL", "the rest (idle clusters, Ray's idle workers, …)"]
        for kind in order:
            used = self.kinds.get(kind, 0.0)
            print(f"| {kind} | {used:.2f} | {used / self.machine:.0%} | {used * 1e6 / sends:.0f} |")


# 1. Round trips.

def round_trips(binary: str, databases: Databases, options) -> None:
    count, keys = options.sends, [f"k{n}" for n in range(100)]
    url = databases.fresh()
    print(f"\n## 1. A send's round trip ({count:,} sequential `send(\"{STORE}\", \"{ACTION}\")` each, "
          f"round robin over {len(keys)} instances touched once before; the three interleaved)")
    with ActorCluster(binary=binary, processes=1, storage=url, lease_seconds=LEASE, name_prefix="rt") as cluster, \
            Client(binary, ["run", "--state-url", url, "--process-id", "plain", "--lease-seconds", str(LEASE)]) \
            as plain, Client(binary, ["run"]) as memory:
        runs = {
            "ActorCluster(processes=1), PostgreSQL": lambda key: cluster.send(STORE, ACTION, instance="c-" + key),
            "plain Client, --state-url (same database)": lambda key: plain.send(STORE, ACTION, instance="p-" + key),
            "plain Client, in memory": lambda key: memory.send(STORE, ACTION, instance="m-" + key),
        }
        for send in runs.values():
            for key in keys:
                send(key)
        samples: dict[str, list[float]] = {label: [] for label in runs}
        for n in range(count):
            key = keys[n % len(keys)]
            for label, send in runs.items():
                began = time.perf_counter()
                send(key)
                samples[label].append(time.perf_counter() - began)
    print("| path | median | p99 | mean |")
    print("|---|---|---|---|")
    figures = {}
    for label, times in samples.items():
        median, p99 = quantiles(times)
        figures[label] = (median, p99)
        print(f"| {label} | {ms(median)} | {ms(p99)} | {ms(statistics.fmean(times))} |")
    (cluster_median, cluster_p99), (plain_median, plain_p99) = list(figures.values())[:2]
    print(f"The Ray hop (cluster minus plain Client on PostgreSQL): {ms(cluster_median - plain_median)} at the "
          f"median, {ms(cluster_p99 - plain_p99)} at p99; PostgreSQL's commit (plain on PostgreSQL minus in "
          f"memory): {ms(plain_median - list(figures.values())[2][0])} at the median.")


# 2. Throughput.

async def async_pids(names: list[str]) -> list[int]:
    return [await ray.get_actor(name).pid.remote() for name in names]


async def bounded(cluster: AsyncActorCluster, keys: list[str], sends: int, concurrency: int) -> float:
    """`sends` sends round robin over keys, `concurrency` in flight; their wall time."""
    counter = iter(range(sends))

    async def worker():
        for n in counter:
            await cluster.send(STORE, ACTION, instance=keys[n % len(keys)])

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(min(concurrency, sends))))
    return time.perf_counter() - began


class Tally:
    """CpuWindows of one kind of run added up."""

    def __init__(self) -> None:
        self.wall = self.machine = 0.0
        self.kinds: dict[str, float] = collections.defaultdict(float)
        self.sends = 0

    def add(self, window: CpuWindow, sends: int) -> None:
        self.wall += window.wall
        self.machine += window.machine
        self.sends += sends
        for kind, used in window.kinds.items():
            self.kinds[kind] += used

    table = CpuWindow.table


def throughput(binary: str, databases: Databases, options) -> None:
    keys = [f"t{n}" for n in range(options.instances)]
    sends, concurrency, counts, repeats = options.sends, options.concurrency, options.processes, options.repeats
    print(f"\n## 2. Throughput: {sends:,} sends round robin over {len(keys):,} instances, with 1 to {max(counts)} "
          f"processes")
    print(f"Every cluster is started first (an AsyncActorCluster and an ActorCluster per process count, each on "
          f"its own database, the idle ones running alongside), each of its instances touched once (that first "
          f"send, a claim and a snapshot, is timed apart); then {repeats} rounds, each measuring every cluster in "
          f"turn (in the other order every other round), so that the machine's drift falls on all alike. "
          f"AsyncActorCluster keeps {concurrency} sends in flight; ActorCluster sends one at a time.")
    loop = asyncio.new_event_loop()
    clusters: dict[tuple[str, int], object] = {}
    pids: dict[tuple[str, int], list[int]] = {}
    try:
        for count in counts:
            cluster = AsyncActorCluster(binary=binary, processes=count, storage=databases.fresh(),
                                        lease_seconds=LEASE, name_prefix=f"a{count}")
            clusters["async", count] = cluster
            loop.run_until_complete(cluster.start())
            touched = loop.run_until_complete(bounded(cluster, keys, len(keys), concurrency))
            pids["async", count] = loop.run_until_complete(async_pids(cluster.processes))
            sync = ActorCluster(binary=binary, processes=count, storage=databases.fresh(), lease_seconds=LEASE,
                                name_prefix=f"s{count}")
            clusters["sync", count] = sync
            began = time.perf_counter()
            for key in keys:
                sync.send(STORE, ACTION, instance=key)
            sync_touched = time.perf_counter() - began
            pids["sync", count] = [sync.pid(name) for name in sync.processes]
            print(f"- {count} process{'es' if count > 1 else ''}: the first send to each of {len(keys):,} instances "
                  f"took {touched * 1e6 / len(keys):.0f} µs each (wall time / instances) with {concurrency} in "
                  f"flight, {sync_touched * 1e6 / len(keys):.0f} µs one at a time")
        rates: dict[tuple[str, int], list[float]] = collections.defaultdict(list)
        tallies: dict[tuple[str, int], Tally] = collections.defaultdict(Tally)
        print("\n| round | run | sends/s |")
        print("|---|---|---|")
        for round in range(1, repeats + 1):
            for count in (counts if round % 2 else list(reversed(counts))):
                for kind in ("async", "sync"):
                    window = CpuWindow()
                    window.start(pids[kind, count])
                    if kind == "async":
                        seconds = loop.run_until_complete(bounded(clusters[kind, count], keys, sends, concurrency))
                    else:
                        began = time.perf_counter()
                        for n in range(sends):
                            clusters[kind, count].send(STORE, ACTION, instance=keys[n % len(keys)])
                        seconds = time.perf_counter() - began
                    window.stop()
                    rates[kind, count].append(sends / seconds)
                    tallies[kind, count].add(window, sends)
                    label = "AsyncActorCluster" if kind == "async" else "ActorCluster"
                    print(f"| {round} | {label}, {count} process{'es' if count > 1 else ''} | "
                          f"{sends / seconds:,.0f} |")
    finally:
        for (kind, count), cluster in clusters.items():
            if kind == "async":
                loop.run_until_complete(cluster.close())
            else:
                cluster.close()
        loop.close()
    for count in counts:
        for kind, label in (("async", f"AsyncActorCluster, {concurrency} in flight"),
                            ("sync", "ActorCluster, one at a time")):
            print(f"\n### {label}, {count} process{'es' if count > 1 else ''}: where the CPU went (all rounds)")
            tallies[kind, count].table(tallies[kind, count].sends)
    base = counts[0]
    print(f"\n### Summary (median of {repeats} rounds; the range in brackets)")
    print("| processes | AsyncActorCluster, sends/s | ratio | ActorCluster (one at a time), sends/s | ratio | "
          "binaries' CPU per send (async / one at a time) |")
    print("|---|---|---|---|---|---|")
    median = {key: statistics.median(values) for key, values in rates.items()}
    for count in counts:
        cells = []
        for kind in ("async", "sync"):
            values = rates[kind, count]
            cells.append(f"{median[kind, count]:,.0f} ({min(values):,.0f}–{max(values):,.0f}) | "
                         f"{median[kind, count] / median[kind, base]:.2f}×")
        binaries = [tallies[kind, count].kinds.get("composable-actor binaries", 0.0) * 1e6 / tallies[kind, count].sends
                    for kind in ("async", "sync")]
        print(f"| {count} | {cells[0]} | {cells[1]} | {binaries[0]:.0f} / {binaries[1]:.0f} µs |")


# 3. Rebalancing.

def rebalance(binary: str, databases: Databases, options) -> None:
    keys = [f"r{n}" for n in range(options.rebalance_instances)]
    concurrency = options.concurrency
    print(f"\n## 3. Rebalancing {len(keys):,} instances onto a new process (2 processes, each instance touched "
          f"once with {concurrency} sends in flight, then `add_process()`, then the first send to every moved "
          f"instance, {concurrency} in flight; AsyncActorCluster)")
    variants = [("the default --max-active (1,024)", []),
                (f"--max-active {len(keys):,} (every instance stays active)", ["--max-active", str(len(keys))])]
    for label, args in variants:
        url = databases.fresh()

        async def run():
            async with AsyncActorCluster(binary=binary, processes=2, storage=url, args=args, lease_seconds=LEASE,
                                         name_prefix=f"rb{len(args)}", backlog=len(keys) * 4) as cluster:
                touched = await bounded(cluster, keys, len(keys), concurrency)
                before = {key: cluster.owner(STORE, key) for key in keys}
                mark = len(cluster.backlog)
                began = time.perf_counter()
                added = await cluster.add_process()
                adding = time.perf_counter() - began
                stopped = sum(1 for line in cluster.backlog[mark:] if line["type"] == "stopped")
                moved = [key for key in keys if cluster.owner(STORE, key) != before[key]]
                elsewhere = [key for key in moved if cluster.owner(STORE, key) != added]
                counts = []

                async def first_send(key):
                    counts.append(value(await cluster.send(STORE, ACTION, instance=key)))

                queue = iter(moved)

                async def worker():
                    for key in queue:
                        await first_send(key)

                began = time.perf_counter()
                await asyncio.gather(*(worker() for _ in range(concurrency)))
                sending = time.perf_counter() - began
                wrong = sum(1 for count in counts if count != 2)
                print(f"\n### {label}")
                print(f"- touching {len(keys):,} instances: {touched:.2f} s ({len(keys) / touched:,.0f}/s)")
                print(f"- moved to the new process: {len(moved):,} of {len(keys):,} ({len(moved) / len(keys):.1%}); "
                      f"to another: {len(elsewhere)}")
                print(f"- `add_process()`: {adding:.2f} s (a new Ray actor and binary, then the old processes' "
                      f"active instances listed and the moved ones stopped, in one call per process: {stopped:,} "
                      f"stopped)")
                print(f"- the first send to each moved instance, on the new process: {sending:.2f} s "
                      f"({sending * 1e6 / max(1, len(moved)):.0f} µs each by wall time); counts not 2 (state lost "
                      f"or doubled): {wrong}")
                print(f"- from `add_process()` to every moved instance answering again: {adding + sending:.2f} s")

        asyncio.run(run())


# 4. Failover.

def attempt_until_success(cluster: ActorCluster, key: str, began: float, limit: float = 120.0):
    """Sends to key until one succeeds; (seconds since began, errors by type, the count it set)."""
    errors: collections.Counter[str] = collections.Counter()
    while True:
        try:
            lines = cluster.send(STORE, ACTION, instance=key)
        except Exception as error:  # noqa: BLE001 (every kind is counted and shown)
            # ProcessLostError's cause is the part that differs (Ray's exception, the binary's exit).
            errors[f"{type(error).__name__}: {getattr(error, 'cause', str(error))[:120]}"] += 1
            if time.monotonic() - began > limit:
                raise SystemExit(f"no send to {key} succeeded within {limit} s: {dict(errors)}") from error
            time.sleep(0.01)
            continue
        return time.monotonic() - began, errors, value(lines)


def shown(errors: collections.Counter[str]) -> str:
    return "; ".join(f"{number}× {text}" for text, number in errors.items()) or "none"


def three_nodes(ray_cluster: Cluster) -> None:
    """Adds worker nodes until there are three nodes, and waits until the scheduler has them all
    (a node just registered is not yet a place a soft affinity can go to)."""
    while len(ray_cluster.list_all_nodes()) < 3:
        ray_cluster.add_node(num_cpus=1)
    ray_cluster.wait_for_nodes()
    deadline = time.monotonic() + 30
    while ray.cluster_resources().get("CPU", 0) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)


def placement(cluster: ActorCluster) -> dict[str, list[str]]:
    by_node: dict[str, list[str]] = collections.defaultdict(list)
    for name in cluster.processes:
        by_node[cluster.node(name)].append(name)
    return by_node


def describe(by_node: dict[str, list[str]], ray_cluster: Cluster) -> str:
    head = ray_cluster.head_node.node_id
    return ", ".join(f"{'head' if node == head else 'worker ' + node[:6]}: {len(names)}"
                     for node, names in sorted(by_node.items(), key=lambda item: item[0] != head))


def failover(binary: str, databases: Databases, ray_cluster: Cluster, options) -> None:
    print(f"\n## 4. Failover (lease_seconds={LEASE}; Ray's health check every {HEALTH['health_check_period_ms']} "
          f"ms, a node dead after {HEALTH['health_check_failure_threshold']} failures: about a second; Ray's "
          f"default, 3 s and 5, would take about 15 s)")
    began = time.monotonic()
    three_nodes(ray_cluster)
    print(f"two more Ray nodes (3 in all, on this machine) up in {time.monotonic() - began:.1f} s")
    keys = [f"f{n}" for n in range(300)]
    print(f"\n### A node removed (`ray.cluster_utils.Cluster.remove_node`); each round a fresh ActorCluster of 3 "
          f"processes on the 3 nodes, its {len(keys)} instances touched once, then a send to an "
          f"instance of the removed node's process at once after the removal and again 10 ms after each error")
    print("| round | processes per node | until a send succeeds | errors meanwhile | the count it set (expected) | "
          "then that process's other instances, one send each | where the process went |")
    print("|---|---|---|---|---|---|---|")
    for round in range(1, options.node_losses + 1):
        three_nodes(ray_cluster)
        # Ray puts an actor that needs no resources on a random node, whatever a soft node
        # affinity says: a cluster is started again (on a fresh database) until a worker node
        # holds exactly one process, at most 5 times.
        for tries in range(1, 6):
            cluster = ActorCluster(binary=binary, processes=3, storage=databases.fresh(), lease_seconds=LEASE,
                                   name_prefix=f"node{round}-{tries}")
            by_node = placement(cluster)
            workers = [node for node in ray_cluster.list_all_nodes() if node is not ray_cluster.head_node]
            victims = sorted((node for node in workers if node.node_id in by_node),
                             key=lambda node: len(by_node[node.node_id]))
            if (victims and len(by_node[victims[0].node_id]) == 1) or tries == 5:
                break
            cluster.close()
        with cluster:
            layout = describe(by_node, ray_cluster) + (f" ({tries} starts)" if tries > 1 else "")
            if not victims:
                print(f"| {round} | {layout} | no worker node holds a process: skipped | | | | |")
                continue
            for key in keys:
                cluster.send(STORE, ACTION, instance=key)
            victim = victims[0]
            name = by_node[victim.node_id][0]
            theirs = [key for key in keys if cluster.owner(STORE, key) == name]
            key = theirs[0]
            ray_cluster.remove_node(victim)
            began = time.monotonic()
            took, errors, count = attempt_until_success(cluster, key, began)
            maybe = sum(errors.values())
            began = time.perf_counter()
            later: collections.Counter[str] = collections.Counter()
            for other in theirs[1:]:
                try:
                    cluster.send(STORE, ACTION, instance=other)
                except Exception as error:  # noqa: BLE001
                    later[type(error).__name__] += 1
            rest = time.perf_counter() - began
            if name not in cluster.processes:
                where = "left the cluster"
            else:
                now = cluster.node(name)
                where = ("restarted on the head" if now == ray_cluster.head_node.node_id
                         else f"restarted on worker {now[:6]}")
            print(f"| {round} | {layout} | {took:.2f} s | {shown(errors)} | {count} (2"
                  f"{f' to {2 + maybe}' if maybe else ''}) | {len(theirs) - 1} in {rest:.2f} s"
                  f"{', errors: ' + str(dict(later)) if later else ''} | {where} |")

    three_nodes(ray_cluster)
    print(f"\n### SIGKILL of a binary (its Ray actor lives on and starts a new binary at its next call); a send to "
          f"one of its instances at once after the kill and again 10 ms after each error")
    print("| round | process | until a send succeeds | errors meanwhile | the count it set (expected) | "
          "a new binary |")
    print("|---|---|---|---|---|---|")
    times = []
    sure: collections.Counter[str] = collections.Counter()
    with ActorCluster(binary=binary, processes=3, storage=databases.fresh(), lease_seconds=LEASE,
                      name_prefix="kill") as cluster:
        for key in keys:
            cluster.send(STORE, ACTION, instance=key)
            sure[key] += 1
        for round in range(1, options.kills + 1):
            name = cluster.processes[(round - 1) % len(cluster.processes)]
            key = next(key for key in keys if cluster.owner(STORE, key) == name)
            pid = cluster.pid(name)
            os.kill(pid, signal.SIGKILL)
            began = time.monotonic()
            took, errors, count = attempt_until_success(cluster, key, began)
            times.append(took)
            maybe = sum(errors.values())
            sure[key] += 1
            print(f"| {round} | {name} | {took * 1e3:.0f} ms | {shown(errors)} | {count} ({sure[key]}"
                  f"{f' to {sure[key] + maybe}' if maybe else ''}) | {'yes' if cluster.pid(name) != pid else 'NO'} |")
            sure[key] = count  # what the lost send did is known now
    print(f"Median until a send succeeds after SIGKILL: {statistics.median(times) * 1e3:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actor", default=str(ROOT / ".build/release/composable-actor"))
    parser.add_argument("--processes", default="1,2,3", help="process counts for the throughput (default 1,2,3)")
    parser.add_argument("--instances", type=int, default=1_000, help="instances for the throughput")
    parser.add_argument("--sends", type=int, default=3_000,
                        help="sends per round-trip path and per throughput run")
    parser.add_argument("--concurrency", type=int, default=64, help="sends in flight (AsyncActorCluster)")
    parser.add_argument("--rebalance-instances", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the throughput runs")
    parser.add_argument("--node-losses", type=int, default=3)
    parser.add_argument("--kills", type=int, default=5)
    options = parser.parse_args()
    options.processes = [int(part) for part in options.processes.split(",")]
    binary = os.path.abspath(options.actor)
    started = time.monotonic()
    print(f"# composable_actor.cluster ({binary}; Ray {ray.__version__}, Python "
          f"{sys.version.split()[0]})")
    print(f"Everything on this one {CORES}-core machine: the driver, every Ray node (raylet, GCS, one Python "
          f"worker per process), every composable-actor binary and PostgreSQL (a throwaway server over TCP on "
          f"127.0.0.1, fsync off, a fresh database per measurement) share {CORES} cores, so Ray's own Python and "
          f"processes, not the binaries, are the likely bottleneck, and more processes cannot add cores.")
    with PostgresServer() as server:
        databases = Databases(server)
        began = time.monotonic()
        ray_cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 1, "include_dashboard": False, "_system_config": HEALTH})
        ray_cluster.wait_for_nodes()
        # One driver connection for every cluster below (each cluster's actors have their own
        # names); the workers import the package the driver uploads, as ActorCluster does it.
        ray.init(address=ray_cluster.address, log_to_driver=False,
                 runtime_env={"py_modules": [str(Path(composable_actor.__file__).resolve().parent)]})
        print(f"a one-node Ray cluster up in {time.monotonic() - began:.1f} s")
        try:
            round_trips(binary, databases, options)
            throughput(binary, databases, options)
            rebalance(binary, databases, options)
            failover(binary, databases, ray_cluster, options)
        finally:
            ray.shutdown()
            ray_cluster.shutdown()
    print(f"\n(the whole run: {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
