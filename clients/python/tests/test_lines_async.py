"""No lost lines, with the asyncio client: wait_for, until on any line, events from the backlog's
start, and failures that stay with the call that caused them."""

import asyncio

import pytest

from composable_actor import AsyncClient, UnknownActionError, UnknownStoreError


def kind(line):
    return line["action"]["type"] if line["type"] == "action" else line["type"]


def run(test):
    """Runs `test(actor)` on a started AsyncClient in a fresh event loop, closed after."""

    def wrapper(tmp_path):
        async def main():
            async with AsyncClient(args=["--data-dir", str(tmp_path)]) as actor:
                await test(actor)

        asyncio.run(asyncio.wait_for(main(), 60))

    wrapper.__name__ = test.__name__
    return wrapper


@run
async def test_wait_for_finds_earlier_lines_once_and_waits_for_later_ones(actor):
    await actor.send("primes", "counter.countChanged", value=10)
    (tapped,) = await actor.send("primes", "counter.nthPrimeButtonTapped")
    await asyncio.sleep(0.2)  # the answer arrives before anyone waits for it
    response = await actor.wait_for("counter.nthPrimeResponse")
    assert (response["id"], response["action"]["value"]) == (tapped["id"], 29)
    with pytest.raises(TimeoutError, match="action 'counter.nthPrimeResponse'"):
        await actor.wait_for("counter.nthPrimeResponse", timeout=0.2)
    # A wait that starts before the line arrives.
    waiting = asyncio.create_task(actor.wait_for("counter.nthPrimeResponse", store="primes"))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await actor.send("primes", "counter.countChanged", value=20)
    (again,) = await actor.send("primes", "counter.nthPrimeButtonTapped")
    line = await waiting
    assert (line["id"], line["action"]["value"]) == (again["id"], 71)
    assert actor.backlog[-1] is line or line in actor.backlog


@run
async def test_until_matches_a_line_whatever_its_id(actor):
    await actor.send("primes", "counter.countChanged", value=300_000_000)
    (tapped,) = await actor.send("primes", "counter.nthPrimeButtonTapped")
    lines = await actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True)
    assert [kind(line) for line in lines] == ["counter.incrTapped", "counter.nthPrimeResponse"]
    assert lines[-1]["id"] == tapped["id"] != lines[0]["id"]


@run
async def test_events_start_with_the_backlog(actor):
    await actor.send("primes", "counter.incrTapped")
    events = actor.events()
    await actor.send("primes", "counter.decrTapped")
    seen = []
    async for line in events:
        seen.append(line)
        if kind(line) == "counter.decrTapped":
            break
    assert [kind(line) for line in seen] == ["snapshot"] * len(actor.stores) + ["counter.incrTapped", "counter.decrTapped"]


@run
async def test_a_throwing_predicate_fails_its_call_and_the_client_goes_on(actor):
    await actor.send("primes", "counter.countChanged", value=1000)

    def broken(line):
        if line["type"] == "action" and line["source"] == "effect":
            raise RuntimeError("the predicate's own bug")
        return False

    # Live lines, read by the reader task: the error reaches this call, and only this call.
    waiting = asyncio.create_task(actor.wait_for(lambda line: line["type"] == "action" and line["source"] == "effect"))
    with pytest.raises(RuntimeError, match="own bug"):
        await actor.send("primes", "counter.nthPrimeButtonTapped", until=broken)
    assert kind(await asyncio.wait_for(waiting, 10)) == "counter.nthPrimeResponse"
    with pytest.raises(RuntimeError, match="own bug"):
        await actor.send("primes", "counter.nthPrimeButtonTapped", until=broken)
    with pytest.raises(RuntimeError, match="own bug"):
        await actor.wait_for(broken)  # on the backlog's lines, then on new ones

    # The reader is alive: sends, waits and the mirror all go on.
    lines = await actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
    assert lines[-1]["action"]["value"] == 7919
    assert (await actor.send("primes", "counter.incrTapped"))[0]["patch"][0]["value"] == 1001
    assert actor.state("primes") == await actor.snapshot("primes")


@run
async def test_typos_and_unknown_stores_are_errors_at_once(actor):
    with pytest.raises(UnknownActionError, match=r"did you mean 'counter\.nthPrimeResponse'"):
        await actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeRespone")
    with pytest.raises(UnknownActionError, match="in store 'websocket'"):
        await actor.wait_for("counter.incrTapped", store="websocket")
    for call in (actor.send("primez", "counter.incrTapped"), actor.wait_for("counter.incrTapped", store="primez")):
        with pytest.raises(UnknownStoreError, match="did you mean 'primes'"):
            await call
    with pytest.raises(UnknownStoreError, match="The stores are: primes, randomTodo, votes, websocket"):
        actor.state("primez")
    assert actor.state("primes")["nthPrimeRequest"] is None


def test_a_string_for_args_is_a_type_error():
    with pytest.raises(TypeError, match=r"list of arguments, such as \['--clock', 'virtual'\]"):
        AsyncClient(args="--clock virtual")
