"""Fixtures shared by the client tests: clients on the real binary, and the local test peers."""

import sys
from pathlib import Path

import pytest

from composable_actor import Client, find_binary

# Tests/servers runs the fixture HTTP server and the WebSocket peers on 127.0.0.1.
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests/servers"))
from peers import FixtureServer, WebSocketServers  # noqa: E402


def pytest_sessionstart(session: pytest.Session) -> None:
    """Every test drives the binary: without one, say once where the client looked and what to
    set, rather than fail each test with it."""
    try:
        find_binary()
    except FileNotFoundError as error:
        pytest.exit(f"{error}; for these tests, build it (make build) or set COMPOSABLE_ACTOR_BIN", 4)


@pytest.fixture
def start(tmp_path):
    """Starts a `Client` with a throw-away data directory; every one is closed after the test."""
    clients = []

    def start(*args, **options):
        client = Client(args=["--data-dir", str(tmp_path), *args], **options)
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.close()


@pytest.fixture(scope="session")
def fixture_server():
    """Tests/servers/fixture_server.py: todos, the votes API and failure switches."""
    server = FixtureServer()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def ws_server():
    """Tests/servers/ws_servers.py: the echo server at /echo, and other peers by path."""
    server = WebSocketServers()
    yield server
    server.stop()
