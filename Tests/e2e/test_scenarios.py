"""composable-actor test: scenario files run like TCA's TestStore (issue 5 §2, §5)."""

import json
import subprocess

import pytest

from actor import BINARY, ROOT
from conftest import validator

SCENARIO = validator("urn:composable-actor:scenario")
RESULT = validator("urn:composable-actor:test-result")
EXAMPLES = sorted((ROOT / "Examples" / "scenarios").glob("*.jsonl"))


def run_test(*args):
    result = subprocess.run(
        [str(BINARY), "test", *map(str, args)], capture_output=True, text=True, timeout=60
    )
    return result.returncode, result.stdout, result.stderr


def run_json(*paths):
    code, out, _ = run_test("--format", "json", *paths)
    lines = [json.loads(line) for line in out.splitlines()]
    for line in lines:
        RESULT.validate(line)
    return code, lines


def write(tmp_path, name, *lines):
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_there_is_an_example_scenario_for_every_store():
    stores = json.loads(subprocess.run([str(BINARY), "describe"], capture_output=True, text=True).stdout)
    names = {store["name"] for store in stores["stores"]}
    covered = set()
    for path in EXAMPLES:
        for text in path.read_text().splitlines():
            if text.strip() and not text.startswith("#"):
                line = json.loads(text)
                SCENARIO.validate(line)
                covered.add(line.get("store"))
    assert names <= covered


def test_every_example_scenario_passes():
    code, lines = run_json(*EXAMPLES)
    failures = [line for line in lines if line["type"] == "scenario" and not line["passed"]]
    assert code == 0 and not failures, failures
    summary = lines[-1]
    assert summary == {"type": "summary", "passed": len(lines) - 1, "failed": 0}
    assert summary["passed"] >= 10


def scenario_count(path):
    """The scenarios of a file: its header lines."""
    return sum(1 for line in path.read_text().splitlines() if line.startswith('{"scenario"'))


def test_text_output_is_one_line_per_scenario_and_a_total():
    path = ROOT / "Examples" / "scenarios" / "primes.jsonl"
    count = scenario_count(path)
    code, out, _ = run_test(path)
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ["ok"] * count
    assert lines[-1] == f"{count} passed, 0 failed"


def test_a_wrong_expectation_fails_with_a_teststore_style_difference(tmp_path):
    path = write(
        tmp_path, "wrong.jsonl",
        {"scenario": "wrong", "store": "primes"},
        {"send": "counter.incrTapped", "state": {"count": 2}},
    )
    code, out, _ = run_test(path)
    assert code == 1
    # FILE:LINE: first, so that an editor jumps to the step; the rest of the state is counted.
    assert out.splitlines() == [
        f"FAIL  {path}:1  wrong",
        f"      {path}:2: send counter.incrTapped: the state differs from the expectation (− expected, + actual)",
        "          {",
        "        −   count: 2",
        "        +   count: 1",
        "            … (9 unchanged)",
        "          }",
        "0 passed, 1 failed",
    ]
    code, lines = run_json(path)
    assert lines[0]["failure"]["differences"] == [{"path": "/count", "expected": 2, "actual": 1}]


def test_an_element_inserted_in_an_array_is_shown_as_one_insertion(tmp_path):
    """The issue's example: [3] expected, [2, 3] there. A patch-based report said
    "/favoritePrimes/0: expected 3, actual 2" and never mentioned the extra element."""
    path = write(
        tmp_path, "insert.jsonl",
        {"scenario": "two favourites", "store": "primes", "exhaustive": False},
        {"send": {"type": "counter.countChanged", "value": 2}},
        {"send": "primeModal.saveFavoritePrimeTapped"},
        {"send": {"type": "counter.countChanged", "value": 3}},
        {"send": "primeModal.saveFavoritePrimeTapped", "state": {"favoritePrimes": [3]}},
    )
    code, out, _ = run_test(path)
    assert code == 1
    assert out.splitlines()[2:10] == [
        "          {",
        "            … (1 unchanged)",
        "            favoritePrimes: [",
        "        +     [0]: 2",
        "              … (1 unchanged)",
        "            ]",
        "            … (8 unchanged)",
        "          }",
    ]
    code, lines = run_json(path)
    assert lines[0]["failure"]["differences"] == [{"path": "/favoritePrimes/0", "actual": 2}]


