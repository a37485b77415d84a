"""The asyncio client: the event loop hands it stdout chunk by chunk; it wakes the calls each line answers."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
import subprocess
import weakref
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ._session import (
    DEFAULT_BACKLOG, Call, Follower, Line, ProcessExitedError, Session, Until, Waiter, addressed, check_backlog,
    check_instance, check_key, check_page, check_timeout, command_line, emits_ticks, stores_state,
)
from ._sync import _REAP_SECONDS, StderrLines

# When a call times out (loop time), its future, what it waits for, and its timeout.
_Deadline = tuple[float, "asyncio.Future[None]", Waiter, float]

# The longest line followed (a snapshot or `describe` answer is one line): past it, a line that
# never ends fails the client instead of growing without bound.
_LINE_LIMIT = 1 << 26


async def _within(future: asyncio.Future[Any], timeout: float | None) -> bool:
    """Whether `future` is done within `timeout` (None: no limit); it is not cancelled when it
    is not, and its exception, if it ends with one, is raised."""
    try:
        await asyncio.wait_for(asyncio.shield(future), timeout)
    except TimeoutError:
        return False
    return True


class _Pipes(asyncio.SubprocessProtocol):
    """The process's pipes, as the event loop reads them: stdout goes to the client chunk by
    chunk, straight from the loop's callback (no stream reader, no task woken per line), stderr
    to `StderrLines`. Futures say when stdout and stderr ended and when the process exited;
    `drained` waits while the loop holds more of stdin than it wants to."""

    def __init__(self, client: AsyncClient, loop: asyncio.AbstractEventLoop):
        self._client = client
        self._loop = loop
        self.stderr = StderrLines()
        self.stdout_ended: asyncio.Future[None] = loop.create_future()
        self.stderr_ended: asyncio.Future[None] = loop.create_future()
        self.exited: asyncio.Future[None] = loop.create_future()
        self.stdin_lost = False
        self._paused: asyncio.Future[None] | None = None

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        assert isinstance(data, bytes)
        if fd == 1:
            self._client._received(data)
        else:
            self.stderr.feed(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 0:
            self.stdin_lost = True
            self.resume_writing()
        elif fd == 1:
            self.stdout_ended.set_result(None)
            self._client._stdout_closed()
        else:
            self.stderr.end()
            self.stderr_ended.set_result(None)

    def process_exited(self) -> None:
        self.exited.set_result(None)

    def pause_writing(self) -> None:
        if self._paused is None:
            self._paused = self._loop.create_future()

    def resume_writing(self) -> None:
        if self._paused is not None:
            self._paused.set_result(None)
            self._paused = None

    @property
    def paused(self) -> bool:
        return self._paused is not None

    async def drained(self) -> None:
        while self._paused is not None:
            await asyncio.shield(self._paused)


def _kill(popen: subprocess.Popen[bytes] | None, pid: int) -> None:
    """Ends a process a client never closed (from weakref.finalize, also at interpreter exit)."""
    if popen is not None:
        # poll() knows when asyncio already reaped it, so a recycled pid is never signalled.
        with contextlib.suppress(OSError):
            if popen.poll() is None:
                popen.kill()
        return
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


class AsyncClient:
    """One composable-actor process, driven from asyncio; the arguments are `Client`'s.

    `async with AsyncClient() as actor:` starts it and always ends it, also when the block
    raises or is cancelled; outside a block, `await AsyncClient().start()` and `await close()`.
    A client never closed has its process killed when Python exits.

    The event loop hands the client every output line as it comes: the mirror (`state`) is
    always current, and every line after `ready` is kept, in order, in a backlog of at most
    `backlog` lines (the oldest dropped first) that `wait_for` and `events` read from the start.
    Lines carry the id of the input line that caused them; the lines of a long-running effect
    carry the id of the action that *started* it, so `wait_for` matches lines whatever their id
    (a send's `until` with `any_id=True`).
    `instance=` names one of a store's instances, as in `Client`.
    """

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
        self._backlog_size = backlog
        self._command_line = command_line(binary, args)
        self._env = None if env is None else {**os.environ, **env}
        self._transport: asyncio.SubprocessTransport | None = None
        self._pipes: _Pipes | None = None
        self._stdin: asyncio.WriteTransport | None = None
        self._session: Session | None = None
        # Stdout's bytes after its last newline, and the future that the first line (or the end
        # of stdout) ends: with the error of a first line that is not a ready line.
        self._partial = b""
        self._first: asyncio.Future[None] | None = None
        # The lines written while the calls a chunk of output finished run, not yet handed to
        # the pipe; None when lines go to it at once (`_written`).
        self._outbox: list[bytes] | None = None
        # Ends the session once stdout ended (saying how the process ended), for close to await.
        self._reader: asyncio.Task[None] | None = None
        self._waiters: dict[Waiter, asyncio.Future[None]] = {}
        # The deadlines of the calls waiting with the client's timeout, in the order set, and
        # the one timer that serves them (see _expect).
        self._deadlines: collections.deque[_Deadline] = collections.deque()
        self._deadline_timer: asyncio.TimerHandle | None = None
        # Set (and dropped) by the reader when lines arrived: what events() iterators wait on.
        self._arrival: asyncio.Event | None = None
        # The one `describe` the client asks for itself (to check action types), while on its way.
        self._describing: asyncio.Future[None] | None = None

    async def start(self) -> AsyncClient:
        loop = asyncio.get_running_loop()
        self._first = first = loop.create_future()
        pipes = _Pipes(self, loop)
        transport, _ = await loop.subprocess_exec(
            lambda: pipes, *self._command_line, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=self._env,
        )
        self._transport, self._pipes = transport, pipes
        self._stdin = transport.get_pipe_transport(0)  # type: ignore[assignment]
        weakref.finalize(self, _kill, transport.get_extra_info("subprocess"), transport.get_pid())
        try:
            # Raises the error of a first line that is not a ready line.
            if not await _within(first, self.timeout):
                raise TimeoutError(f"composable-actor wrote no ready line within {self.timeout} s")
            if self._session is None:  # stdout ended first
                raise await self._exited()
            self._reader = asyncio.create_task(self._follow())
            for store in self._session.stores:
                await self.snapshot(store)
        except BaseException:
            # A process that did not start right is of no use: no quit, no grace period.
            with contextlib.suppress(ProcessLookupError):
                transport.kill()
            await pipes.exited
            if self._reader:
                await self._reader
            await _within(pipes.stderr_ended, _REAP_SECONDS)
            transport.close()
            raise
        return self

    async def __aenter__(self) -> AsyncClient:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @property
    def ready(self) -> Line:
        return self._started.ready

    @property
    def stores(self) -> list[str]:
        return self._started.stores

    @property
    def pid(self) -> int | None:
        return self._transport.get_pid() if self._transport else None

    @property
    def returncode(self) -> int | None:
        return self._transport.get_returncode() if self._transport else None

    @property
    def backlog(self) -> list[Line]:
        """The lines kept (a copy), oldest first."""
        return [line for _, line in self._started.kept()]

    async def send(
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
        """Like `Client.send`; many sends may be in flight at once, and each one's `until`
        matches only the lines its own action caused unless `any_id=True`."""
        session = self._started
        session.check_store(store)
        check_instance(instance, store)
        check_timeout(timeout)
        if until is not None:
            if session.needs_description(until):
                await self._describe_once()
            session.check_until(until, store)
        data, waited, answer = session.send(store, instance, action, payload, until, settle, any_id)
        return await self._call(data, waited, answer, timeout)

    async def wait_for(
        self, until: Until, *, store: str | None = None, instance: str | None = None, timeout: float | None = None,
    ) -> Line:
        """Like `Client.wait_for`: the first line from the cursor on, whatever its id, that
        matches `until`; a predicate that raises ends this call only. The cursor is the calling
        task's: a task starts from the cursor of the code that created it, and its waits move
        only its own, so concurrent tasks each see every line from where they started."""
        session = self._started
        session.check_scope(store, instance)
        check_timeout(timeout)
        if session.needs_description(until):
            await self._describe_once()
        session.check_until(until, store)
        watch = session.wait_for(until, store, instance)
        if not watch.done:
            await self._until_done(watch, timeout)
        line = Session.watched(watch)
        session.passed(watch)
        return line

    def state(self, store: str, *, instance: str | None = None) -> Any:
        """Like `Client.state`; current with every line read."""
        session = self._started
        session.check_store(store)
        check_instance(instance, store)
        return session.state(store, instance)

    async def snapshot(self, store: str, *, instance: str | None = None, timeout: float | None = None) -> Any:
        self._started.check_store(store)
        check_instance(instance, store)
        return (await self._command("snapshot", timeout, **addressed(store, instance)))[-1]["state"]

    async def instances(self, store: str, *, page: int = 1000, timeout: float | None = None) -> list[str]:
        """Like `Client.instances`."""
        self._started.check_store(store)
        check_page(page)
        keys: list[str] = []
        after: str | None = None
        while True:
            answer = (await self._command("instances", timeout, **Session.page(store, page, after)))[-1]
            keys += Session.keys(answer)
            after = answer.get("next")
            if after is None:
                return keys

    async def stop(self, store: str, instance: str, *, timeout: float | None = None) -> int:
        """Like `Client.stop`."""
        self._started.check_store(store)
        check_key(instance, "stop")
        return int((await self._command("stop", timeout, store=store, instance=instance))[-1]["cancelledEffects"])

    async def forget(self, store: str, instance: str, *, timeout: float | None = None) -> int:
        """Like `Client.forget`."""
        self._started.check_store(store)
        check_key(instance, "forget")
        return int((await self._command("forget", timeout, store=store, instance=instance))[-1]["cancelledEffects"])

    async def describe(self, *, timeout: float | None = None) -> Line:
        description = (await self._command("describe", timeout))[-1]
        self._started.learn(description)
        return description

    async def advance(self, ms: int, *, timeout: float | None = None) -> list[Line]:
        return await self._command("advance", timeout, ms=ms)

    async def settle(self, *, timeout: float | None = None) -> list[Line]:
        return await self._command("settle", timeout)

    def events(self, *, store: str | None = None, instance: str | None = None) -> AsyncIterator[Line]:
        """Like `Client.events`: every line from the backlog's start (as it is when iteration
        starts), then every new line, the exit line last; with `store`, only the lines about
        that store's `instance` (None: its default). The iterator holds no line of its own: it
        reads the client's backlog, so one never iterated costs nothing, and one that falls
        more than `backlog` lines behind raises `MissedLinesError` once, then goes on with the
        oldest line kept. A process that ends without an exit line makes it raise the
        `ProcessExitedError` that says how."""
        session = self._started
        session.check_scope(store, instance)
        return _AsyncEvents(self, Follower(session, store, instance))

    async def close(self, timeout: float = 2.0) -> int | None:
        """Asks the process to quit, then terminates or kills it if it lingers; its exit status."""
        transport, pipes = self._transport, self._pipes
        if transport is None or pipes is None:
            return None
        if transport.get_returncode() is None:
            with contextlib.suppress(OSError, ProcessExitedError):
                if self._session and not self._session.ended:
                    await self._write(self._session.quit())
                self._flush()
                self._stdin.close()  # type: ignore[union-attr]
            # The loop keeps reading stdout, so the process cannot block on it.
            if not await _within(pipes.exited, timeout):
                with contextlib.suppress(ProcessLookupError):
                    transport.terminate()
                if not await _within(pipes.exited, 1.0):
                    with contextlib.suppress(ProcessLookupError):
                        transport.kill()
                    await pipes.exited
        if self._reader:
            await self._reader
        await _within(pipes.stderr_ended, _REAP_SECONDS)
        transport.close()
        if self._deadline_timer is not None and not self._waiters:
            self._deadline_timer.cancel()
            self._deadline_timer = None
        return transport.get_returncode()

    @property
    def _started(self) -> Session:
        if self._session is None:
            raise RuntimeError("the client is not started: use `async with` or `await start()`")
        return self._session

    async def _describe_once(self) -> None:
        """Learns the action types `until` is checked against. Asked once per client, however
        many calls need it at once; the answer is the client's, not one of the user's lines."""
        if self._describing is None:
            self._describing = asyncio.ensure_future(self._learn())
        describing = self._describing
        try:
            await asyncio.shield(describing)
        except BaseException:
            if describing.done() and self._describing is describing:
                self._describing = None  # asked again next time (the process ended, or it timed out)
            raise

    async def _learn(self) -> None:
        data, call = self._started.ask("describe")
        self._started.learn((await self._call(data, call, call, None))[-1])

    async def _command(self, cmd: str, timeout: float | None, **fields: Any) -> list[Line]:
        check_timeout(timeout)
        data, call = self._started.command(cmd, **fields)
        return await self._call(data, call, call, timeout)

    async def _write(self, data: bytes) -> None:
        if self._written(data):
            await self._drain()

    def _written(self, data: bytes) -> bool:
        """Writes `data`, or while the calls one chunk of output finished run, queues it to be
        written with theirs (`_flush`): one system call for them all, not one each. Whether the
        caller must drain: only when the loop holds more than it wants to, or the pipe broke
        (which drain raises). A pipe mostly takes the lines at once, and awaiting drain is
        three coroutines more a call."""
        stdin, pipes = self._stdin, self._pipes
        assert stdin is not None and pipes is not None
        if self._outbox is not None:
            self._outbox.append(data)
        elif not stdin.is_closing():
            stdin.write(data)
        return pipes.paused or stdin.is_closing()

    def _flush(self) -> None:
        """Writes the lines queued, in the order queued, and writes the next ones at once."""
        outbox, self._outbox = self._outbox, None
        assert self._stdin is not None
        if outbox and not self._stdin.is_closing():
            self._stdin.write(outbox[0] if len(outbox) == 1 else b"".join(outbox))

    async def _drain(self) -> None:
        pipes = self._pipes
        assert pipes is not None and self._stdin is not None
        await pipes.drained()
        if self._stdin.is_closing() or pipes.stdin_lost:
            # Gone: the reader learns how it ended from its stdout and stderr.
            if self._reader is not None:
                await _within(self._reader, 2 * _REAP_SECONDS + 1)
            raise self._started.failure or ProcessExitedError(self._started.exit_line) from None

    async def _call(self, data: bytes, waited: Call, answer: Call, timeout: float | None) -> list[Line]:
        """Writes `data` and waits until the reader finishes `waited`, or times out."""
        future, timer = self._expect(waited, timeout)
        try:
            if self._written(data):
                await self._drain()
            # The reader may answer during the write's drain, before anyone awaits the future.
            if not waited.finished:
                await future
        finally:
            self._expected(waited, timer)
            if answer is not waited:
                self._started.forget(answer)
        return Session.result(waited, answer)

    async def _until_done(self, waiter: Waiter, timeout: float | None) -> None:
        """Waits until the reader finishes `waiter`, or times out."""
        future, timer = self._expect(waiter, timeout)
        try:
            await future
        finally:
            self._expected(waiter, timer)

    def _expect(self, waiter: Waiter, timeout: float | None) -> tuple[asyncio.Future[None], asyncio.TimerHandle | None]:
        """The future the reader finishes for `waiter`, with its deadline set."""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiters[waiter] = future
        # A deadline on the future, not asyncio.wait_for: that wraps every call in a task of its
        # own. Calls mostly share the client's timeout, so their deadlines come in the order
        # they are set: those queue for one timer rather than each taking one (a heap push and a
        # cancel); only one earlier than the last queued gets a timer of its own.
        timeout = self.timeout if timeout is None else timeout
        timer = None
        if timeout is not None:
            at = loop.time() + timeout
            if not self._deadlines or at >= self._deadlines[-1][0]:
                self._queue_deadline(loop, (at, future, waiter, timeout))
            else:
                timer = loop.call_at(at, self._expire, future, waiter, timeout)
        return future, timer

    def _expected(self, waiter: Waiter, timer: asyncio.TimerHandle | None) -> None:
        """`waiter` is no longer awaited: its future, timer and lines go."""
        if timer:
            timer.cancel()
        self._waiters.pop(waiter, None)
        self._started.forget(waiter)

    def _expire(self, future: asyncio.Future[None], waiter: Waiter, timeout: float) -> None:
        if not future.done():
            future.set_exception(self._started.timed_out(waiter.what, timeout))

    def _queue_deadline(self, loop: asyncio.AbstractEventLoop, deadline: _Deadline) -> None:
        deadlines = self._deadlines
        deadlines.append(deadline)
        # Those of calls answered leave from the front as they pass; past twice the calls in
        # flight (one slow call holds back the front), all at once: memory follows the calls.
        while deadlines[0][1].done():
            deadlines.popleft()
        if len(deadlines) > 2 * len(self._waiters) + 64:
            self._deadlines = collections.deque(entry for entry in deadlines if not entry[1].done())
        if self._deadline_timer is None:
            self._deadline_timer = loop.call_at(self._deadlines[0][0], self._expire_due)

    def _expire_due(self) -> None:
        """The client's timer: fails the calls whose deadline passed, and is set for the next."""
        self._deadline_timer = None
        deadlines = self._deadlines
        loop = asyncio.get_running_loop()
        now = loop.time()
        while deadlines:
            at, future, waiter, timeout = deadlines[0]
            if not future.done():
                if at > now:
                    self._deadline_timer = loop.call_at(at, self._expire_due)
                    return
                future.set_exception(self._started.timed_out(waiter.what, timeout))
            deadlines.popleft()

    def _received(self, data: bytes) -> None:
        """A chunk of stdout, from the loop's callback: its lines received in order, and the
        calls they finished woken."""
        *texts, partial = (self._partial + data).split(b"\n") if self._partial else data.split(b"\n")
        self._partial = partial
        session = self._session
        if session is None or session.ended:
            if session is None and texts:
                self._start_session(texts.pop(0))
                session = self._session
            if session is None or session.ended:
                if session is not None:
                    self._partial = b""  # nothing follows the lines any more
                return
        woken = 0
        try:
            for text in texts:
                _, finished = session.receive(text)
                if finished:
                    woken += self._wake(finished)
            if len(partial) > _LINE_LIMIT:
                raise ValueError(f"an output line longer than {_LINE_LIMIT} bytes")
        except Exception as error:  # a line that cannot be followed: fail the calls with it
            woken += self._wake(session.end(error))
        if woken > 1 and self._outbox is None:
            # The tasks woken run first in the loop's next turn, then this.
            self._outbox = []
            asyncio.get_running_loop().call_soon(self._flush)
        if texts and self._arrival is not None:
            self._arrival.set()
            self._arrival = None

    def _start_session(self, first: bytes) -> None:
        assert self._first is not None
        try:
            self._session = Session(
                first, backlog=self._backlog_size, ticks=emits_ticks(self._command_line),
                durable=stores_state(self._command_line),
            )
        except Exception as error:
            if not self._first.done():
                self._first.set_exception(error)
            return
        if not self._first.done():
            self._first.set_result(None)

    def _stdout_closed(self) -> None:
        if self._session is None and self._partial:
            self._start_session(self._partial)
            self._partial = b""
        if self._first is not None and not self._first.done():
            self._first.set_result(None)

    async def _follow(self) -> None:
        """Once stdout ended: ends the session, saying how the process ended when it wrote no
        exit line, and wakes whoever waits."""
        assert self._pipes is not None
        await self._pipes.stdout_ended
        session = self._started
        if self._partial and not session.ended:
            text, self._partial = self._partial, b""
            try:
                self._wake(session.receive(text)[1])
            except Exception as error:
                self._wake(session.end(error))
        if not session.ended:
            self._wake(session.end(await self._exited()))
        if self._arrival is not None:
            self._arrival.set()
            self._arrival = None

    async def _exited(self) -> ProcessExitedError:
        """The error of a process whose stdout closed without an exit line: its exit status
        (once reaped) and the last lines of its stderr, each awaited at most _REAP_SECONDS."""
        pipes, transport = self._pipes, self._transport
        assert pipes is not None and transport is not None
        await _within(pipes.exited, _REAP_SECONDS)
        await _within(pipes.stderr_ended, _REAP_SECONDS)
        return ProcessExitedError(None, transport.get_returncode(), pipes.stderr.lines)

    async def _arrived(self) -> None:
        """Returns once the reader received more lines (or the output ended)."""
        if self._arrival is None:
            self._arrival = asyncio.Event()
        await self._arrival.wait()

    def _wake(self, waiters: list[Waiter]) -> int:
        """Finishes the futures of `waiters`; how many it finished."""
        woken = 0
        for waiter in waiters:
            future = self._waiters.get(waiter)
            if future and not future.done():
                future.set_result(None)
                woken += 1
        return woken



class _AsyncEvents(AsyncIterator[Line]):
    """`AsyncClient.events()`: steps a Follower, waiting for the reader when it needs a new line.
    A class, not an async generator, so that it goes on after a `MissedLinesError`."""

    def __init__(self, client: AsyncClient, follower: Follower):
        self._client = client
        self._follower = follower

    async def __anext__(self) -> Line:
        while True:
            try:
                line = self._follower.step()
            except StopIteration:
                raise StopAsyncIteration from None
            if line is not None:
                return line
            await self._client._arrived()
