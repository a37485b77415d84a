"""Who sees which line when many callers share one client, what a reader that falls
behind gets, how a crash is reported, and mirrors of instances read back from storage. Each test
failed before its fix, against the real binary."""

import asyncio
import os
import signal

import pytest

from composable_actor import AsyncClient, Client, MissedLinesError, ProcessExitedError


def run(test, *args, **options):
    """Runs `test(actor)` on a started AsyncClient in a fresh event loop, closed after."""

    async def main():
        async with AsyncClient(args=list(args), **options) as actor:
            await test(actor)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_an_events_iterator_subscribes_when_first_iterated_and_holds_no_lines(tmp_path):
    async def test(actor):
        lines = actor.events()  # not iterated yet: it must not queue what comes meanwhile
        for _ in range(300):
            await actor.send("primes", "counter.incrTapped")
        kept = actor.backlog
        first = await anext(lines)
        # It starts at the backlog's start as it is now (before: the start-up snapshots, with
        # every later line queued for it), and reads the backlog, never more than it keeps.
        assert first == kept[0] and first["type"] == "action"
        seen = [first] + [await anext(lines) for _ in range(len(kept) - 1)]
        assert seen == kept

    run(test, "--data-dir", str(tmp_path), backlog=50)


def test_a_reader_that_falls_behind_gets_missed_lines_error_and_goes_on(tmp_path):
    async def test(actor):
        lines = actor.events(store="primes")
        await anext(lines)  # subscribed at the oldest line kept
        for _ in range(100):
            await actor.send("primes", "counter.incrTapped")
        with pytest.raises(MissedLinesError) as raised:
            await anext(lines)
        assert raised.value.missed > 0 and raised.value.store == "primes"
        # It goes on with the oldest line kept; a snapshot resyncs, in its place among the lines.
        assert await anext(lines) == actor.backlog[0]
        state = await actor.snapshot("primes")
        async for line in lines:
            if line["type"] == "snapshot":
                assert line["state"] == state and state["count"] == 100
                break

    run(test, "--data-dir", str(tmp_path), backlog=20)


def test_the_blocking_events_iterator_raises_missed_lines_too(start):
    actor = start(backlog=20)
    lines = actor.events()
    next(lines)
    for _ in range(50):
        actor.send("primes", "counter.incrTapped")
    with pytest.raises(MissedLinesError) as raised:
        next(lines)
    assert raised.value.missed > 0
    assert next(lines) == actor.backlog[0]


def test_concurrent_wait_for_each_see_every_line_from_where_they_started(tmp_path):
    async def test(actor):
        async def a():
            i = (await actor.send("primes", "counter.incrTapped"))[0]["id"]
            await asyncio.sleep(0.05)  # b's wait_for matches a later line meanwhile
            return await actor.wait_for(lambda line: line.get("id") == i, timeout=2)

        async def b():
            i = (await actor.send("primes", "counter.incrTapped"))[0]["id"]
            return await actor.wait_for(lambda line: line.get("id") == i, timeout=2)

        first, second = await asyncio.gather(a(), b())
        assert first["id"] != second["id"]
        # In one task, the cursor still moves past what it matched.
        await actor.send("primes", "counter.decrTapped")
        assert (await actor.wait_for("counter.decrTapped"))["patch"][0]["value"] == 1
        with pytest.raises(TimeoutError):
            await actor.wait_for("counter.decrTapped", timeout=0.2)

    run(test, "--data-dir", str(tmp_path))


def test_until_matches_only_the_lines_its_own_action_caused(tmp_path):
    async def test(actor):
        async def tap(value):
            return await actor.send("primes", "counter.incrTapped", until="counter.incrTapped")

        answers = await asyncio.gather(*(tap(value) for value in range(20)))
        for lines in answers:
            assert len({line["id"] for line in lines}) == 1, lines
        # Matching a line whatever its id is asked for.
        await actor.send("primes", "counter.countChanged", value=300_000_000)
        (tapped,) = await actor.send("primes", "counter.nthPrimeButtonTapped")
        lines = await actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True)
        assert lines[-1]["id"] == tapped["id"]

    run(test, "--data-dir", str(tmp_path))


def test_describe_is_asked_once_per_client_and_kept_out_of_the_lines(tmp_path):
    async def test(actor):
        answers = await asyncio.gather(*(
            actor.send("primes", "counter.incrTapped", until="counter.incrTapped") for _ in range(30)))
        assert not [line for line in actor.backlog if line["type"] == "describe"]
        # Input lines: the start-up snapshots, one describe, the 30 actions.
        assert max(lines[0]["id"] for lines in answers) == len(actor.stores) + 1 + 30

    run(test, "--data-dir", str(tmp_path))


def test_a_killed_process_is_named_in_the_error_and_ends_a_running_iterator(start):
    actor = start()
    lines = actor.events()
    next(lines)
    os.kill(actor.pid, signal.SIGKILL)
    with pytest.raises(ProcessExitedError) as raised:
        actor.wait_for("counter.nthPrimeResponse", timeout=10)
    assert raised.value.signal == "SIGKILL" and "killed by SIGKILL" in str(raised.value)
    with pytest.raises(ProcessExitedError):
        list(lines)


