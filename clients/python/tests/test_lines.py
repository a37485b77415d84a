"""No lost lines, with the blocking client: the backlog, wait_for's cursor, until matching any
line whatever its id, poll and a current mirror, and the errors of waits that could never end."""

import time

import pytest

from composable_actor import ProcessExitedError, UnknownActionError, UnknownStoreError


def kind(line):
    return line["action"]["type"] if line["type"] == "action" else line["type"]


def test_every_line_is_kept_in_order_in_a_bounded_backlog(start):
    actor = start(backlog=6)
    assert [line["type"] for line in actor.backlog] == ["snapshot"] * len(actor.stores)
    for _ in range(5):
        actor.send("primes", "counter.incrTapped")
    kept = actor.backlog
    # The oldest were dropped first: of four snapshots and five actions, the last six are left.
    assert len(kept) == 6 and kind(kept[0]) == "snapshot" and kept[0]["store"] == actor.stores[-1]
    assert [line["patch"][0]["value"] for line in kept[1:]] == [1, 2, 3, 4, 5]
    assert [line["seq"] for line in kept[1:]] == sorted(line["seq"] for line in kept[1:])


def test_wait_for_finds_lines_that_arrived_before_it_and_never_returns_one_twice(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=10)
    (tapped,) = actor.send("primes", "counter.nthPrimeButtonTapped")
    deadline = time.monotonic() + 10
    while actor.state("primes")["isNthPrimeButtonDisabled"]:  # a newer tap would cancel this one
        assert time.monotonic() < deadline
        time.sleep(0.01)
    actor.send("primes", "counter.countChanged", value=20)
    (second,) = actor.send("primes", "counter.nthPrimeButtonTapped")
    time.sleep(0.2)
    # Both answers were read before wait_for was called; it returns them in order, each once.
    first = actor.wait_for("counter.nthPrimeResponse")
    assert (first["id"], first["action"]["value"]) == (tapped["id"], 29)
    again = actor.wait_for("counter.nthPrimeResponse")
    assert (again["id"], again["action"]["value"]) == (second["id"], 71)
    with pytest.raises(TimeoutError):
        actor.wait_for("counter.nthPrimeResponse", timeout=0.2)
    # Lines before the cursor are passed: the host's own lines of long ago are not found again.
    with pytest.raises(TimeoutError):
        actor.wait_for("counter.countChanged", timeout=0.1)
    # A line read by another call (here the answer to a send) is still found by wait_for.
    actor.send("primes", "counter.incrTapped")
    assert actor.wait_for("counter.incrTapped")["patch"][0]["value"] == 21


def test_wait_for_limits_its_matching_to_a_store(start):
    actor = start()
    snapshot = lambda line: line["type"] == "snapshot"  # noqa: E731
    assert actor.wait_for(snapshot, store="votes")["store"] == "votes"
    # The cursor moved past the votes snapshot: the websocket one is next, primes' is passed.
    assert actor.wait_for(snapshot)["store"] == "websocket"
    actor.send("primes", "counter.incrTapped")
    assert actor.wait_for("counter.incrTapped", store="primes")["store"] == "primes"


def test_until_matches_a_line_of_an_effect_started_by_another_action(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=300_000_000)  # about half a second of CPU
    (tapped,) = actor.send("primes", "counter.nthPrimeButtonTapped")
    lines = actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True)
    # Its own line first; the response carries the id of the tap that started the effect.
    assert [kind(line) for line in lines] == ["counter.incrTapped", "counter.nthPrimeResponse"]
    assert lines[0]["id"] != tapped["id"] and lines[-1]["id"] == tapped["id"]
    assert actor.state("primes")["alertNthPrime"]["n"] == 300_000_000


def test_until_does_not_see_lines_that_came_before_the_action(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=5)
    actor.send("primes", "counter.nthPrimeButtonTapped")
    time.sleep(0.3)  # the answer is written, still unread
    with pytest.raises(TimeoutError):
        actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True, timeout=0.3)
    assert actor.state("primes")["alertNthPrime"] == {"n": 5, "prime": 11}


