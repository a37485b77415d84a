"""The asyncio client: one reader task follows stdout and wakes the calls it answers."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from ._session import Call, Line, ProcessExitedError, Session, Until, find_binary

# Snapshots and `describe` answers are single lines far beyond asyncio's 64 KiB default.
_LINE_LIMIT = 1 << 26


async def _exits(process: asyncio.subprocess.Process, timeout: float) -> bool:
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        return False
    return True


def _expire(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_exception(TimeoutError("no answer from composable-actor in time"))


class AsyncClient:
    """One composable-actor process, driven from asyncio; the arguments are `Client`'s.

    `async with AsyncClient() as actor:` starts it and always ends it, also when the block
    raises or is cancelled; outside a block, `await AsyncClient().start()` and `await close()`.
    """

    def __init__(
        self,
        binary: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        *,
        timeout: float | None = 10.0,
        env: Mapping[str, str] | None = None,
    ):
        self.timeout = timeout
        self._command_line = [find_binary(binary), *args]
        self._env = None if env is None else {**os.environ, **env}
        self._process: asyncio.subprocess.Process | None = None
        self._session: Session | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiters: dict[int, asyncio.Future[None]] = {}
        self._subscribers: set[asyncio.Queue[Line | None]] = set()

    async def start(self) -> AsyncClient:
        self._process = await asyncio.create_subprocess_exec(
            *self._command_line, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            env=self._env, limit=_LINE_LIMIT,
        )
        try:
            first = await asyncio.wait_for(self._process.stdout.readline(), self.timeout)  # type: ignore[union-attr]
            self._session = Session(first or None)
            self._reader = asyncio.create_task(self._read())
            for store in self._session.stores:
                await self.snapshot(store)
        except BaseException:
            # A process that did not start right is of no use: no quit, no grace period.
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
            await self._process.wait()
            if self._reader:
                await self._reader
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
        return self._process.pid if self._process else None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process else None

    async def send(
        self,
        store: str,
        action: str | Mapping[str, Any],
        *,
        until: Until | None = None,
        settle: bool = False,
        timeout: float | None = None,
        **payload: Any,
    ) -> list[Line]:
        """Like `Client.send`; many sends may be in flight at once."""
        data, waited, answer = self._started.send(store, action, payload, until, settle)
        return await self._call(data, waited, answer, timeout)

    def state(self, store: str) -> Any:
        """The local mirror of the store's state (a copy), current with every line read."""
        return copy.deepcopy(self._started.mirror[store])

    async def snapshot(self, store: str, *, timeout: float | None = None) -> Any:
        return (await self._command("snapshot", timeout, store=store))[-1]["state"]

    async def describe(self, *, timeout: float | None = None) -> Line:
        return (await self._command("describe", timeout))[-1]

    async def advance(self, ms: int, *, timeout: float | None = None) -> list[Line]:
        return await self._command("advance", timeout, ms=ms)

    async def settle(self, *, timeout: float | None = None) -> list[Line]:
        return await self._command("settle", timeout)

    def events(self) -> AsyncIterator[Line]:
        """Every output line from now on, the exit line last."""
        queue: asyncio.Queue[Line | None] = asyncio.Queue()
        if self._started.ended:
            queue.put_nowait(None)
        self._subscribers.add(queue)
        return self._follow(queue)

    async def close(self, timeout: float = 2.0) -> int | None:
        """Asks the process to quit, then terminates or kills it if it lingers; its exit status."""
        process = self._process
        if process is None:
            return None
        if process.returncode is None:
            with contextlib.suppress(OSError, ProcessExitedError):
                if self._session and not self._session.ended:
                    await self._write(self._session.quit())
                process.stdin.close()  # type: ignore[union-attr]
            # The reader task keeps draining stdout, so the process cannot block on it.
            if not await _exits(process, timeout):
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
                if not await _exits(process, 1.0):
                    process.kill()
                    await process.wait()
        if self._reader:
            await self._reader
        return process.returncode

    @property
    def _started(self) -> Session:
        if self._session is None:
            raise RuntimeError("the client is not started: use `async with` or `await start()`")
        return self._session

    async def _command(self, cmd: str, timeout: float | None, **fields: Any) -> list[Line]:
        data, call = self._started.command(cmd, **fields)
        return await self._call(data, call, call, timeout)

    async def _write(self, data: bytes) -> None:
        stdin = self._process.stdin  # type: ignore[union-attr]
        try:
            stdin.write(data)  # type: ignore[union-attr]
            await stdin.drain()  # type: ignore[union-attr]
        except (BrokenPipeError, ConnectionResetError):
            raise ProcessExitedError(self._started.exit_line) from None

    async def _call(self, data: bytes, waited: Call, answer: Call, timeout: float | None) -> list[Line]:
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiters[waited.id] = future
        timeout = self.timeout if timeout is None else timeout
        # A timer on the future, not asyncio.wait_for: that wraps every call in a task of its own.
        timer = None if timeout is None else loop.call_later(timeout, _expire, future)
        try:
            await self._write(data)
            # The reader may answer during the write's drain, before anyone awaits the future.
            if not waited.finished:
                await future
        finally:
            if timer:
                timer.cancel()
            self._waiters.pop(waited.id, None)
            self._started.forget(waited, answer)
        return Session.result(waited, answer)

    async def _read(self) -> None:
        session = self._started
        stdout = self._process.stdout  # type: ignore[union-attr]
        failure: Exception | None = None
        try:
            while text := await stdout.readline():  # type: ignore[union-attr]
                line, finished, _ = session.receive(text)
                self._wake(finished)
                for queue in self._subscribers:
                    queue.put_nowait(line)
        except Exception as error:  # a line that cannot be followed: fail the calls with it
            failure = error
        self._wake(session.end(failure))
        for queue in self._subscribers:
            queue.put_nowait(None)

    def _wake(self, calls: list[Call]) -> None:
        for call in calls:
            future = self._waiters.get(call.id)
            if future and not future.done():
                future.set_result(None)

    async def _follow(self, queue: asyncio.Queue[Line | None]) -> AsyncIterator[Line]:
        try:
            while (line := await queue.get()) is not None:
                yield line
        finally:
            self._subscribers.discard(queue)
