"""composable-actor simulate: generated steps, invariants after each, shrunk failures."""

import json
import os
import pty
import subprocess

import pytest

from actor import BINARY, ROOT, run_lines
from conftest import validator

RESULT = validator("urn:composable-actor:simulate-result")
SCENARIO = validator("urn:composable-actor:scenario")
STORES = ["primes", "randomTodo", "votes", "websocket"]
# The sanitized debug binary is several times slower: a shorter run checks the same invariants.
# Enough steps for each seed below to inject every kind of fault the test names; 400 take a
# few seconds through the sanitized binary too.
STEPS = 400


def simulate(*args, timeout=300):
    result = subprocess.run(
        [str(BINARY), "simulate", *map(str, args)], capture_output=True, text=True, timeout=timeout
    )
    return result.returncode, result.stdout, result.stderr


def simulate_json(*args):
    code, out, err = simulate("--format", "json", *args)
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        RESULT.validate(line)
    return code, lines, err


@pytest.mark.parametrize("seed", [1, 2])
def test_every_store_keeps_every_invariant_for_a_bounded_run(seed):
    code, lines, err = simulate_json("--seed", seed, "--steps", STEPS)
    stores = [line for line in lines if line["type"] == "store"]
    assert [line["store"] for line in stores] == STORES
    assert code == 0 and all(line["ok"] for line in stores), (lines, err)
    assert lines[-1] == {"type": "summary", "seed": str(seed), "stores": 4, "broke": 0}
    for line in stores:
        statistics = line["statistics"]
        assert line["steps"] == STEPS
        assert sum(n for key, n in statistics["actions"].items() if key.startswith("host ")) > STEPS // 4
        assert statistics["statePaths"], line["store"]
    faults = {key for line in stores for key in line["statistics"]["faults"]}
    assert {
        "http.status", "http.timedOut", "websocket.refusal", "websocket.close", "instance.stop",
        "work.slow", "file.damaged",
    } <= faults
    effects = stores[STORES.index("randomTodo")]["statistics"]["effects"]
    assert effects["started"] == sum(effects.get(end, 0) for end in ("finished", "cancelled", "failed"))


def test_the_same_seed_prints_the_same_bytes_and_another_seed_other_ones():
    first = simulate("--seed", 11, "--steps", 300, "--check", "/count <= 30")
    assert first == simulate("--seed", 11, "--steps", 300, "--check", "/count <= 30")
    assert first[1] != simulate("--seed", 12, "--steps", 300, "--check", "/count <= 30")[1]


def test_a_broken_check_is_shrunk_to_a_scenario_that_test_fails_the_same_way(tmp_path):
    path = tmp_path / "shrunk.jsonl"
    code, out, err = simulate(
        "--store", "primes", "--seed", 1, "--steps", 300, "--check", "/count <= 5",
        "--shrink-to", path,
    )
    assert code == 1, (out, err)
    lines = out.splitlines()
    assert lines[0].startswith("BROKE primes after ")
    assert "check /count <= 5 broke: /count is " in lines[0]
    assert (
        "  reproduce: composable-actor simulate --store primes --seed 1 --steps 300 "
        "--check '/count <= 5'" in lines
    )
    assert lines[-1].endswith(f"1 broke; run the shrunk scenarios: composable-actor test {path}")
    steps = []
    for text in path.read_text().splitlines():
        if not text.startswith("#"):
            line = json.loads(text)
            SCENARIO.validate(line)
            steps.append(line)
    assert steps[-1] == {"quit": True}
    assert all(step == {"check": "/count <= 5"} for step in steps[2:-1:2])
    assert len(steps) <= 1 + 2 * 6 + 1, steps
    test = subprocess.run(
        [str(BINARY), "test", str(path)], capture_output=True, text=True, timeout=60
    )
    assert test.returncode == 1
    assert "check /count <= 5 broke: /count is " in test.stdout


