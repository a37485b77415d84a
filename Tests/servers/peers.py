"""Runs the test peers of this folder as child processes on 127.0.0.1, for the end-to-end
tests, the client tests, the examples and the benchmarks."""

from __future__ import annotations

import json
import select
import ssl
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

SERVERS = Path(__file__).resolve().parent
sys.path.insert(0, str(SERVERS))
from certs import make_certificates  # noqa: E402,F401  (re-exported for the tests)


class Peer:
    """A server script; its ready line (at least `port` and `url`) is in `ready`.

    Their stdin is a pipe, and the scripts exit when it closes, so a test run that dies leaves
    no server behind. (Started from a shell in the background, they run until signalled.)
    """

    def __init__(self, script: str, *args: object, timeout: float = 20.0):
        self.process: subprocess.Popen[bytes] = subprocess.Popen(
            [sys.executable, str(SERVERS / script), *map(str, args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        stdout = self.process.stdout
        assert stdout is not None
        readable, _, _ = select.select([stdout], [], [], timeout)
        line = stdout.readline() if readable else b""
        if not line:
            self.stop()
            raise RuntimeError(f"{script} printed no ready line within {timeout} s")
        self.ready: dict[str, Any] = json.loads(line)
        self.port: int = self.ready["port"]
        self.url: str = self.ready["url"]

    def stop(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class FixtureServer(Peer):
    """Tests/servers/fixture_server.py: todos, the votes API, Wolfram-shaped answers, and
    failure switches (a `/_fail/<mode>` path prefix, or rules for exact paths)."""

    def __init__(self, *args: object):
        super().__init__("fixture_server.py", *args)

    def control(self, method: str, path: str, body: Any = None, context: ssl.SSLContext | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            text = response.read()
        return json.loads(text) if text else None

    def set_rules(self, rules: list[dict[str, Any]]) -> None:
        self.control("POST", "/_control/rules", rules)

    def requests(self) -> list[dict[str, Any]]:
        requests: list[dict[str, Any]] = self.control("GET", "/_control/requests")["requests"]
        return requests

    def reset(self) -> None:
        self.set_rules([])
        self.control("DELETE", "/_control/requests")

    def failing(self, mode: str) -> str:
        """A base URL whose every request fails with `mode` (`status=500`, `malformed`, …)."""
        return f"{self.url}/_fail/{mode}"


class WebSocketServers(Peer):
    """Tests/servers/ws_servers.py: echo, order-book and misbehaving WebSocket servers, chosen
    by path (`/echo`, `/orderbook`, `/close`, `/drop`, …)."""

    def __init__(self, *args: object):
        super().__init__("ws_servers.py", *args)
