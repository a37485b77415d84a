"""composable_actor.cluster on a real local Ray cluster (three nodes: real raylets), the real
binary and real storage: PostgreSQL (Tests/servers/postgres_server.py) when the binary takes
--state-url (the suite's own, or else the one in $COMPOSABLE_ACTOR_PG_BIN), else a state folder
per process. Instances that move between processes keep their state only under
PostgreSQL, so those tests need it.

Each test keeps a model of what it sent: a send whose lines came back counts for sure; a send
that raised ProcessLostError may or may not have been applied, and the model allows both."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import actor

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

sys.path.insert(0, str(actor.ROOT / "clients/python"))
from composable_actor import Client, ComposableActorError  # noqa: E402
from composable_actor.cluster import ActorCluster, ClusterStartError, ProcessLostError  # noqa: E402
import postgres_server  # noqa: E402
from postgres_server import PostgresServer, free_port  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    # Through Ray the binary does what test_postgres_instances.py has it do directly, which the
    # sanitized run covers; a local Ray cluster would add minutes to it and check no code of ours.
    pytest.mark.skipif(actor.SANITIZED, reason="the sanitized run covers the binary directly"),
]


def pg_binary() -> str | None:
    """The binary that takes --state-url: the suite's own when it does, else
    $COMPOSABLE_ACTOR_PG_BIN; None without one, or without PostgreSQL's server to test it on."""
    try:
        postgres_server.binaries()
    except RuntimeError:
        return None
    described = subprocess.run([str(actor.BINARY), "run", "--help"], capture_output=True, text=True, timeout=10)
    if "--state-url" in described.stdout + described.stderr:
        return str(actor.BINARY)
    named = os.environ.get("COMPOSABLE_ACTOR_PG_BIN")
    return named if named and os.access(named, os.X_OK) else None


PG_BINARY = pg_binary()
needs_postgres = pytest.mark.skipif(PG_BINARY is None, reason="needs the binary that takes --state-url")


@pytest.fixture(scope="module")
def ray_cluster():
    started = time.monotonic()
    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1, "include_dashboard": False,
            # A node that went away is noticed within about a second, not the default 15 s.
            "_system_config": {"health_check_period_ms": 200, "health_check_failure_threshold": 5,
                               "health_check_timeout_ms": 500},
        },
    )
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    print(f"\nthe Ray cluster of 3 nodes started in {time.monotonic() - started:.1f} s")
    yield cluster
    cluster.shutdown()


@pytest.fixture(scope="module")
def postgres():
    if PG_BINARY is None:
        yield None
        return
    with PostgresServer() as server:
        yield server


@pytest.fixture
def storage(postgres, tmp_path):
    """Where the processes store: a fresh PostgreSQL database, or a folder."""
    if postgres is None:
        return str(tmp_path / "state")
    name = f"t{time.monotonic_ns()}"
    postgres.psql(f"CREATE DATABASE {name}", database="postgres")
    return postgres.url_with(database=name)


@pytest.fixture
def start(ray_cluster, storage):
    clusters: list[ActorCluster] = []

    def start(processes=2, **options):
        options.setdefault("binary", PG_BINARY or str(actor.BINARY))
        options.setdefault("storage", storage)
        options.setdefault("lease_seconds", 3 if PG_BINARY else None)
        began = time.monotonic()
        cluster = ActorCluster(processes=processes, address=ray_cluster.address, **options)
        print(f"\n{processes} processes started in {time.monotonic() - began:.2f} s")
        clusters.append(cluster)
        return cluster

    yield start
    for cluster in clusters:
        cluster.close()


def count(cluster, key):
    return cluster.snapshot("primes", instance=key)["count"]