def test_a_length_check_reports_the_length_that_broke_it():
    code, lines, _ = simulate_json(
        "--store", "primes", "--seed", 3, "--steps", 2000, "--check", "length(/favoritePrimes) <= 1"
    )
    failure = lines[0]["failure"]
    assert code == 1 and failure["invariant"] == "check length(/favoritePrimes) <= 1"
    assert failure["shrunkMessage"] == (
        "check length(/favoritePrimes) <= 1 broke: length(/favoritePrimes) is 2"
    )
    assert failure["scenario"][-1] == {"quit": True}


def test_a_check_that_holds_passes():
    code, lines, _ = simulate_json(
        "--store", "websocket", "--seed", 5, "--steps", 300,
        "--check", '/connectivityState in ["connected","connecting","disconnected"]',
    )
    assert code == 0 and lines[0]["ok"], lines


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seed", 1, "--steps", 5, "--store", "nope"], 'no store named "nope"'),
        (["--seed", 1, "--steps", 5, "--check", "count <= 5"], "is not a JSON pointer"),
        (["--seed", 1, "--steps", 5, "--check", "/count ~ 5"], "the operator is one of"),
        (["--seed", 1, "--steps", 5, "--check", "/count in 5"], "in compares with an array"),
        (["--steps", 5], "--seed"),
        (["--seed", 1, "--steps=-1"], "--steps must be at least 0"),
    ],
)
def test_bad_arguments_exit_64(args, message):
    code, out, err = simulate(*args)
    assert code == 64 and out == "" and message in err, err


def test_time_bounds_a_run_that_steps_would_not():
    code, lines, _ = simulate_json("--store", "websocket", "--seed", 1, "--steps", 10**9, "--time", 1)
    assert code == 0 and 0 < lines[0]["steps"] < 10**9


def run_scenario(tmp_path, *lines):
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = subprocess.run(
        [str(BINARY), "test", str(path)], capture_output=True, text=True, timeout=60
    )
    return result.returncode, result.stdout


def test_check_steps_in_a_scenario_name_the_value_that_broke_them(tmp_path):
    header = {"scenario": "checks", "store": "primes"}
    code, out = run_scenario(
        tmp_path, header,
        {"send": "counter.incrTapped", "state": {"count": 1}},
        {"check": "/count == 1"},
        {"check": "length(/favoritePrimes) == 0", "instance": "alice"},
        {"check": "/count in [0, 1]", "store": "primes"},
        {"quit": True},
    )
    assert code == 0, out
    code, out = run_scenario(
        tmp_path, header, {"send": "counter.incrTapped", "state": {"count": 1}},
        {"check": "/count > 1"},
    )
    assert code == 1 and "a.jsonl:3: check /count > 1: check /count > 1 broke: /count is 1" in out


@pytest.mark.parametrize(
    "step, message",
    [
        ({"check": 5}, '"check" is an invariant'),
        ({"check": "/count <> 5"}, "what < compares with is not JSON"),
        ({"check": "/count < 5", "extra": 1}, 'check: unknown field "extra"'),
        ({"quit": False}, '"quit" must be true'),
        ({"http": {"method": "get", "path": "/x"}}, "or * for any"),
        ({"http": {"path": "/x", "fallback": 1}}, '"fallback" is true or false'),
    ],
)
def test_bad_check_quit_and_fallback_steps_are_refused_with_their_line(tmp_path, step, message):
    code, out = run_scenario(tmp_path, {"scenario": "bad", "store": "primes"}, step)
    assert code == 1 and "a.jsonl:2: " in out and message in out, out


SIMULATION = validator("urn:composable-actor:simulation")
EXAMPLE_FILE = ROOT / "Examples" / "simulation" / "stores.jsonl"


def test_the_example_simulation_file_validates_and_runs():
    for text in EXAMPLE_FILE.read_text().splitlines():
        if text.strip() and not text.startswith("#"):
            SIMULATION.validate(json.loads(text))
    code, lines, err = simulate_json("--seed", 4, "--steps", 500, "--file", EXAMPLE_FILE)
    assert code == 0 and all(line.get("ok", True) for line in lines), (lines, err)


