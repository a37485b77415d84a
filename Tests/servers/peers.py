"""Runs the test peers of this folder as child processes on 127.0.0.1, for the end-to-end
tests, the client tests and the benchmarks."""

import json
import select
import subprocess
import sys
import urllib.request
from pathlib import Path

SERVERS = Path(__file__).resolve().parent
sys.path.insert(0, str(SERVERS))
from certs import make_certificates  # noqa: E402,F401  (re-exported for the tests)


class Peer:
    """A server script; its ready line (at least `port` and `url`) is in `ready`.

    The scripts exit when their stdin closes, so a test run that dies leaves no server behind.
    """

    def __init__(self, script, *args, timeout=20.0):
        self.process = subprocess.Popen(
            [sys.executable, str(SERVERS / script), *map(str, args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        readable, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if readable else b""
        if not line:
            self.stop()
            raise RuntimeError(f"{script} printed no ready line within {timeout} s")
        self.ready = json.loads(line)
        self.port = self.ready["port"]
        self.url = self.ready["url"]

    def stop(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class FixtureServer(Peer):
    """Tests/servers/fixture_server.py: todos, the votes API, Wolfram-shaped answers, and
    failure switches (a `/_fail/<mode>` path prefix, or rules for exact paths)."""

    def __init__(self, *args):
        super().__init__("fixture_server.py", *args)

    def control(self, method, path, body=None, context=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            text = response.read()
        return json.loads(text) if text else None

    def set_rules(self, rules):
        self.control("POST", "/_control/rules", rules)

    def requests(self):
        return self.control("GET", "/_control/requests")["requests"]

    def reset(self):
        self.set_rules([])
        self.control("DELETE", "/_control/requests")

    def failing(self, mode):
        """A base URL whose every request fails with `mode` (`status=500`, `malformed`, …)."""
        return f"{self.url}/_fail/{mode}"


class WebSocketServers(Peer):
    """Tests/servers/ws_servers.py: echo, order-book and misbehaving WebSocket servers, chosen
    by path (`/echo`, `/orderbook`, `/close`, `/drop`, …)."""

    def __init__(self, *args):
        super().__init__("ws_servers.py", *args)
