"""Drives the real composable-actor binary over pipes, for end-to-end tests."""

import json
import os
import select
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("COMPOSABLE_ACTOR_BIN", ROOT / ".build/release/composable-actor"))
if not BINARY.is_absolute():
    BINARY = ROOT / BINARY
# Set by scripts/asan.sh: the binary is a debug build under AddressSanitizer, whose shadow
# memory and slower code make bounds on memory and speed meaningless.
SANITIZED = os.environ.get("COMPOSABLE_ACTOR_SANITIZED") == "1"

# Every stdout line any test's process printed, validated against schemas/ after each test.
PRINTED: list[str] = []


def store_names() -> list[str]:
    """The binary's stores, from its own catalogue (`describe`), in the order `ready` lists them."""
    described = subprocess.run([str(BINARY), "describe"], capture_output=True, check=True, timeout=10)
    return [store["name"] for store in json.loads(described.stdout)["stores"]]


def encode(message) -> bytes:
    if isinstance(message, (bytes, bytearray)):
        return bytes(message)
    if isinstance(message, str):
        return message.encode()
    return json.dumps(message, separators=(",", ":")).encode()


class Actor:
    """One running process: send lines, read parsed output lines with a deadline."""

    def __init__(self, *args, stdin=subprocess.PIPE, env=None, data_dir=None):
        command = [str(BINARY), *args]
        if data_dir is not None:
            command += ["--data-dir", str(data_dir)]
        self.process = subprocess.Popen(
            command,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer known to hold no newline
        self.lines: list[dict] = []
        self.ready = self.read()
        assert self.ready["type"] == "ready", self.ready

    def send(self, *messages):
        for message in messages:
            self.process.stdin.write(encode(message) + b"\n")
        self.process.stdin.flush()

    def send_raw(self, data: bytes):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def close_stdin(self):
        self.process.stdin.close()

    def read(self, timeout=10.0) -> dict:
        """The next output line, parsed; fails the test if none comes in time."""
        text = self.read_bytes(timeout).decode()
        PRINTED.append(text)
        parsed = json.loads(text)
        self.lines.append(parsed)
        return parsed

    def read_bytes(self, timeout=10.0) -> bytes:
        """The next output line as bytes, neither parsed nor kept: for lines of megabytes."""
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while (end := self._buffer.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self._buffer)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no output line within {timeout} s; stderr: {self.stderr_so_far()}")
            readable, _, _ = select.select([fd], [], [], remaining)
            if readable:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise AssertionError(f"stdout closed; stderr: {self.stderr_so_far()}")
                self._buffer += chunk
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._scanned = 0
        return line

    def read_until(self, predicate, timeout=10.0) -> list[dict]:
        """Lines up to and including the first one matching `predicate`."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.read(timeout=max(0.01, deadline - time.monotonic()))
            seen.append(line)
            if predicate(line):
                return seen

    def request(self, message, timeout=10.0) -> dict:
        """Sends one line and returns the first line it caused (no effects awaited)."""
        self.send(message)
        return self.read(timeout)

    def snapshot(self, store="primes") -> dict:
        """The store's snapshot; effect lines that arrive before it are read (and kept) too."""
        self.send({"cmd": "snapshot", "store": store})
        return self.read_until(lambda line: line["type"] == "snapshot")[-1]

    def finish(self, timeout=10.0) -> tuple[list[dict], int]:
        """Closes stdin, reads the rest of the output, and waits for the exit code."""
        if self.process.stdin and not self.process.stdin.closed:
            self.close_stdin()
        rest = self.read_until(lambda line: line["type"] == "exit", timeout)
        code = self.process.wait(timeout)
        assert self.process.stdout.read() == b"" and self._buffer == b"", "output after exit line"
        return rest, code

    def stderr_so_far(self) -> str:
        if self.process.poll() is None:
            return "(still running)"
        return self.process.stderr.read().decode(errors="replace")

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream and not stream.closed:
                stream.close()


def run_lines(lines, *args, timeout=20.0, data_dir=None, stdin_bytes=None, env=None):
    """Pipes `lines` into a fresh process and returns (parsed output lines, exit code, stderr)."""
    command = [str(BINARY), *args]
    if data_dir is not None:
        command += ["--data-dir", str(data_dir)]
    data = stdin_bytes if stdin_bytes is not None else b"".join(encode(m) + b"\n" for m in lines)
    result = subprocess.run(
        command, input=data, capture_output=True, timeout=timeout, env={**os.environ, **(env or {})}
    )
    # Lines end at "\n" only: str.splitlines() would also split at U+0085 and U+2028, which
    # JSON strings may hold unescaped.
    texts = result.stdout.decode().split("\n")
    if texts[-1] == "":
        texts.pop()
    PRINTED.extend(texts)
    return [json.loads(text) for text in texts], result.returncode, result.stderr.decode()
