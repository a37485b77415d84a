"""The randomTodo store end to end: libcurl on the loop against the fixture server."""

import ssl
import time

import pytest

from peers import FixtureServer, make_certificates


def todo(action, id=None):
    message = {"store": "randomTodo", "action": action}
    if id is not None:
        message["id"] = id
    return message


def is_result(line):
    return line["type"] == "action" and line["action"]["type"].startswith("fetchResult.")


def fetch_once(actor):
    """Clicks the button and returns the fetchResult line."""
    actor.send(todo("clickButton"))
    return actor.read_until(is_result)[-1]


def closed_port():
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        return listener.getsockname()[1]


def test_a_click_fetches_a_random_todo(process, fixture_server):
    actor = process("--todos-url", fixture_server.url, "--seed", "1")
    actor.send(todo("clickButton", id="click"))
    clicked = actor.read()
    assert clicked["action"] == {"type": "clickButton"}
    assert clicked["patch"] == [{"op": "replace", "path": "/isFetching", "value": True}]
    result = actor.read_until(is_result)[-1]
    assert result["source"] == "effect" and result["id"] == "click"
    fetched = result["action"]["value"]
    (request,) = fixture_server.requests()
    assert request["path"] == f"/todos/{fetched['id']}"
    expected = fixture_server.control("GET", f"/todos/{fetched['id']}")
    assert fetched == expected
    state = actor.snapshot("randomTodo")["state"]
    assert state["todo"] == expected and state["failure"] is None
    assert state["idText"] == f"#{expected['id']}" and state["titleText"] == expected["title"]


def test_the_seed_makes_the_ids_reproducible(process, fixture_server):
    def ids(seed):
        actor = process("--todos-url", fixture_server.url, "--seed", str(seed))
        return [fetch_once(actor)["action"]["value"]["id"] for _ in range(4)]

    first = ids(7)
    assert ids(7) == first
    assert ids(8) != first
    assert all(1 <= id <= 100 for id in first)


@pytest.mark.parametrize(
    "mode, kind, words",
    [
        ("status=500", "status", "500"),
        ("malformed", "decoding", "JSON"),
        ("truncated", "connectionFailed", ""),
        ("reset", "connectionFailed", ""),
        ("nothttp", "connectionFailed", ""),
        ("cutheaders", "connectionFailed", "headers"),
        # A redirect to another scheme is refused by curl, not followed: a followed file://
        # would answer /etc/passwd (a decoding failure), a followed gopher:// another error.
        ("tofile", "connectionFailed", 'Protocol "file" not supported'),
        ("togopher", "connectionFailed", 'Protocol "gopher" not supported'),
    ],
)
def test_failures_become_readable_state(process, fixture_server, mode, kind, words):
    base = fixture_server.failing(mode)
    actor = process("--todos-url", base, "--seed", "3")
    failure = fetch_once(actor)
    assert failure["action"]["type"] == "fetchResult.failure"
    value = failure["action"]["value"]
    assert value["kind"] == kind, value
    assert value["url"].startswith(base + "/todos/")
    assert words in value["message"]
    state = actor.snapshot("randomTodo")["state"]
    assert state["failure"] == value and state["todo"] is None
    assert state["titleText"] == value["message"] and not state["isFetching"]


def test_a_refused_connection_is_a_connection_failure(process):
    base = f"http://127.0.0.1:{closed_port()}"
    actor = process("--todos-url", base)
    value = fetch_once(actor)["action"]["value"]
    assert value["kind"] == "connectionFailed" and value["url"].startswith(base)


def test_a_slow_server_times_out_and_the_transfer_is_dropped(process, fixture_server):
    actor = process("--todos-url", fixture_server.failing("delay=3000"), "--http-timeout", "0.3")
    started = time.monotonic()
    value = fetch_once(actor)["action"]["value"]
    assert value["kind"] == "timedOut"
    assert time.monotonic() - started < 2.5
    wait_for_outcome(fixture_server, "client-gone")


def wait_for_outcome(server, outcome, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        outcomes = [request["outcome"] for request in server.requests()]
        if outcome in outcomes:
            return outcomes
        time.sleep(0.05)
    raise AssertionError(f"the server never saw {outcome}: {server.requests()}")


def test_a_newer_click_cancels_the_fetch_in_flight(process, fixture_server):
    fixture_server.set_rules([{"path": f"/todos/{id}", "mode": "hang"} for id in range(1, 101)])
    actor = process("--todos-url", fixture_server.url)
    actor.send(todo("clickButton"))
    actor.read()
    wait_for_outcome(fixture_server, "pending")  # the request arrived and hangs
    fixture_server.set_rules([])
    result = fetch_once(actor)
    assert result["action"]["type"] == "fetchResult.success"
    # The first transfer was dropped: the server saw its client go.
    assert wait_for_outcome(fixture_server, "client-gone")[0] == "client-gone"


def test_quit_while_fetching_cancels_and_drops_the_transfer(process, fixture_server):
    actor = process("--todos-url", fixture_server.failing("hang"))
    actor.send(todo("clickButton"))
    actor.read()
    wait_for_outcome(fixture_server, "pending")
    actor.send({"cmd": "quit"})
    (exit_line,) = actor.read_until(lambda line: line["type"] == "exit")
    assert exit_line["cancelledEffects"] == 1
    wait_for_outcome(fixture_server, "client-gone")


def test_auto_refresh_runs_every_three_seconds_and_stops(process, fixture_server):
    actor = process("--todos-url", fixture_server.url)
    appeared = actor.request(todo("viewDidAppear"))
    assert appeared["patch"] == [{"op": "replace", "path": "/isAutoRefreshing", "value": True}]
    started = time.monotonic()
    ticked = actor.read(timeout=5)
    assert ticked["action"] == {"type": "timerTicked"} and ticked["source"] == "effect"
    assert 2.8 < time.monotonic() - started < 4.5
    assert actor.read()["action"]["type"] == "fetchResult.success"
    # A second appear does not start a second timer.
    assert actor.request(todo("viewDidAppear"))["patch"] == []
    stopped = actor.request(todo("stopRandomText"))
    assert stopped["patch"] == [{"op": "replace", "path": "/isAutoRefreshing", "value": False}]
    # Stopping again is harmless, and nothing more arrives.
    assert actor.request(todo("stopRandomText"))["patch"] == []
    rest, code = actor.finish()
    assert code == 0 and [line["type"] for line in rest] == ["exit"]
    assert len(fixture_server.requests()) == 1


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory):
    certificates = make_certificates(tmp_path_factory.mktemp("tls"))
    server = FixtureServer("--tls-cert", certificates.cert_file, "--tls-key", certificates.key_file)
    server.ca_file = certificates.ca_file
    yield server
    server.stop()


def test_https_with_the_test_ca_works(process, tls_server):
    assert tls_server.url.startswith("https://")
    actor = process("--todos-url", tls_server.url, "--ca-file", tls_server.ca_file)
    assert fetch_once(actor)["action"]["type"] == "fetchResult.success"


def test_https_without_the_ca_is_refused(process, tls_server):
    actor = process("--todos-url", tls_server.url)
    value = fetch_once(actor)["action"]["value"]
    assert value["kind"] == "tls", value
