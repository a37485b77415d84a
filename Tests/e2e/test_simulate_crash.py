"""simulate survives a store that crashes the process, and shrinks the run that crashes it.

The crashing store is in a test-only binary, Tests/planted-stores (built beside the binary under
test, or named by PLANTED_STORES_BIN): its cursor steps past the last item, and reading there
traps.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from actor import BINARY
from conftest import validator

RESULT = validator("urn:composable-actor:simulate-result")
PLANTED = Path(os.environ.get("PLANTED_STORES_BIN", BINARY.parent / "planted-stores"))


@pytest.fixture(scope="module")
def planted():
    if not PLANTED.exists():
        pytest.fail(f"{PLANTED} is missing: `swift build --product planted-stores` builds it")
    return PLANTED


def run(binary, *args, timeout=600):
    result = subprocess.run(
        [str(binary), *map(str, args)], capture_output=True, text=True, timeout=timeout
    )
    return result.returncode, result.stdout, result.stderr


def test_a_crash_is_a_broken_invariant_shrunk_to_a_scenario_that_test_fails_on(planted, tmp_path):
    path = tmp_path / "crash.jsonl"
    code, out, err = run(
        planted, "simulate", "--store", "cursor", "--seed", 1, "--steps", 200, "--shrink-to", path
    )
    assert code == 1, (out, err)
    lines = out.splitlines()
    assert lines[0].startswith("BROKE cursor after "), out
    assert "the process crashed: signal " in lines[0] and "Index out of range" in lines[0], out
    assert lines[-1].endswith(f"1 broke; run the shrunk scenarios: planted-stores test {path}")
    steps = [json.loads(text) for text in path.read_text().splitlines() if not text.startswith("#")]
    # The fewest steps that crash it: one item, the cursor moved past it, a read there.
    assert steps[1:] == [
        {"send": {"type": "add", "value": 0}}, {"send": "next"}, {"send": "read"}, {"quit": True},
    ], steps
    # Two jobs, the default on two cores or more: even one file then runs in a worker process.
    test = subprocess.run(
        [str(planted), "test", "-j", "2", str(path)], capture_output=True, text=True, timeout=120
    )
    assert test.returncode == 1, (test.stdout, test.stderr)
    assert f"{path}: the worker process ended with signal " in test.stdout, test.stdout
    assert "Index out of range" in test.stderr, test.stderr


def test_the_crash_report_is_the_same_bytes_for_the_same_seed_and_bounded_in_runs(planted):
    args = ("simulate", "--store", "cursor", "--seed", 3, "--steps", 300, "--format", "json")
    first = run(planted, *args)
    assert first == run(planted, *args)
    code, out, err = first
    lines = [json.loads(line) for line in out.splitlines()]
    # The scenario schema knows the shipped binary's stores only: the rest of the line is checked.
    RESULT.validate({**lines[0], "failure": {**lines[0]["failure"], "scenario": []}})
    RESULT.validate(lines[1])
    failure = lines[0]["failure"]
    assert code == 1 and err == "", err
    assert failure["invariant"] == "the process does not crash"
    assert failure["shrunkMessage"].startswith("the process crashed: signal ")
    assert failure["shrunkSteps"] == 3 and failure["shrinkRuns"] <= 200, failure
    # What the steps before the crash did is still reported.
    assert lines[0]["statistics"]["actions"].get("host add", 0) > 0, lines[0]
    assert lines[-1] == {"type": "summary", "seed": "3", "stores": 1, "broke": 1}


def test_a_store_that_does_not_crash_is_simulated_as_before(planted, tmp_path):
    # Without reads, nothing traps: the run goes to its end in the child.
    settings = tmp_path / "settings.jsonl"
    settings.write_text(json.dumps({"store": "cursor", "actions": {"read": 0}}) + "\n")
    code, out, err = run(
        planted, "simulate", "--store", "cursor", "--seed", 1, "--steps", 200, "--check",
        "/cursor <= 1000", "--format", "json", "--file", settings,
    )
    line = json.loads(out.splitlines()[0])
    assert code == 0 and line["ok"] and line["steps"] == 200, (out, err)

