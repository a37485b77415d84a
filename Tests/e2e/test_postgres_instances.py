"""Durable instances in PostgreSQL through the binary (`run --state-url`), against a throwaway
server (Tests/servers/postgres_server.py): several processes share the database, each instance is
active in one of them at a time, a process that lost an instance cannot store changes to it, and
a server that goes away is a clear error, not damage."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from actor import BINARY, SANITIZED, Actor, run_lines

sys.path.insert(0, str(Path(__file__).parents[1] / "servers"))
from postgres_server import PostgresServer  # noqa: E402

pytestmark = pytest.mark.timeout(300)


def incr(instance=None, id=None):
    message = {"store": "primes", "action": "counter.incrTapped"}
    if instance is not None:
        message["instance"] = instance
    if id is not None:
        message["id"] = id
    return message


def snapshot(actor, instance=None):
    message = {"cmd": "snapshot", "store": "primes", "id": "snapshot"}
    if instance is not None:
        message["instance"] = instance
    actor.send(message)
    return actor.read_until(lambda line: line.get("id") == "snapshot")[-1]


@pytest.fixture(scope="module")
def server():
    with PostgresServer() as server:
        yield server


@pytest.fixture
def database(server):
    """The server with the storage's tables dropped: each test starts from an empty database."""
    server.psql("DROP SCHEMA IF EXISTS composable_actor CASCADE")
    return server


@pytest.fixture
def processes(database, data_dir):
    """Starts processes on the database, each with its `--process-id`; kills any still running
    at the end."""
    running = []

    def start(process_id, *args):
        actor = Actor(
            "--state-url", database.url, "--process-id", process_id, *args, data_dir=data_dir)
        running.append(actor)
        return actor

    yield start
    for actor in running:
        if actor.process.poll() is None:
            actor.process.send_signal(signal.SIGCONT)
        actor.kill()


def owners(database):
    rows = database.psql("SELECT store, instance, process FROM composable_actor.owners ORDER BY 1, 2")
    return [tuple(row.split("|")) for row in rows.splitlines()]


def writers(database, instance):
    """The processes that stored the instance's batches, in batch order, runs collapsed."""
    rows = database.psql(
        "SELECT process || ':' || incarnation FROM composable_actor.batches "
        f"WHERE store = 'primes' AND instance = '{instance}' ORDER BY number")
    collapsed = []
    for writer in rows.splitlines():
        if not collapsed or collapsed[-1] != writer:
            collapsed.append(writer)
    return collapsed


def test_instances_read_back_in_another_process_and_a_clean_exit_releases_them(processes, database):
    first = processes("p1")
    first.send(incr(), incr("alice"), incr("alice"), incr("bob"))
    assert [first.read()["seq"] for _ in range(4)] == [1, 2, 3, 4]
    assert owners(database) == [("primes", "", "p1"), ("primes", "alice", "p1"), ("primes", "bob", "p1")]
    assert first.finish()[1] == 0
    assert owners(database) == []

    second = processes("p2")
    assert snapshot(second)["state"]["count"] == 1
    assert snapshot(second, "alice")["state"]["count"] == 2
    second.send(incr("alice"))
    line = second.read()
    # seq is numbered per process: p2 starts its own.
    assert line["seq"] == 1 and line["patch"] == [{"op": "replace", "path": "/count", "value": 3}]
    assert second.finish()[1] == 0
    # p1 started again goes on from its own last seq.
    again = processes("p1")
    again.send(incr("bob"))
    assert again.read()["seq"] == 5
    assert again.finish()[1] == 0


def test_an_instance_is_active_in_one_process_and_moves_when_stopped(processes, database):
    p1 = processes("p1")
    p2 = processes("p2")
    p1.send(incr("a"))
    p1.read()
    p2.send(incr("a", id=7))
    refused = p2.read()
    assert refused["type"] == "error" and refused["code"] == "instance_elsewhere"
    assert refused["owner"] == "p1" and refused["id"] == 7 and refused["instance"] == "a"
    assert "active in process \"p1\"" in refused["message"] and "secret" not in refused["message"]
    # forget is refused as well, and changes nothing.
    p2.send({"cmd": "forget", "store": "primes", "instance": "a", "id": "f"})
    forgotten = p2.read()
    assert forgotten["code"] == "instance_elsewhere" and forgotten["owner"] == "p1"
    # A stop stores and releases the instance before its line is written.
    p1.send({"cmd": "stop", "store": "primes", "instance": "a"})
    assert p1.read()["type"] == "stopped"
    assert owners(database) == []
    p2.send(incr("a"))
    assert p2.read()["patch"][0]["value"] == 2
    assert owners(database) == [("primes", "a", "p2")]
    # Now p1 is the one refused.
    p1.send(incr("a", id=8))
    assert p1.read()["owner"] == "p2"
    assert writers(database, "a") == ["p1:1", "p2:1"]


