"""The server side of the conformance run: serves each case at /case/<id> on 127.0.0.1, writes
its frames, watches what the client sends back, and judges it.

It runs its own asyncio loop on a thread, so the caller drives clients synchronously and asks
for each case's verdict when its client is done."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from cases import BY_ID, AwaitEchoes, Case, Wait, Write
from frames import BINARY, CLOSE, CONTINUATION, PING, PONG, TEXT, accept_handshake, close_payload, frame, read_frame

# Verdicts, best first, as Autobahn names them.
OK, NON_STRICT, FAILED = "OK", "NON-STRICT", "FAILED"
RANK = {OK: 0, NON_STRICT: 1, FAILED: 2}
NO_CLOSE = object()  # the client sent no close frame (its code would be an int or None)


@dataclass
class Verdict:
    verdict: str
    reasons: list[str] = field(default_factory=list)

    def lower(self, verdict: str, reason: str) -> None:
        if RANK[verdict] > RANK[self.verdict]:
            self.verdict = verdict
        self.reasons.append(f"{verdict}: {reason}")


@dataclass
class Observed:
    """What the client sent, and when: `step` is the index of the step being written when its
    close frame or the end of its stream arrived."""

    messages: list[tuple[int, bytes]] = field(default_factory=list)
    pongs: list[bytes] = field(default_factory=list)
    close_code: object = NO_CLOSE
    close_step: int | None = None
    ended_step: int | None = None
    violations: list[str] = field(default_factory=list)


class Session:
    def __init__(self, case: Case, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.case, self.reader, self.writer = case, reader, writer
        self.observed = Observed()
        self.step = 0
        self.changed = asyncio.Event()

    @property
    def client_closed(self) -> bool:
        return self.observed.close_code is not NO_CLOSE or self.observed.ended_step is not None

    async def run(self) -> Observed:
        reading = asyncio.create_task(self.read())
        try:
            await self.write_steps()
            await self.finish()
        finally:
            reading.cancel()
            self.writer.close()
        return self.observed

    async def write_steps(self) -> None:
        for self.step, step in enumerate(self.case.steps):
            if self.client_closed:
                return
            try:
                if isinstance(step, Write):
                    await self.write(step)
                elif isinstance(step, Wait):
                    await asyncio.sleep(step.seconds)
                elif isinstance(step, AwaitEchoes):
                    await self.wait_for(
                        lambda: len(self.observed.messages) >= step.count or self.client_closed, self.case.timeout
                    )
            except ConnectionError:
                return
        self.step = len(self.case.steps)

    async def write(self, step: Write) -> None:
        chop = step.chop or len(step.data) or 1
        for start in range(0, len(step.data), chop):
            self.writer.write(step.data[start : start + chop])
            await self.writer.drain()
            if step.pause:
                await asyncio.sleep(step.pause)

    async def finish(self) -> None:
        case, observed = self.case, self.observed
        if case.outcome == "fail":
            await self.wait_for(lambda: self.client_closed, case.timeout)
        else:
            wanted_pongs = 1 if case.latest_pong_enough else len(case.pongs)
            echoes = 0 if case.echoes_optional else len(case.echoes)
            await self.wait_for(
                lambda: len(observed.messages) >= echoes and len(observed.pongs) >= wanted_pongs, case.timeout
            )
            if case.latest_pong_enough and len(observed.pongs) < len(case.pongs):
                # The rest of a burst's pongs, if they come at all, come right after the first.
                await self.wait_for(lambda: len(observed.pongs) >= len(case.pongs), 0.5)
            if case.outcome == "close" and not self.client_closed:
                await self.send_close(1000)
            await self.wait_for(lambda: self.client_closed, case.timeout)
        if observed.close_code is not NO_CLOSE and observed.ended_step is None:
            # The client failed or answered: close the handshake from this side, as a server does.
            if case.outcome == "fail":
                await self.send_close(observed.close_code if isinstance(observed.close_code, int) else None)
            # Anything it sends after its close frame is a violation: give it a moment to show.
            await self.wait_for(lambda: observed.ended_step is not None, 0.2)

    async def send_close(self, code: int | None) -> None:
        try:
            self.writer.write(frame(CLOSE, close_payload(code)))
            await self.writer.drain()
        except ConnectionError:
            pass

    async def wait_for(self, condition, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not condition() and (remaining := deadline - loop.time()) > 0:
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                return

    async def read(self) -> None:
        observed = self.observed
        message_opcode, parts = None, []
        try:
            while True:
                received = await read_frame(self.reader)
                if observed.close_code is not NO_CLOSE:
                    observed.violations.append("the client sent a frame after its close frame")
                if not received.masked:
                    observed.violations.append("the client sent an unmasked frame")
                if received.rsv:
                    observed.violations.append(f"the client set reserved bits {received.rsv}")
                if received.opcode in (TEXT, BINARY, CONTINUATION):
                    if (received.opcode == CONTINUATION) != (message_opcode is not None):
                        observed.violations.append("the client's fragments were out of order")
                    message_opcode = message_opcode or received.opcode
                    parts.append(received.payload)
                    if received.fin:
                        observed.messages.append((message_opcode, b"".join(parts)))
                        message_opcode, parts = None, []
                elif received.opcode == PONG:
                    observed.pongs.append(received.payload)
                elif received.opcode == CLOSE:
                    payload = received.payload
                    observed.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
                    observed.close_step = self.step
                elif received.opcode != PING:
                    observed.violations.append(f"the client sent opcode {received.opcode}")
                self.changed.set()
        except (asyncio.IncompleteReadError, ConnectionError):
            observed.ended_step = self.step
            self.changed.set()


def judge(case: Case, observed: Observed) -> Verdict:
    verdict = Verdict(OK)
    for violation in dict.fromkeys(observed.violations):
        verdict.lower(FAILED, violation)

    expected, echoed = list(case.echoes), observed.messages
    if echoed != expected:
        prefix = echoed == expected[: len(echoed)]
        if prefix and case.echoes_optional:
            pass
        elif prefix and case.outcome == "fail":
            verdict.lower(NON_STRICT, f"echoed {len(echoed)} of the {len(expected)} valid messages before failing")
        else:
            verdict.lower(FAILED, f"echoed {describe(echoed)}, expected {describe(expected)}")

    pongs = observed.pongs
    if pongs != list(case.pongs):
        if case.latest_pong_enough and pongs and pongs[-1] == case.pongs[-1] and is_subsequence(pongs, case.pongs):
            verdict.lower(NON_STRICT, f"answered {len(pongs)} of {len(case.pongs)} pings, the last among them")
        else:
            verdict.lower(FAILED, f"pongs {[p[:16] for p in pongs]}, expected {[p[:16] for p in case.pongs]}")

    code = observed.close_code
    if case.outcome == "fail":
        if code is NO_CLOSE and observed.ended_step is not None:
            verdict.lower(NON_STRICT, "dropped the connection without a close frame")
        elif code is NO_CLOSE:
            verdict.lower(FAILED, "kept the connection open")
        elif code not in case.codes:
            verdict.lower(FAILED, f"failed with close code {code}, expected {sorted(case.codes)}")
        elif case.fail_before_step is not None and (observed.close_step or 0) >= case.fail_before_step:
            verdict.lower(NON_STRICT, "failed only after the rest of the message arrived, not at once")
    elif code is NO_CLOSE:
        ended = "dropped the connection" if observed.ended_step is not None else "kept the connection open"
        verdict.lower(FAILED, f"{ended} instead of answering the close")
    elif code not in case.codes:
        verdict.lower(FAILED, f"answered the close with code {code}, expected {sorted(case.codes, key=str)}")
    return verdict


def describe(messages: list[tuple[int, bytes]]) -> str:
    if not messages:
        return "nothing"
    shown = [f"{'text' if opcode == TEXT else 'binary'}[{len(payload)}]" for opcode, payload in messages[:3]]
    return ", ".join(shown) + (f" and {len(messages) - 3} more" if len(messages) > 3 else "")


def is_subsequence(short: list[bytes], long: tuple[bytes, ...]) -> bool:
    remaining = iter(long)
    return all(item in remaining for item in short)


class ConformanceServer:
    """Listens on 127.0.0.1 (a free port); `url(case)` is where a client finds a case, and
    `verdict(case)` waits for its judgement."""

    def __init__(self):
        self.verdicts: dict[str, Verdict] = {}
        self.done: dict[str, threading.Event] = {case_id: threading.Event() for case_id in BY_ID}
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(started,), daemon=True)
        self.thread.start()
        started.wait()

    def _serve(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            path = await accept_handshake(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError, KeyError):
            writer.close()
            return
        case = BY_ID.get(path.rsplit("/", 1)[-1])
        if case is None:
            writer.close()
            return
        observed = await Session(case, reader, writer).run()
        self.verdicts[case.id] = judge(case, observed)
        self.done[case.id].set()

    def url(self, case: Case) -> str:
        return f"ws://127.0.0.1:{self.port}/case/{case.id}"

    def verdict(self, case: Case, timeout: float) -> Verdict:
        if not self.done[case.id].wait(timeout):
            return Verdict(FAILED, ["FAILED: the client never connected, or the case did not end"])
        return self.verdicts[case.id]

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
