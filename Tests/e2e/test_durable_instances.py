"""Durable instances through the binary (`run --state-dir`): every change whose line a host
read survives the process, whatever ends it; a folder that cannot be used is a clear error."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from actor import BINARY, ROOT, SANITIZED, Actor, run_lines


def incr(instance=None, id=None):
    message = {"store": "primes", "action": "counter.incrTapped"}
    if instance is not None:
        message["instance"] = instance
    if id is not None:
        message["id"] = id
    return message


def snapshot(actor, instance=None, store="primes"):
    """The instance's snapshot line; the lines before it are read and kept in `actor.lines`."""
    message = {"cmd": "snapshot", "store": store, "id": "snapshot"}
    if instance is not None:
        message["instance"] = instance
    actor.send(message)
    return actor.read_until(lambda line: line.get("id") == "snapshot")[-1]


@pytest.fixture
def state_dir(tmp_path):
    return tmp_path / "state"


@pytest.fixture
def durable(state_dir, data_dir):
    """Starts processes on the one state folder; kills any still running at the end."""
    running = []

    def start(*args):
        actor = Actor("--state-dir", str(state_dir), *args, data_dir=data_dir)
        running.append(actor)
        return actor

    yield start
    for actor in running:
        actor.kill()


def test_every_instance_reads_back_in_a_new_process_and_seq_goes_on(durable):
    first = durable()
    first.send(incr(), incr("alice"), incr("alice"), incr("bob"))
    lines = [first.read() for _ in range(4)]
    assert [line["seq"] for line in lines] == [1, 2, 3, 4]
    first.send({"store": "randomTodo", "instance": "t", "action": "viewDidAppear"})
    first.read_until(lambda line: line.get("store") == "randomTodo")
    first.send({"cmd": "quit"})
    first.read_until(lambda line: line["type"] == "exit")

    second = durable()
    assert snapshot(second)["state"]["count"] == 1
    assert snapshot(second, "alice")["state"]["count"] == 2
    assert snapshot(second, "bob")["state"]["count"] == 1
    # The state is stored; the timer the action started is not: effects end with the process.
    assert snapshot(second, "t", store="randomTodo")["state"]["isAutoRefreshing"] is True
    second.send(incr("alice"))
    line = second.read()
    assert line["seq"] == 6
    assert line["patch"] == [{"op": "replace", "path": "/count", "value": 3}]


# 2,000 kills and restarts: about 100 s on this 2-core machine while other work runs. Through
# the sanitized debug binary a round takes seconds: 25 rounds cover the same paths (a start
# over the journal, bursts, a kill at any moment) for the sanitizer, the 2,000 the property.
@pytest.mark.timeout(360)
def test_a_killed_process_keeps_every_change_whose_line_was_read(durable, state_dir):
    """The kill loop: bursts over 64 instances, SIGKILL at a random moment, start again; every
    50 rounds, every instance holds at least what the lines read showed, and at most what was
    sent."""
    rounds = 25 if SANITIZED else int(os.environ.get("KILL_ROUNDS", 2000))
    keys = [None] + [f"user-{n}" for n in range(63)]
    shown = {key: 0 for key in keys}  # the count each instance's last line read showed
    sent = {key: 0 for key in keys}
    rng = random.Random(29)
    last_seq = 0
    for round in range(rounds):
        actor = durable()
        if round % 50 == 0 or round == rounds - 1:
            for key in keys:
                count = snapshot(actor, key)["state"]["count"]
                assert shown[key] <= count <= sent[key], (round, key, shown[key], count, sent[key])
                shown[key] = count
        burst = [rng.choice(keys) for _ in range(rng.randint(1, 300))]
        actor.send(*[incr(key) for key in burst])
        for key in burst:
            sent[key] += 1
        for _ in range(rng.randint(0, len(burst))):
            # Parsed here rather than kept for the schema check: a thousand rounds of lines
            # would take the check a minute, and the other tests check these lines' shape.
            line = json.loads(actor.read_bytes())
            if line["type"] != "action":
                continue
            assert line["seq"] > last_seq
            last_seq = line["seq"]
            shown[line.get("instance")] = line["patch"][0]["value"]
        if rng.random() < 0.5:
            time.sleep(rng.random() / 500)
        actor.process.send_signal(signal.SIGKILL)
        actor.kill()
    actor = durable()
    for key in keys:
        count = snapshot(actor, key)["state"]["count"]
        assert shown[key] <= count <= sent[key]
    assert actor.finish()[1] == 0


