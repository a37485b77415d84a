"""The blocking client against the real binary ($COMPOSABLE_ACTOR_BIN or the release build)."""

import json
import os
import random
import signal
import threading
from pathlib import Path

import pytest

from composable_actor import ENV_BINARY, Client, ComposableActorError, ProcessExitedError, UnknownStoreError, find_binary


def is_gone(pid):
    # A zombie keeps its /proc entry until reaped.
    return not Path(f"/proc/{pid}").exists()


def test_start_seeds_the_mirror_from_a_snapshot_of_every_store(start):
    actor = start()
    assert actor.ready["protocol"] == 1 and "primes" in actor.stores
    for store in actor.stores:
        assert actor.state(store) == actor.snapshot(store)
    assert actor.state("primes")["count"] == 0


def test_send_returns_its_own_action_line(start):
    actor = start()
    (line,) = actor.send("primes", "counter.incrTapped")
    assert line["type"] == "action" and line["source"] == "host"
    assert line["action"] == {"type": "counter.incrTapped"}
    assert line["patch"] == [{"op": "replace", "path": "/count", "value": 1}]
    (second,) = actor.send("primes", "counter.incrTapped")
    assert second["id"] != line["id"] and second["seq"] == line["seq"] + 1
    assert actor.state("primes")["count"] == 2


def test_payload_as_keywords_or_as_a_whole_action(start):
    actor = start()
    (line,) = actor.send("primes", "counter.countChanged", value=5)
    assert line["action"] == {"type": "counter.countChanged", "value": 5}
    actor.send("primes", {"type": "counter.countChanged", "value": 6})
    assert actor.state("primes")["count"] == 6


def test_until_waits_for_the_effect_line(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=1000)
    lines = actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
    assert [line["source"] for line in lines] == ["host", "effect"]
    assert len({line["id"] for line in lines}) == 1
    assert lines[-1]["action"] == {"type": "counter.nthPrimeResponse", "value": 7919}
    assert actor.state("primes")["alertNthPrime"] == {"n": 1000, "prime": 7919}
    assert actor.state("primes")["isNthPrimeButtonDisabled"] is False


def test_until_takes_a_predicate(start, tmp_path):
    actor = start()
    actor.send("primes", "counter.countChanged", value=3)
    actor.send("primes", "primeModal.saveFavoritePrimeTapped")
    lines = actor.send("primes", "favoritePrimes.saveButtonTapped", until=lambda line: line["source"] == "effect")
    assert lines[-1]["action"]["type"] == "favoritePrimes.savedFavoritePrimes"
    assert json.loads((tmp_path / "favorite-primes.json").read_text()) == [3]


def random_action(rng):
    """A host action of the primes store, and what to wait for."""
    choice = rng.randrange(10)
    if choice == 0:
        return ("counter.countChanged", {"value": rng.randrange(-3, 60)}, None)
    if choice == 1:
        return ("counter.nthPrimeButtonTapped", {}, "counter.nthPrimeResponse")
    if choice == 2:
        return ("primeModal.saveFavoritePrimeTapped", {}, None)
    if choice == 3:
        return ("primeModal.removeFavoritePrimeTapped", {}, None)
    if choice == 4:
        return ("favoritePrimes.deleteFavoritePrimes", {"indices": rng.sample(range(3), rng.randrange(3))}, None)
    if choice == 5:
        return ("counter.alertDismissButtonTapped", {}, None)
    if choice == 6:
        return (rng.choice(["favoritePrimes.saveButtonTapped", "favoritePrimes.loadButtonTapped"]), {},
                lambda line: line["source"] == "effect")
    return (rng.choice(["counter.incrTapped", "counter.decrTapped"]), {}, None)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_mirror_matches_fresh_snapshots_after_many_actions(start, seed):
    actor = start()
    rng = random.Random(seed)
    for step in range(400):
        action, payload, until = random_action(rng)
        actor.send("primes", action, until=until, **payload)
        if step % 50 == 0:
            assert actor.state("primes") == actor.snapshot("primes")
    assert actor.state("primes") == actor.snapshot("primes")


def test_ticks_mode_answers_with_the_state_line_naming_the_id(start):
    actor = start("--emit", "ticks")
    (line,) = actor.send("primes", "counter.countChanged", value=7)
    assert line["type"] == "state" and line["ids"] == [len(actor.stores) + 1]  # after the snapshots
    for _ in range(20):
        actor.send("primes", "primeModal.saveFavoritePrimeTapped")
        actor.send("primes", "counter.incrTapped")
    assert actor.state("primes") == actor.snapshot("primes")