def test_send_and_state_match_a_plain_client(start, postgres, tmp_path):
    keys = [f"user-{n}" for n in range(40)]
    # The plain client stores as the cluster does (a folder, or a database of its own), for a
    # fair figure.
    if postgres is None:
        plain_storage = ["--state-dir", str(tmp_path / "plain")]
    else:
        postgres.psql("CREATE DATABASE plain", database="postgres")
        plain_storage = ["--state-url", postgres.url_with(database="plain"), "--process-id", "plain"]
    with Client(PG_BINARY or str(actor.BINARY), ["run", *plain_storage, "--data-dir", str(tmp_path)]) as plain:
        cluster = start()
        for round in range(3):
            for key in keys:
                ours = cluster.send("primes", "counter.incrTapped", instance=key)
                theirs = plain.send("primes", "counter.incrTapped", instance=key)
                assert [line["patch"] for line in ours] == [line["patch"] for line in theirs]
        cluster.send("primes", "counter.countChanged", value=7, instance="bob")
        lines = cluster.send("primes", "counter.nthPrimeButtonTapped", instance="bob", until="counter.nthPrimeResponse")
        assert lines[-1]["action"]["type"] == "counter.nthPrimeResponse"
        assert cluster.state("primes", instance="bob")["alertNthPrime"] == {"n": 7, "prime": 17}
        for key in keys:
            assert cluster.state("primes", instance=key) == plain.state("primes", instance=key)
            assert cluster.snapshot("primes", instance=key) == plain.state("primes", instance=key)
        # The keys are spread over both processes, and every one is listed once.
        assert {cluster.owner("primes", key) for key in keys} == set(cluster.processes)
        assert set(keys) <= set(cluster.instances("primes"))
        assert cluster.wait_for("counter.nthPrimeResponse", store="primes", instance="bob")["instance"] == "bob"
        # The default instance is routed too.
        cluster.send("primes", "counter.incrTapped")
        assert cluster.state("primes")["count"] == 1

        started = time.monotonic()
        for n in range(300):
            cluster.send("primes", "counter.incrTapped", instance=keys[n % 40])
        through_cluster = (time.monotonic() - started) / 300
        started = time.monotonic()
        for n in range(300):
            plain.send("primes", "counter.incrTapped", instance=keys[n % 40])
        direct = (time.monotonic() - started) / 300
        print(f"\na send's round trip: {through_cluster * 1000:.2f} ms through the cluster, "
              f"{direct * 1000:.3f} ms through a plain client")


def test_an_unknown_instance_and_a_refused_line_raise_as_the_client_does(start):
    cluster = start(1)
    with pytest.raises(KeyError):
        cluster.state("primes", instance="never")
    with pytest.raises(ComposableActorError) as refused:
        cluster.send("primes", "counter.noSuchAction", instance="k")
    assert refused.value.code in ("unknown_action", "invalid_message")


def burst(cluster, keys, sends, during=None, at=0.3):
    """Sends counter.incrTapped round the keys; returns the model: sure and maybe counts."""
    sure = dict.fromkeys(keys, 0)
    maybe = dict.fromkeys(keys, 0)
    lost = []
    trigger = threading.Timer(at, during) if during else None
    if trigger:
        trigger.start()
    try:
        for n in range(sends):
            key = keys[n % len(keys)]
            try:
                lines = cluster.send("primes", "counter.incrTapped", instance=key, timeout=20)
            except ProcessLostError as error:
                maybe[key] += 1
                lost.append(error)
                continue
            sure[key] += 1
            # Its line shows at least every change counted sure so far.
            assert sure[key] <= lines[0]["patch"][0]["value"] <= sure[key] + maybe[key]
    finally:
        if trigger:
            trigger.join()
    return sure, maybe, lost


def check(cluster, sure, maybe):
    wrong = {}
    for key in sure:
        value = count(cluster, key)
        if not sure[key] <= value <= sure[key] + maybe[key]:
            wrong[key] = (value, sure[key], maybe[key])
    assert not wrong, f"{len(wrong)} instances off the model (count, sure, maybe): {list(wrong.items())[:5]}"


def check_never_active_twice(postgres, storage):
    """Every stored change of every instance, in batch order, counts one more than the one
    before: two processes active at once would both have stored the same count. (The counter
    store's journal holds every action: 3 per instance are far from a snapshot's fold.)"""
    if postgres is None:
        return
    database = storage.rsplit("/", 1)[1]
    # One row per stored line, in order: a batch's lines are its text's lines.
    rows = postgres.psql(
        "SELECT instance, process || ':' || incarnation, line FROM composable_actor.batches, "
        "unnest(string_to_array(rtrim(convert_from(lines, 'UTF8'), E'\\n'), E'\\n')) "
        "WITH ORDINALITY AS stored(line, position) ORDER BY instance, number, position",
        database=database)
    counts: dict[str, int] = {}
    writers: dict[str, list[str]] = {}
    for row in rows.splitlines():
        instance, writer, line = row.split("|", 2)
        writers.setdefault(instance, []).append(writer)
        value = json.loads(line)["patch"][0]["value"]
        assert value == counts.get(instance, 0) + 1, (instance, value, writers[instance])
        counts[instance] = value
    assert counts, "nothing was stored"


def test_sigkill_of_a_binary_during_a_burst_loses_no_change_that_was_read(start, postgres, storage):
    cluster = start(2)
    keys = [f"k{n}" for n in range(1000)]
    victim = cluster.processes[0]
    pid = cluster.pid(victim)
    started = time.monotonic()
    sure, maybe, lost = burst(cluster, keys, 3000, during=lambda: os.kill(pid, signal.SIGKILL))
    print(f"\n3,000 sends over 1,000 instances in {time.monotonic() - started:.1f} s, "
          f"{len(lost)} ProcessLostError")
    assert all(error.process == victim for error in lost)
    assert len(lost) <= 1  # only the send in flight: the next starts a new binary
    assert cluster.pid(victim) != pid  # the actor started a new binary itself
    check(cluster, sure, maybe)
    check_never_active_twice(postgres, storage)
    assert cluster.processes == sorted([victim, cluster.processes[1]])


