"""The blocking client: every call reads stdout itself until its answer arrives."""

from __future__ import annotations

import collections
import contextlib
import math
import os
import select
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any, Literal

from ._session import (
    DEFAULT_BACKLOG, Call, Follower, Line, ProcessExitedError, Session, Until, Waiter, addressed, check_backlog,
    check_instance, check_key, check_page, check_timeout, command_line, emits_ticks, stores_state,
)

# The lines of the process's stderr kept to say why it ended (it still goes to this stderr).
STDERR_LINES = 10
# How long an ended process (its stdout closed) is given to be reaped, and its stderr to end,
# before the error says what is known without them.
_REAP_SECONDS = 2.0


class StderrLines:
    """Copies the process's stderr to this process's stderr (file descriptor 2, as if
    inherited) as it comes, chunk by chunk, keeping its last lines to say why it ended."""

    def __init__(self) -> None:
        self._lines: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._partial = b""

    def feed(self, chunk: bytes) -> None:
        with contextlib.suppress(OSError):
            os.write(2, chunk)
        *complete, partial = (self._partial + chunk).split(b"\n")
        self._lines.extend(text.decode(errors="replace").rstrip("\r") for text in complete[-STDERR_LINES:])
        self._partial = partial[-4096:]

    def end(self) -> None:
        if self._partial:
            self._lines.append(self._partial.decode(errors="replace"))
            self._partial = b""

    @property
    def lines(self) -> list[str]:
        return [text for text in self._lines if text.strip()]


