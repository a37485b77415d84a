"""The asyncio client against the real binary ($COMPOSABLE_ACTOR_BIN or the release build)."""

import asyncio
import os
import signal
from pathlib import Path

import pytest

from composable_actor import AsyncClient, ComposableActorError, ProcessExitedError


def run(test):
    """Runs `test(start)` in a fresh event loop; `start` opens clients that are closed after."""

    def wrapper(tmp_path):
        async def main():
            clients = []

            async def start(*args, **options):
                client = AsyncClient(args=["--data-dir", str(tmp_path), *args], **options)
                clients.append(client)
                return await client.start()

            try:
                await test(start)
            finally:
                for client in clients:
                    await client.close()

        asyncio.run(main())

    wrapper.__name__ = test.__name__
    return wrapper


@run
async def test_concurrent_sends_keep_the_mirror_exact(start):
    actor = await start()
    actions = ["counter.incrTapped", "primeModal.saveFavoritePrimeTapped", "counter.incrTapped",
               "primeModal.removeFavoritePrimeTapped", "counter.decrTapped", "counter.incrTapped"] * 80
    answers = await asyncio.gather(*(actor.send("primes", action) for action in actions))
    assert [lines[0]["action"]["type"] for lines in answers] == actions
    assert len({lines[0]["id"] for lines in answers}) == len(actions)
    assert actor.state("primes") == await actor.snapshot("primes")
    assert actor.state("primes")["count"] == 160


@run
async def test_concurrent_effects_each_reach_their_own_call(start):
    actor = await start()
    await actor.send("primes", "counter.countChanged", value=1_000_000)
    await actor.send("primes", "primeModal.saveFavoritePrimeTapped")  # not a prime: no favourite
    prime, saved = await asyncio.gather(
        actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse"),
        actor.send("primes", "favoritePrimes.saveButtonTapped", until="favoritePrimes.savedFavoritePrimes"),
    )
    assert [line["action"]["type"] for line in prime] == ["counter.nthPrimeButtonTapped", "counter.nthPrimeResponse"]
    assert [line["action"]["type"] for line in saved] == ["favoritePrimes.saveButtonTapped", "favoritePrimes.savedFavoritePrimes"]
    assert prime[-1]["action"]["value"] == 15_485_863
    assert actor.state("primes") == await actor.snapshot("primes")


@run
async def test_events_yield_every_line_then_end(start):
    actor = await start()
    events = actor.events()
    await actor.send("primes", "counter.incrTapped")
    with pytest.raises(ComposableActorError):
        await actor.send("primes", "counter.nope")
    await actor.close()
    seen = [line async for line in events]
    # From the backlog's start: the snapshots that seeded the mirror came first.
    assert [line["type"] for line in seen] == ["snapshot"] * len(actor.stores) + ["action", "error", "exit"]
    assert seen[-1]["reason"] == "quit"
    assert [line async for line in actor.events()] == seen


@run
async def test_ticks_mode_mirror(start):
    actor = await start("--emit", "ticks")
    await actor.send("primes", "counter.countChanged", value=2)
    # Stopped, the process finds all the lines waiting at once, so its ticks merge many actions.
    os.kill(actor.pid, signal.SIGSTOP)
    sends = asyncio.gather(*(
        actor.send("primes", action)
        for action in ["primeModal.saveFavoritePrimeTapped", "counter.incrTapped", "primeModal.saveFavoritePrimeTapped",
                       "counter.incrTapped", "counter.incrTapped", "primeModal.saveFavoritePrimeTapped"] * 30
    ))
    await asyncio.sleep(0.2)
    os.kill(actor.pid, signal.SIGCONT)
    answers = await sends
    assert all(lines[0]["type"] == "state" for lines in answers)
    assert any(len(lines[0]["ids"]) > 1 for lines in answers)
    assert actor.state("primes") == await actor.snapshot("primes")


@run
async def test_errors_and_timeouts(start):
    actor = await start()
    with pytest.raises(ComposableActorError) as raised:
        await actor.send("primes", "counter.countChanged", value=None)
    assert raised.value.code == "invalid_action" and raised.value.id == raised.value.line
    with pytest.raises(TimeoutError):
        await actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse", any_id=True, timeout=0.2)
    assert (await actor.send("primes", "counter.incrTapped"))[0]["patch"][0]["value"] == 2


@run
async def test_pending_calls_end_when_the_process_exits(start):
    actor = await start()
    await actor.send("primes", "counter.countChanged", value=1_000_000_000)
    asyncio.get_running_loop().call_later(0.2, os.kill, actor.pid, signal.SIGTERM)
    with pytest.raises(ProcessExitedError) as raised:
        await actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
    assert raised.value.reason == "signal"
    with pytest.raises(ProcessExitedError):
        await actor.snapshot("primes")
    assert await actor.close() == 143


def test_the_context_manager_ends_the_process_when_the_block_raises(tmp_path):
    pids = []

    async def main():
        async with AsyncClient(args=["--data-dir", str(tmp_path)]) as actor:
            pids.append(actor.pid)
            await actor.send("primes", "counter.countChanged", value=1_000_000_000)
            await actor.send("primes", "counter.nthPrimeButtonTapped")  # an effect still running
            raise RuntimeError("the host fails")

    with pytest.raises(RuntimeError):
        asyncio.run(main())
    assert not Path(f"/proc/{pids[0]}").exists()  # a zombie would still have its entry


def test_a_cancelled_task_still_ends_the_process(tmp_path):
    pids = []

    async def main():
        async with AsyncClient(args=["--data-dir", str(tmp_path)]) as actor:
            pids.append(actor.pid)
            await actor.send("primes", "counter.incrTapped", until="counter.nthPrimeResponse")

    async def cancel():
        task = asyncio.create_task(main())
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel())
    assert pids and not Path(f"/proc/{pids[0]}").exists()
