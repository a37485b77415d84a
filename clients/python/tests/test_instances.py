"""Instances through both clients against the real binary: `instance=` on send, wait_for, state,
snapshot and events, a mirror per instance, `instances` paging, `stop`, and under --state-dir
`forget` and the stored instances `instances` lists."""

import asyncio

import pytest

from composable_actor import AsyncClient, ComposableActorError, UnknownInstanceError


def test_each_instance_has_its_own_mirror_and_the_default_keeps_its_own(start):
    actor = start()
    for instance in ("alice", "alice", "bob", None):
        actor.send("primes", "counter.incrTapped", instance=instance)
    (line,) = actor.send("primes", "counter.countChanged", value=5, instance="bob")
    assert line["store"] == "primes" and line["instance"] == "bob"
    # The default's own line has no "instance" member, byte for byte as before instances.
    assert "instance" not in actor.send("primes", "primeModal.saveFavoritePrimeTapped")[0]
    # Before the mirror was kept per instance, alice's and bob's patches landed on the default's.
    assert [actor.state("primes", instance=key)["count"] for key in (None, "alice", "bob")] == [1, 2, 5]
    for key in (None, "alice", "bob"):
        assert actor.state("primes", instance=key) == actor.snapshot("primes", instance=key)


def test_an_instance_activated_by_a_snapshot_starts_from_the_initial_state(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=9)
    fresh = actor.snapshot("primes", instance="carol")
    assert fresh["count"] == 0 and actor.state("primes", instance="carol") == fresh
    assert actor.state("primes")["count"] == 9
    actor.send("primes", "counter.decrTapped", instance="carol")  # saturates at 0
    actor.send("primes", "counter.incrTapped", instance="carol")
    assert actor.state("primes", instance="carol") == actor.snapshot("primes", instance="carol")
    # The snapshot that seeded carol's mirror is not the mirror: it still shows the state it was,
    # as does the start-up snapshot kept in the backlog.
    assert fresh["count"] == 0
    start_up = next(line for line in actor.backlog if line["type"] == "snapshot" and line["store"] == "primes")
    assert start_up["state"]["count"] == 0


def test_until_and_wait_for_match_the_lines_of_their_own_instance(start):
    actor = start()
    actor.send("primes", "counter.countChanged", value=6, instance="alice")
    actor.send("primes", "counter.countChanged", value=7, instance="bob")
    lines = actor.send("primes", "counter.nthPrimeButtonTapped", instance="bob", until="counter.nthPrimeResponse")
    assert [(line["instance"], line["action"]["type"]) for line in lines] == [
        ("bob", "counter.nthPrimeButtonTapped"), ("bob", "counter.nthPrimeResponse")]
    assert actor.state("primes", instance="bob")["alertNthPrime"] == {"n": 7, "prime": 17}
    assert actor.state("primes", instance="alice")["alertNthPrime"] is None
    # A predicate with a store sees only that instance's lines: bob's first, not alice's.
    line = actor.wait_for(lambda line: line["type"] == "action", store="primes", instance="bob")
    assert (line["instance"], line["action"]) == ("bob", {"type": "counter.countChanged", "value": 7})
    actor.send("primes", "counter.nthPrimeButtonTapped", instance="alice")
    line = actor.wait_for("counter.nthPrimeResponse", store="primes", instance="alice")
    assert (line["instance"], line["action"]["value"]) == ("alice", 13)
    # The default instance sent no request: none of the named instances' responses is its own.
    with pytest.raises(TimeoutError, match="in store 'primes'"):
        actor.wait_for("counter.nthPrimeResponse", store="primes", timeout=0.3)


def test_events_with_a_store_yield_the_lines_of_that_instance_only(start):
    actor = start()
    for instance in ("alice", None, "bob", "alice"):
        actor.send("primes", "counter.incrTapped", instance=instance)
    alice = actor.events(store="primes", instance="alice")
    default = actor.events(store="primes")
    lines = [next(alice), next(alice)]
    assert [(line["instance"], line["patch"][0]) for line in lines] == [
        ("alice", {"op": "replace", "path": "/count", "value": n}) for n in (1, 2)]
    # The default's: its start-up snapshot, then its own action line, none of alice's or bob's.
    assert [line["type"] for line in (next(default), next(default))] == ["snapshot", "action"]
    actor.send("primes", "counter.decrTapped", instance="bob")
    actor.send("primes", "counter.decrTapped")
    assert next(default)["action"]["type"] == "counter.decrTapped"
    actor.close()
    assert list(default) == [] and list(alice) == []  # the exit line names no store
    with pytest.raises(ValueError, match="needs its store"):
        actor.events(instance="alice")


def test_instances_pages_through_every_key_in_byte_order(start):
    actor = start()
    keys = [f"user-{n:02}" for n in range(25)] + ["Zoë", "émile"]
    for key in reversed(keys):
        actor.snapshot("primes", instance=key)
    assert actor.instances("primes", page=10) == sorted(keys, key=str.encode)
    pages = [line for line in actor.backlog if line["type"] == "instances"]
    assert [(len(page["active"]), page["count"], "next" in page) for page in pages] == [
        (10, 27, True), (10, 27, True), (7, 27, False)]
    assert actor.instances("votes") == []