def test_state_and_poll_read_the_lines_waiting(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=1000)
    actor.send("primes", "counter.nthPrimeButtonTapped")
    assert actor.state("primes")["isNthPrimeButtonDisabled"] is True
    deadline = time.monotonic() + 10
    # Nothing but state() itself reads stdout here.
    while actor.state("primes")["alertNthPrime"] is None:
        assert time.monotonic() < deadline, "the mirror never caught up"
        time.sleep(0.01)
    assert actor.state("primes")["alertNthPrime"] == {"n": 1000, "prime": 7919}
    assert actor.poll() == []

    actor.send("primes", "counter.nthPrimeButtonTapped")
    polled = []
    while not polled:
        assert time.monotonic() < deadline
        polled = actor.poll()
        time.sleep(0.01)
    assert [kind(line) for line in polled] == ["counter.nthPrimeResponse"]
    assert actor.backlog[-1] == polled[-1]


def test_events_start_at_the_backlog_and_end_with_the_exit_line(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=1000)
    actor.send("primes", "counter.nthPrimeButtonTapped")
    events = actor.events()
    seen = []
    for line in events:  # reads live lines once the backlog is through
        seen.append(line)
        if kind(line) == "counter.nthPrimeResponse":
            break
    assert [kind(line) for line in seen] == ["snapshot"] * len(actor.stores) + [
        "counter.countChanged", "counter.nthPrimeButtonTapped", "counter.nthPrimeResponse"]
    actor.close()
    rest = list(events)
    assert [line["type"] for line in rest] == ["exit"]
    assert list(actor.events()) == [*seen, *rest]


def test_traced_effects_come_among_the_events_after_the_action_that_started_them(start):
    actor = start("--trace", "effects")
    actor.send("primes", "counter.countChanged", value=6)
    (tapped,) = actor.send("primes", "counter.nthPrimeButtonTapped")
    seen = []
    for line in actor.events():
        seen.append(line)
        if line["type"] == "effect" and line["event"] == "finished":
            break
    kinds = [kind(line) for line in seen if line["type"] != "snapshot"]
    assert kinds == ["counter.countChanged", "counter.nthPrimeButtonTapped", "effect",
                     "counter.nthPrimeResponse", "effect"]
    started, finished = (line for line in seen if line["type"] == "effect")
    assert (started["event"], started["cause"], finished["cause"]) == ("started", tapped["seq"], tapped["seq"])
    assert started["effect"] == finished["effect"]


def test_a_typo_in_an_action_type_is_an_error_at_once(start):
    actor = start()
    began = time.monotonic()
    with pytest.raises(UnknownActionError, match=r"did you mean 'counter\.nthPrimeResponse'") as raised:
        actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeRespone")
    assert isinstance(raised.value, ValueError) and "'counter.nthPrimeRespone'" in str(raised.value)
    with pytest.raises(UnknownActionError, match="did you mean 'webSocket.didOpen'"):
        actor.wait_for("websocket.didOpen")
    # An action of another store: the store named has no such action.
    with pytest.raises(UnknownActionError, match="in store 'votes'"):
        actor.wait_for("counter.incrTapped", store="votes")
    with pytest.raises(UnknownActionError):
        actor.send("votes", "onAppear", until="counter.nthPrimeResponse")
    assert time.monotonic() - began < 2
    # Nothing was sent: the button was never tapped.
    assert actor.state("primes") == actor.snapshot("primes") and actor.state("primes")["nthPrimeRequest"] is None
    assert actor.state("votes")["hasAppeared"] is False