@pytest.mark.parametrize(
    "store, action, payload, code",
    [
        ("primes", "counter.nope", {}, "unknown_action"),
        ("primes", "counter.countChanged", {"value": "seven"}, "invalid_action"),
    ],
)
def test_a_refused_line_raises_a_typed_error_and_the_process_goes_on(start, store, action, payload, code):
    actor = start()
    actor.send("primes", "counter.incrTapped")
    with pytest.raises(ComposableActorError) as raised:
        actor.send(store, action, **payload)
    error = raised.value
    assert error.code == code and error.message and code in str(error)
    # Ids are input line numbers: one snapshot per store, one send, then this line.
    assert error.id == error.line == len(actor.stores) + 2
    assert actor.send("primes", "counter.incrTapped")[0]["patch"][0]["value"] == 2


def test_an_error_without_an_id_finds_its_call_by_line_number(start):
    actor = start("--max-line-bytes", "200")
    with pytest.raises(ComposableActorError) as raised:
        actor.send("primes", "counter.countChanged", value=int("9" * 300))
    assert raised.value.code == "line_too_long" and raised.value.id is None and raised.value.line == len(actor.stores) + 1
    assert actor.send("primes", "counter.incrTapped")[0]["patch"][0]["value"] == 1


def test_late_effect_lines_wait_in_the_backlog(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=10)
    (tapped,) = actor.send("primes", "counter.nthPrimeButtonTapped")
    actor.send("primes", "counter.countChanged", value=11)  # the response may arrive meanwhile
    line = actor.wait_for("counter.nthPrimeResponse")
    assert line["id"] == tapped["id"] and line["action"]["value"] == 29
    assert actor.state("primes")["alertNthPrime"] == {"n": 10, "prime": 29}


def test_a_timeout_leaves_the_client_usable(start):
    actor = start()
    with pytest.raises(TimeoutError):
        actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True, timeout=0.2)
    with pytest.raises(TimeoutError):
        actor.wait_for("counter.nthPrimeResponse", timeout=0.1)
    assert actor.send("primes", "counter.incrTapped")[0]["patch"][0]["value"] == 2


def test_pending_calls_end_when_the_process_exits(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=1_000_000_000)  # about 2 s of CPU
    threading.Timer(0.2, os.kill, (actor.pid, signal.SIGTERM)).start()
    with pytest.raises(ProcessExitedError) as raised:
        actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
    assert raised.value.reason == "signal" and raised.value.exit_line["cancelledEffects"] == 1
    with pytest.raises(ProcessExitedError):
        actor.send("primes", "counter.incrTapped")
    assert actor.close() == 143


def test_close_quits_and_reaps(start):
    actor = start()
    actor.send("primes", "counter.incrTapped")
    assert actor.close() == 0 and is_gone(actor.pid)
    assert actor.wait_for(lambda line: line["type"] == "exit")["reason"] == "quit"
    assert actor.close() == 0
    with pytest.raises(ProcessExitedError):
        actor.snapshot("primes")


def test_the_context_manager_ends_the_process_when_the_block_raises(tmp_path):
    with pytest.raises(RuntimeError):
        with Client(args=["--data-dir", str(tmp_path)]) as actor:
            actor.send("primes", "counter.countChanged", value=1_000_000_000)
            actor.send("primes", "counter.nthPrimeButtonTapped")  # an effect still running
            raise RuntimeError("the host fails")
    assert actor.returncode == 0 and is_gone(actor.pid)


def test_the_binary_comes_from_the_argument_then_the_environment(monkeypatch, tmp_path):
    binary = find_binary(None)
    monkeypatch.setenv(ENV_BINARY, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=ENV_BINARY):
        Client()
    with Client(binary, args=["--data-dir", str(tmp_path)]) as actor:
        assert actor.stores
    with pytest.raises(FileNotFoundError):
        Client(tmp_path / "also-missing")


def test_advance_and_settle_are_refused_under_the_live_clock(start):
    actor = start()
    # test_virtual_clock.py drives both verbs under --clock virtual.
    for verb in (lambda: actor.advance(10), actor.settle):
        with pytest.raises(ComposableActorError) as raised:
            verb()
        assert raised.value.code == "clock_not_virtual" and raised.value.id == raised.value.line


def test_state_is_a_copy_and_describe_lists_the_stores(start):
    actor = start()
    actor.state("primes")["count"] = 99
    assert actor.state("primes")["count"] == 0
    description = actor.describe()
    assert [store["name"] for store in description["stores"]] == actor.stores


def test_a_message_that_cannot_be_encoded_takes_no_id(start):
    actor = start()
    with pytest.raises(ValueError, match="JSON"):
        actor.send("primes", "counter.countChanged", value=float("nan"))
    # Ids are the numbers of the lines written: the start-up snapshots, then this one.
    assert actor.send("primes", "counter.incrTapped")[0]["id"] == len(actor.stores) + 1
    assert not actor._session._calls