def test_removing_a_node_during_a_burst_and_adding_one_loses_no_change_that_was_read(ray_cluster, start, postgres, storage):
    # The processes are placed round the nodes, so that removing a worker node takes one.
    cluster = start(3)
    by_node = {cluster.node(name): name for name in cluster.processes}
    workers = [node for node in ray_cluster.list_all_nodes() if node is not ray_cluster.head_node]
    victim = next(node for node in workers if node.node_id in by_node)
    keys = [f"n{n}" for n in range(1000)]
    started = time.monotonic()
    sure, maybe, lost = burst(cluster, keys, 3000, during=lambda: ray_cluster.remove_node(victim), at=0.5)
    print(f"\nremoving a node during 3,000 sends took {time.monotonic() - started:.1f} s, "
          f"{len(lost)} ProcessLostError: {[str(error)[:120] for error in lost[:2]]}")
    check(cluster, sure, maybe)
    check_never_active_twice(postgres, storage)
    # Its process restarted elsewhere under its name, or left the cluster.
    assert by_node[victim.node_id] not in cluster.processes or cluster.node(by_node[victim.node_id]) != victim.node_id
    # A node comes back, with a process on it: the instances that move there keep their state.
    ray_cluster.add_node(num_cpus=1)  # the next test gets three nodes again
    ray_cluster.wait_for_nodes()
    added = cluster.add_process()
    moved = [key for key in keys if cluster.owner("primes", key) == added]
    assert moved
    for key in moved:
        cluster.send("primes", "counter.incrTapped", instance=key)
        sure[key] += 1
    check(cluster, sure, maybe)
    check_never_active_twice(postgres, storage)


@needs_postgres
def test_adding_a_process_moves_its_share_without_loss_or_duplication(start, postgres, storage):
    cluster = start(2)
    keys = [f"a{n}" for n in range(300)]
    sure, maybe, lost = burst(cluster, keys, 600)
    assert not lost
    before = {key: cluster.owner("primes", key) for key in keys}
    added = cluster.add_process()
    moved = [key for key in keys if cluster.owner("primes", key) != before[key]]
    assert moved and all(cluster.owner("primes", key) == added for key in moved)
    # The old owners let them go eagerly: none lists a moved key as active any more.
    for key in moved:
        cluster.send("primes", "counter.incrTapped", instance=key)
        sure[key] += 1
    check(cluster, sure, maybe)
    for key in moved[:20]:
        assert cluster.state("primes", instance=key)["count"] == sure[key]
    cluster.remove_process(added)
    assert added not in cluster.processes
    for key in moved[:50]:
        cluster.send("primes", "counter.incrTapped", instance=key)
        sure[key] += 1
    check(cluster, sure, maybe)
    check_never_active_twice(postgres, storage)


@needs_postgres
def test_an_unreachable_database_is_a_clear_error(ray_cluster):
    url = f"postgresql://actor:secret@127.0.0.1:{free_port()}/actor"
    began = time.monotonic()
    with pytest.raises(ClusterStartError) as failed:
        ActorCluster(binary=PG_BINARY, processes=1, storage=url, address=ray_cluster.address)
    print(f"\nan unreachable database was reported in {time.monotonic() - began:.1f} s: {failed.value}")
    assert "127.0.0.1" in str(failed.value) or "connect" in str(failed.value).lower()


def test_a_process_whose_actor_is_gone_for_good_leaves_the_cluster(start):
    cluster = start(2)
    keys = [f"g{n}" for n in range(100)]
    sure, maybe, lost = burst(cluster, keys, 200)
    assert not lost
    victim = cluster.processes[0]
    ray.kill(ray.get_actor(victim), no_restart=True)
    began = time.monotonic()
    theirs = [key for key in keys if cluster.owner("primes", key) == victim]
    errors = 0
    for key in theirs:
        try:
            cluster.send("primes", "counter.incrTapped", instance=key)
            sure[key] += 1
        except ProcessLostError:
            errors += 1
            maybe[key] += 1
    took = time.monotonic() - began
    print(f"\n{len(theirs)} sends to a process gone for good: {errors} ProcessLostError, {took:.1f} s")
    assert errors <= 1  # the first send learns it; the next ones go to the others
    assert cluster.processes == [name for name in sorted(cluster.processes) if name != victim]
    assert victim not in cluster.processes
    if PG_BINARY is not None:  # the state moved with the instances
        check(cluster, sure, maybe)


