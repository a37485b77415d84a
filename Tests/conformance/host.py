"""The client side of the conformance run: the composable-actor binary's websocket store, driven
by a host that echoes every message the store receives (`sendMessage` with the value
`receivedSocketMessage.success` showed, so binary goes back as binary)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from dataclasses import dataclass

# Room for a 16 MiB binary message as base64 in one input line.
MAX_LINE_BYTES = 64 << 20


@dataclass
class HostRun:
    exit_code: int | None
    # The store's didClose action, {"code", "reason"}, or None if it never closed.
    closed: dict | None
    echoed: int
    stderr: str


def run_echo_host(binary: str, url: str, data_dir: str, timeout: float) -> HostRun:
    """Connects the store to `url`, echoes until the socket closes, then ends the input."""
    process = subprocess.Popen(
        [binary, "run", "--websocket-url", url, "--ping-interval", "86400", "--linger", "2",
         "--max-line-bytes", str(MAX_LINE_BYTES), "--data-dir", data_dir],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    # A writer of its own: a long echo must never wait on the binary draining its output.
    lines: queue.Queue[bytes | None] = queue.Queue()
    writer = threading.Thread(target=write_lines, args=(process, lines), daemon=True)
    writer.start()
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    stderr: list[bytes] = []
    draining = threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True)
    draining.start()
    closed, echoed = None, 0
    try:
        lines.put(store_line("connectButtonTapped"))
        for raw in process.stdout:
            if closed is None and b'"receivedSocketMessage.success"' in raw[:120]:
                value = json.loads(raw)["action"]["value"]
                lines.put(store_line({"type": "sendMessage", "value": value}))
                echoed += 1
            elif closed is None and b'"webSocket.didClose"' in raw[:120]:
                action = json.loads(raw)["action"]
                closed = {"code": action["code"], "reason": action["reason"]}
                lines.put(None)
        process.wait()
    finally:
        timer.cancel()
        lines.put(None)
        if process.poll() is None:
            process.kill()
            process.wait()
        draining.join(5)
    return HostRun(process.returncode, closed, echoed, b"".join(stderr).decode(errors="replace"))


def store_line(action) -> bytes:
    return json.dumps({"store": "websocket", "action": action}, separators=(",", ":")).encode() + b"\n"


def write_lines(process: subprocess.Popen, lines: queue.Queue) -> None:
    try:
        while (line := lines.get()) is not None:
            process.stdin.write(line)
            process.stdin.flush()
        process.stdin.close()
    except (BrokenPipeError, ValueError):
        pass
