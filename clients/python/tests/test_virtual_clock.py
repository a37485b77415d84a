"""advance / settle request handling, against a FAKE process.

FAKE: the binary does not have `--clock virtual`, `advance` or `settle` yet, so this file is
also a stand-in process (run as a script) that speaks only what those verbs need, following the
protocol decided for them. Everything else is tested against the real binary in the other files;
real-binary tests of these verbs replace this fake when the commands land.

The fake's one store, `timer`: `start` makes an effect tick every 100 virtual ms (the tick
lines echo the id of `start`), `ping` queues a `pong` effect that only `settle` lets through.
"""

import json
import sys


def fake_process(clock: str) -> None:
    seq = 0
    now = 0
    state = {"ticks": 0, "pongs": 0}
    timer_id = None
    pongs: list = []

    def write(line):
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()

    def act(source, id, action, field=None):
        nonlocal seq
        seq += 1
        patch = []
        if field:
            state[field] += 1
            patch = [{"op": "replace", "path": f"/{field}", "value": state[field]}]
        write({"type": "action", "store": "timer", "seq": seq, "id": id, "source": source,
               "action": {"type": action}, "patch": patch})

    write({"type": "ready", "protocol": 1, "stores": ["timer"], "version": "fake"})
    for number, text in enumerate(sys.stdin, start=1):
        message = json.loads(text)
        id = message.get("id")
        cmd = message.get("cmd")
        if cmd == "quit":
            break
        if cmd == "snapshot":
            write({"type": "snapshot", "store": "timer", "seq": seq, "id": id, "state": state})
        elif cmd in ("advance", "settle") and clock != "virtual":
            write({"type": "error", "code": "clock_not_virtual", "line": number, "id": id,
                   "message": f"{cmd} needs --clock virtual"})
        elif cmd == "advance":
            if timer_id is not None:
                for _ in range(now // 100, (now + message["ms"]) // 100):
                    act("effect", timer_id, "tick", "ticks")
            now += message["ms"]
            write({"type": "advanced", "ms": message["ms"], "now": now, "id": id})
        elif cmd == "settle":
            while pongs:
                act("effect", pongs.pop(0), "pong", "pongs")
            write({"type": "settled", "id": id})
        elif message["action"] == "start":
            timer_id = id
            act("host", id, "start")
        else:
            pongs.append(id)
            act("host", id, "ping")
    write({"type": "exit", "reason": "quit", "cancelledEffects": 0})


if __name__ == "__main__":
    # The fake process needs neither pytest nor the client, which it could not import from here.
    fake_process(sys.argv[1])
    sys.exit()

import asyncio  # noqa: E402

import pytest  # noqa: E402

from composable_actor import AsyncClient, Client, ComposableActorError  # noqa: E402


def fake(clock="virtual"):
    return dict(binary=sys.executable, args=[__file__, clock])


def test_advance_returns_its_lines_and_effects_reach_the_mirror():
    with Client(**fake()) as actor:
        (started,) = actor.send("timer", "start")
        (advanced,) = actor.advance(250)
        assert advanced == {"type": "advanced", "ms": 250, "now": 250, "id": advanced["id"]}
        assert actor.state("timer") == {"ticks": 2, "pongs": 0}
        ticks = actor.wait_for(lambda line: line["type"] == "action" and line["action"]["type"] == "tick")
        assert ticks[-1]["id"] == started["id"]
        assert actor.advance(50)[-1]["now"] == 300
        assert actor.state("timer") == actor.snapshot("timer") == {"ticks": 3, "pongs": 0}


def test_settle_and_send_settle():
    with Client(**fake()) as actor:
        (ping,) = actor.send("timer", "ping")
        assert actor.settle()[-1]["type"] == "settled"
        lines = actor.send("timer", "ping", settle=True)
        assert [line["action"]["type"] for line in lines] == ["ping", "pong"]
        assert {line["id"] for line in lines} == {lines[0]["id"]} != {ping["id"]}
        assert actor.state("timer") == {"ticks": 0, "pongs": 2}
        with pytest.raises(ValueError):
            actor.send("timer", "ping", settle=True, until="pong")


def test_the_live_clock_refuses_both_verbs():
    with Client(**fake("live")) as actor:
        for verb in (lambda: actor.advance(10), actor.settle, lambda: actor.send("timer", "ping", settle=True)):
            with pytest.raises(ComposableActorError) as raised:
                verb()
            assert raised.value.code == "clock_not_virtual" and raised.value.id == raised.value.line


def test_the_asyncio_client_advances_and_settles():
    async def main():
        async with AsyncClient(**fake()) as actor:
            await actor.send("timer", "start")
            events = actor.events()
            assert (await actor.advance(1000))[-1]["now"] == 1000
            lines = await actor.send("timer", "ping", settle=True)
            assert [line["action"]["type"] for line in lines] == ["ping", "pong"]
            assert (await actor.settle())[-1]["type"] == "settled"
            assert actor.state("timer") == await actor.snapshot("timer") == {"ticks": 10, "pongs": 1}
            await actor.close()
            kinds = [line["type"] async for line in events]
            assert kinds == ["action"] * 10 + ["advanced", "action", "action", "settled", "settled", "snapshot", "exit"]

    asyncio.run(main())
