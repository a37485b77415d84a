"""--record and composable-actor replay (issue 5 §3), and describe (§4)."""

import json
import subprocess

import pytest

from actor import BINARY, ROOT, run_lines, store_names
from conftest import validator

RECORDING = validator("urn:composable-actor:recording")
RESULT = validator("urn:composable-actor:replay-result")
RECORDINGS = sorted((ROOT / "Examples" / "recordings").glob("*.jsonl"))


def replay(path, *args):
    return subprocess.run([str(BINARY), "replay", str(path), *args], capture_output=True, text=True, timeout=60)


def record_live(tmp_path, fixture_server, data_dir):
    """A live session against the fixture server, recorded; returns (stdout lines, path)."""
    path = tmp_path / "session.jsonl"
    inputs = [
        {"store": "primes", "action": {"type": "counter.countChanged", "value": 3}, "id": 1},
        {"store": "primes", "action": "primeModal.saveFavoritePrimeTapped"},
        {"store": "primes", "action": "counter.nthPrimeButtonTapped", "id": "nth"},
        {"store": "votes", "action": "onAppear", "id": "votes"},
        {"store": "randomTodo", "action": "clickButton"},
    ]
    lines, code, _ = run_lines(
        inputs, "--record", str(path), "--seed", "5", "--votes-url", fixture_server.url,
        "--todos-url", fixture_server.url, data_dir=data_dir,
    )
    assert code == 0
    return lines, path


def test_a_live_recording_replays_to_the_same_patches(tmp_path, fixture_server, data_dir):
    lines, path = record_live(tmp_path, fixture_server, data_dir)
    records = [json.loads(text) for text in path.read_text().splitlines()]
    for record in records:
        RECORDING.validate(record)
    header = records[0]
    assert header["clock"] == "live" and header["seed"] == "5"
    assert "--record" not in header["arguments"] and "--votes-url" in header["arguments"]
    printed = [line for line in lines if line["type"] == "action"]
    actions = [r for r in records[1:] if r["type"] == "action"]
    assert [{k: v for k, v in r.items() if k != "t"} for r in actions] == printed
    assert any(r["action"]["type"] == "fetchResult.success" for r in actions)
    result = replay(path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{path}: {len(printed)} actions replayed, every state matched\n"
    # --emit streams the lines as the run printed them.
    emitted = [json.loads(text) for text in replay(path, "--emit").stdout.splitlines()]
    assert emitted == printed


def test_until_prints_every_store_at_that_step(tmp_path, fixture_server, data_dir):
    _, path = record_live(tmp_path, fixture_server, data_dir)
    result = replay(path, "--until", "2")
    snapshots = [json.loads(text) for text in result.stdout.splitlines()]
    assert [s["store"] for s in snapshots] == store_names()
    primes = snapshots[0]
    assert primes["seq"] == 2 and primes["state"]["count"] == 3 and primes["state"]["favoritePrimes"] == [3]
    assert snapshots[2]["state"]["hasAppeared"] is False
    assert replay(path, "--until", "999").returncode == 64


def test_a_hand_edited_patch_fails_at_exactly_that_step(tmp_path, fixture_server, data_dir):
    _, path = record_live(tmp_path, fixture_server, data_dir)
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])  # seq 2: the favourite saved
    record["patch"][0]["value"] = 4
    lines[2] = json.dumps(record)
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    result = replay(edited)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"composable-actor replay: {edited}:3: replay diverged at seq 2: the patch differs from the "
        "recorded one and leads to another state",
        '  action: primes {"type":"primeModal.saveFavoritePrimeTapped"}',
        "  the state (− recorded, + replayed):",
        "    {",
        "      … (1 unchanged)",
        "      favoritePrimes: [",
        "  −     [0]: 4",
        "  +     [0]: 3",
        "      ]",
        "      … (8 unchanged)",
        "    }",
    ]
    emitted = [json.loads(text) for text in replay(edited, "--emit").stdout.splitlines()]
    assert emitted[-1]["type"] == "divergence" and emitted[-1]["seq"] == 2 and len(emitted) == 3
    RESULT.validate(emitted[-1])
    # As one structured line: the step, the action, both patches, and the paths that differ.
    result = replay(edited, "--format", "json")
    assert result.returncode == 1
    (divergence,) = [json.loads(text) for text in result.stdout.splitlines()]
    RESULT.validate(divergence)
    assert {key: divergence[key] for key in ("type", "file", "seq", "line", "store", "action", "expected", "differences", "changedSinceRecording")} == {
        "type": "divergence", "file": str(edited), "seq": 2, "line": 3, "store": "primes",
        "action": record["action"], "expected": record["patch"],
        "differences": [{"path": "/favoritePrimes/0", "expected": 4, "actual": 3}],
        "changedSinceRecording": [],
    }
    assert divergence["actual"][0] == {"op": "add", "path": "/favoritePrimes/0", "value": 3}
    assert divergence["message"] == "the patch differs from the recorded one and leads to another state"


