"""advance and settle (`--clock virtual`) through both clients, against the real binary."""

import asyncio

import pytest

from composable_actor import AsyncClient, ComposableActorError

VIRTUAL = ("--clock", "virtual")


def is_action(type_):
    return lambda line: line["type"] == "action" and line["action"]["type"] == type_


def kind(line):
    return line["action"]["type"] if line["type"] == "action" else line["type"]


def test_advance_returns_its_line_and_the_mirror_already_has_the_timers_effects(start, fixture_server):
    actor = start(*VIRTUAL, "--todos-url", fixture_server.url, "--seed", "1")
    (appeared,) = actor.send("randomTodo", "viewDidAppear")
    assert actor.advance(2999) == [{"type": "advanced", "ms": 2999, "now": 2999, "id": appeared["id"] + 1}]
    assert actor.state("randomTodo")["isFetching"] is False

    # The tick at 3 s echoes the id of the action that started the timer, not the advance's, so
    # advance returns only its own line; the tick was written (and mirrored) before it.
    lines = actor.advance(1)
    assert lines == [{"type": "advanced", "ms": 1, "now": 3000, "id": appeared["id"] + 2}]
    tick = actor.wait_for(is_action("timerTicked"), timeout=0)  # already read: no waiting
    assert (tick["id"], tick["source"], tick["seq"]) == (appeared["id"], "effect", appeared["seq"] + 1)
    assert tick["patch"] == [{"op": "replace", "path": "/isFetching", "value": True}]

    # The fetch the tick started is network I/O, which advance does not wait for: its result
    # comes later (in practice always after the advanced line, but nothing promises that).
    fetched = actor.wait_for(is_action("fetchResult.success"))
    todo = fetched["action"]["value"]
    state = actor.state("randomTodo")
    assert state["todo"] == todo and state["idText"] == f"#{todo['id']}" and state["titleText"] == todo["title"]
    assert state["isFetching"] is False and state == actor.snapshot("randomTodo")

    # Stopped, the timer never fires again however far time moves.
    actor.send("randomTodo", "stopRandomText")
    assert actor.advance(30_000)[-1]["now"] == 33_000
    with pytest.raises(TimeoutError):
        actor.wait_for(is_action("timerTicked"), timeout=0)
    assert actor.state("randomTodo") == actor.snapshot("randomTodo")


def test_send_with_settle_waits_for_the_thread_pool(start, tmp_path):
    actor = start(*VIRTUAL)
    actor.send("primes", "counter.countChanged", value=1000)
    lines = actor.send("primes", "counter.nthPrimeButtonTapped", settle=True)
    assert [(line["source"], kind(line)) for line in lines] == [
        ("host", "counter.nthPrimeButtonTapped"), ("effect", "counter.nthPrimeResponse"),
    ]
    assert lines[-1]["action"]["value"] == 7919 and lines[0]["id"] == lines[1]["id"]
    assert actor.state("primes")["alertNthPrime"] == {"n": 1000, "prime": 7919}
    assert actor.state("primes")["isNthPrimeButtonDisabled"] is False
    assert actor.state("primes") == actor.snapshot("primes")

    # Reducers read the virtual time; file I/O runs on the thread pool too.
    actor.advance(1500)
    actor.send("primes", "counter.countChanged", value=7919)
    actor.send("primes", "primeModal.saveFavoritePrimeTapped")
    assert actor.state("primes")["activityFeed"] == [{"timestamp": 1500, "type": "addedFavoritePrime", "prime": 7919}]
    saved = actor.send("primes", "favoritePrimes.saveButtonTapped", settle=True)
    assert [kind(line) for line in saved] == ["favoritePrimes.saveButtonTapped", "favoritePrimes.savedFavoritePrimes"]
    assert (tmp_path / "favorite-primes.json").read_text().strip() == "[7919]"
    assert actor.settle() == [{"type": "settled", "id": saved[0]["id"] + 2}]
    assert actor.state("primes") == actor.snapshot("primes")