def test_an_edit_changes_arrays_without_restating_them(tmp_path):
    added = {"timestamp": 0, "type": "addedFavoritePrime", "prime": 5}
    path = write(
        tmp_path, "edit.jsonl",
        {"scenario": "append and by id", "store": "primes"},
        {"send": {"type": "counter.countChanged", "value": 5}, "state": {"count": 5, "isPrime": True}},
        {"send": "primeModal.saveFavoritePrimeTapped", "state": {"isFavorite": True},
         "edit": [{"op": "add", "path": "/favoritePrimes/-", "value": 5}, {"op": "add", "path": "/activityFeed/-", "value": added}]},
        {"send": "primeModal.removeFavoritePrimeTapped", "state": {"isFavorite": False},
         "edit": [{"op": "remove", "path": "/favoritePrimes/0"},
                  {"op": "add", "path": "/activityFeed/-", "value": {**added, "type": "removedFavoritePrime"}}]},
    )
    assert run_test(path)[0] == 0
    # The same edit, wrong: the difference names the element.
    wrong = write(
        tmp_path, "wrong-edit.jsonl",
        {"scenario": "wrong", "store": "primes"},
        {"send": {"type": "counter.countChanged", "value": 5}, "state": {"count": 5, "isPrime": True}},
        {"send": "primeModal.saveFavoritePrimeTapped", "state": {"isFavorite": True},
         "edit": [{"op": "add", "path": "/favoritePrimes/-", "value": 7}, {"op": "add", "path": "/activityFeed/-", "value": added}]},
    )
    code, out, _ = run_test(wrong)
    assert code == 1
    assert out.splitlines()[2:9] == [
        "          {",
        "            … (1 unchanged)",
        "            favoritePrimes: [",
        "        −     [0]: 7",
        "        +     [0]: 5",
        "            ]",
        "            … (8 unchanged)",
    ]


def test_an_edit_by_id_names_a_missing_element_and_needs_an_exhaustive_step(tmp_path):
    path = write(
        tmp_path, "by-id.jsonl",
        {"scenario": "by id", "store": "primes"},
        {"send": "counter.incrTapped", "edit": [{"op": "replace", "path": "/activityFeed/[id=4]/prime", "value": 1}]},
    )
    _, lines = run_json(path)
    assert lines[0]["failure"]["message"] == (
        'the edit does not apply to the state before the step: "edit" operation 0: no element with id 4 in /activityFeed'
    )
    path = write(
        tmp_path, "loose.jsonl",
        {"scenario": "loose", "store": "primes"},
        {"send": "counter.incrTapped", "exhaustive": False, "edit": [{"op": "replace", "path": "/count", "value": 1}]},
    )
    code, out, _ = run_test(path)
    assert code == 1 and '"edit" says what the step changes, which needs an exhaustive step' in out


def test_a_wrong_patch_expectation_shows_the_operations_that_differ(tmp_path):
    path = write(
        tmp_path, "patch.jsonl",
        {"scenario": "patch", "store": "primes"},
        {"send": {"type": "counter.countChanged", "value": 2},
         "patch": [{"op": "replace", "path": "/count", "value": 3}, {"op": "replace", "path": "/isPrime", "value": True}]},
    )
    code, out, _ = run_test(path)
    assert code == 1
    assert out.splitlines()[1:10] == [
        f"      {path}:2: send counter.countChanged: the patch differs (− expected, + actual)",
        "          [",
        "            [0]: {",
        "              … (2 unchanged)",
        "        −     value: 3",
        "        +     value: 2",
        "            }",
        "            … (1 unchanged)",
        "          ]",
    ]