def test_stop_cancels_the_instances_effects_frees_it_and_drops_its_mirror(start):
    actor = start()
    actor.send("primes", "counter.incrTapped", instance="alice")
    actor.send("primes", "counter.countChanged", value=1_000_000_000, instance="bob")
    actor.send("primes", "counter.nthPrimeButtonTapped", instance="bob")  # runs for a long while
    assert actor.stop("primes", "bob") == 1
    assert actor.stop("primes", "alice") == 0
    assert actor.instances("primes") == []
    with pytest.raises(UnknownInstanceError, match="no instance 'bob' of store 'primes'"):
        actor.state("primes", instance="bob")
    # A later line naming the key starts it afresh, from the initial state.
    actor.send("primes", "counter.incrTapped", instance="alice")
    assert actor.state("primes", instance="alice")["count"] == 1 == actor.snapshot("primes", instance="alice")["count"]


def test_refused_lines_name_their_instance(start):
    actor = start("--max-instances", "1")
    with pytest.raises(ComposableActorError) as raised:
        actor.stop("primes", "nobody")
    error = raised.value
    assert (error.code, error.store, error.instance) == ("unknown_instance", "primes", "nobody")
    assert "instance 'nobody'" in str(error)
    actor.send("primes", "counter.incrTapped", instance="alice")
    with pytest.raises(ComposableActorError) as raised:
        actor.send("primes", "counter.incrTapped", instance="bob")
    assert (raised.value.code, raised.value.instance) == ("instance_limit", "bob")
    with pytest.raises(ComposableActorError, match="invalid_message") as raised:
        actor.send("primes", "counter.incrTapped", instance="")
    # Nothing else changed.
    assert actor.instances("primes") == ["alice"]
    assert actor.state("primes")["count"] == 0 and actor.state("primes", instance="alice")["count"] == 1


def test_instances_lists_the_stored_keys_with_those_in_memory_in_one_byte_order(start, tmp_path):
    state_dir = str(tmp_path / "state")
    actor = start("--state-dir", state_dir)
    # A str's order is its code points', which is the byte order of its UTF-8: U+FF5E comes
    # before U+1F600 (past U+FFFF) in both.
    stored = ["user-1", "user-3", "user-5", "Zoë", "émile", "\uff5e", "\U0001f600"]
    for key in stored:
        actor.send("primes", "counter.incrTapped", instance=key)
    actor.close()
    # A new process on the folder: every key is stored, none is in memory.
    actor = start("--state-dir", state_dir)
    assert actor.instances("primes") == sorted(stored, key=str.encode)
    answer = actor.backlog[-1]
    assert (answer["active"], answer["passivated"], answer["count"]) == ([], sorted(stored, key=str.encode), 0)
    # Two new keys, and stored ones read back: the pages mix both kinds, in one order.
    for key in ("user-2", "user-4", "user-3", "\U0001f600"):
        actor.snapshot("primes", instance=key)
    keys = sorted([*stored, "user-2", "user-4"], key=str.encode)
    assert actor.instances("primes", page=3) == keys
    pages = [line for line in actor.backlog if line["type"] == "instances"][1:]
    assert [(page["active"], page["passivated"]) for page in pages] == [
        (["user-2"], ["Zoë", "user-1"]), (["user-3", "user-4"], ["user-5"]), (["\U0001f600"], ["émile", "\uff5e"])]


def test_forget_deletes_an_instance_stored_by_an_earlier_process_or_in_memory(start, tmp_path):
    state_dir = str(tmp_path / "state")
    actor = start("--state-dir", state_dir)
    for key in ("alice", "bob"):
        actor.send("primes", "counter.incrTapped", instance=key)
    actor.close()
    actor = start("--state-dir", state_dir)
    # Stored, not in memory: forget deletes it all the same, and its key starts afresh.
    assert actor.forget("primes", "bob") == 0
    assert actor.instances("primes") == ["alice"]
    assert actor.snapshot("primes", instance="bob")["count"] == 0
    assert actor.snapshot("primes", instance="alice")["count"] == 1  # still stored
    # In memory, with an effect running: cancelled, and its mirror goes.
    actor.send("primes", "counter.countChanged", value=1_000_000_000, instance="carol")
    actor.send("primes", "counter.nthPrimeButtonTapped", instance="carol")  # runs for a long while
    assert actor.forget("primes", "carol") == 1
    with pytest.raises(UnknownInstanceError, match="no instance 'carol' of store 'primes'"):
        actor.state("primes", instance="carol")
    actor.send("primes", "counter.incrTapped", instance="carol")
    assert actor.state("primes", instance="carol")["count"] == 1 == actor.snapshot("primes", instance="carol")["count"]
    # The next process finds nothing of bob (a snapshot changed nothing to store) or carol.
    actor.forget("primes", "carol")
    actor.close()
    actor = start("--state-dir", state_dir)
    assert actor.instances("primes") == ["alice"]
    with pytest.raises(ComposableActorError) as raised:
        actor.forget("primes", "carol")
    error = raised.value
    assert (error.code, error.store, error.instance) == ("unknown_instance", "primes", "carol")


