"""The protocol without I/O, shared by the synchronous and the asyncio client.

A `Session` numbers what the host writes, matches each output line to the calls waiting for it,
and keeps the state mirror. Ids are the input line numbers (every line the client writes takes
the next one), so an error the process could not attach an id to (`line_too_long`) still finds
its call through the error's `line`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._patch import apply_patch

Line = dict[str, Any]
Until = str | Callable[[Line], bool]

ENV_BINARY = "COMPOSABLE_ACTOR_BIN"
_ANSWERS = {"snapshot": "snapshot", "describe": "describe", "advance": "advanced", "settle": "settled"}
_BUILD_BINARY = Path(__file__).resolve().parents[3] / ".build/release/composable-actor"


class ComposableActorError(Exception):
    """The process refused a line the client wrote (an `error` line)."""

    def __init__(self, line: Line):
        self.code: str = line["code"]
        self.line: int | None = line.get("line")
        self.message: str = line["message"]
        self.id: Any = line.get("id")
        super().__init__(f"{self.code} (input line {self.line}): {self.message}")


class ProcessExitedError(Exception):
    """The process ended (an `exit` line, or its stdout closed) before the call was answered."""

    def __init__(self, exit_line: Line | None):
        self.exit_line = exit_line
        self.reason: str | None = exit_line["reason"] if exit_line else None
        how = f"with reason {self.reason!r}" if exit_line else "without an exit line"
        super().__init__(f"composable-actor exited {how}")


@dataclass(eq=False)
class Call:
    """One written line still waiting for its answer; `lines` collects every line echoing its id."""

    id: int
    done: Callable[[Line], bool]
    lines: list[Line] = field(default_factory=list)
    error: Exception | None = None
    finished: bool = False


def find_binary(binary: str | os.PathLike[str] | None) -> str:
    """The explicit path, else $COMPOSABLE_ACTOR_BIN, else the repository's release build."""
    path = Path(binary or os.environ.get(ENV_BINARY) or _BUILD_BINARY)
    if not path.is_file():
        raise FileNotFoundError(
            f"no composable-actor binary at {path}: pass its path, set {ENV_BINARY}, or build it"
        )
    return str(path)


def encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode() + b"\n"


def action_matcher(until: Until) -> Callable[[Line], bool]:
    """A predicate on lines; a string means "an action line of this type"."""
    if callable(until):
        return until
    return lambda line: line["type"] == "action" and line["action"]["type"] == until


def _is_type(kind: str) -> Callable[[Line], bool]:
    return lambda line: line["type"] == kind


def _never(line: Line) -> bool:
    return False


class Session:
    """One process's protocol state: ids, pending calls, the mirror, and how it ended."""

    def __init__(self, first_line: str | bytes | None):
        """Starts from the process's first output line (None: it closed stdout at once)."""
        if first_line is None:
            raise ProcessExitedError(None)
        try:
            self.ready: Line = json.loads(first_line)
        except ValueError:
            self.ready = {}
        if not isinstance(self.ready, dict) or self.ready.get("type") != "ready":
            raise ValueError(f"expected a ready line first, got {first_line.strip()[:200]!r}")
        self.stores: list[str] = list(self.ready["stores"])
        self.mirror: dict[str, Any] = {}
        self.exit_line: Line | None = None
        self.failure: Exception | None = None
        self._calls: dict[int, Call] = {}
        self._last_id = 0

    @property
    def ended(self) -> bool:
        return self.failure is not None

    # Writing: each method returns the bytes to write and the calls to wait on.

    def request(self, message: Mapping[str, Any], done: Callable[[Line], bool]) -> tuple[bytes, Call]:
        if self.failure:
            raise self.failure
        self._last_id += 1
        call = Call(self._last_id, done)
        data = encode({**message, "id": call.id})
        self._calls[call.id] = call
        return data, call

    def send(
        self, store: str, action: str | Mapping[str, Any], payload: Mapping[str, Any],
        until: Until | None, settle: bool,
    ) -> tuple[bytes, Call, Call]:
        """The bytes, the call whose end ends the wait, and the call whose lines answer it."""
        if until is not None and settle:
            raise ValueError("pass until or settle, not both")
        if isinstance(action, str):
            action = {"type": action, **payload} if payload else action
        elif payload:
            action = {**action, **payload}
        # The host's own line is an `action` line, or under --emit ticks the `state` line naming it.
        done = action_matcher(until) if until is not None else (_never if settle else _is_own_line)
        data, call = self.request({"store": store, "action": action}, done)
        if not settle:
            return data, call, call
        settle_data, settled = self.command("settle")
        return data + settle_data, settled, call

    def command(self, cmd: str, **fields: Any) -> tuple[bytes, Call]:
        return self.request({"cmd": cmd, **fields}, _is_type(_ANSWERS[cmd]))

    def quit(self) -> bytes:
        return self.request({"cmd": "quit"}, _never)[0]

    # Reading.

    def receive(self, text: str | bytes) -> tuple[Line, list[Call], bool]:
        """Parses one output line, mirrors it, and returns it, the calls it finished, and
        whether any call claimed it (lines nobody claimed are the caller's events)."""
        line: Line = json.loads(text)
        kind = line["type"]
        if kind in ("action", "state") and line["store"] in self.mirror:
            self.mirror[line["store"]] = apply_patch(self.mirror[line["store"]], line["patch"])
        elif kind == "snapshot":
            # The clients snapshot every store at start to seed the mirror; a later snapshot
            # must match the mirror, not silently replace it.
            self.mirror.setdefault(line["store"], line["state"])
        elif kind == "exit":
            self.exit_line = line
            return line, self.end(), False
        finished: list[Call] = []
        claimed = False
        for id in _ids(line):
            call = self._calls.get(id)
            if call is None:
                continue
            claimed = True
            call.lines.append(line)
            if kind == "error":
                call.error = ComposableActorError(line)
            if call.error or call.done(line):
                finished.append(self._finish(call))
        return line, finished, claimed

    def end(self, failure: Exception | None = None) -> list[Call]:
        """Fails every pending call and every later one: the process is gone (or, given a
        `failure`, its output could not be followed, so the mirror cannot be trusted)."""
        self.failure = self.failure or failure or ProcessExitedError(self.exit_line)
        calls = list(self._calls.values())
        for call in calls:
            call.error = self.failure
            self._finish(call)
        return calls

    @staticmethod
    def result(waited: Call, answer: Call) -> list[Line]:
        """The lines of `answer` once `waited` finished; raises the error either met."""
        error = answer.error or waited.error
        if error:
            raise error
        return answer.lines

    def forget(self, *calls: Call) -> None:
        """Stops collecting lines for calls nobody waits on any more (answered or timed out)."""
        for call in calls:
            self._calls.pop(call.id, None)

    def _finish(self, call: Call) -> Call:
        call.finished = True
        self._calls.pop(call.id, None)
        return call


def _is_own_line(line: Line) -> bool:
    return line["type"] in ("action", "state")


def _ids(line: Line) -> list[Any]:
    if "id" in line:
        return [line["id"]]
    if "ids" in line:
        return line["ids"]
    if line["type"] == "error" and "line" in line:
        return [line["line"]]
    return []