def test_an_unexpected_state_change_fails_an_exhaustive_scenario_only(tmp_path):
    # The step says nothing about the state, but isPrime changes too.
    steps = [{"send": {"type": "counter.countChanged", "value": 3}, "state": {"count": 3}}]
    exhaustive = write(tmp_path, "a.jsonl", {"scenario": "a", "store": "primes"}, *steps)
    relaxed = write(tmp_path, "b.jsonl", {"scenario": "b", "store": "primes", "exhaustive": False}, *steps)
    _, lines = run_json(exhaustive, relaxed)
    assert [line.get("passed") for line in lines[:2]] == [False, True]
    assert lines[0]["failure"]["differences"] == [{"path": "/isPrime", "expected": False, "actual": True}]


def test_an_unasserted_received_action_fails_with_the_action_shown(tmp_path):
    path = write(
        tmp_path, "unasserted.jsonl",
        {"scenario": "unasserted", "store": "primes"},
        {"nthPrimes": {"0": None}},
        {"send": "counter.nthPrimeButtonTapped", "state": {"nthPrimeRequest": 0, "isNthPrimeButtonDisabled": True}},
        {"send": "counter.incrTapped", "state": {"count": 1}},
    )
    code, lines = run_json(path)
    assert code == 1
    failure = lines[0]["failure"]
    assert failure["line"] == 4 and "must be asserted before sending" in failure["message"]
    assert failure["differences"] == [
        {"path": "received[0]", "actual": {"store": "primes", "action": {"type": "counter.nthPrimeResponse", "value": None}}}
    ]


def test_a_leftover_effect_fails_and_a_non_exhaustive_scenario_cancels_it(tmp_path):
    steps = [{"send": "viewDidAppear", "state": {"isAutoRefreshing": True}}]
    strict = write(tmp_path, "strict.jsonl", {"scenario": "strict", "store": "randomTodo"}, *steps)
    relaxed = write(tmp_path, "relaxed.jsonl", {"scenario": "relaxed", "store": "randomTodo", "exhaustive": False}, *steps)
    code, lines = run_json(strict, relaxed)
    assert code == 1
    failure = lines[0]["failure"]
    assert failure["step"] == "end"
    # The running effect is named with the action that started it and the line that sent it.
    assert failure["message"].startswith(
        f"1 effect(s) still running at the end: effect 1 (run, cancellable by timer), "
        f"started by viewDidAppear at {strict}:2. "
    ), failure["message"]
    [running] = failure["differences"]
    assert running["path"] == "running[0]"
    assert {key: running["actual"][key] for key in ("type", "store", "event", "operator")} == {
        "type": "effect", "store": "randomTodo", "event": "started", "operator": "run"}
    assert lines[1]["passed"] is True


def test_skipping_in_flight_effects_covers_those_running_then_only(tmp_path):
    appear = {"send": "viewDidAppear", "state": {"isAutoRefreshing": True}}
    skip = {"skipInFlightEffects": True}
    after = write(tmp_path, "after.jsonl", {"scenario": "skip after", "store": "randomTodo"}, appear, skip)
    before = write(tmp_path, "before.jsonl", {"scenario": "skip before", "store": "randomTodo"}, skip, appear)
    for line in (appear, skip):
        SCENARIO.validate(line)
    code, lines = run_json(after, before)
    assert code == 1
    assert lines[0]["passed"] is True
    assert lines[1]["failure"]["message"].startswith("1 effect(s) still running at the end: effect")


def test_a_delayed_answer_keeps_a_request_in_flight_until_cancelled(tmp_path):
    setup = [
        {"nthPrimes": {"7": 17}, "delay": 1000},
        {"send": {"type": "counter.countChanged", "value": 7}, "state": {"count": 7, "isPrime": True}},
        {"send": "counter.nthPrimeButtonTapped", "state": {"nthPrimeRequest": 7, "isNthPrimeButtonDisabled": True}},
        {"advance": 999},
    ]
    for line in setup:
        SCENARIO.validate(line)
    dismiss = {"send": "counter.alertDismissButtonTapped",
               "state": {"nthPrimeRequest": None, "isNthPrimeButtonDisabled": False}}
    cancelled = write(tmp_path, "cancelled.jsonl", {"scenario": "cancelled", "store": "primes"},
                      *setup, dismiss, {"advance": 1000})
    answered = write(tmp_path, "answered.jsonl", {"scenario": "answered", "store": "primes"}, *setup,
                     {"advance": 1},
                     {"receive": {"type": "counter.nthPrimeResponse", "value": 17}, "match": "partial",
                      "state": {"alertNthPrime": {"n": 7, "prime": 17}, "nthPrimeRequest": None,
                                "isNthPrimeButtonDisabled": False}})
    early = write(tmp_path, "early.jsonl", {"scenario": "early", "store": "primes"}, *setup,
                  {"receive": "counter.nthPrimeResponse", "match": "partial"})
    code, lines = run_json(cancelled, answered, early)
    assert code == 1
    assert [line.get("passed") for line in lines[:3]] == [True, True, False]
    assert lines[2]["failure"]["message"].startswith("expected to receive counter.nthPrimeResponse")