def test_forget_without_a_state_dir_is_an_invalid_command(start):
    actor = start()
    actor.send("primes", "counter.incrTapped", instance="alice")
    with pytest.raises(ComposableActorError, match="stop") as raised:
        actor.forget("primes", "alice")
    assert (raised.value.code, raised.value.instance) == ("invalid_command", "alice")
    # Nothing changed: alice is still in memory, and her mirror is kept.
    assert actor.instances("primes") == ["alice"] and actor.state("primes", instance="alice")["count"] == 1


def test_arguments_are_checked_before_anything_is_written(start):
    actor = start()
    with pytest.raises(TypeError, match="instance must be a key"):
        actor.send("primes", "counter.incrTapped", instance=7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs its store"):
        actor.wait_for("counter.incrTapped", instance="alice")
    with pytest.raises(TypeError, match="page must be a positive int"):
        actor.instances("primes", page=0)
    # stop and forget end a named instance: the default one (None) is not theirs to end.
    for end in (actor.stop, actor.forget):
        with pytest.raises(TypeError, match=f"{end.__name__}: instance must be a key"):
            end("primes", None)  # type: ignore[arg-type]
    assert actor.instances("primes") == []  # nothing was written, nothing activated


def test_ticks_state_lines_follow_each_instance(start):
    actor = start("--emit", "ticks")
    for instance in ("alice", None, "alice", "bob"):
        actor.send("primes", "counter.incrTapped", instance=instance)
    for key, count in ((None, 1), ("alice", 2), ("bob", 1)):
        assert actor.state("primes", instance=key)["count"] == count
        assert actor.state("primes", instance=key) == actor.snapshot("primes", instance=key)


def test_the_async_client_keeps_many_instances_apart(tmp_path):
    async def main():
        async with AsyncClient(args=["--data-dir", str(tmp_path)]) as actor:
            keys = [f"user-{n}" for n in range(40)]
            # Concurrent sends: user-n gets n increments.
            await asyncio.gather(*(
                actor.send("primes", "counter.incrTapped", instance=key)
                for n, key in enumerate(keys) for _ in range(n)))
            await actor.snapshot("primes", instance="user-0")  # activated by a snapshot instead
            assert [actor.state("primes", instance=key)["count"] for key in keys] == list(range(40))
            assert actor.state("primes")["count"] == 0
            assert await actor.instances("primes", page=7) == sorted(keys)
            line = await actor.wait_for("counter.incrTapped", store="primes", instance="user-3")
            assert line["instance"] == "user-3"
            assert await actor.stop("primes", "user-3") == 0
            with pytest.raises(UnknownInstanceError):
                actor.state("primes", instance="user-3")
            with pytest.raises(ComposableActorError) as raised:
                await actor.stop("primes", "user-3")
            assert (raised.value.code, raised.value.instance) == ("unknown_instance", "user-3")
            assert len(await actor.instances("primes")) == 39
            with pytest.raises(ComposableActorError) as raised:
                await actor.forget("primes", "user-4")  # no --state-dir: nothing to forget
            assert (raised.value.code, raised.value.instance) == ("invalid_command", "user-4")
            # A filtered iterator queues only that instance's lines.
            lines = actor.events(store="primes", instance="user-5")
            await actor.send("primes", "counter.incrTapped", instance="user-6")
            await actor.send("primes", "counter.decrTapped", instance="user-5")
            seen = []
            async for line in lines:
                seen.append((line["instance"], line["action"]["type"]))
                if line["action"]["type"] == "counter.decrTapped":
                    break
            assert seen == [("user-5", "counter.incrTapped")] * 5 + [("user-5", "counter.decrTapped")]

    asyncio.run(main())


def test_the_async_client_forgets_stored_instances(tmp_path):
    state_dir = str(tmp_path / "state")

    async def main():
        async with AsyncClient(args=["--state-dir", state_dir]) as actor:
            await asyncio.gather(*(actor.send("primes", "counter.incrTapped", instance=key) for key in ("b", "a", "c")))
        async with AsyncClient(args=["--state-dir", state_dir]) as actor:
            await actor.snapshot("primes", instance="c")  # read back: in memory again
            assert await actor.instances("primes") == ["a", "b", "c"]
            assert await asyncio.gather(actor.forget("primes", "a"), actor.forget("primes", "c")) == [0, 0]
            with pytest.raises(UnknownInstanceError):
                actor.state("primes", instance="c")
            with pytest.raises(ComposableActorError) as raised:
                await actor.forget("primes", "a")
            assert (raised.value.code, raised.value.instance) == ("unknown_instance", "a")
            assert await actor.instances("primes") == ["b"]

    asyncio.run(main())