def test_a_process_that_lost_its_lease_cannot_store_and_its_line_is_never_written(processes, database):
    """p1 stops renewing (SIGSTOP) past its lease; p2 takes the instance over. When p1 wakes up,
    its next action on the instance is taken back with instance_elsewhere: fenced, not stored,
    and its line never written; the change to another instance in the same burst is stored."""
    p1 = processes("p1", "--lease-seconds", "3")
    p1.send(incr("a"), incr("c"))
    p1.read(), p1.read()
    p1.process.send_signal(signal.SIGSTOP)
    p2 = processes("p2")
    p2.send(incr("a", id="early"))
    assert p2.read()["code"] == "instance_elsewhere"
    deadline = time.monotonic() + 10
    while True:
        p2.send(incr("a", id="late"))
        line = p2.read()
        if line["type"] == "action":
            break
        assert line["code"] == "instance_elsewhere" and time.monotonic() < deadline
        time.sleep(0.25)
    assert line["patch"][0]["value"] == 2
    p1.process.send_signal(signal.SIGCONT)
    p1.send(incr("c", id="c"), incr("a", id="stale"))
    lines = {line["id"]: line for line in (p1.read(), p1.read())}
    taken_back = lines["stale"]
    assert taken_back["type"] == "error" and taken_back["code"] == "instance_elsewhere"
    assert taken_back["owner"] == "p2"
    assert taken_back["action"] == {"type": "counter.incrTapped"}
    # p1's claim on c ran out too, but nobody took c: its claim goes on.
    assert lines["c"]["type"] == "action" and lines["c"]["patch"][0]["value"] == 2
    # p1 let the instance go; p2 goes on from its own count.
    p2.send(incr("a"))
    assert p2.read()["patch"][0]["value"] == 3
    assert writers(database, "a") == ["p1:1", "p2:1"]
    assert p1.finish()[1] == 0


def test_a_restarted_process_takes_its_instances_back_at_once_and_fences_the_old_one(processes, database):
    old = processes("p1")
    old.send(incr("a"), incr("b"))
    old.read(), old.read()
    old.process.send_signal(signal.SIGSTOP)
    # Its lease (10 s) has not run out, but the same --process-id claims them straight away.
    new = processes("p1")
    new.send(incr("a"))
    assert new.read()["patch"][0]["value"] == 2
    old.process.send_signal(signal.SIGCONT)
    old.send(incr("b", id="old"))
    fenced = old.read()
    assert fenced["code"] == "storage_failed" and fenced["id"] == "old"
    assert "another process started with this one's --process-id" in fenced["message"]
    new.send(incr("b"))
    assert new.read()["patch"][0]["value"] == 2
    assert writers(database, "b") == ["p1:1", "p1:2"]


def test_a_killed_process_keeps_every_change_whose_line_was_read(processes, database):
    """Bursts over 32 instances, SIGKILL at a random moment, start again under the same id."""
    rounds = 10 if SANITIZED else 60
    keys = [f"user-{n}" for n in range(32)]
    shown = {key: 0 for key in keys}
    sent = {key: 0 for key in keys}
    rng = random.Random(30)
    for round in range(rounds):
        actor = processes("p1")
        if round % 20 == 0 or round == rounds - 1:
            for key in keys:
                count = snapshot(actor, key)["state"]["count"]
                assert shown[key] <= count <= sent[key], (round, key, shown[key], count, sent[key])
                shown[key] = count
        burst = [rng.choice(keys) for _ in range(rng.randint(1, 200))]
        actor.send(*[incr(key) for key in burst])
        for key in burst:
            sent[key] += 1
        for _ in range(rng.randint(0, len(burst))):
            line = json.loads(actor.read_bytes())
            if line["type"] == "action":
                shown[line["instance"]] = line["patch"][0]["value"]
        actor.process.send_signal(signal.SIGKILL)
        actor.kill()
    actor = processes("p1")
    for key in keys:
        count = snapshot(actor, key)["state"]["count"]
        assert shown[key] <= count <= sent[key]
    assert actor.finish()[1] == 0