def test_events_and_wait_for_merge_every_process(start):
    cluster = start(2)
    keys = [f"e{n}" for n in range(20)]
    assert {cluster.owner("primes", key) for key in keys} == set(cluster.processes)
    events = cluster.events(store="primes", instance="e3")
    for key in keys:
        cluster.send("primes", "counter.incrTapped", instance=key)
    assert {line.get("instance") for line in cluster.backlog if line["type"] == "action"} == set(keys)
    first = next(line for line in events if line["type"] == "action")
    assert first["instance"] == "e3" and first["patch"][0]["value"] == 1
    # An effect's line that no send returned comes through a pull.
    cluster.send("primes", "counter.countChanged", value=5, instance="e7")
    cluster.send("primes", "counter.nthPrimeButtonTapped", instance="e7")
    line = cluster.wait_for("counter.nthPrimeResponse", store="primes", instance="e7", timeout=10)
    assert line["instance"] == "e7"
    assert cluster.state("primes", instance="e7")["alertNthPrime"] == {"n": 5, "prime": 11}
    with pytest.raises(TimeoutError):
        cluster.wait_for("counter.nthPrimeResponse", store="primes", instance="e8", timeout=0.5)


def test_the_asyncio_cluster(ray_cluster, storage):
    import asyncio

    from composable_actor.cluster import AsyncActorCluster

    async def main():
        async with AsyncActorCluster(
            binary=PG_BINARY or str(actor.BINARY), processes=2, storage=storage, address=ray_cluster.address,
            lease_seconds=3 if PG_BINARY else None,
        ) as cluster:
            keys = [f"s{n}" for n in range(50)]
            await asyncio.gather(*(cluster.send("primes", "counter.incrTapped", instance=key) for key in keys))
            await asyncio.gather(*(cluster.send("primes", "counter.incrTapped", instance=key) for key in keys))
            for key in keys:
                assert (await cluster.state("primes", instance=key))["count"] == 2
                assert (await cluster.snapshot("primes", instance=key))["count"] == 2
            # 500 sends at once: their answers end in any order, and every mirror still follows
            # its instance's patches in order.
            await asyncio.gather(*(cluster.send("primes", "counter.incrTapped", instance=f"burst-{n % 100}")
                                   for n in range(500)))
            for n in range(100):
                key = f"burst-{n}"
                assert await cluster.state("primes", instance=key) == await cluster.snapshot("primes", instance=key)
                assert (await cluster.state("primes", instance=key))["count"] == 5
            await cluster.send("primes", "counter.nthPrimeButtonTapped", instance="s1")
            line = await cluster.wait_for("counter.nthPrimeResponse", store="primes", instance="s1", timeout=10)
            assert line["instance"] == "s1"
            added = await cluster.add_process()
            assert added in cluster.processes and len(cluster.processes) == 3
            moved = [key for key in keys if cluster.owner("primes", key) == added]
            for key in moved:
                await cluster.send("primes", "counter.incrTapped", instance=key)
            if PG_BINARY is not None:
                for key in moved:
                    assert (await cluster.snapshot("primes", instance=key))["count"] == 3
            seen = []
            async for line in cluster.events(store="primes", instance="s2"):
                seen.append(line)
                if line["type"] == "action":
                    break
            assert seen[-1]["patch"][0]["value"] == 1

    asyncio.run(main())


def test_the_example_runs(ray_cluster, postgres, storage):
    where = ["--folder"] if postgres is None else ["--url", storage]
    done = subprocess.run(
        [sys.executable, str(actor.ROOT / "Examples/clients/cluster.py"), "--binary", PG_BINARY or str(actor.BINARY),
         "--address", ray_cluster.address, *where],
        capture_output=True, text=True, timeout=100,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "users moved to it" in done.stdout


@needs_postgres
def test_an_instance_held_outside_the_cluster_is_a_clear_error_within_the_bound(start, storage, tmp_path):
    """A process that is not the cluster's holds the instance and renews its lease: the cluster
    retries within lease_seconds + 10 s, then raises the binary's instance_elsewhere."""
    cluster = start(1)
    with Client(PG_BINARY, ["run", "--state-url", storage, "--process-id", "outsider", "--lease-seconds", "3",
                            "--data-dir", str(tmp_path)]) as outsider:
        outsider.send("primes", "counter.incrTapped", instance="held")
        began = time.monotonic()
        with pytest.raises(ComposableActorError) as refused:
            cluster.send("primes", "counter.incrTapped", instance="held")
        took = time.monotonic() - began
        print(f"\nan instance held outside the cluster: {refused.value.code} after {took:.1f} s")
        assert refused.value.code == "instance_elsewhere" and refused.value.owner == "outsider"
        assert 12 < took < 20
    # Once the outsider quit (and let it go), the cluster takes it, its state with it.
    assert cluster.send("primes", "counter.incrTapped", instance="held")[0]["patch"][0]["value"] == 2
