"""The test peers of Tests/servers, run as the examples run them: in the background of a shell
script (until a signal), and as test harnesses run them (until their stdin pipe closes)."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

SERVERS = Path(__file__).resolve().parents[3] / "Tests/servers"


def is_gone(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] in "ZX"
    except FileNotFoundError:
        return True


def gone_within(pid, seconds):
    deadline = time.monotonic() + seconds
    while not is_gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def ready_line(path, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if text.endswith("\n"):
            return json.loads(text)
        time.sleep(0.05)
    raise AssertionError(f"no ready line in {path}")


@pytest.mark.parametrize("script", ["fixture_server.py", "ws_servers.py"])
def test_a_server_started_in_the_background_of_a_script_serves_until_sigterm(tmp_path, script):
    ready = tmp_path / "ready.json"
    # The script ends at once; its background job keeps running (stdin: /dev/null).
    started = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" "{SERVERS / script}" --port 0 > "{ready}" 2>"{tmp_path}/log" & echo $!'],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, check=True,
    )
    pid = int(started.stdout)
    try:
        url = ready_line(ready)["url"]
        time.sleep(0.3)
        assert not is_gone(pid), (tmp_path / "log").read_text()
        if script == "fixture_server.py":
            with urllib.request.urlopen(url + "/todos/1", timeout=10) as response:
                assert json.loads(response.read())["id"] == 1
        os.kill(pid, signal.SIGTERM)
        assert gone_within(pid, 5)
        assert "Traceback" not in (tmp_path / "log").read_text()
    finally:
        if not is_gone(pid):
            os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def on_a_pipe(script, *args):
    """The server started as test harnesses start it, its stdin a pipe; killed if still there."""
    server = subprocess.Popen([sys.executable, str(SERVERS / script), "--port", "0", *args],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        yield server
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stdout.close()


@pytest.mark.parametrize("script", ["fixture_server.py", "ws_servers.py"])
def test_a_server_whose_stdin_is_a_pipe_ends_when_it_closes(script):
    with on_a_pipe(script) as server:
        assert json.loads(server.stdout.readline())["port"] > 0
        server.stdin.close()
        assert server.wait(5) == 0


def test_no_stdin_keeps_a_server_on_a_pipe_running(tmp_path):
    with on_a_pipe("fixture_server.py", "--no-stdin") as server:
        url = json.loads(server.stdout.readline())["url"]
        server.stdin.close()
        time.sleep(0.3)
        assert server.poll() is None
        with urllib.request.urlopen(url + "/votes/categories", timeout=10) as response:
            assert response.status == 200
        server.send_signal(signal.SIGINT)
        assert server.wait(5) == 0