def test_a_simulation_file_sets_weights_answers_and_fault_rates(tmp_path):
    path = tmp_path / "sim.jsonl"
    lines = [
        {"store": "randomTodo", "weights": {"action": 50, "http": 50}, "actions": {"viewDidAppear": 0},
         "http": [{"path": "/todos/*", "body": {"userId": 1, "id": 3, "title": "milk", "completed": False}}],
         "faults": {"http": 0}},
        {"store": "primes", "weights": {"action": 1, "answers": 1},
         "actions": {"counter.incrTapped": 5, "counter.nthPrimeButtonTapped": 5,
                     "favoritePrimes.saveButtonTapped": 0, "favoritePrimes.loadButtonTapped": 0},
         "answers": {"nthPrimes": [13]}},
    ]
    path.write_text("# settings\n\n" + "".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = simulate_json("--seed", 2, "--steps", 400, "--file", path, "--store", "randomTodo",
                                   "--store", "primes")
    todo, primes = out[0]["statistics"], out[1]["statistics"]
    assert code == 0, (out, err)
    assert "host viewDidAppear" not in todo["actions"] and todo["faults"].keys() <= {"http.delay"}
    assert todo["actions"]["effect fetchResult.success"] > 50
    actions = primes["actions"]
    assert actions["host counter.incrTapped"] > 2 * actions.get("host counter.decrTapped", 0)
    assert "host favoritePrimes.saveButtonTapped" not in actions
    assert "host favoritePrimes.loadButtonTapped" not in actions
    assert actions["effect counter.nthPrimeResponse"] > 5
    assert primes["faults"].keys() <= {"answer.delay"}


@pytest.mark.parametrize(
    "line, message",
    [
        ({"store": "nope"}, '"store" names one of the stores'),
        ({"store": "primes", "speed": 1}, 'unknown field "speed"'),
        ({"store": "primes", "weights": {"action": 0}}, "needs one kind of step above 0"),
        ({"store": "primes", "weights": {"jump": 1}}, '"jump" is none of'),
        ({"store": "primes", "actions": {"counter.nthPrimeResponse": 1}}, 'is none of'),
        ({"store": "votes", "answers": {"nthPrimes": [1]}}, "a dependency the store scripts"),
        ({"store": "primes", "faults": {"http": 101}}, "percentages, 0 to 100"),
        ({"store": "votes", "http": [{"path": "todos"}]}, 'needs a "path" starting with /'),
    ],
)
def test_a_bad_simulation_file_exits_64_naming_the_line(tmp_path, line, message):
    path = tmp_path / "sim.jsonl"
    path.write_text("# first\n" + json.dumps(line) + "\n")
    code, out, err = simulate("--seed", 1, "--steps", 5, "--file", path)
    assert code == 64 and out == "" and f"line 2: " in err and message in err, err


def test_an_unreadable_simulation_file_exits_64(tmp_path):
    code, _, err = simulate("--seed", 1, "--steps", 5, "--file", tmp_path / "none.jsonl")
    assert code == 64 and "cannot read" in err and "No such file" in err, err


def test_a_scenario_that_replays_its_recording_passes_for_a_store_that_replays_the_same(tmp_path):
    # The primes store, its effects answered: host and effect actions alike replay the same.
    code, out = run_scenario(
        tmp_path, {"scenario": "replayed", "store": "primes", "replay": True, "exhaustive": False},
        {"nthPrimes": {"*": 7}},
        {"send": "counter.incrTapped"}, {"send": "counter.nthPrimeButtonTapped"},
        {"advance": 1000}, {"send": {"type": "counter.countChanged", "value": 40}},
        {"send": "counter.incrTapped", "instance": "a"},
        {"quit": True},
    )
    assert code == 0, out


def test_a_simulated_scenario_replays_its_recording(tmp_path):
    path = tmp_path / "shrunk.jsonl"
    code, out, _ = simulate(
        "--store", "primes", "--seed", 1, "--steps", 300, "--check", "/count <= 5",
        "--shrink-to", path,
    )
    header = json.loads(path.read_text().splitlines()[1])
    assert code == 1 and header["replay"] is True, out


def test_a_bad_replay_header_is_refused(tmp_path):
    code, out = run_scenario(tmp_path, {"scenario": "bad", "store": "primes", "replay": 1})
    assert code == 1 and '"replay" must be true or false' in out, out


def test_progress_goes_to_stderr_when_stdout_is_a_terminal_and_nowhere_when_neither_is():
    leader, follower = pty.openpty()
    try:
        result = subprocess.run(
            [str(BINARY), "simulate", "--store", "votes", "--seed", "1", "--steps", "250"],
            stdout=follower, stderr=subprocess.PIPE, timeout=300,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 0
    progress = result.stderr.decode()
    assert "\rvotes: 100/250 steps" in progress and "\rvotes: 200/250 steps" in progress
    assert progress.endswith("\r\x1b[K"), progress
    code, out, err = simulate("--store", "votes", "--seed", 1, "--steps", 250)
    assert code == 0 and err == "" and "votes" in out


RECORDING = validator("urn:composable-actor:recording")


def test_a_recording_where_an_instance_stopped_and_started_again_replays(tmp_path, data_dir):
    # Found by simulate's replay invariant: the recording left the stop out, so its replay went
    # on from the state the instance had before it stopped.
    path = tmp_path / "stopped.jsonl"
    incr = {"store": "primes", "instance": "a", "action": "counter.incrTapped"}
    lines, code, _ = run_lines(
        [incr, incr, incr, {"cmd": "stop", "store": "primes", "instance": "a"}, incr],
        "--record", str(path), data_dir=data_dir,
    )
    actions = [line for line in lines if line["type"] == "action"]
    assert code == 0 and actions[-1]["patch"] == [{"op": "replace", "path": "/count", "value": 1}]
    records = [json.loads(text) for text in path.read_text().splitlines()]
    for record in records:
        RECORDING.validate(record)
    stopped = [record for record in records if record["type"] == "stopped"]
    assert len(stopped) == 1 and stopped[0]["instance"] == "a" and records.index(stopped[0]) == 4
    replayed = subprocess.run(
        [str(BINARY), "replay", str(path)], capture_output=True, text=True, timeout=60
    )
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.endswith("4 actions replayed, every state matched\n")
    # The scenario written from it stops the instance where the host did, and passes.
    written = subprocess.run(
        [str(BINARY), "replay", str(path), "--to-scenario"], capture_output=True, text=True,
        timeout=60,
    )
    steps = [json.loads(text) for text in written.stdout.splitlines()]
    assert {"stop": True, "store": "primes", "instance": "a"} in steps, steps
    scenario = tmp_path / "written.jsonl"
    scenario.write_text(written.stdout)
    test = subprocess.run(
        [str(BINARY), "test", str(scenario)], capture_output=True, text=True, timeout=60
    )
    assert test.returncode == 0, test.stdout


def test_a_stop_step_stops_an_instance_that_the_next_step_starts_again(tmp_path):
    code, out = run_scenario(
        tmp_path, {"scenario": "stop", "store": "primes", "replay": True, "exhaustive": False},
        {"send": "counter.incrTapped", "instance": "a"},
        {"send": "counter.incrTapped", "instance": "a"},
        {"stop": True, "instance": "a"},
        {"check": "/count == 0", "instance": "a"},
        {"send": "counter.incrTapped", "instance": "a", "state": {"count": 1}},
        {"quit": True},
    )
    assert code == 0, out
    code, out = run_scenario(
        tmp_path, {"scenario": "stop", "store": "primes"}, {"stop": True, "instance": "b"}
    )
    assert code == 1 and 'primes "b" is not in memory' in out, out
    code, out = run_scenario(tmp_path, {"scenario": "stop", "store": "primes"}, {"stop": True})
    assert code == 1 and '"stop" is true, with the "instance" to stop' in out, out


def test_a_slow_work_step_holds_the_next_piece_of_thread_pool_work_for_that_long(tmp_path):
    code, out = run_scenario(
        tmp_path, {"scenario": "slow", "store": "primes", "exhaustive": False},
        {"send": {"type": "counter.countChanged", "value": 3}},
        {"send": "primeModal.saveFavoritePrimeTapped"},
        {"slowWork": 1000},
        {"send": "favoritePrimes.saveButtonTapped"},
        {"expect": {"files": {"favorite-primes.json": None}}},
        {"advance": 999},
        {"expect": {"files": {"favorite-primes.json": None}}},
        {"advance": 1},
        {"expect": {"files": {"favorite-primes.json": [3]}}},
        # The next save is not slow: its file is there at once.
        {"send": "primeModal.removeFavoritePrimeTapped"},
        {"send": "favoritePrimes.saveButtonTapped"},
        {"expect": {"files": {"favorite-primes.json": []}}},
    )
    assert code == 0, out
    code, out = run_scenario(tmp_path, {"scenario": "slow", "store": "primes"}, {"slowWork": -1})
    assert code == 1 and '"slowWork" must be whole milliseconds' in out, out


def test_a_damaged_file_is_what_a_load_reports_not_a_broken_invariant(tmp_path):
    # What simulate's file faults do: a file the store wrote, overwritten with a write cut short.
    code, lines, err = simulate_json(
        "--store", "primes", "--seed", 6, "--steps", 400, "--file", write_settings(tmp_path, {
            "store": "primes", "weights": {"action": 10, "files": 3, "work": 2},
            "actions": {"favoritePrimes.saveButtonTapped": 5, "favoritePrimes.loadButtonTapped": 5},
        }),
    )
    statistics = lines[0]["statistics"]
    assert code == 0 and lines[0]["ok"], (lines, err)
    assert statistics["faults"]["file.damaged"] > 5 and statistics["faults"]["work.slow"] > 5
    assert statistics["faults"]["file.writeFailed"] > 5
    assert "/storageError/message" in statistics["statePaths"]


@pytest.mark.parametrize("fault, reason", [("noSpace", "No space left on device"),
                                           ("ioError", "Input/output error")])
def test_a_failing_write_step_fails_the_next_save_and_keeps_the_file(tmp_path, fault, reason):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "favorite-primes.json").write_text("[2]\n")
    code, out = run_scenario(
        tmp_path, {"scenario": "full disk", "store": "primes", "exhaustive": False,
                   "dataDir": "data"},
        {"send": {"type": "counter.countChanged", "value": 3}},
        {"send": "primeModal.saveFavoritePrimeTapped"},
        {"failWrite": fault},
        {"send": "favoritePrimes.saveButtonTapped"},
        {"expect": {"files": {"favorite-primes.json": [2]}}},
        {"check": '/storageError/operation == "save"'},
        # One save failed: the next one writes.
        {"send": "favoritePrimes.saveButtonTapped"},
        {"expect": {"files": {"favorite-primes.json": [3]}}},
        {"check": "/storageError == null"},
        {"quit": True},
    )
    assert code == 0, out
    code, out = run_scenario(
        tmp_path, {"scenario": "full disk", "store": "primes", "exhaustive": False},
        {"send": {"type": "counter.countChanged", "value": 3}},
        {"send": "primeModal.saveFavoritePrimeTapped"},
        {"failWrite": fault}, {"send": "favoritePrimes.saveButtonTapped"},
        {"check": "/storageError == null"},
    )
    assert code == 1 and reason in out, out
    code, out = run_scenario(tmp_path, {"scenario": "bad", "store": "primes"}, {"failWrite": "full"})
    assert code == 1 and '"failWrite" is "noSpace" or "ioError"' in out, out


def write_settings(tmp_path, *lines):
    path = tmp_path / "settings.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