class StderrTail:
    """`StderrLines` fed from a thread of its own: nothing else reads stderr, so the process
    never blocks on it."""

    def __init__(self, stream: IO[bytes]):
        self._lines = StderrLines()
        self._thread = threading.Thread(target=self._copy, args=(stream,), name="composable-actor stderr", daemon=True)
        self._thread.start()

    def _copy(self, stream: IO[bytes]) -> None:
        with stream, contextlib.suppress(OSError, ValueError):
            while chunk := os.read(stream.fileno(), 1 << 16):
                self._lines.feed(chunk)
        self._lines.end()

    def wait(self, timeout: float) -> list[str]:
        """Its last lines, once it ended (or `timeout` passed)."""
        self._thread.join(timeout)
        return self._lines.lines


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

    `binary` is its path (else $COMPOSABLE_ACTOR_BIN, else `composable-actor` on PATH, else the
    repository's `.build/release` when this package is inside a checkout), `args` its
    command-line arguments as a list (`["--clock", "virtual"]`), `timeout` the seconds a call
    waits unless told otherwise (None: no limit), `env` additions to the environment.

    Use it as a context manager: leaving the block ends the process, also when the block raises.
    A client never closed has its process killed when it is garbage-collected or when Python
    exits.

    Every output line after `ready` is kept, in order, in a backlog of at most `backlog` lines
    (the oldest are dropped first): `wait_for` and `events` read it from the start. Nothing reads
    stdout between calls: `state` and `poll` first read every line already waiting (without
    blocking), so the mirror is current whenever you look at it.

    Lines carry the id of the input line that caused them; the lines of a long-running effect
    (a timer, a WebSocket, an HTTP request) carry the id of the action that *started* it. So
    `wait_for` matches lines whatever their id; a send's `until` matches the lines its action
    caused, or with `any_id=True` any line.

    `instance=` names one of a store's instances wherever a store is named (`send`, `wait_for`,
    `state`, `snapshot`); None, the default, is the store's default instance.
    """

    # Whether start-up snapshots every store's default instance to seed the mirror. The
    # cluster's processes do not: under --state-url that would take every default instance
    # into every process, and a stored default instance is not the store's initial state.
    _seeds_mirrors = True
    # Where the process's stderr goes (a file object or descriptor; None: this one's stderr).
    _stderr: Any = None

    def __init__(
        self,
        binary: str | os.PathLike[str] | None = None,
        args: Sequence[str | os.PathLike[str]] = (),
        *,
        timeout: float | None = 10.0,
        env: Mapping[str, str] | None = None,
        backlog: int = DEFAULT_BACKLOG,
    ):
        check_timeout(timeout)
        check_backlog(backlog)
        if env is not None and not isinstance(env, Mapping):
            raise TypeError(f"env must be a mapping of names to values, not {type(env).__name__}")
        self.timeout = timeout
        command = command_line(binary, args)
        self._process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if self._stderr is None else self._stderr,
            env=None if env is None else {**os.environ, **env},
        )
        self._tail = None if self._process.stderr is None else StderrTail(self._process.stderr)
        self._finalizer = weakref.finalize(self, _reap, self._process)
        self._partial = b""
        self._texts: collections.deque[bytes] = collections.deque()
        self._stdin = self._process.stdin.fileno()  # type: ignore[union-attr]
        self._stdout = self._process.stdout.fileno()  # type: ignore[union-attr]
        # Read first, poll only when nothing is there (`_fill`): the answer is usually waiting
        # by the time the call reads, and a poll before every read costs a system call a line.
        os.set_blocking(self._stdout, False)
        self._readable = select.poll()
        self._readable.register(self._stdout, select.POLLIN)
        try:
            first = self._read_text(self._deadline(None))
            if first is False:
                raise TimeoutError(f"composable-actor wrote no ready line within {self.timeout} s")
            if first is None:
                raise self._exited(None)
            self._session = Session(first, backlog=backlog, ticks=emits_ticks(command), durable=stores_state(command))
            for store in self._session.stores if self._seeds_mirrors else ():
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

    @property
    def backlog(self) -> list[Line]:
        """The lines kept (a copy), oldest first."""
        return [line for _, line in self._session.kept()]

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def send(
        self,
        store: str,
        action: str | Mapping[str, Any],
        *,
        instance: str | None = None,
        until: Until | None = None,
        settle: bool = False,
        any_id: bool = False,
        timeout: float | None = None,
        **payload: Any,
    ) -> list[Line]:
        """Sends an action to the store's `instance` (None: its default instance; a new key
        activates one) and returns the lines that echo its id, its own line first.

        Without `until` or `settle` that is its own line only. `until` also waits for the first
        line read after the action was written that matches and that this action caused (it
        carries its id: the action's own line, the lines of the effects it started): an action
        type of this store's instance (checked against `describe` first: an unknown one raises
        `UnknownActionError` at once) or a predicate on lines (any line type: a predicate that
        raises ends this call with its exception). `any_id=True` matches a line whatever its
        id instead, such as a message of a WebSocket an earlier action opened; when the line
        that matched carries another id, it comes last.
        `settle` waits until the process is idle under the virtual clock. `action` is a type or
        a whole action object (for payload fields named like these keywords).
        """
        session = self._session
        if type(store) is not str or store not in session.store_set:
            session.check_store(store)  # raises the error that says why
        if instance is not None:
            check_instance(instance, store)
        if timeout is not None:
            check_timeout(timeout)
        if until is not None:
            if type(until) is not str or until not in session.known.get(store, ()):
                self._check_until(until, store)
            if any_id:
                # Lines already waiting came before the action: `until` must not see them. (Its
                # own lines cannot be among them: its id is taken only now.)
                self.poll()
        data, waited, answer = session.send(store, instance, action, payload, until, settle, any_id)
        return self._call(data, waited, answer, timeout)

    def wait_for(
        self, until: Until, *, store: str | None = None, instance: str | None = None, timeout: float | None = None,
    ) -> Line:
        """The first line, whatever its id, that matches `until`: an action type (checked against
        `describe`; `store` limits it to the lines of that store's `instance`, None its default
        instance) or a predicate on lines.

        It searches from a cursor: the lines up to the one an earlier `wait_for` returned are not
        seen again, but lines still in the backlog that arrived before this call are (a welcome
        message already read is found). Then it reads on until a line matches, the process
        ends (`ProcessExitedError`) or `timeout` passes (`TimeoutError`, which shows the last
        lines read). A wait that fails does not move the cursor. The cursor is the calling
        thread's (each thread, and each asyncio task, has its own).
        """
        session = self._session
        session.check_scope(store, instance)
        check_timeout(timeout)
        self._check_until(until, store)
        watch = session.wait_for(until, store, instance)
        try:
            self._wait(watch, timeout)
        finally:
            session.forget(watch)
        line = Session.watched(watch)
        session.passed(watch)
        return line

    def poll(self) -> list[Line]:
        """Reads every output line already waiting, without blocking: they update the mirror and
        join the backlog. Returns them (an empty list when none was waiting)."""
        session = self._session
        lines: list[Line] = []
        while not session.ended:
            if not self._texts:
                filled = self._fill(0)
                if filled is None:
                    self._output_ended()
                    break
                if not filled:
                    break
            while self._texts and not session.ended:
                lines.append(session.receive(self._texts.popleft())[0])
        return lines

    def events(self, *, store: str | None = None, instance: str | None = None) -> Iterator[Line]:
        """Every line from the backlog's start (as it is at the first `next`), then each new line
        as it arrives (blocking), the exit line last. With `store`, only the lines about that
        store's `instance` (None: its default).

        The iterator reads the client's backlog and holds no line of its own. When it falls more
        than `backlog` lines behind (other calls read on meanwhile), `next` raises
        `MissedLinesError` (`missed`: how many it lost) once, then goes on with the oldest line
        kept. A process that ends without an exit line (killed, crashed) makes it raise the
        `ProcessExitedError` that says how."""
        self._session.check_scope(store, instance)
        return _Events(self, Follower(self._session, store, instance))

    def state(self, store: str, *, instance: str | None = None) -> Any:
        """The local mirror of the state of the store's `instance` (a copy), after reading the
        lines waiting. A named instance no line was read about raises `UnknownInstanceError`."""
        self._session.check_store(store)
        check_instance(instance, store)
        self.poll()
        return self._session.state(store, instance)

    def snapshot(self, store: str, *, instance: str | None = None, timeout: float | None = None) -> Any:
        """The state of the store's `instance` as the process has it now (a new key activates it)."""
        self._session.check_store(store)
        check_instance(instance, store)
        return self._command("snapshot", timeout, **addressed(store, instance))[-1]["state"]

    def instances(self, store: str, *, page: int = 1000, timeout: float | None = None) -> list[str]:
        """The keys of the store's named instances in memory or, under --state-dir, stored (the
        two together, in the byte order of their UTF-8), asked `page` at a time (`timeout` is per
        page). Keys activated, stopped or forgotten while it pages may be missed or listed."""
        self._session.check_store(store)
        check_page(page)
        keys: list[str] = []
        after: str | None = None
        while True:
            answer = self._command("instances", timeout, **Session.page(store, page, after))[-1]
            keys += Session.keys(answer)
            after = answer.get("next")
            if after is None:
                return keys

    def stop(self, store: str, instance: str, *, timeout: float | None = None) -> int:
        """Cancels the instance's effects and frees it (its mirror goes too); the number of
        effects cancelled. A key not in memory raises `ComposableActorError` (`unknown_instance`)."""
        self._session.check_store(store)
        check_key(instance, "stop")
        return int(self._command("stop", timeout, store=store, instance=instance)[-1]["cancelledEffects"])

    def forget(self, store: str, instance: str, *, timeout: float | None = None) -> int:
        """Under --state-dir: cancels the instance's effects, frees it and deletes its stored
        state (its mirror goes too), so that its key starts afresh; the number of effects
        cancelled. `stop` leaves a stored instance stored. A key neither in memory nor stored
        raises `ComposableActorError` (`unknown_instance`); without --state-dir nothing is
        stored, and `invalid_command` says to `stop` instead."""
        self._session.check_store(store)
        check_key(instance, "forget")
        return int(self._command("forget", timeout, store=store, instance=instance)[-1]["cancelledEffects"])

    def describe(self, *, timeout: float | None = None) -> Line:
        """Every store, its actions and its state schema (also kept to check `until` with)."""
        description = self._command("describe", timeout)[-1]
        self._session.learn(description)
        return description

    def advance(self, ms: int, *, timeout: float | None = None) -> list[Line]:
        """Moves virtual time by `ms`; the lines echoing this command, the `advanced` line last."""
        return self._command("advance", timeout, ms=ms)

    def settle(self, *, timeout: float | None = None) -> list[Line]:
        """Waits until no effect can progress without time or I/O; ends with the `settled` line."""
        return self._command("settle", timeout)

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
                    if self._read_line(deadline) is False:
                        raise TimeoutError
                self._process.wait(max(0.0, deadline - time.monotonic()))
            except (OSError, subprocess.TimeoutExpired):  # OSError covers TimeoutError
                self._process.terminate()
                try:
                    self._process.wait(1.0)
                except subprocess.TimeoutExpired:
                    pass
        self._finalizer()
        return self._process.returncode

    def _check_until(self, until: Until, store: str | None) -> None:
        if self._session.needs_description(until):
            # The client's own question: once per client, and its answer is not kept as a line.
            data, call = self._session.ask("describe")
            self._session.learn(self._call(data, call, call, None)[-1])
        self._session.check_until(until, store)

    def _command(self, cmd: str, timeout: float | None, **fields: Any) -> list[Line]:
        check_timeout(timeout)
        data, call = self._session.command(cmd, **fields)
        return self._call(data, call, call, timeout)

    def _call(self, data: bytes, waited: Call, answer: Call, timeout: float | None) -> list[Line]:
        try:
            self._write(data)
            self._wait(waited, timeout)
        finally:
            if answer is not waited or not waited.finished:  # a finished call is let go already
                self._session.forget(waited, answer)
        return Session.result(waited, answer)

    def _deadline(self, timeout: float | None) -> float | None:
        timeout = self.timeout if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    def _write(self, data: bytes) -> None:
        try:
            # Straight to the pipe: the buffered writer's write and flush cost more than the
            # system call, and nothing is ever left in it between calls.
            while (written := os.write(self._stdin, data)) < len(data):
                data = data[written:]
        except BrokenPipeError:
            # Gone: what it wrote last, and how it ended, say why.
            self.poll()
            raise self._session.failure or ProcessExitedError(self._session.exit_line) from None

    def _wait(self, waiter: Waiter, timeout: float | None) -> None:
        """Reads lines until `waiter` is done; a TimeoutError once `timeout` (None: the client's)
        passed."""
        receive = self._session.receive
        texts = self._texts
        remaining = self.timeout if timeout is None else timeout
        deadline = None if remaining is None else time.monotonic() + remaining
        first = True  # its time is all there: a round trip reads the clock once, not twice
        while not waiter.finished:
            if texts:
                receive(texts.popleft())
                continue
            if deadline is not None and not first:
                remaining = deadline - time.monotonic()
                # Checked before every read, so that lines that keep coming cannot hold a wait
                # forever; the lines already waiting still count.
                if remaining <= 0:
                    self.poll()
                    if waiter.finished:
                        return
                    raise self._session.timed_out(waiter.what, self.timeout if timeout is None else timeout)
            first = False
            if self._fill(remaining) is None:
                self._output_ended()

    def _output_ended(self) -> None:
        """Stdout closed: ends the session, saying how the process ended when it wrote no exit
        line."""
        if not self._session.ended:
            self._session.end(self._exited(None))

    def _exited(self, exit_line: Line | None) -> ProcessExitedError:
        """The error of a process whose stdout closed: its exit status (once reaped, within
        _REAP_SECONDS) and the last lines of its stderr."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(_REAP_SECONDS)
        said = self._tail.wait(_REAP_SECONDS) if self._tail is not None else []
        return ProcessExitedError(exit_line, self._process.returncode, said)

    def _read_line(self, deadline: float | None) -> bool:
        """Reads and receives one line; False when the deadline passed first."""
        text = self._read_text(deadline)
        if text is False:
            return False
        if text is None:
            self._output_ended()
        else:
            self._session.receive(text)
        return True

    def _read_text(self, deadline: float | None) -> bytes | None | Literal[False]:
        """The next stdout line, None at end of file, False once the deadline passed."""
        while not self._texts:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            filled = self._fill(remaining)
            if filled is None:
                return None
            if not filled and remaining is not None and deadline is not None and time.monotonic() >= deadline:
                return False
        return self._texts.popleft()

    def _fill(self, timeout: float | None) -> bool | None:
        """Reads what stdout has within `timeout` into the lines to receive: whether it read a
        whole line, or None at end of file."""
        try:
            chunk = os.read(self._stdout, 1 << 16)
        except BlockingIOError:
            # poll() with the descriptor registered once: select() builds its lists every call.
            if timeout is None:
                self._readable.poll(-1)
            elif timeout <= 0 or not self._readable.poll(math.ceil(timeout * 1000)):
                return False
            chunk = os.read(self._stdout, 1 << 16)
        if not chunk:
            if self._partial:
                self._texts.append(self._partial)
                self._partial = b""
                return True
            return None if not self._texts else True
        # Under load one read holds many lines: split once, not once per line.
        complete = (self._partial + chunk if self._partial else chunk).split(b"\n")
        self._partial = complete.pop()
        self._texts.extend(complete)
        return bool(complete)


class _Events(Iterator[Line]):
    """`Client.events()`: steps a Follower, reading stdout when it needs a new line. A class, not
    a generator, so that it goes on after a `MissedLinesError`."""

    def __init__(self, client: Client, follower: Follower):
        self._client = client
        self._follower = follower

    def __next__(self) -> Line:
        while (line := self._follower.step()) is None:
            self._client._read_line(None)
        return line
