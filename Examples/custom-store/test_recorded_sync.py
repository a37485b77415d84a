"""A live sync, recorded against the fixture server, becomes a scenario whose real effect
POSTs again: the canned answer matches the body the live request sent, so a scenario whose
list differs makes the effect send another body and fails, naming the request.

Run by run-checks.sh: `TODO_ACTOR=<binary> python3 -m pytest -q test_recorded_sync.py`."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BINARY = os.environ["TODO_ACTOR"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server_url():
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "Tests/servers/fixture_server.py"), "--port", "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        yield json.loads(server.stdout.readline())["url"]
    finally:
        server.stdin.close()
        server.wait(5)


def record_sync(url, tmp_path):
    """Adds two todos and syncs, each line sent once the one it waits for came back."""
    recording = tmp_path / "live.jsonl"
    actor = subprocess.Popen(
        [BINARY, "run", "--record", str(recording), "--data-dir", str(tmp_path),
         "--todos-sync-url", url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for action, awaited in [({"type": "add", "title": "Buy milk"}, "add"),
                            ({"type": "add", "title": "Walk the dog"}, "add"),
                            ("sync", "synced")]:
        actor.stdin.write(json.dumps({"store": "todos", "action": action}) + "\n")
        actor.stdin.flush()
        for line in actor.stdout:
            line = json.loads(line)
            if line["type"] == "action" and line["action"]["type"] == awaited:
                break
    actor.stdin.close()
    assert actor.wait(10) == 0
    return recording


def test_a_recorded_sync_posts_the_same_list_again_and_fails_with_another(server_url, tmp_path):
    recording = record_sync(server_url, tmp_path)
    answers = [json.loads(line) for line in recording.read_text().splitlines() if '"answer"' in line]
    sent = [{"id": 1, "title": "Buy milk", "done": False}, {"id": 2, "title": "Walk the dog", "done": False}]
    assert [(a["method"], json.loads(a["requestBody"]), a["status"]) for a in answers] == [("POST", sent, 200)]

    made = subprocess.run([BINARY, "replay", str(recording), "--to-scenario"],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    lines = [json.loads(line) for line in made.stdout.splitlines()]
    canned = next(line["http"] for line in lines if "http" in line)
    assert (canned["method"], canned["path"], canned["requestBody"]) == ("POST", "/todos/sync", sent)
    scenario = tmp_path / "sync.jsonl"
    scenario.write_text(made.stdout)
    passed = subprocess.run([BINARY, "test", str(scenario)], capture_output=True, text=True, timeout=60)
    assert passed.returncode == 0, passed.stdout

    # Another title in the steps (not in the cassette): the same effect now POSTs another list,
    # which no canned answer expects.
    changed = tmp_path / "changed.jsonl"
    changed.write_text("".join(
        line if '"http"' in line else line.replace("Walk the dog", "Walk the cat")
        for line in made.stdout.splitlines(keepends=True)))
    failed = subprocess.run([BINARY, "test", str(changed)], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1
    assert "unexpected request POST /todos/sync with body [" in failed.stdout, failed.stdout
    assert "the canned answers for it expect another body" in failed.stdout