def test_a_recording_names_the_stores_interfaces_and_replay_says_what_changed_since(tmp_path, fixture_server, data_dir):
    _, path = record_live(tmp_path, fixture_server, data_dir)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    described = json.loads(subprocess.run([str(BINARY), "describe"], capture_output=True, text=True).stdout)
    for store in described["stores"]:
        fingerprint = header["fingerprints"][store["name"]]
        assert sorted(fingerprint["actions"]) == sorted(action["type"] for action in store["actions"])
        assert sorted(fingerprint["state"]) == sorted(store["state"]["properties"])
    assert replay(path).stderr == "", "the stores are the ones that recorded"
    # As if the primes store had changed since: an action's payload, one action removed and
    # one added, a state field's type.
    primes = header["fingerprints"]["primes"]
    primes["actions"]["counter.countChanged"] = "0" * 16
    primes["actions"]["counter.resetTapped"] = primes["actions"].pop("counter.decrTapped")
    primes["state"]["count"] = "1" * 16
    lines[0] = json.dumps(header)
    RECORDING.validate(header)
    edited = tmp_path / "older.jsonl"
    edited.write_text("\n".join(lines) + "\n")
    result = replay(edited)
    assert result.stderr == (
        f"composable-actor replay: {edited} was recorded by stores that differ from this binary's; "
        "steps that use what changed may diverge:\n"
        "  primes: action counter.countChanged changed\n"
        "  primes: action counter.decrTapped is new\n"
        "  primes: action counter.resetTapped is gone\n"
        "  primes: state field count changed\n"
    )
    assert result.returncode == 0, "said before the first step; the steps themselves still match"
    structured = replay(edited, "--format", "json")
    assert structured.returncode == 0 and structured.stderr == ""
    (replayed,) = [json.loads(text) for text in structured.stdout.splitlines()]
    RESULT.validate(replayed)
    assert replayed == {
        "type": "replayed", "file": str(edited), "actions": sum('"type":"action"' in line for line in lines),
        "changedSinceRecording": [
            "primes: action counter.countChanged changed", "primes: action counter.decrTapped is new",
            "primes: action counter.resetTapped is gone", "primes: state field count changed",
        ],
    }
    assert replay(edited, "--format", "json", "--emit").returncode == 64

def test_to_scenario_turns_a_recording_into_a_passing_regression_test(tmp_path, fixture_server, data_dir):
    """A recording made before answers were recorded: its effect actions are re-reduced.
    (test_recorded_answers.py covers recordings whose effects run again.)"""
    _, path = record_live(tmp_path, fixture_server, data_dir)
    records = [json.loads(text) for text in path.read_text().splitlines()]
    del records[0]["answers"], records[0]["files"]
    path.write_text("".join(json.dumps(r) + "\n" for r in records if r.get("type") != "answer"))
    scenario = tmp_path / "regression.jsonl"
    scenario.write_text(replay(path, "--to-scenario").stdout)
    lines = [json.loads(text) for text in scenario.read_text().splitlines()]
    assert lines[0]["effects"] == "recorded"
    assert {next(iter(line)) for line in lines[1:]} == {"send", "receive"}
    ran = subprocess.run([str(BINARY), "test", str(scenario)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout
    # The same scenario with one expectation changed fails there.
    lines[1]["patch"][0]["value"] = 30
    scenario.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ran = subprocess.run([str(BINARY), "test", str(scenario)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 1 and f"{scenario}:2: send counter.countChanged: the patch differs" in ran.stdout


@pytest.mark.parametrize("path", RECORDINGS, ids=[path.name for path in RECORDINGS])
def test_every_example_recording_replays(path):
    result = replay(path)
    assert result.returncode == 0, result.stderr


def test_there_are_example_recordings():
    assert len(RECORDINGS) >= 2


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "is empty"),
        ('{"type":"action"}\n', "line 1: not a recording"),
        ('{"type":"recording","version":9}\n', "recording version 9 is not supported"),
    ],
)
def test_an_unreadable_recording_is_refused(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    result = replay(path)
    assert result.returncode == 65 and message in result.stderr


def test_a_cut_short_recording_says_so(tmp_path, fixture_server, data_dir):
    _, path = record_live(tmp_path, fixture_server, data_dir)
    text = path.read_text()
    path.write_text(text[: len(text) - 20])
    result = replay(path)
    assert result.returncode == 65 and "cut short" in result.stderr


def test_record_needs_one_line_per_action(tmp_path):
    result = subprocess.run(
        [str(BINARY), "--emit", "ticks", "--record", str(tmp_path / "r.jsonl")],
        input="", capture_output=True, text=True, timeout=10,
    )
    assert result.returncode == 64 and "--record needs --emit actions" in result.stderr


def test_describe_command_matches_the_describe_line_and_the_schemas():
    command = json.loads(subprocess.run([str(BINARY), "describe"], capture_output=True, text=True).stdout)
    lines, _, _ = run_lines([{"cmd": "describe"}])
    assert command == lines[1]
    for store in command["stores"]:
        state = json.loads((ROOT / "schemas" / "stores" / f"{store['name']}.state.schema.json").read_text())
        for key in ("$schema", "$id", "title"):
            state.pop(key)
        assert store["state"] == state
        actions = json.loads((ROOT / "schemas" / "stores" / f"{store['name']}.actions.schema.json").read_text())
        described = {action["type"]: action for action in store["actions"]}
        schema_types = {option["properties"]["type"]["const"] for option in actions["oneOf"][1:]}
        assert schema_types == set(described)
        assert {action["sentBy"] for action in store["actions"]} == {"host", "effect"}