def test_a_step_may_set_its_own_exhaustivity(tmp_path):
    steps = [
        {"nthPrimes": {"0": 5}},
        {"send": "counter.nthPrimeButtonTapped", "exhaustive": False, "state": {"nthPrimeRequest": 0}},
        {"receive": "counter.nthPrimeResponse", "match": "partial", "exhaustive": False,
         "state": {"alertNthPrime": {"n": 0, "prime": 5}}},
        {"send": "counter.incrTapped", "state": {"count": 1}},
    ]
    for line in steps:
        SCENARIO.validate(line)
    relaxed = write(tmp_path, "relaxed.jsonl", {"scenario": "per step", "store": "primes"}, *steps)
    strict = write(tmp_path, "strict.jsonl", {"scenario": "strict", "store": "primes"},
                   *[{key: value for key, value in step.items() if key != "exhaustive"} for step in steps])
    code, lines = run_json(relaxed, strict)
    assert code == 1
    assert lines[0]["passed"] is True
    assert lines[1]["failure"]["line"] == 3
    assert lines[1]["failure"]["message"] == "the state differs from the expectation"


def test_a_wrong_received_action_shows_where_it_differs(tmp_path):
    path = write(
        tmp_path, "received.jsonl",
        {"scenario": "received", "store": "primes"},
        {"nthPrimes": {"0": 5}},
        {"send": "counter.nthPrimeButtonTapped", "state": {"nthPrimeRequest": 0, "isNthPrimeButtonDisabled": True}},
        {"receive": {"type": "counter.nthPrimeResponse", "value": 7}},
    )
    _, lines = run_json(path)
    assert lines[0]["failure"]["differences"] == [{"path": "/action/value", "expected": 7, "actual": 5}]


def test_a_partial_receive_checks_the_type_and_the_members_it_names(tmp_path):
    steps = [
        {"nthPrimes": {"0": 5}},
        {"send": "counter.nthPrimeButtonTapped", "state": {"nthPrimeRequest": 0, "isNthPrimeButtonDisabled": True}},
    ]
    by_type = write(
        tmp_path, "type.jsonl", {"scenario": "by type", "store": "primes"}, *steps,
        {"receive": "counter.nthPrimeResponse", "match": "partial",
         "state": {"alertNthPrime": {"n": 0, "prime": 5}, "nthPrimeRequest": None, "isNthPrimeButtonDisabled": False}},
    )
    wrong = write(
        tmp_path, "wrong.jsonl", {"scenario": "wrong value", "store": "primes"}, *steps,
        {"receive": {"type": "counter.nthPrimeResponse", "value": 7}, "match": "partial"},
    )
    other = write(
        tmp_path, "other.jsonl", {"scenario": "other type", "store": "primes"}, *steps,
        {"receive": "counter.incrTapped", "match": "partial"},
    )
    for path in (by_type, wrong, other):
        SCENARIO.validate(json.loads(path.read_text().splitlines()[-1]))
    code, lines = run_json(by_type, wrong, other)
    assert code == 1
    assert [line.get("passed") for line in lines[:3]] == [True, False, False]
    assert lines[1]["failure"]["differences"] == [{"path": "/action/value", "expected": 7, "actual": 5}]
    assert {"path": "/action/type", "expected": "counter.incrTapped", "actual": "counter.nthPrimeResponse"} in (
        lines[2]["failure"]["differences"]
    )