def test_a_server_that_goes_away_fails_commits_clearly_and_recovery_follows(processes, database):
    actor = processes("p1")
    actor.send(incr("a"), incr("a"))
    actor.read(), actor.read()
    database.stop()
    try:
        actor.send(incr("a", id="lost"), incr("b", id="lost-b"))
        errors = [actor.read(timeout=20), actor.read(timeout=20)]
        assert {line["id"] for line in errors} == {"lost", "lost-b"}
        for line in errors:
            assert line["type"] == "error" and line["code"] in ("storage_failed",)
            assert "secret" not in line["message"]
    finally:
        database.start()
    # The process kept running; what is stored is what the lines said.
    assert snapshot(actor, "a")["state"]["count"] == 2
    actor.send(incr("a"))
    assert actor.read()["patch"][0]["value"] == 3
    assert actor.finish()[1] == 0


def test_bad_databases_are_refused_at_start_with_exit_74(database, data_dir):
    wrong = run_lines(
        [incr()], "--state-url", database.url_with(password="wrong"), data_dir=data_dir)
    assert wrong[1] == 74 and wrong[0] == []
    assert "password authentication failed" in wrong[2] and "wrong" not in wrong[2]
    assert "actor:***@127.0.0.1" in wrong[2]

    closed = run_lines([incr()], "--state-url", database.url_with(port=1), data_dir=data_dir)
    assert closed[1] == 74 and "Connection refused" in closed[2]

    missing = run_lines(
        [incr()], "--state-url", database.url_with(database="nowhere"), data_dir=data_dir)
    assert missing[1] == 74 and 'database "nowhere" does not exist' in missing[2]

    # Tables a newer version made are refused, and left as they were.
    lines, code, _ = run_lines([incr("k")], "--state-url", database.url, data_dir=data_dir)
    assert code == 0
    database.psql("UPDATE composable_actor.meta SET value = '2' WHERE key = 'format'")
    newer = run_lines([incr("k")], "--state-url", database.url, data_dir=data_dir)
    assert newer[1] == 74 and "a newer version wrote it (state format 2" in newer[2]
    assert database.psql("SELECT count(*) FROM composable_actor.batches") == "1"
    assert database.psql("SELECT value FROM composable_actor.meta WHERE key = 'format'") == "2"


def test_options_that_need_state_url_or_cannot_go_with_it(database):
    cases = [
        (["--process-id", "p"], "--process-id needs --state-url"),
        (["--lease-seconds", "5"], "--lease-seconds needs --state-url"),
        (["--state-url", database.url, "--fsync", "always"], "--fsync needs --state-dir"),
        (["--state-url", database.url, "--state-dir", "x"], "give one"),
        (["--state-url", database.url, "--lease-seconds", "1"], "--lease-seconds must be between 3"),
        (["--state-url", database.url, "--process-id", ""], "--process-id must be 1 to 256 bytes"),
    ]
    for arguments, message in cases:
        result = subprocess.run([str(BINARY), *arguments], capture_output=True, timeout=10)
        assert result.returncode == 64, arguments
        assert message.encode() in result.stderr, (arguments, result.stderr)


def test_export_reads_a_database_in_use_and_its_history_replays(processes, database, tmp_path):
    empty = subprocess.run(
        [str(BINARY), "export", "--state-url", database.url, "--store", "primes", "--instance", "a"],
        capture_output=True, text=True, timeout=30)
    # Nothing stored yet, and reading created nothing.
    assert empty.returncode == 66, empty.stderr
    assert database.psql("SELECT to_regclass('composable_actor.meta') IS NULL") == "t"

    actor = processes("p1")
    actor.send(*[incr("a") for _ in range(5)])
    for _ in range(5):
        actor.read()
    path = tmp_path / "a.jsonl"
    exported = subprocess.run(
        [str(BINARY), "export", "--state-url", database.url, "--store", "primes", "--instance", "a",
         "-o", str(path)], capture_output=True, text=True, timeout=30)
    assert exported.returncode == 0, exported.stderr
    replayed = subprocess.run(
        [str(BINARY), "replay", str(path)], capture_output=True, text=True, timeout=30)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == f"{path}: 5 actions replayed, every state matched\n"
    # The process went on, untouched.
    actor.send(incr("a"))
    assert actor.read()["patch"][0]["value"] == 6
    both = subprocess.run(
        [str(BINARY), "export", "--state-url", database.url, "--state-dir", "x", "--store", "primes"],
        capture_output=True, text=True, timeout=30)
    assert both.returncode == 64 and "give one of --state-dir and --state-url" in both.stderr
