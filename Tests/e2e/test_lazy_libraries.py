"""libcurl, libwebsockets and OpenSSL are loaded by the first request or socket, and libprimesieve
by the first nth prime, not at start-up.

Loading them (and libcurl's ~30 dependencies) took most of the start-up time, which runs that
never use them paid for nothing. A library that cannot be loaded fails the request, the socket or
the nth prime with a message naming it, and the process goes on. (libstdc++, which primesieve
needs, is mapped at start-up all the same: the Swift runtime, linked in statically, needs it too.)
"""

import shutil
import subprocess

import pytest

LAZY_LIBRARIES = ("libcurl.so", "libwebsockets.so", "libssl.so", "libcrypto.so", "libgnutls.so", "libprimesieve.so")


def loaded(actor, library):
    maps = open(f"/proc/{actor.process.pid}/maps").read()
    return library in maps


def first_action(actor, prefix):
    return actor.read_until(lambda line: line["type"] == "action" and line["action"]["type"].startswith(prefix))[-1]


def fetch(actor):
    actor.send({"store": "randomTodo", "action": "clickButton"})
    return first_action(actor, "fetchResult.")


def connect(actor):
    actor.send({"store": "websocket", "action": "connectButtonTapped"})
    return first_action(actor, "webSocket.")


def nth_prime(actor, n):
    actor.send(
        {"store": "primes", "action": {"type": "counter.countChanged", "value": n}},
        {"store": "primes", "action": "counter.nthPrimeButtonTapped"},
    )
    return first_action(actor, "counter.nthPrimeResponse")


def test_start_up_loads_no_lazy_library_and_first_use_loads_it(process, fixture_server, ws_servers):
    actor = process("--todos-url", fixture_server.url, "--websocket-url", ws_servers.url + "/echo")
    actor.snapshot("primes")
    for library in LAZY_LIBRARIES:
        assert not loaded(actor, library), library
    assert fetch(actor)["action"]["type"] == "fetchResult.success"
    assert loaded(actor, "libcurl.so.4") and not loaded(actor, "libwebsockets.so")
    assert connect(actor)["action"]["type"] == "webSocket.didOpen"
    assert loaded(actor, "libwebsockets.so.17") and not loaded(actor, "libprimesieve.so")
    assert nth_prime(actor, 5)["action"]["value"] == 11
    assert loaded(actor, "libprimesieve.so.11")


def fake_library(directory, soname, kind):
    """A file named `soname` that the dynamic loader finds first: not a library at all, or a
    library that defines none of the functions."""
    path = directory / soname
    if kind == "garbage":
        path.write_text("not a shared object\n")
    else:
        compiler = shutil.which("cc") or shutil.which("clang")
        source = directory / "empty.c"
        source.write_text("int unrelated(void) { return 0; }\n")
        subprocess.run([compiler, "-shared", "-fPIC", "-o", path, f"-Wl,-soname,{soname}", source], check=True)
    return {"LD_LIBRARY_PATH": str(directory)}


# dlerror names the file it found, and for the empty library the first function missing.
@pytest.mark.parametrize("kind, words", [("garbage", ""), ("empty", "curl_easy_init")])
def test_an_unloadable_libcurl_fails_each_request_with_its_reason(process, fixture_server, tmp_path, kind, words):
    actor = process("--todos-url", fixture_server.url, env=fake_library(tmp_path, "libcurl.so.4", kind))
    for _ in range(2):
        failure = fetch(actor)
        assert failure["action"]["type"] == "fetchResult.failure"
        value = failure["action"]["value"]
        assert value["kind"] == "connectionFailed"
        message = value["message"]
        assert f"cannot load libcurl.so.4: {tmp_path}/libcurl.so.4" in message and words in message, value
    assert fixture_server.requests() == []
    assert actor.snapshot("primes")["type"] == "snapshot"


@pytest.mark.parametrize("kind, words", [("garbage", ""), ("empty", "lws_create_context")])
def test_an_unloadable_libwebsockets_closes_the_socket_with_its_reason(process, ws_servers, tmp_path, kind, words):
    actor = process("--websocket-url", ws_servers.url + "/echo", env=fake_library(tmp_path, "libwebsockets.so.17", kind))
    closed = connect(actor)
    assert closed["action"]["type"] == "webSocket.didClose" and closed["action"]["code"] == 1006
    reason = closed["action"]["reason"]
    assert f"cannot load libwebsockets.so.17: {tmp_path}/libwebsockets.so.17" in reason and words in reason, reason
    assert actor.snapshot("websocket")["state"]["connectivityState"] == "disconnected"


# The alert says only that the prime could not be computed; the reason goes to stderr.
@pytest.mark.parametrize("kind, words", [("garbage", ""), ("empty", "primesieve_nth_prime")])
def test_an_unloadable_libprimesieve_fails_each_nth_prime_and_logs_its_reason(process, tmp_path, kind, words):
    actor = process(env=fake_library(tmp_path, "libprimesieve.so.11", kind))
    for n, ordinal in [(1, "1st"), (2, "2nd")]:
        response = nth_prime(actor, n)
        assert response["action"]["value"] is None
        alert = {"n": n, "message": f"The {ordinal} prime could not be computed."}
        assert {"op": "replace", "path": "/alertNthPrimeFailure", "value": alert} in response["patch"]
    assert actor.snapshot("primes")["state"]["isNthPrimeButtonDisabled"] is False
    _, code = actor.finish()
    assert code == 0
    stderr = actor.stderr_so_far()
    assert stderr.count(f"cannot load libprimesieve.so.11: {tmp_path}/libprimesieve.so.11") == 2, stderr
    assert words in stderr, stderr