def test_a_receive_given_by_its_type_alone_matches_the_case_as_teststores_key_path_does(tmp_path):
    steps = [
        {"nthPrimes": {"0": 5}},
        {"send": "counter.nthPrimeButtonTapped", "state": {"nthPrimeRequest": 0, "isNthPrimeButtonDisabled": True}},
    ]
    by_case = write(
        tmp_path, "case.jsonl", {"scenario": "by case", "store": "primes"}, *steps,
        {"receive": "counter.nthPrimeResponse",
         "state": {"alertNthPrime": {"n": 0, "prime": 5}, "nthPrimeRequest": None, "isNthPrimeButtonDisabled": False}},
    )
    exact = write(
        tmp_path, "exact.jsonl", {"scenario": "exact", "store": "primes"}, *steps,
        {"receive": "counter.nthPrimeResponse", "match": "exact"},
    )
    code, lines = run_json(by_case, exact)
    assert code == 1
    assert [line.get("passed") for line in lines[:2]] == [True, False]
    assert lines[1]["failure"]["differences"] == [{"path": "/action/value", "actual": 5}]


@pytest.mark.parametrize(
    "header, step, message",
    [
        ({}, {"receive": "counter.nthPrimeResponse", "match": "loose"}, '"match" is "exact" or "partial"'),
        ({"effects": "recorded"}, {"receive": "counter.nthPrimeResponse", "match": "partial"},
         '"match":"partial" needs "effects":"run"'),
    ],
)
def test_a_match_that_cannot_hold_is_refused(tmp_path, header, step, message):
    path = write(tmp_path, "match.jsonl", {"scenario": "match", "store": "primes", **header}, step)
    code, out, _ = run_test(path)
    assert code == 1
    assert message in out


def test_a_request_nothing_answers_fails_the_scenario(tmp_path):
    path = write(
        tmp_path, "http.jsonl",
        {"scenario": "http", "store": "randomTodo", "exhaustive": False},
        {"http": {"path": "/elsewhere"}},
        {"send": "clickButton"},
    )
    _, lines = run_json(path)
    assert "unexpected request GET /todos/" in lines[0]["failure"]["message"]


def test_what_the_peer_got_is_checked(tmp_path):
    path = write(
        tmp_path, "peer.jsonl",
        {"scenario": "peer", "store": "websocket", "exhaustive": False},
        {"send": "connectButtonTapped"},
        {"send": {"type": "messageToSendChanged", "value": "Hi"}},
        {"send": "sendButtonTapped"},
        {"peer": {"expect": {"sent": [{"text": "Bye"}], "pings": 0}}},
    )
    _, lines = run_json(path)
    assert lines[0]["failure"]["differences"] == [{"path": "/sent/0/text", "expected": "Bye", "actual": "Hi"}]