def test_fsync_policies_each_keep_changes_and_fsync_needs_a_state_dir(state_dir, data_dir):
    for policy in ("always", "batch", "never"):
        folder = state_dir.with_name(f"state-{policy}")
        lines, code, _ = run_lines(
            [incr("k"), incr("k")], "--state-dir", str(folder), "--fsync", policy,
            data_dir=data_dir)
        assert code == 0 and lines[-2]["patch"][0]["value"] == 2
        lines, code, _ = run_lines(
            [{"cmd": "snapshot", "store": "primes", "instance": "k"}], "--state-dir", str(folder),
            "--fsync", policy, data_dir=data_dir)
        assert lines[1]["state"]["count"] == 2
    result = subprocess.run([str(BINARY), "--fsync", "always"], capture_output=True, timeout=10)
    assert result.returncode == 64
    assert b"--fsync needs --state-dir" in result.stderr
    lines, code, stderr = run_lines(
        [incr()], "--state-dir", str(state_dir / "a" / "b"), data_dir=data_dir)
    assert code == 74 and lines == []
    assert f"its parent folder {state_dir / 'a'} does not exist" in stderr


def test_a_folder_is_used_by_one_process_at_a_time(durable, state_dir, data_dir):
    first = durable()
    first.send(incr())
    first.read()
    lines, code, stderr = run_lines([incr()], "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 74 and lines == []
    assert f"in use by process {first.process.pid}" in stderr
    first.finish()
    lines, code, _ = run_lines([incr()], "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 0 and lines[1]["patch"][0]["value"] == 2


def test_a_file_that_is_not_a_database_is_refused_at_start_and_left_alone(state_dir, data_dir):
    state_dir.mkdir()
    garbage = b"not a database, but a user's file\n" * 200
    (state_dir / "state.sqlite").write_bytes(garbage)
    lines, code, stderr = run_lines([incr()], "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 74 and lines == []
    assert "--state-dir" in stderr and str(state_dir) in stderr
    assert (state_dir / "state.sqlite").read_bytes() == garbage


def test_forget_deletes_an_instance_and_the_listing_names_what_is_stored(durable):
    first = durable()
    first.send(incr("a"), incr("b"), incr("b"), incr("c"))
    [first.read() for _ in range(4)]
    first.send({"cmd": "forget", "store": "primes", "instance": "b", "id": 7})
    assert first.read() == {
        "type": "forgotten", "store": "primes", "instance": "b", "id": 7, "cancelledEffects": 0}
    first.send({"cmd": "forget", "store": "primes", "instance": "nobody"})
    error = first.read()
    assert error["code"] == "unknown_instance" and error["instance"] == "nobody"
    first.finish()

    second = durable()
    second.send({"cmd": "instances", "store": "primes"})
    assert second.read() == {
        "type": "instances", "store": "primes", "active": [], "passivated": ["a", "c"],
        "count": 0}
    assert snapshot(second, "a")["state"]["count"] == 1
    second.send({"cmd": "instances", "store": "primes", "limit": 1})
    assert second.read() == {
        "type": "instances", "store": "primes", "active": ["a"], "passivated": [], "count": 1,
        "next": "a"}
    second.send({"cmd": "instances", "store": "primes", "after": "a"})
    assert second.read()["passivated"] == ["c"]
    assert snapshot(second, "b")["state"]["count"] == 0
    second.send({"cmd": "forget", "store": "primes", "instance": "c"})
    assert second.read()["type"] == "forgotten"
    second.finish()


def test_forget_without_a_state_dir_is_refused(process):
    actor = process()
    actor.send({"cmd": "forget", "store": "primes", "instance": "a"})
    error = actor.read()
    assert error["code"] == "invalid_command" and "--state-dir" in error["message"]


@contextmanager
def small_disk(tmp_path, size="4m"):
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount_point)],
        capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=True)


