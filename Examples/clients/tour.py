#!/usr/bin/env python3
"""The four stores through the Python client: primes, randomTodo, votes and websocket.

    python3 Examples/clients/tour.py [--binary PATH] [--http-url URL] [--ws-url URL]

--http-url is a fixture server (Tests/servers/fixture_server.py: the todos and votes APIs) and
--ws-url a WebSocket echo server (Tests/servers/ws_servers.py, which needs PyPI's `websockets`);
the example starts on 127.0.0.1 each one it is not given. The binary is --binary, else
$COMPOSABLE_ACTOR_BIN, else composable-actor on PATH, else .build/release/composable-actor.

The process runs with `--clock virtual`: time moves only when the example advances it, so the
3 s refresh and the 0.2 s loading throttle happen exactly when it says.
"""

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "clients/python"), str(ROOT / "Tests/servers")]
from composable_actor import Client, Line  # noqa: E402
from peers import FixtureServer, Peer, WebSocketServers  # noqa: E402


def primes(actor: Client) -> None:
    for n in (7, 13, 100):
        actor.send("primes", "counter.countChanged", value=n)
        # The prime is computed on the thread pool; settle=True waits until that is done.
        actor.send("primes", "counter.nthPrimeButtonTapped", settle=True)
        print(f"primes: prime number {n} is {actor.state('primes')['alertNthPrime']['prime']}")
        if actor.state("primes")["isPrime"]:
            actor.send("primes", "primeModal.saveFavoritePrimeTapped")
    actor.send("primes", "favoritePrimes.saveButtonTapped", settle=True)
    actor.send("primes", "favoritePrimes.deleteFavoritePrimes", indices=[0])
    print("primes: favourites after deleting the first:", actor.state("primes")["favoritePrimes"])
    actor.send("primes", "favoritePrimes.loadButtonTapped", settle=True)
    print("primes: favourites loaded back:", actor.state("primes")["favoritePrimes"])


def random_todo(actor: Client) -> None:
    actor.send("randomTodo", "viewDidAppear")  # a fetch every 3 s, the first 3 s from now
    for _ in range(2):
        now = actor.advance(3000)[-1]["now"]  # the timer fires and its fetch starts
        # The fetch is network I/O, which advance does not wait for. Its lines echo the id of
        # viewDidAppear, so they wait in the client's backlog for wait_for.
        actor.wait_for("fetchResult.success")
        todo = actor.state("randomTodo")
        print(f"randomTodo: at {now} ms, {todo['idText']} {todo['titleText']!r}")
    actor.send("randomTodo", "clickButton", until="fetchResult.success")  # stops the timer too
    todo = actor.state("randomTodo")
    print(f"randomTodo: on click, {todo['idText']} {todo['titleText']!r}, auto refresh {todo['isAutoRefreshing']}")


def loaded(line: Line) -> bool:
    """The votes store's last running load finished."""
    return {"op": "replace", "path": "/runningTasks", "value": 0} in line.get("patch", [])


def votes(actor: Client) -> None:
    actor.send("votes", "onAppear", until=loaded)  # three loads in parallel
    state = actor.state("votes")
    print(f"votes: {len(state['categories'])} categories, top vote {state['popularItems'][0]['title']!r},"
          f" {len(state['voteItems'])} votes, loading {state['isLoading']}")
    actor.advance(200)  # isLoading changes at most once per 0.2 s: let the last change through
    print("votes: after 0.2 s, loading", actor.state("votes")["isLoading"])
    actor.send("votes", "loadNextPage", until=loaded)
    state = actor.state("votes")
    print(f"votes: page {state['page']}, {len(state['voteItems'])} votes, more to load {state['hasNext']}")
    actor.send("votes", "categorySelected", value="tech", until=loaded)
    actor.advance(200)
    titles = [vote["title"] for vote in actor.state("votes")["voteItems"]]
    print(f"votes: {len(titles)} in tech, first {titles[:3]}")


def received(text: str) -> Callable[[Line], bool]:
    """Matches the line of a text message the socket received."""
    return lambda line: line["type"] == "action" and line["action"] == {
        "type": "receivedSocketMessage.success", "value": {"type": "text", "text": text}}


def websocket(actor: Client) -> None:
    actor.send("websocket", "connectButtonTapped", until="webSocket.didOpen")
    # The server's welcome came on its own; wait_for finds it, however early it arrived.
    actor.wait_for(received("Welcome to the echo server"))
    for text in ("Hello", "from Python"):
        actor.send("websocket", "messageToSendChanged", value=text)
        # The echo is network I/O again. Its line carries the id of connectButtonTapped (whose
        # effect receives the messages), not this send's: `until` matches it all the same.
        actor.send("websocket", "sendButtonTapped", until=received(text), any_id=True)
    print("websocket: received", actor.state("websocket")["receivedMessages"])
    actor.send("websocket", "connectButtonTapped")  # connected, the button disconnects
    print("websocket:", actor.state("websocket")["connectivityState"])


def started(stack: contextlib.ExitStack, server: Callable[[], Peer]) -> str:
    """Starts a server of Tests/servers on 127.0.0.1 until `stack` closes; its URL."""
    peer = server()
    stack.callback(peer.stop)
    return peer.url


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--binary", help="the composable-actor binary")
    parser.add_argument("--http-url", help="base URL of a running fixture_server.py")
    parser.add_argument("--ws-url", help="base URL of a running ws_servers.py")
    options = parser.parse_args()
    with contextlib.ExitStack() as stack:
        http_url = options.http_url or started(stack, FixtureServer)
        ws_url = options.ws_url or started(stack, WebSocketServers)
        # A throw-away data directory, so the example never touches your saved favourites.
        data = stack.enter_context(tempfile.TemporaryDirectory())
        actor = stack.enter_context(Client(options.binary, [
            "--clock", "virtual", "--data-dir", data, "--seed", "1",
            "--todos-url", http_url, "--votes-url", http_url, "--websocket-url", ws_url + "/echo",
        ]))
        for drive in (primes, random_todo, votes, websocket):
            drive(actor)
        for store in actor.stores:
            assert actor.state(store) == actor.snapshot(store), f"the local mirror of {store} drifted"


if __name__ == "__main__":
    main()