@pytest.mark.parametrize(
    "lines, message",
    [
        (['{"send":"x"}'], ":1: the first line must be a"),
        (['{"scenario":"s"}', "{nope"], ":2: not JSON"),
        (['{"scenario":"s"}', '{"send":"x","store":"primes","extra":1}'], ':2: send: unknown field "extra"'),
        (['{"scenario":"s"}', '{"advance":-5}'], ":2: \"advance\" must be"),
    ],
)
def test_a_malformed_file_is_a_failure_naming_its_line(tmp_path, lines, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run_test(path)
    assert code == 1 and f"{path}{message}" in out, out


def test_a_missing_file_fails_and_the_others_still_run(tmp_path):
    examples = ROOT / "Examples" / "scenarios" / "primes.jsonl"
    count = scenario_count(examples)
    code, lines = run_json(tmp_path / "missing.jsonl", examples)
    assert code == 1
    assert [line.get("passed") for line in lines[:-1]] == [False] + [True] * count
    assert lines[-1] == {"type": "summary", "passed": count, "failed": 1}


def test_a_scenario_can_start_from_a_data_folder(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "favorite-primes.json").write_text("[3, 5]")
    path = write(
        tmp_path, "data.jsonl",
        {"scenario": "data", "store": "primes", "dataDir": str(data)},
        {"send": "favoritePrimes.loadButtonTapped"},
        {"receive": {"type": "favoritePrimes.loadedFavoritePrimes", "value": [3, 5]}, "state": {"favoritePrimes": [3, 5]}},
    )
    code, lines = run_json(path)
    assert code == 0, lines


def test_a_data_folder_is_found_beside_the_scenario_and_copied_for_each_run(tmp_path):
    """`dataDir` is relative to the scenario file, wherever `test` runs from, and each run works
    on a copy: a scenario that saves used to overwrite its own fixture, failing the next run."""
    folder = tmp_path / "scenarios"
    (folder / "fixture" / "nested").mkdir(parents=True)
    (folder / "fixture" / "favorite-primes.json").write_text("[3, 5]")
    (folder / "fixture" / "nested" / "kept.txt").write_text("untouched")
    path = write(
        folder, "saves.jsonl",
        {"scenario": "load, add 7, save", "store": "primes", "dataDir": "fixture", "exhaustive": False},
        {"send": "favoritePrimes.loadButtonTapped"},
        {"receive": {"type": "favoritePrimes.loadedFavoritePrimes", "value": [3, 5]}, "state": {"favoritePrimes": [3, 5]}},
        {"send": {"type": "counter.countChanged", "value": 7}, "state": {"count": 7, "isPrime": True}},
        {"send": "primeModal.saveFavoritePrimeTapped", "state": {"favoritePrimes": [3, 5, 7]}},
        {"send": "favoritePrimes.saveButtonTapped"},
        {"receive": "favoritePrimes.savedFavoritePrimes"},
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for _ in range(2):
        result = subprocess.run([str(BINARY), "test", "--format", "json", str(path)], cwd=elsewhere,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stdout + result.stderr
    assert (folder / "fixture" / "favorite-primes.json").read_text() == "[3, 5]"
    assert (folder / "fixture" / "nested" / "kept.txt").read_text() == "untouched"
    assert sorted(p.name for p in (folder / "fixture").iterdir()) == ["favorite-primes.json", "nested"]

    write(folder, "missing.jsonl", {"scenario": "no such folder", "store": "primes", "dataDir": "nope"},
          {"send": "counter.incrTapped"})
    code, lines = run_json(folder / "missing.jsonl")
    assert code == 1
    message = lines[0]["failure"]["message"]
    assert message.startswith('cannot copy "dataDir" ') and "/scenarios/nope: No such file" in message


def test_folders_stdin_and_a_filter_choose_what_runs(tmp_path):
    folder = tmp_path / "suite"
    (folder / "nested").mkdir(parents=True)
    write(folder, "b.jsonl", {"scenario": "count up", "store": "primes"},
          {"send": "counter.incrTapped", "state": {"count": 1}})
    write(folder / "nested", "a.jsonl", {"scenario": "count down", "store": "primes"},
          {"send": "counter.decrTapped", "state": {"count": -1}})
    (folder / "notes.txt").write_text("not a scenario file")
    code, out, _ = run_test(folder)
    assert code == 0, out
    # Every .jsonl file of the folder and its subfolders, in name order.
    assert [line.split()[1] for line in out.splitlines()[:-1]] == [
        f"{folder}/b.jsonl:1", f"{folder}/nested/a.jsonl:1"]

    code, out, _ = run_test("--filter", "down", folder)
    assert code == 0 and out.splitlines() == [f"ok    {folder}/nested/a.jsonl:1  count down", "1 passed, 0 failed"]
    code, out, _ = run_test("--filter", "sideways", folder)
    assert code == 1 and 'no scenario\'s name contains "sideways"' in out

    scenario = (folder / "b.jsonl").read_text().replace('"count": 1', '"count": 2')
    result = subprocess.run([str(BINARY), "test", "-"], input=scenario, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "      <stdin>:2: send counter.incrTapped: the state differs" in result.stdout


def test_tap_and_junit_reports_say_what_the_text_report_says(tmp_path):
    import xml.etree.ElementTree as ElementTree

    good = write(tmp_path, "good.jsonl", {"scenario": "count up", "store": "primes"},
                 {"send": "counter.incrTapped", "state": {"count": 1}})
    bad = write(tmp_path, "bad.jsonl", {"scenario": "count <twice> & more", "store": "primes"},
                {"send": "counter.incrTapped", "state": {"count": 2}})
    code, out, _ = run_test("--format", "tap", good, bad, tmp_path / "missing.jsonl")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"ok 1 - {good}:1 count up"
    assert lines[1] == f"not ok 2 - {bad}:1 count <twice> & more"
    assert lines[2] == f"# {bad}:2: send counter.incrTapped: the state differs from the expectation (− expected, + actual)"
    assert lines[3:8] == ["#     {", "#   −   count: 2", "#   +   count: 1", "#       … (9 unchanged)", "#     }"]
    assert lines[8] == f"not ok 3 - {tmp_path / 'missing.jsonl'} (unreadable)"
    assert lines[-2:] == ["1..3", "# 1 passed, 2 failed"]

    code, out, _ = run_test("--format", "junit", good, bad)
    assert code == 1
    root = ElementTree.fromstring(out)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "2", "1")
    suites = root.findall("testsuite")
    assert [suite.get("name") for suite in suites] == [str(good), str(bad)]
    passing, failing = suites[0].find("testcase"), suites[1].find("testcase")
    assert passing.get("name") == "count up" and passing.find("failure") is None
    assert (failing.get("name"), failing.get("file"), failing.get("line")) == ("count <twice> & more", str(bad), "1")
    failure = failing.find("failure")
    assert failure.get("message") == "the state differs from the expectation"
    assert f"{bad}:2: send counter.incrTapped" in failure.text and "−   count: 2\n" in failure.text


def test_an_advance_past_its_wake_up_limit_fails_the_scenario(tmp_path):
    path = write(
        tmp_path, "runaway.jsonl",
        {"scenario": "runaway", "store": "randomTodo", "arguments": ["--max-advance-wakeups", "2"], "exhaustive": False},
        {"http": {"path": "/todos/*", "body": {"userId": 1, "id": 1, "title": "t", "completed": False}}},
        {"send": "viewDidAppear"},
        {"advance": 3_600_000},
    )
    code, out, _ = run_test(path)
    assert code == 1
    # Wake-ups at the timer's 3 s and 6 s deadlines (the scripted answer has no delay).
    assert (
        f"{path}:4: advance 3600000 ms: advance stopped after 2 wake-ups, at 6000 ms: a timer that "
        "fires this often needs shorter advances"
    ) in out, out


def test_a_peer_left_connecting_must_be_answered(tmp_path):
    nothing_waits = write(
        tmp_path, "nothing.jsonl",
        {"scenario": "nothing waits", "store": "websocket"},
        {"peer": {"accept": True}},
    )
    _, lines = run_json(nothing_waits)
    assert lines[0]["failure"]["message"] == "no connection is waiting for the peer to accept or refuse it"
    unanswered = write(
        tmp_path, "unanswered.jsonl",
        {"scenario": "unanswered", "store": "websocket"},
        {"websocket": {"accept": "later"}},
        {"send": "connectButtonTapped", "state": {"connectivityState": "connecting"}},
    )
    _, lines = run_json(unanswered)
    message = lines[0]["failure"]["message"]
    assert message.startswith("1 effect(s) still running at the end: ") and "started by connectButtonTapped at" in message


def test_what_the_effects_asked_of_the_services_is_checked(tmp_path):
    path = write(
        tmp_path, "services.jsonl",
        {"scenario": "requests and files", "store": "primes", "exhaustive": False},
        {"send": {"type": "counter.countChanged", "value": 5}},
        {"send": "primeModal.saveFavoritePrimeTapped"},
        {"send": "favoritePrimes.saveButtonTapped"},
        {"expect": {"files": {"favorite-primes.json": [7], "other.json": None}}},
    )
    code, out, _ = run_test(path)
    assert code == 1
    assert out.splitlines()[1:10] == [
        f"      {path}:5: expect: the dependencies did not get what was expected (− expected, + actual)",
        "          {",
        "            files: {",
        '              "favorite-primes.json": [',
        "        −       [0]: 7",
        "        +       [0]: 5",
        "              ]",
        "              … (1 unchanged)",
        "            }",
    ]
    todos = write(
        tmp_path, "requests.jsonl",
        {"scenario": "requests", "store": "randomTodo", "seed": 1, "exhaustive": False},
        {"http": {"path": "/todos/*", "body": {"userId": 1, "id": 2, "title": "t", "completed": False}}},
        {"send": "clickButton"},
        {"expect": {"requests": ["GET /todos/1"]}},
    )
    _, lines = run_json(todos)
    assert lines[0]["failure"]["differences"] == [{"path": "/requests/0", "expected": "GET /todos/1", "actual": "GET /todos/57"}]
    # Checked requests are not listed again.
    again = write(
        tmp_path, "again.jsonl",
        {"scenario": "again", "store": "randomTodo", "seed": 1, "exhaustive": False},
        {"http": {"path": "/todos/*", "body": {"userId": 1, "id": 2, "title": "t", "completed": False}}},
        {"send": "clickButton"},
        {"expect": {"requests": ["GET /todos/57"]}},
        {"expect": {"requests": []}},
    )
    assert run_test(again)[0] == 0
    # The object form checks the body too: a GET sends none.
    with_body = write(
        tmp_path, "body.jsonl",
        {"scenario": "body", "store": "randomTodo", "seed": 1, "exhaustive": False},
        {"http": {"path": "/todos/*", "body": {"userId": 1, "id": 2, "title": "t", "completed": False}}},
        {"send": "clickButton"},
        {"send": "clickButton"},
        {"expect": {"requests": [{"request": "GET /todos/57", "body": None}, {"request": "GET /todos/75", "body": {}}]}},
    )
    for line in with_body.read_text().splitlines():
        SCENARIO.validate(json.loads(line))
    _, lines = run_json(with_body)
    assert lines[0]["failure"]["differences"] == [{"path": "/requests/1/body", "expected": {}, "actual": None}]


@pytest.mark.parametrize("expect, message", [
    ({"requests": ["/todos/1"]}, '"requests" lists requests as "METHOD /path?query", or as {"request"'),
    ({"requests": [{"request": "POST /todos", "bdy": 1}]}, '"requests" lists requests as "METHOD /path?query"'),
    ({"files": {"../x": 1}}, '"files": "../x" is not a path inside the data folder'),
    ({"calls": 1}, "unknown field"),
])
def test_a_malformed_expect_step_is_refused_when_read(tmp_path, expect, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"scenario": "bad", "store": "primes"}) + "\n" + json.dumps({"expect": expect}) + "\n")
    code, out, _ = run_test(path)
    assert code == 1 and message in out, out


@pytest.mark.parametrize("http, message", [
    ({"method": "post", "path": "/todos/sync"}, '"http": "method" is a method in capitals (GET, POST, PUT, …)'),
    ({"path": "todos/sync"}, '"http" needs a "path" starting with /'),
])
def test_a_malformed_canned_answer_is_refused_when_read(tmp_path, http, message):
    path = write(tmp_path, "bad.jsonl", {"scenario": "bad", "store": "randomTodo"}, {"http": http})
    code, out, _ = run_test(path)
    assert code == 1 and f"{path}:2: " in out and message in out, out


def test_a_scenario_starts_from_the_initial_state_it_gives(tmp_path):
    path = write(
        tmp_path, "initial.jsonl",
        {"scenario": "from six", "store": "primes", "initialState": {"count": 6, "favoritePrimes": [7]}},
        {"send": "counter.incrTapped", "state": {"count": 7, "isPrime": True, "isFavorite": True}},
    )
    assert run_test(path)[0] == 0, run_test(path)[1]
    wrong = write(
        tmp_path, "wrong-initial.jsonl",
        {"scenario": "a page that is text", "store": "votes", "initialState": {"page": "nine"}},
        {"send": "refresh"},
    )
    _, lines = run_json(wrong)
    assert lines[0]["failure"]["message"] == (
        '"initialState": the votes store\'s state does not decode: /page: expected an integer, got "nine"'
    )
    path = tmp_path / "no-store.jsonl"
    path.write_text(json.dumps({"scenario": "whose?", "initialState": {"count": 1}}) + "\n")
    code, out, _ = run_test(path)
    assert code == 1 and '"initialState" is an object of state members, for the header\'s "store"' in out