def fill(folder: Path) -> Path:
    """Fills the file system of `folder` to the last byte; returns the file that does."""
    filler = folder / "filler"
    # Unbuffered: a buffered file keeps the byte its last flush could not write, and closing
    # it tries again and raises.
    with open(filler, "wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 65536)
        except OSError:
            pass
        try:
            while True:
                file.write(b"\0")
        except OSError:
            pass
    return filler


def test_a_full_disk_takes_the_changes_back_and_the_process_goes_on(tmp_path, data_dir):
    with small_disk(tmp_path) as disk:
        folder = disk / "state"
        actor = Actor("--state-dir", str(folder), data_dir=data_dir)
        try:
            actor.send(incr("a"), incr())
            assert [actor.read()["patch"][0]["value"] for _ in range(2)] == [1, 1]
            filler = fill(disk)
            # Enough changes that the write-ahead log needs pages the disk no longer has.
            actor.send(*[incr("a", id=n) for n in range(2000)])
            before = len(actor.lines)
            # Whatever was shown was stored; what was taken back is not in memory either.
            count = snapshot(actor, "a")["state"]["count"]
            lines = actor.lines[before:-1]
            errors = [line for line in lines if line["type"] == "error"]
            assert errors and all(
                error["code"] == "storage_failed" and error["store"] == "primes"
                and error["instance"] == "a" and "line" not in error
                and error["action"] == {"type": "counter.incrTapped"} for error in errors)
            # Every action is answered: by its line once stored, or by an error with its id.
            assert sorted(line["id"] for line in lines) == list(range(2000))
            shown = max([1] + [line["patch"][0]["value"] for line in lines if line["type"] == "action"])
            assert count == shown
            assert snapshot(actor)["state"]["count"] == 1
            filler.unlink()
            actor.send(incr("a"))
            line = actor.read_until(lambda line: line["type"] == "action")[-1]
            assert line["patch"][0]["value"] == shown + 1
            assert actor.finish()[1] == 0
        finally:
            actor.kill()
        lines, code, _ = run_lines(
            [{"cmd": "snapshot", "store": "primes", "instance": "a"}], "--state-dir", str(folder),
            data_dir=data_dir)
        assert code == 0 and lines[1]["state"]["count"] == shown + 1


def test_a_read_only_folder_is_a_clear_error_at_start(tmp_path, data_dir):
    with small_disk(tmp_path) as disk:
        folder = disk / "state"
        lines, code, _ = run_lines([incr()], "--state-dir", str(folder), data_dir=data_dir)
        assert code == 0
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        lines, code, stderr = run_lines([incr()], "--state-dir", str(folder), data_dir=data_dir)
        assert code == 74 and lines == []
        assert "read-only" in stderr.lower() or "readonly" in stderr.lower(), stderr


def test_idle_instances_leave_memory_and_come_back_and_busy_ones_stay(durable):
    actor = durable("--clock", "virtual", "--passivate-after", "0.1")
    actor.send(incr("idle"), incr("idle"), incr())
    [actor.read() for _ in range(3)]
    # A timer that waits for virtual time: the instance has an effect running.
    actor.send({"store": "randomTodo", "instance": "busy", "action": "viewDidAppear"})
    actor.read()
    time.sleep(0.6)
    actor.send({"cmd": "instances", "store": "primes"})
    assert actor.read() == {
        "type": "instances", "store": "primes", "active": [], "passivated": ["idle"], "count": 0}
    actor.send({"cmd": "instances", "store": "randomTodo"})
    assert actor.read() == {
        "type": "instances", "store": "randomTodo", "active": ["busy"], "passivated": [],
        "count": 1}
    actor.send(incr("idle"), incr())
    assert [actor.read()["patch"][0]["value"] for _ in range(2)] == [3, 2]


def test_past_max_active_the_least_recently_used_idle_instances_leave_memory(durable):
    actor = durable("--max-active", "2")
    # One at a time: an instance whose changes are not stored yet is not idle.
    for key in ("a", "b", "c", "a", "d"):
        actor.send(incr(key))
        actor.read()
    actor.send({"cmd": "instances", "store": "primes"})
    listing = actor.read()
    assert listing["count"] == 2 and set(listing["active"]) | set(listing["passivated"]) == {
        "a", "b", "c", "d"}
    assert "d" in listing["active"]
    assert [snapshot(actor, key)["state"]["count"] for key in "abcd"] == [2, 1, 1, 1]


def test_passivation_options_need_a_state_dir():
    for option, value in (("--passivate-after", "1"), ("--max-active", "5")):
        result = subprocess.run([str(BINARY), option, value], capture_output=True, timeout=10)
        assert result.returncode == 64
        assert f"{option} needs --state-dir".encode() in result.stderr


def stored_folder(state_dir, data_dir, keys):
    """A folder where each of `keys` (None: the default instance) had one counter tap."""
    lines, code, _ = run_lines(
        [incr(key) for key in keys], "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 0 and len(lines) == len(keys) + 2
    return state_dir / "state.sqlite"


def test_a_store_stored_by_a_binary_whose_state_differs_is_refused_and_the_others_work(
        state_dir, data_dir):
    database = stored_folder(state_dir, data_dir, ["a"])
    with sqlite3.connect(database) as connection:
        # As a binary would have stored it whose state had no activityFeed and another count.
        row = connection.execute(
            "SELECT value FROM meta WHERE key = 'fingerprint:primes'").fetchone()
        digests = json.loads(row[0])
        del digests["activityFeed"]
        digests["count"] = "0" * 16
        connection.execute(
            "UPDATE meta SET value = ? WHERE key = 'fingerprint:primes'", (json.dumps(digests),))
    lines, code, _ = run_lines(
        [incr("a"), incr("b"), {"store": "randomTodo", "action": "viewDidAppear"}, {"cmd": "quit"}],
        "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 0
    refused = [line for line in lines if line["type"] == "error"]
    assert [(line["code"], line.get("instance"), line["line"]) for line in refused] == [
        ("stored_state_incompatible", "a", 1), ("stored_state_incompatible", "b", 2)]
    assert "state field activityFeed is new, state field count changed" in refused[0]["message"]
    assert any(line.get("store") == "randomTodo" and line["type"] == "action" for line in lines)
    with sqlite3.connect(database) as connection:
        assert json.loads(connection.execute(
            "SELECT value FROM meta WHERE key = 'fingerprint:primes'").fetchone()[0]) == digests


def test_a_folder_written_by_a_newer_format_is_refused_at_start(state_dir, data_dir):
    database = stored_folder(state_dir, data_dir, [None])
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE meta SET value = 999 WHERE key = 'format'")
    lines, code, stderr = run_lines([incr()], "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 74 and lines == []
    assert "a newer version wrote it (state format 999" in stderr


def test_a_truncated_database_is_refused_at_start_and_left_as_it_was(state_dir, data_dir):
    database = stored_folder(state_dir, data_dir, [f"user-{n}" for n in range(2000)])
    truncated = database.read_bytes()[: database.stat().st_size // 2]
    database.write_bytes(truncated)
    lines, code, stderr = run_lines([incr()], "--state-dir", str(state_dir), data_dir=data_dir)
    assert code == 74 and lines == []
    assert "malformed" in stderr or "corrupt" in stderr, stderr
    assert database.read_bytes() == truncated


def test_a_damaged_page_fails_only_the_instances_on_it(state_dir, data_dir):
    keys = [f"user-{n}" for n in range(2000)]
    database = stored_folder(state_dir, data_dir, keys)
    data = bytearray(database.read_bytes())
    page = 4096
    # Zeroes a run of pages in the middle: the rows on them are gone, the others intact.
    middle = len(data) // page // 2 * page
    data[middle: middle + 4 * page] = bytes(4 * page)
    database.write_bytes(bytes(data))
    messages = [{"cmd": "snapshot", "store": "primes", "instance": key} for key in keys]
    lines, code, _ = run_lines(messages + [incr("new")], "--state-dir", str(state_dir),
                               data_dir=data_dir)
    answers = lines[1:-2]
    assert len(answers) == len(keys)
    failed = [line for line in answers if line["type"] == "error"]
    read = [line for line in answers if line["type"] == "snapshot"]
    assert failed and read
    assert {line["code"] for line in failed} == {"storage_failed"}
    # What is read back is what was stored, never something else.
    assert {line["state"]["count"] for line in read} == {1}
    assert lines[-2]["type"] == "action" and lines[-2]["instance"] == "new"


def test_the_example_kills_its_process_and_finds_every_user_again():
    result = subprocess.run(
        [sys.executable, str(ROOT / "Examples/clients/durable.py")], capture_output=True,
        text=True, timeout=60, env={**os.environ, "COMPOSABLE_ACTOR_BIN": str(BINARY)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [
        "stored: alice, bob, carol", "alice: count 3", "bob: count 2", "carol: count 1",
        "after forgetting carol: alice, bob",
        "alice's history: 4 actions replayed, every state matched",
    ]
