"""run --trace effects: a line as each effect starts and ends, tied to the action that started it
(issue 17 §1). Every line is validated against schemas/output.schema.json by conftest."""

import json
import os
import re
import subprocess
import sys

from actor import BINARY, ROOT, Actor, run_lines
from conftest import validator

RECORDING = validator("urn:composable-actor:recording")


def nth_prime(n, id=None):
    """Lines that ask the primes store for the nth prime (an effect on the thread pool)."""
    tap = {"store": "primes", "action": "counter.nthPrimeButtonTapped"}
    if id is not None:
        tap["id"] = id
    return [{"store": "primes", "action": {"type": "counter.countChanged", "value": n}}, tap]


def effects(lines):
    return [line for line in lines if line["type"] == "effect"]


def without_time(line):
    return {key: value for key, value in line.items() if key != "t"}


def test_effects_are_not_traced_unless_asked():
    lines, code, _ = run_lines(nth_prime(6))
    assert code == 0
    assert effects(lines) == []
    assert lines[-2]["action"] == {"type": "counter.nthPrimeResponse", "value": 13}
    assert "effect" not in lines[-2]


def test_an_effect_is_traced_from_start_to_finish_with_the_action_that_started_it():
    lines, code, _ = run_lines(nth_prime(6, id="ask"), "--trace", "effects")
    assert code == 0
    assert [line["type"] for line in lines] == ["ready", "action", "action", "effect", "action", "effect", "exit"]
    tap, started, response, finished = lines[2], lines[3], lines[4], lines[5]
    assert without_time(started) == {
        "type": "effect", "store": "primes", "effect": 1, "event": "started", "cause": tap["seq"],
        "operator": "run", "cancelID": "nthPrime",
    }
    assert response["action"] == {"type": "counter.nthPrimeResponse", "value": 13}
    assert response["id"] == "ask"
    assert response["effect"] == started["effect"], "the action line names the effect that sent it"
    assert without_time(finished) == {**without_time(started), "event": "finished"}
    assert 0 <= started["t"] <= finished["t"]


def test_a_newer_request_cancels_the_one_in_flight_and_the_line_says_which_action_did():
    lines, code, _ = run_lines(nth_prime(1_000_000_000) + nth_prime(6), "--trace", "effects", timeout=30)
    assert code == 0
    taps = [line for line in lines if line.get("action") == {"type": "counter.nthPrimeButtonTapped"}]
    traced = effects(lines)
    assert [(line["effect"], line["event"], line["cause"]) for line in traced] == [
        (1, "started", taps[0]["seq"]),
        (1, "cancelled", taps[0]["seq"]),
        (2, "started", taps[1]["seq"]),
        (2, "finished", taps[1]["seq"]),
    ]
    assert traced[1]["by"] == {"reason": "cancelInFlight", "seq": taps[1]["seq"]}
    assert lines[-1] == {"type": "exit", "reason": "eof", "cancelledEffects": 0}


def test_quit_cancels_what_still_runs_and_says_so_before_the_exit_line():
    actor = Actor("--trace", "effects")
    actor.send(*nth_prime(1_000_000_000))
    started = actor.read_until(lambda line: line["type"] == "effect")[-1]
    assert started["event"] == "started"
    actor.send({"cmd": "quit"})
    rest = actor.read_until(lambda line: line["type"] == "exit")
    assert [line["type"] for line in rest] == ["effect", "exit"]
    assert without_time(rest[0]) == {**without_time(started), "event": "cancelled", "by": {"reason": "quit"}}
    assert rest[1]["cancelledEffects"] == 1
    assert actor.process.wait(timeout=10) == 0


def test_the_end_of_input_after_the_linger_cancels_with_reason_eof():
    lines, code, _ = run_lines(nth_prime(1_000_000_000), "--trace", "effects", "--linger", "0.2", timeout=30)
    assert code == 0
    assert [(line["event"], line.get("by")) for line in effects(lines)] == [
        ("started", None),
        ("cancelled", {"reason": "eof"}),
    ]



