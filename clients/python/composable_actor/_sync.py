"""The blocking client: every call reads stdout itself until its answer arrives."""

from __future__ import annotations

import collections
import copy
import os
import select
import subprocess
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from ._session import Call, Line, ProcessExitedError, Session, Until, action_matcher, find_binary


def _reap(process: subprocess.Popen[bytes]) -> None:
    # Also runs from weakref.finalize at interpreter exit, so it must not touch the client.
    if process.poll() is None:
        process.kill()
    process.wait()
    for stream in (process.stdin, process.stdout):
        if stream and not stream.closed:
            stream.close()


class Client:
    """One composable-actor process, driven synchronously.

    `binary` is its path (else $COMPOSABLE_ACTOR_BIN, else the repository's release build),
    `args` its command-line arguments (`["--clock", "virtual"]`), `timeout` the seconds a call
    waits unless told otherwise (None: no limit), `env` additions to the environment.

    Use it as a context manager: leaving the block ends the process, also when the block raises.
    Lines no call claimed (late effect lines, errors not tied to a request, the exit line) wait
    in a backlog of at most `backlog` lines (the oldest are dropped) for `wait_for`.
    """

    def __init__(
        self,
        binary: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        *,
        timeout: float | None = 10.0,
        env: Mapping[str, str] | None = None,
        backlog: int = 10_000,
    ):
        self.timeout = timeout
        self._process = subprocess.Popen(
            [find_binary(binary), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=None if env is None else {**os.environ, **env},
        )
        self._finalizer = weakref.finalize(self, _reap, self._process)
        self._partial = b""
        self._texts: collections.deque[bytes] = collections.deque()
        self._backlog: collections.deque[Line] = collections.deque(maxlen=backlog)
        try:
            self._session = Session(self._read_text(self._deadline(None)))
            for store in self._session.stores:
                self.snapshot(store)
        except BaseException:
            self._finalizer()
            raise

    @property
    def ready(self) -> Line:
        return self._session.ready

    @property
    def stores(self) -> list[str]:
        return self._session.stores

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.poll()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def send(
        self,
        store: str,
        action: str | Mapping[str, Any],
        *,
        until: Until | None = None,
        settle: bool = False,
        timeout: float | None = None,
        **payload: Any,
    ) -> list[Line]:
        """Sends an action and returns the lines that echo its id, its own line first.

        Without `until` or `settle` that is its own line only. `until` (an action type, or a
        predicate on lines) also waits for the first line of its effects that matches; `settle`
        waits until the process is idle under the virtual clock. `action` is a type or a whole
        action object (for payload fields named like these keywords).
        """
        data, waited, answer = self._session.send(store, action, payload, until, settle)
        return self._call(data, waited, answer, timeout)

    def state(self, store: str) -> Any:
        """The local mirror of the store's state (a copy), current with every line read."""
        return copy.deepcopy(self._session.mirror[store])

    def snapshot(self, store: str, *, timeout: float | None = None) -> Any:
        """The store's state as the process has it now."""
        return self._command("snapshot", timeout, store=store)[-1]["state"]

    def describe(self, *, timeout: float | None = None) -> Line:
        return self._command("describe", timeout)[-1]

    def advance(self, ms: int, *, timeout: float | None = None) -> list[Line]:
        """Moves virtual time by `ms`; the lines echoing this command, the `advanced` line last."""
        return self._command("advance", timeout, ms=ms)

    def settle(self, *, timeout: float | None = None) -> list[Line]:
        """Waits until no effect can progress without time or I/O; ends with the `settled` line."""
        return self._command("settle", timeout)

    def wait_for(self, until: Until, *, timeout: float | None = None) -> list[Line]:
        """Takes backlog lines up to and including the first that matches, reading as needed."""
        matches = action_matcher(until)
        deadline = self._deadline(timeout)
        taken: list[Line] = []
        try:
            while True:
                while self._backlog:
                    taken.append(self._backlog.popleft())
                    if matches(taken[-1]):
                        return taken
                if self._session.failure:
                    raise self._session.failure
                self._read_line(deadline)
        except BaseException:
            self._backlog.extendleft(reversed(taken))
            raise

    def close(self, timeout: float = 2.0) -> int:
        """Asks the process to quit, then terminates or kills it if it lingers; its exit status."""
        if self._finalizer.alive and self._process.poll() is None:
            deadline = time.monotonic() + timeout
            try:
                if not self._session.ended:
                    self._write(self._session.quit())
                self._process.stdin.close()  # type: ignore[union-attr]
                # Reading on keeps the process from blocking on a full stdout pipe while it quits.
                while not self._session.ended:
                    self._read_line(deadline)
                self._process.wait(max(0.0, deadline - time.monotonic()))
            except (OSError, subprocess.TimeoutExpired):  # OSError covers our TimeoutError
                self._process.terminate()
                try:
                    self._process.wait(1.0)
                except subprocess.TimeoutExpired:
                    pass
        self._finalizer()
        return self._process.returncode

    def _command(self, cmd: str, timeout: float | None, **fields: Any) -> list[Line]:
        data, call = self._session.command(cmd, **fields)
        return self._call(data, call, call, timeout)

    def _call(self, data: bytes, waited: Call, answer: Call, timeout: float | None) -> list[Line]:
        try:
            self._write(data)
            self._wait(waited, self._deadline(timeout))
        finally:
            self._session.forget(waited, answer)
        return Session.result(waited, answer)

    def _deadline(self, timeout: float | None) -> float | None:
        timeout = self.timeout if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    def _write(self, data: bytes) -> None:
        try:
            self._process.stdin.write(data)  # type: ignore[union-attr]
            self._process.stdin.flush()  # type: ignore[union-attr]
        except BrokenPipeError:
            raise ProcessExitedError(self._session.exit_line) from None

    def _wait(self, call: Call, deadline: float | None) -> None:
        while not call.finished:
            self._read_line(deadline)

    def _read_line(self, deadline: float | None) -> None:
        text = self._read_text(deadline)
        if text is None:
            self._session.end()
            return
        line, _, claimed = self._session.receive(text)
        if not claimed:
            self._backlog.append(line)

    def _read_text(self, deadline: float | None) -> bytes | None:
        """The next stdout line, or None at end of file; TimeoutError past the deadline."""
        fd = self._process.stdout.fileno()  # type: ignore[union-attr]
        while not self._texts:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError("no answer from composable-actor in time")
            if not select.select([fd], [], [], remaining)[0]:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            # Under load one read holds many lines: split once, not once per line.
            *complete, self._partial = (self._partial + chunk).split(b"\n")
            self._texts.extend(complete)
        return self._texts.popleft()
