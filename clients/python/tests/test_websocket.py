"""The websocket store through the client, against the local echo server (Tests/servers/ws_servers.py)."""

import asyncio
import json

from composable_actor import AsyncClient

WELCOME = "Welcome to the echo server"


def received(text):
    """Matches the line of a text message the socket received."""
    return lambda line: (
        line["type"] == "action"
        and line["action"] == {"type": "receivedSocketMessage.success", "value": {"type": "text", "text": text}}
    )


def kinds(lines):
    return [line["action"]["type"] for line in lines]


def test_connect_send_receive_the_echo_and_disconnect(start, ws_server):
    # The virtual clock keeps the store's 10 s ping out of the way (and settle is available).
    actor = start("--clock", "virtual", "--websocket-url", ws_server.url + "/echo")
    opened = actor.send("websocket", "connectButtonTapped", until="webSocket.didOpen")
    assert kinds(opened) == ["connectButtonTapped", "webSocket.didOpen"]
    assert actor.state("websocket")["connectivityState"] == "connected"

    actor.send("websocket", "messageToSendChanged", value="Hello")
    assert actor.state("websocket")["messageToSend"] == "Hello"
    sent = actor.send("websocket", "sendButtonTapped", until="sendResponse")
    assert sent[0]["patch"] == [{"op": "replace", "path": "/messageToSend", "value": ""}]
    assert sent[-1]["action"] == {"type": "sendResponse", "didSucceed": True}

    # Received messages echo the connect's id: its effect is the one that receives. The welcome
    # arrived long before this wait began; wait_for still finds it, then the echo.
    welcome = actor.wait_for(received(WELCOME))
    echo = actor.wait_for(received("Hello"))
    assert echo["id"] == welcome["id"] == opened[0]["id"] and echo["source"] == "effect"
    assert actor.state("websocket")["receivedMessages"] == [WELCOME, "Hello"]

    # until sees the echo although it carries the connect's id: it comes last, after the lines
    # of the send's own id (its own line first; sendResponse, when it came before the echo).
    actor.send("websocket", "messageToSendChanged", value="again")
    lines = actor.send("websocket", "sendButtonTapped", until=received("again"), any_id=True)
    assert kinds(lines)[0] == "sendButtonTapped" and lines[-1]["id"] == opened[0]["id"]
    assert lines[-1]["action"]["value"] == {"type": "text", "text": "again"}
    assert all(line["id"] == lines[0]["id"] for line in lines[:-1])
    assert actor.state("websocket")["receivedMessages"] == [WELCOME, "Hello", "again"]
    # The string form: any echo, checked against describe.
    actor.send("websocket", "messageToSendChanged", value="third")
    lines = actor.send("websocket", "sendButtonTapped", until="receivedSocketMessage.success", any_id=True)
    assert lines[-1]["action"]["value"] == {"type": "text", "text": "third"}
    assert actor.state("websocket") == actor.snapshot("websocket")

    (disconnected,) = actor.send("websocket", "connectButtonTapped")
    assert disconnected["patch"] == [{"op": "replace", "path": "/connectivityState", "value": "disconnected"}]
    actor.settle()
    assert actor.state("websocket") == actor.snapshot("websocket")
    # Disconnecting cancelled the socket's effects: none is left for quit to cancel.
    assert actor.close() == 0
    assert actor.wait_for(lambda line: line["type"] == "exit")["cancelledEffects"] == 0


def test_advancing_the_virtual_clock_sends_the_pings(start, ws_server):
    # /pings answers every ping with a text message that counts them.
    actor = start("--clock", "virtual", "--websocket-url", ws_server.url + "/pings")
    actor.send("websocket", "connectButtonTapped", until="webSocket.didOpen")
    actor.advance(10_000)  # the --ping-interval
    reply = actor.wait_for(lambda line: line["type"] == "action" and line["action"]["type"] == "receivedSocketMessage.success")
    assert json.loads(reply["action"]["value"]["text"])["pingReceived"] == 1
    assert [json.loads(text)["pingReceived"] for text in actor.state("websocket")["receivedMessages"]] == [1]


def test_the_asyncio_client_chats_too(tmp_path, ws_server):
    async def main():
        args = ["--data-dir", str(tmp_path), "--websocket-url", ws_server.url + "/echo"]
        async with AsyncClient(args=args) as actor:
            opened = await actor.send("websocket", "connectButtonTapped", until="webSocket.didOpen")
            await actor.send("websocket", "messageToSendChanged", value="Hej")
            await actor.send("websocket", "sendButtonTapped", until="sendResponse")
            # events() starts at the backlog's start: the welcome is not lost.
            seen = []
            async for line in actor.events():
                seen.append(line)
                if received("Hej")(line):
                    break
            assert [line["action"]["value"]["text"] for line in seen if line["type"] == "action"
                    and line["action"]["type"] == "receivedSocketMessage.success"] == [WELCOME, "Hej"]
            assert (await actor.wait_for(received(WELCOME)))["id"] == opened[0]["id"]
            await actor.send("websocket", "messageToSendChanged", value="Hallo")
            lines = await actor.send("websocket", "sendButtonTapped", until=received("Hallo"), any_id=True)
            assert lines[0]["action"]["type"] == "sendButtonTapped" and lines[-1]["id"] == opened[0]["id"]
            assert actor.state("websocket")["receivedMessages"] == [WELCOME, "Hej", "Hallo"]
            assert actor.state("websocket") == await actor.snapshot("websocket")
            await actor.send("websocket", "connectButtonTapped")
            assert actor.state("websocket")["connectivityState"] == "disconnected"

    asyncio.run(asyncio.wait_for(main(), 20))