def test_the_example_lists_each_effect_with_what_started_it_and_how_it_ended():
    result = subprocess.run(
        [sys.executable, str(ROOT / "Examples/clients/effects.py")],
        capture_output=True, text=True, timeout=60, env={**os.environ, "COMPOSABLE_ACTOR_BIN": str(BINARY)},
    )
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()
    patterns = [
        r"effect 1: run nthPrime, started by counter.nthPrimeButtonTapped at \d+ ms, cancelled "
        r"\(cancelInFlight by counter.nthPrimeButtonTapped\) at \d+ ms",
        r"effect 2: run nthPrime, started by counter.nthPrimeButtonTapped at \d+ ms, finished at \d+ ms",
        r"effect 3: run, started by favoritePrimes.saveButtonTapped at \d+ ms, finished at \d+ ms",
    ]
    assert len(rows) == len(patterns), rows
    for row, pattern in zip(rows, patterns):
        assert re.fullmatch(pattern, row), row


def test_a_recording_keeps_the_effect_lines_and_still_replays(tmp_path):
    recording = tmp_path / "traced.jsonl"
    lines, code, _ = run_lines(nth_prime(6), "--trace", "effects", "--record", str(recording))
    assert code == 0
    recorded = [json.loads(text) for text in recording.read_text().splitlines()]
    for line in recorded:
        RECORDING.validate(line)
    assert [line["type"] for line in recorded] == ["recording", "action", "action", "effect", "answer", "action", "effect"]
    # The effect lines are the ones stdout got, byte for byte in meaning.
    assert [line for line in recorded if line["type"] == "effect"] == effects(lines)
    replayed = subprocess.run([str(BINARY), "replay", str(recording)], capture_output=True, text=True, timeout=30)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "3 actions replayed, every state matched" in replayed.stdout


def test_under_the_virtual_clock_an_effect_says_until_when_it_sleeps():
    # randomTodo's refresh timer: a tick every 3 s once the view appears (stopped before the
    # first tick, so nothing is fetched).
    appear = {"store": "randomTodo", "action": "viewDidAppear"}
    stop = {"store": "randomTodo", "action": "stopRandomText"}
    lines, code, _ = run_lines([appear, {"cmd": "advance", "ms": 2999}, stop], "--trace", "effects", "--clock", "virtual")
    assert code == 0
    traced = effects(lines)
    assert [(line["event"], line.get("until"), line["t"]) for line in traced] == [
        ("started", None, 0),
        ("sleeping", 3000, 0),
        ("cancelled", None, 2999),
    ]
    assert traced[2]["by"]["reason"] == "cancel"


def test_a_concatenation_that_ends_in_a_cancellable_effect_is_traced_as_two_effects(fixture_server):
    # randomTodo's click: .concatenate(.cancel(timer), fetch.cancellable(id: fetch)). The
    # cancel applies at once; the rest of the concatenation runs as one effect (operator
    # cancellable), which runs the fetch as an effect of its own, with the cancel id.
    click = {"store": "randomTodo", "action": "clickButton", "id": "click"}
    lines, code, _ = run_lines([click], "--trace", "effects", "--todos-url", fixture_server.url)
    assert code == 0
    clicked = next(line for line in lines if line.get("action") == {"type": "clickButton"})
    result = next(line for line in lines if line["type"] == "action" and line["source"] == "effect")
    assert result["action"]["type"] == "fetchResult.success"
    assert [(line["effect"], line["event"], line["operator"], line.get("cancelID")) for line in effects(lines)] == [
        (1, "started", "cancellable", None),
        (2, "started", "run", "fetch"),
        (2, "finished", "run", "fetch"),
        (1, "finished", "cancellable", None),
    ]
    assert all(line["cause"] == clicked["seq"] for line in effects(lines))
    assert result["effect"] == 2