def test_a_killed_process_ends_an_async_iterator_with_the_error(tmp_path):
    async def test(actor):
        lines = actor.events()
        await anext(lines)

        async def read():
            return [line async for line in lines]

        reading = asyncio.create_task(read())
        os.kill(actor.pid, signal.SIGKILL)
        with pytest.raises(ProcessExitedError, match="killed by SIGKILL"):
            await reading

    run(test, "--data-dir", str(tmp_path))


def test_a_bad_argument_says_why_the_process_ended():
    with pytest.raises(ProcessExitedError) as raised:
        Client(args=["run", "--no-such-flag"])
    assert raised.value.returncode == 64
    assert "--no-such-flag" in str(raised.value) and raised.value.stderr

    async def main():
        with pytest.raises(ProcessExitedError) as raised:
            await AsyncClient(args=["run", "--no-such-flag"]).start()
        assert raised.value.returncode == 64 and "--no-such-flag" in str(raised.value)

    asyncio.run(main())


def test_mirrors_of_instances_read_back_from_storage(tmp_path):
    state = ["--state-dir", str(tmp_path / "state"), "--data-dir", str(tmp_path)]
    with Client(args=state) as actor:
        actor.send("primes", "counter.countChanged", value=7)
        actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
        for _ in range(3):
            actor.send("primes", "counter.incrTapped", instance="alice")
    with Client(args=state) as actor:
        # Alice is read back from storage (count 3); before, her first patch did not apply.
        actor.send("primes", "counter.incrTapped", instance="alice")
        assert actor.state("primes", instance="alice")["count"] == 4
        # Bob is new: his mirror is not the default instance's stored state (with its alert).
        actor.send("primes", "counter.incrTapped", instance="bob")
        assert actor.state("primes", instance="bob") == actor.snapshot("primes", instance="bob")
        assert actor.state("primes", instance="bob")["alertNthPrime"] is None

    async def test(actor):
        await actor.send("primes", "counter.incrTapped", instance="alice")
        assert actor.state("primes", instance="alice")["count"] == 5

    run(test, *state)


def test_waits_found_by_id_and_type_give_each_caller_its_own_lines(tmp_path):
    """Waits are found by their call's id and by the action type they wait for, not by offering
    every line to every wait: each caller still gets exactly the lines it got before."""

    async def test(actor):
        # Own `until` of many types at once: each send's lines are its own, its action's line
        # first, and the type it waited for is among them.
        kinds = ["counter.incrTapped", "counter.decrTapped"]

        async def tap(n):
            kind = kinds[n % 2]
            return kind, await actor.send("primes", kind, until=kind)

        for kind, lines in await asyncio.gather(*(tap(n) for n in range(100))):
            assert [line["action"]["type"] for line in lines] == [kind] and len({line["id"] for line in lines}) == 1
        # `any_id` waits of two types, and a predicate wait, pending together: each ends on the
        # first line after it of its own type (the predicate on the first line it accepts).
        decrements = [asyncio.ensure_future(actor.send(
            "primes", "counter.incrTapped", until="counter.decrTapped", any_id=True)) for _ in range(10)]
        await asyncio.sleep(0.2)
        assert not any(future.done() for future in decrements)  # only increments came
        # (from this task's cursor, the backlog's start: the count tells the new line apart)
        by_predicate = asyncio.ensure_future(actor.wait_for(
            lambda line: line["type"] == "action" and line["action"]["type"] == "counter.decrTapped"
            and line["patch"][0]["value"] == 9))
        (decremented,) = await actor.send("primes", "counter.decrTapped")
        for lines in await asyncio.gather(*decrements):
            assert lines[0]["action"]["type"] == "counter.incrTapped" and lines[-1] is decremented
        assert await by_predicate == decremented
        # wait_for by type from tasks with their own cursors: each finds the same next line.
        waiting = [asyncio.ensure_future(actor.wait_for("counter.countChanged", store="primes")) for _ in range(5)]
        await asyncio.sleep(0.05)
        (changed,) = await actor.send("primes", "counter.countChanged", value=5)
        assert all(line == changed for line in await asyncio.gather(*waiting))
        # Waits that time out leave nothing behind to be offered later lines.
        with pytest.raises(TimeoutError):
            await actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True, timeout=0.1)
        with pytest.raises(TimeoutError):
            await actor.wait_for(lambda line: False, timeout=0.1)
        session = actor._started
        assert not session._typed and not session._predicates and not session._calls

    run(test, "--data-dir", str(tmp_path))


def test_the_blocking_client_matches_by_id_and_type_the_same(start):
    actor = start()
    lines = actor.send("primes", "counter.incrTapped", until="counter.incrTapped")
    assert [line["action"]["type"] for line in lines] == ["counter.incrTapped"]
    actor.send("primes", "counter.decrTapped")
    # any_id looks only at lines after the send: none of that type comes, so it times out; a
    # wait_for by type still finds the earlier one in the backlog.
    with pytest.raises(TimeoutError):
        actor.send("primes", "counter.incrTapped", until="counter.decrTapped", any_id=True, timeout=0.2)
    assert actor.wait_for("counter.decrTapped")["patch"][0]["value"] == 0
    assert not actor._session._typed and not actor._session._predicates