def test_an_unknown_store_names_the_stores(start):
    actor = start()
    for call in (
        lambda: actor.state("primez"),
        lambda: actor.send("primez", "counter.incrTapped"),
        lambda: actor.wait_for("counter.incrTapped", store="primez"),
        lambda: actor.snapshot("primez"),
    ):
        with pytest.raises(UnknownStoreError) as raised:
            call()
        message = str(raised.value)
        assert message.startswith("unknown store 'primez'; did you mean 'primes'?")
        assert "primes, randomTodo, votes, websocket" in message
        assert isinstance(raised.value, KeyError) and raised.value.stores == actor.stores
    assert actor.send("primes", "counter.incrTapped")[0]["id"] == len(actor.stores) + 1  # nothing written


def test_a_timeout_says_what_it_waited_for_and_shows_the_last_lines(start):
    actor = start()
    actor.describe()  # a long line, shown cut
    actor.send("primes", "counter.countChanged", value=42)
    with pytest.raises(TimeoutError) as raised:
        actor.wait_for("counter.nthPrimeResponse", store="primes", timeout=0.2)
    message = str(raised.value)
    assert "action 'counter.nthPrimeResponse' in store 'primes'" in message and "0.2 s" in message
    assert message.splitlines()[-1].startswith('  {"type":"action","store":"primes"') and '"value":42' in message
    assert len(message.splitlines()) == 1 + 5  # the last five lines
    assert message.splitlines()[-2].startswith('  {"type":"describe"') and message.splitlines()[-2].endswith("…")

    def response_of_the_day(line):
        return False

    with pytest.raises(TimeoutError, match="a line matching .*response_of_the_day") as raised:
        actor.send("primes", "counter.incrTapped", until=response_of_the_day, any_id=True, timeout=0.1)
    assert "the line of action 'counter.incrTapped' in store 'primes'" in str(raised.value)
    # Long lines are cut.
    assert all(len(line) < 200 for line in str(raised.value).splitlines()[1:])
    assert actor.send("primes", "counter.incrTapped")[0]["patch"][0]["value"] == 44


def test_a_predicate_that_raises_fails_its_call_only(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=10)

    def broken(line):
        return line["action"]["type"] == "x"  # a snapshot line has no "action"

    with pytest.raises(KeyError):
        actor.wait_for(broken)  # raises on a line of the backlog
    with pytest.raises(ZeroDivisionError):
        actor.send("primes", "counter.nthPrimeButtonTapped", until=lambda line: 1 / 0 if line["source"] == "effect" else False)
    # The client goes on: the response is still found, the mirror is current.
    assert actor.wait_for("counter.nthPrimeResponse")["action"]["value"] == 29
    assert actor.send("primes", "counter.incrTapped")[0]["patch"][0]["value"] == 11
    assert actor.state("primes") == actor.snapshot("primes")


def test_a_predicate_that_raises_on_a_later_line_fails_its_call_only(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=10)
    with pytest.raises(ZeroDivisionError):
        actor.send("primes", "counter.nthPrimeButtonTapped", until=lambda line: line["source"] == "effect" and 1 / 0)
    assert actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")[-1]["action"]["value"] == 29


def test_action_types_cannot_be_awaited_under_emit_ticks(start):
    actor = start("--emit", "ticks")
    with pytest.raises(ValueError, match="--emit ticks"):
        actor.wait_for("counter.nthPrimeResponse")
    actor.send("primes", "counter.countChanged", value=3)
    line = actor.send("primes", "counter.nthPrimeButtonTapped",
                      until=lambda line: any(op["path"] == "/alertNthPrime" for op in line["patch"]))[-1]
    assert line["type"] == "state" and actor.state("primes")["alertNthPrime"] == {"n": 3, "prime": 5}


def test_lines_kept_are_found_after_the_process_ended(start):
    actor = start()
    actor.send("primes", "counter.incrTapped")
    actor.close()
    # describe cannot be asked any more: the type is not checked, the backlog still searched.
    assert actor.wait_for("counter.incrTapped")["patch"][0]["value"] == 1
    assert actor.wait_for(lambda line: line["type"] == "exit")["reason"] == "quit"
    with pytest.raises(ProcessExitedError):
        actor.wait_for("counter.decrTapped")