def test_the_live_clock_refuses_both_verbs_with_a_typed_error(start):
    actor = start()
    verbs = {
        "advance": lambda: actor.advance(10),
        "settle": actor.settle,
        # The action itself is reduced; the settle written after it is refused.
        "send settle": lambda: actor.send("primes", "counter.incrTapped", settle=True),
    }
    line = len(actor.stores)  # ids are input line numbers, after one snapshot per store
    for name, verb in verbs.items():
        line += 2 if name == "send settle" else 1
        with pytest.raises(ComposableActorError) as raised:
            verb()
        error = raised.value
        assert (error.code, error.line, error.id) == ("clock_not_virtual", line, line), name
        assert error.message
    assert actor.state("primes")["count"] == 1 and actor.state("primes") == actor.snapshot("primes")


def test_an_advance_past_its_wake_up_limit_raises_and_time_goes_on_from_where_it_stopped(start):
    actor = start(*VIRTUAL, "--todos-url", "http://127.0.0.1:9", "--max-advance-wakeups", "3")
    actor.send("randomTodo", "viewDidAppear")
    with pytest.raises(ComposableActorError) as raised:
        actor.advance(3_600_000)
    assert raised.value.code == "advance_limit"
    assert "after 3 wake-ups, at 9000 ms" in raised.value.message
    assert actor.advance(1)[-1]["now"] == 9001


async def take_until(events, predicate, timeout=10.0):
    """Lines from an `events()` iterator up to and including the first that matches."""

    async def take():
        taken = []
        while not taken or not predicate(taken[-1]):
            taken.append(await anext(events))
        return taken

    return await asyncio.wait_for(take(), timeout)


def test_the_asyncio_client_advances_and_settles(tmp_path, fixture_server):
    async def main():
        args = ["--data-dir", str(tmp_path), *VIRTUAL, "--todos-url", fixture_server.url]
        async with AsyncClient(args=args) as actor:
            events = actor.events()
            # The iterator starts with the backlog: the snapshots that seeded the mirror.
            assert [(await anext(events))["type"] for _ in actor.stores] == ["snapshot"] * len(actor.stores)
            (appeared,) = await actor.send("randomTodo", "viewDidAppear")
            (advanced,) = await actor.advance(3000)
            assert advanced == {"type": "advanced", "ms": 3000, "now": 3000, "id": appeared["id"] + 1}
            seen = await take_until(events, lambda line: line["type"] == "advanced")
            is_result = lambda line: kind(line).startswith("fetchResult.")  # noqa: E731
            # The tick's fetch is network I/O: its result may come before the advanced line or after.
            assert [kind(line) for line in seen if not is_result(line)] == ["viewDidAppear", "timerTicked", "advanced"]
            assert seen[1]["id"] == appeared["id"]

            # Sends and settles may overlap: each call gets its own lines.
            await actor.send("primes", "counter.countChanged", value=1000)
            prime, settled = await asyncio.gather(
                actor.send("primes", "counter.nthPrimeButtonTapped", settle=True), actor.settle()
            )
            assert [kind(line) for line in prime] == ["counter.nthPrimeButtonTapped", "counter.nthPrimeResponse"]
            assert prime[-1]["action"]["value"] == 7919 and [kind(line) for line in settled] == ["settled"]
            assert actor.state("primes") == await actor.snapshot("primes")

            fetched = [line for line in seen if is_result(line)] or await take_until(events, is_result)
            assert kind(fetched[-1]) == "fetchResult.success"
            assert actor.state("randomTodo")["todo"] == fetched[-1]["action"]["value"]
            assert actor.state("randomTodo") == await actor.snapshot("randomTodo")

        async with AsyncClient(args=["--data-dir", str(tmp_path)]) as live:
            for verb in (lambda: live.advance(1), live.settle, lambda: live.send("primes", "counter.incrTapped", settle=True)):
                with pytest.raises(ComposableActorError) as raised:
                    await verb()
                assert raised.value.code == "clock_not_virtual" and raised.value.id == raised.value.line

    asyncio.run(main())
