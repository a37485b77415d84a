"""The typed views of `composable_actor.typed` against the binary: they call the client they were
made from (whose untyped use is unchanged), with the store's name filled in. Their types are
checked in Tests/e2e/test_types.py, through the module `composable-actor types` generates."""

import asyncio
import re
import subprocess

import pytest

from composable_actor import AsyncClient, UnknownStoreError, find_binary
from composable_actor.typed import AsyncStore, Store, store


def test_a_store_view_sends_whole_actions_and_reads_the_state_of_its_store(start):
    actor = start("--clock", "virtual")
    primes = store(actor, "primes")
    assert isinstance(primes, Store) and primes.name == "primes"
    lines = primes.send({"type": "counter.countChanged", "value": 7})
    assert [line["type"] for line in lines] == ["action"]
    assert lines[0]["action"] == {"type": "counter.countChanged", "value": 7}
    lines = primes.send({"type": "counter.nthPrimeButtonTapped"}, until="counter.nthPrimeResponse")
    assert lines[-1]["action"] == {"type": "counter.nthPrimeResponse", "value": 17}
    assert primes.state()["alertNthPrime"] == {"n": 7, "prime": 17}
    assert primes.snapshot() == primes.state() == actor.state("primes")
    # The client stays usable untyped beside its view.
    actor.send("primes", "counter.incrTapped")
    assert primes.state()["count"] == 8
    assert primes.wait_for("counter.incrTapped")["action"] == {"type": "counter.incrTapped"}
    first = next(primes.events())  # the backlog starts with the snapshot the client began with
    assert first["type"] == "snapshot" and first["store"] == "primes"


def test_a_store_the_binary_has_not_is_refused_with_the_client_error(start):
    actor = start()
    with pytest.raises(UnknownStoreError, match="primes"):
        store(actor, "prime")


def test_an_asyncio_store_view_awaits_the_same_calls(tmp_path):
    async def main():
        async with AsyncClient(args=["--data-dir", str(tmp_path)]) as actor:
            primes = store(actor, "primes")
            assert isinstance(primes, AsyncStore)
            lines = await primes.send({"type": "counter.incrTapped"})
            assert lines[0]["action"] == {"type": "counter.incrTapped"}
            assert primes.state()["count"] == 1 == (await primes.snapshot())["count"]
            line = await primes.wait_for("counter.incrTapped")
            assert line["type"] == "action"
            with pytest.raises(UnknownStoreError):
                await store(actor, "prime").send({"type": "counter.incrTapped"})

    asyncio.run(main())


def test_the_state_types_say_what_the_states_hold(start):
    """What `describe` says of a state is what `types` makes of it: members always present are
    required, one failure shape is one type, and a received message's kind is told by its type."""
    states = {store["name"]: store["state"] for store in start().describe()["stores"]}
    errors = states["votes"]["properties"]["errors"]
    assert sorted(errors["required"]) == sorted(errors["properties"]) == ["categories", "popular", "votes"]
    message = states["websocket"]["properties"]["receivedMessages"]["items"]["oneOf"]
    assert message[0] == {"type": "string"}
    assert message[1]["properties"]["type"] == {"const": "binary"} and message[1]["required"] == ["type", "binary"]

    typescript = subprocess.run(
        [find_binary(), "types", "--language", "typescript"], capture_output=True, text=True, check=True, timeout=30,
    ).stdout
    votes_errors = re.search(r"export interface VotesStateErrors \{(.*?)\}", typescript, re.S)
    assert votes_errors is not None
    # Required members (no `?`), each the failure type the other stores' failures share.
    members = dict(re.findall(r"^\s+(\w+): (\w+) \| null;$", votes_errors.group(1), re.M))
    assert sorted(members) == ["categories", "popular", "votes"] and len(set(members.values())) == 1
    failure = members["votes"]
    assert f"failure: {failure} | null;" in typescript  # randomTodo's
    assert f"value: {failure};" in typescript  # the failure actions' payloads
    assert len(re.findall(r"^\s+kind: \"invalidURL\"", typescript, re.M)) == 1, "the HTTP failure is declared once"
    assert "receivedMessages: (string | BinaryMessage)[];" in typescript
    assert re.search(r'export interface BinaryMessage \{\s+type: "binary";\s+binary: string;\s+\}', typescript)
