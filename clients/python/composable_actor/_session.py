"""The protocol without I/O, shared by the synchronous and the asyncio client.

A `Session` numbers what the host writes, matches each output line to the calls waiting for it,
keeps the state mirror and the backlog of every line read. Ids are the input line numbers (every
line the client writes takes the next one), so an error the process could not attach an id to
(`line_too_long`) still finds its call through the error's `line`.

Which lines carry which id: a line carries the id of the input line that caused it. The lines of
a long-running effect (a timer's ticks, a WebSocket's messages, an HTTP response) carry the id of
the action that *started* the effect, not the id of whatever the host sent last. That is why
`wait_for` matches lines whatever their id. A send's `until` matches only the lines that carry
its own id unless asked for any (`any_id`): concurrent sends must not take each other's lines.

Instances: a store runs a default instance and any number of named ones (`"instance":"KEY"` on a
line). A store and an instance (None: the default) name one everywhere: `send`, the `store` of
`wait_for` and `events`, the mirror. Every line about a named instance carries its key, so each
instance's mirror follows its own patches.
"""

from __future__ import annotations

import collections
import contextvars
import copy
import itertools
import json
import os
import shutil
import signal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from pathlib import Path
from typing import Any, Union

from ._patch import apply_patch

Line = dict[str, Any]
Until = Union[str, Callable[[Line], bool]]
# A store and one of its instances: the key, or None for the store's default instance.
Instance = tuple[str, Union[str, None]]

ENV_BINARY = "COMPOSABLE_ACTOR_BIN"
BINARY_NAME = "composable-actor"
DEFAULT_BACKLOG = 10_000
# Each flow of control's `wait_for` cursor, by session: a context variable, so that every asyncio
# task (and thread) has its own, starting from the one of the code that created it.
_CURSORS: contextvars.ContextVar[dict[int, int]] = contextvars.ContextVar("composable_actor_cursors")
_SESSIONS = itertools.count(1)
_ANSWERS = {
    "snapshot": "snapshot", "describe": "describe", "advance": "advanced", "settle": "settled",
    "instances": "instances", "stop": "stopped", "forget": "forgotten",
}
_SHOWN_LINES = 5
_SHOWN_CHARS = 160


class ComposableActorError(Exception):
    """The process refused a line the client wrote (an `error` line)."""

    def __init__(self, line: Line):
        self.code: str = line["code"]
        self.line: int | None = line.get("line")
        self.message: str = line["message"]
        self.id: Any = line.get("id")
        # The refused line's store and instance, when it named an instance (the process says so).
        self.store: str | None = line.get("store")
        self.instance: str | None = line.get("instance")
        # `instance_elsewhere`: the process that holds the instance (under --state-url).
        self.owner: str | None = line.get("owner")
        # The whole error line, for fields a code adds that have no attribute here.
        self.fields: Line = dict(line)
        where = f", store {self.store!r} instance {self.instance!r}" if self.instance is not None else ""
        super().__init__(f"{self.code} (input line {self.line}{where}): {self.message}")


class ProcessExitedError(Exception):
    """The process ended (an `exit` line, or its stdout closed) before the call was answered.

    Without an exit line (a crash, a signal, bad arguments) it says how the process ended when
    the client saw it end: `returncode` (its exit status, None if unknown), `signal` (the name of
    the signal that killed it, such as "SIGKILL") and `stderr`, the last lines it wrote there."""

    def __init__(self, exit_line: Line | None, returncode: int | None = None, stderr: Sequence[str] = ()):
        self.exit_line = exit_line
        self.reason: str | None = exit_line["reason"] if exit_line else None
        self.returncode = returncode
        self.signal: str | None = None
        self.stderr = list(stderr)
        if returncode is not None and returncode < 0:
            try:
                self.signal = signal.Signals(-returncode).name
            except ValueError:
                self.signal = f"signal {-returncode}"
        if exit_line:
            how = f"with reason {self.reason!r}"
        else:
            how = "without an exit line"
            if self.signal is not None:
                how += f", killed by {self.signal}"
            elif returncode is not None:
                how += f", exit status {returncode}"
        said = "".join(f"\n  {text}" for text in self.stderr)
        super().__init__(f"composable-actor exited {how}" + (f"; the end of its stderr:{said}" if said else ""))


class MissedLinesError(Exception):
    """An `events()` iterator fell so far behind that `missed` lines it had not read yet were
    dropped from the backlog (which keeps `backlog` lines). The iterator is not ended: iterated
    again, it goes on with the oldest line still kept. A reader that keeps its own copy of a
    state resyncs from a snapshot: `snapshot(store)` writes a `snapshot` line that the iterator
    yields in its place among the lines (the client's own `state()` never misses a line)."""

    def __init__(self, missed: int, store: str | None = None, instance: str | None = None):
        self.missed = missed
        self.store = store
        self.instance = instance
        super().__init__(
            f"events() fell behind: {missed} lines were dropped from the backlog before it read them "
            "(iterate on for the oldest line still kept; snapshot to resync)"
        )


def _close_matches(word: str, candidates: Sequence[str], n: int) -> list[str]:
    import difflib  # only for these errors: it would slow every start down

    return difflib.get_close_matches(word, candidates, n=n)


class UnknownStoreError(KeyError):
    """A store name the process does not have (a `KeyError`, with a readable message)."""

    def __init__(self, store: object, stores: Sequence[str]):
        self.store = store
        self.stores = list(stores)
        close = _close_matches(str(store), self.stores, 1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        self.message = f"unknown store {store!r}{hint} The stores are: {', '.join(self.stores)}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class UnknownInstanceError(KeyError):
    """`state` of a named instance the client has seen no line about: the process never
    activated it, or it was stopped or forgotten (a `KeyError`, with a readable message)."""

    def __init__(self, store: str, instance: str):
        self.store = store
        self.instance = instance
        self.message = (
            f"no instance {instance!r} of store {store!r} is active: send it an action or snapshot it "
            "first (a stopped or forgotten instance is gone)"
        )
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class UnknownActionError(ValueError):
    """An action type, given to `until` or `wait_for`, that no store (or not the store named)
    has according to `describe`: a wait that could never end."""

    def __init__(self, action: str, store: str | None, known: Sequence[str]):
        self.action = action
        self.store = store
        close = _close_matches(action, known, 3)
        where = f"in store {store!r}" if store else "in any store"
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        super().__init__(f"no action type {action!r} {where} (from describe){hint}")


@dataclass(eq=False, slots=True)
class Watch:
    """A wait for the first line from index `start` on that `matches` `until` (of the store's
    `instance`, with a store): whatever its id, or (`own`, the id) among the lines carrying its
    call's id."""

    matches: Callable[[Line], bool]
    start: int
    until: Until
    store: str | None = None
    instance: str | None = None
    # The action type it waits for (None: a predicate): the key it is found by, so that a line
    # is offered only to the watches of its own action type.
    action: str | None = None
    own: int | None = None
    line: Line | None = None
    index: int = -1
    error: Exception | None = None
    call: Call | None = None  # the call this watch ends (a send's `until`), else a `wait_for`

    @property
    def done(self) -> bool:
        return self.line is not None or self.error is not None

    @property
    def what(self) -> str:
        """What it waits for, in words (for timeouts; built only then)."""
        return _awaited(self.until, self.store, self.instance, self.own)

    @property
    def finished(self) -> bool:
        """`done`, under the name calls have: a client waits on either alike."""
        return self.line is not None or self.error is not None


@dataclass(eq=False, slots=True)
class Call:
    """One written line still waiting for its answer; `lines` collects every line echoing its id.

    It ends with an error, or once its own answer arrived (a line of a type in `answers`) and,
    with a `watch`, the watch matched a line too, or with `awaits`, one of its lines was an
    action of that type.
    """

    id: int
    answers: frozenset[str]
    subject: str  # the action type sent, or the command
    store: str | None = None  # the store an action went to
    instance: str | None = None  # and its instance (None: the default one)
    lines: list[Line] = field(default_factory=list)
    error: Exception | None = None
    answered: bool = False
    finished: bool = False
    watch: Watch | None = None
    # A send's own `until` on an action type, the most common: matched among its lines in
    # `receive`, with no `Watch` (whose making cost about a tenth of a round trip).
    awaits: str | None = None
    matched: bool = False
    internal: bool = False  # asked by the client itself: its answer stays out of the backlog
    seeds: Instance | None = None  # a snapshot asked to seed that instance's mirror

    @property
    def what(self) -> str:
        """What waiting for this call waits for, in words (for timeouts; built only then)."""
        if self.store is None:
            text = f"the answer to {self.subject} (id {self.id})"
        else:
            text = f"the line of action {self.subject!r} in {_where(self.store, self.instance)} (id {self.id})"
        if self.awaits is not None:
            return f"{text} and {_awaited(self.awaits, self.store, self.instance, self.id)}"
        return text if self.watch is None else f"{text} and {self.watch.what}"


def _awaited(until: Until, store: str | None, instance: str | None, own: int | None) -> str:
    """What a wait waits for, in words."""
    if callable(until):
        text = f"a line matching {getattr(until, '__qualname__', None) or repr(until)}"
    else:
        text = f"action {until!r}"
    if store is not None:
        text += f" in {_where(store, instance)}"
    return text if own is None else f"{text} caused by input line {own}"


Waiter = Union[Call, Watch]


def _usable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _checkout_build() -> Path | None:
    """The repository's release build, when this package is a checkout's clients/python."""
    here = Path(__file__).resolve().parent
    if len(here.parents) < 3:
        return None
    root = here.parents[2]
    if not (root / "Package.swift").is_file() or root / "clients/python/composable_actor" != here:
        return None
    return root / ".build/release" / BINARY_NAME


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """The composable-actor binary: `binary` when given, else $COMPOSABLE_ACTOR_BIN, else
    `composable-actor` on PATH, else the repository's `.build/release` when this package is
    inside a checkout. A path given (argument or variable) that is not an executable file is
    an error at once; otherwise the error lists every place looked at."""
    if binary is not None:
        if not isinstance(binary, (str, os.PathLike)):
            raise TypeError(f"binary must be a path (str or os.PathLike), not {type(binary).__name__}")
        if _usable(Path(binary)):
            return str(binary)
        raise FileNotFoundError(f"no executable composable-actor binary at {os.fspath(binary)!r} (the binary argument)")
    looked = []
    variable = os.environ.get(ENV_BINARY)
    if variable:
        if _usable(Path(variable)):
            return variable
        raise FileNotFoundError(f"${ENV_BINARY} is {variable!r}, which is not an executable file")
    looked.append(f"${ENV_BINARY} (not set)")
    on_path = shutil.which(BINARY_NAME)
    if on_path:
        return on_path
    looked.append(f"{BINARY_NAME!r} on PATH ({os.environ.get('PATH', '')})")
    build = _checkout_build()
    if build is not None:
        if _usable(build):
            return str(build)
        looked.append(str(build))
    else:
        looked.append("the repository's .build/release (this package is not inside a checkout)")
    raise FileNotFoundError(
        "no composable-actor binary found; looked at: " + "; ".join(looked)
        + f". Pass its path, set ${ENV_BINARY}, or put it on PATH"
    )


def command_line(binary: str | os.PathLike[str] | None, args: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The binary and its arguments, with clear errors for arguments of the wrong type."""
    if isinstance(args, (str, bytes)):
        example = args.split() if isinstance(args, str) else args
        raise TypeError(f"args must be a list of arguments, such as {example!r}, not the string {args!r}")
    try:
        items = list(args)
    except TypeError:
        raise TypeError(f"args must be a list of strings, not {type(args).__name__}") from None
    for index, item in enumerate(items):
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(
                f"args[{index}] is {item!r} ({type(item).__name__}): every argument must be a str, "
                f"such as {str(item)!r}"
            )
    return [find_binary(binary), *(os.fspath(item) for item in items)]


def check_timeout(timeout: float | None, name: str = "timeout") -> None:
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, Real) or timeout < 0):
        raise TypeError(f"{name} must be a number of seconds (>= 0) or None, not {timeout!r}")


def check_instance(instance: object, store: object) -> None:
    """Refuses an instance that is not a str, or one without a store to belong to. The key's
    content (non-empty, at most 256 bytes, no control characters) is the process's to check:
    it refuses such a line with `invalid_message` and the reason."""
    if instance is None:
        return
    if not isinstance(instance, str):
        raise TypeError(f"instance must be a key (str) or None for the default instance, not {type(instance).__name__}")
    if store is None:
        raise ValueError(f"instance {instance!r} needs its store: pass store= too")


def check_key(instance: object, command: str) -> None:
    """`stop` and `forget` end a named instance: the key is required (None, the default
    instance, is not one they can end)."""
    if not isinstance(instance, str):
        raise TypeError(f"{command}: instance must be a key (str), not {type(instance).__name__}")


def check_page(page: int) -> None:
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise TypeError(f"page must be a positive int (keys asked at a time), not {page!r}")


def addressed(store: str, instance: str | None) -> dict[str, str]:
    """The members that name a store's instance on an input line (none for the default)."""
    return {"store": store} if instance is None else {"store": store, "instance": instance}


def about(store: str | None, instance: str | None) -> Callable[[Line], bool] | None:
    """Whether a line is about the store's `instance` (None: its default one); None for no store,
    which takes every line."""
    if store is None:
        return None
    return lambda line: line.get("store") == store and line.get("instance") == instance


def _where(store: str, instance: str | None) -> str:
    return f"store {store!r}" if instance is None else f"store {store!r} instance {instance!r}"


def check_backlog(backlog: int) -> None:
    if isinstance(backlog, bool) or not isinstance(backlog, int) or backlog < 1:
        raise TypeError(f"backlog must be a positive int (lines kept), not {backlog!r}")


def stores_state(args: Sequence[str]) -> bool:
    """Whether the command line gives the process durable storage (`--state-dir`, `--state-url`):
    it then reads instances back from storage, so a mirror cannot start from the initial state."""
    return any(arg in ("--state-dir", "--state-url") or arg.startswith(("--state-dir=", "--state-url=")) for arg in args)


def emits_ticks(args: Sequence[str]) -> bool:
    """Whether the command line says `--emit ticks` (its lines then name no action types)."""
    return any(
        (arg == "--emit" and index + 1 < len(args) and args[index + 1] == "ticks") or arg == "--emit=ticks"
        for index, arg in enumerate(args)
    )


# One encoder and decoder for every line: json.dumps with options builds an encoder per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_DECODER = json.JSONDecoder()
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
# The bytes of an action line up to its id, by store, instance and action type: most sends
# repeat a few plain actions. Bounded: cleared when full.
_PREFIXES: dict[tuple[str, str | None, str], bytes] = {}
_PREFIXES_KEPT = 1024


def encode(message: Mapping[str, Any]) -> bytes:
    return _ENCODER.encode(message).encode() + b"\n"


def _prefix(store: str, instance: str | None, action: str) -> bytes:
    """The bytes of an action line up to its id (kept in _PREFIXES): the encoded object without
    its closing brace, then the id member."""
    if len(_PREFIXES) >= _PREFIXES_KEPT:
        _PREFIXES.clear()
    prefix = _PREFIXES[store, instance, action] = encode({**addressed(store, instance), "action": action})[:-2] + b',"id":'
    return prefix


def decode(text: str | bytes) -> Any:
    """One line's value. The scanner itself, not `json.loads`: that detects the encoding and
    matches whitespace around the value with regular expressions, a third of its time on a line
    the process wrote (UTF-8, no leading whitespace)."""
    if isinstance(text, bytes):
        text = text.decode()
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        end = -1
    if end < 0 or (end < len(text) and not text[end:].isspace()):
        return _DECODER.decode(text)  # raises the error that says where
    return value


# Whether a line is an action of a type (of a store's instance), by type, store and instance:
# sends wait for a few types again and again. Bounded: cleared when full.
_ACTION_MATCHERS: dict[tuple[str, str | None, str | None], Callable[[Line], bool]] = {}


def _is_action(action: str, store: str | None, instance: str | None) -> Callable[[Line], bool]:
    key = (action, store, instance)
    matches = _ACTION_MATCHERS.get(key)
    if matches is None:
        if len(_ACTION_MATCHERS) >= _PREFIXES_KEPT:
            _ACTION_MATCHERS.clear()

        def matches(line: Line) -> bool:
            return line["type"] == "action" and line["action"]["type"] == action and (
                store is None or (line["store"] == store and line.get("instance") == instance))

        _ACTION_MATCHERS[key] = matches
    return matches


# The line types that answer a call: none (it waits for something else), or an action's own line
# (under --emit ticks, the `state` line naming it).
_NEVER: frozenset[str] = frozenset()
_OWN_LINE = frozenset(("action", "state"))


def describe_line(line: Line) -> str:
    text = json.dumps(line, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


class Session:
    """One process's protocol state: ids, pending calls, the mirror, the backlog of lines, and
    how it ended."""

    def __init__(
        self, first_line: str | bytes | None, *, backlog: int = DEFAULT_BACKLOG, ticks: bool = False,
        durable: bool = False,
    ):
        """Starts from the process's first output line (None: it closed stdout at once).

        `durable`: the process has durable storage, so an instance's state is whatever it reads
        back: the mirror of an instance is only ever seeded from a snapshot (the first `send` to
        an instance without a mirror writes one just before the action), never from the store's
        initial state."""
        if first_line is None:
            raise ProcessExitedError(None)
        try:
            self.ready: Line = json.loads(first_line)
        except ValueError:
            self.ready = {}
        if not isinstance(self.ready, dict) or self.ready.get("type") != "ready":
            shown = first_line.strip()[:200]
            raise ValueError(f"expected a ready line first, got {shown!r}")
        self.stores: list[str] = list(self.ready["stores"])
        # The same as a set: a send may look its store up here first (`check_store` says why not).
        self.store_set = frozenset(self.stores)
        self.ticks = ticks
        self.durable = durable
        # Each instance's state, by store and key; a named instance joins with the first line
        # about it and leaves with its `stopped` or `forgotten` line.
        self.mirror: dict[Instance, Any] = {}
        # Each store's initial state (the first snapshot of its default instance, taken at start
        # before anything was sent): a named instance is activated from it, so its first patch
        # applies to a copy of it.
        self.initial: dict[str, Any] = {}
        self.exit_line: Line | None = None
        self.failure: Exception | None = None
        # Every line after `ready`, the oldest dropped first; `received` counts them all, so the
        # line at backlog[k] has the index received - len(backlog) + k. Kept as the text read
        # and parsed again when read (`kept`): thousands of parsed lines kept alive would make
        # every collection of the garbage collector walk them.
        self.backlog: collections.deque[str | bytes] = collections.deque(maxlen=backlog)
        self.received = 0
        # Where `wait_for` starts is each flow's own (`cursor()`): this session's key in _CURSORS.
        self._token = next(_SESSIONS)
        # The instances a seeding snapshot was written for, not answered yet.
        self._seeding: set[Instance] = set()
        # Action types by store, from `describe` (fetched once, when an action type is awaited).
        self.actions: dict[str, list[str]] | None = None
        # The same as sets, by store, and None for every store's: checked on every `until` (a
        # send may look a type up here first, and check it fully only when it is not there).
        self.known: dict[str | None, frozenset[str]] = {}
        self._calls: dict[int, Call] = {}
        # The waits offered every new line, apart from a send's own `until` (its call holds it):
        # by the action type they wait for, and those on a predicate (ordered sets).
        self._typed: dict[str, dict[Watch, None]] = {}
        self._predicates: dict[Watch, None] = {}
        self._last_id = 0

    @property
    def ended(self) -> bool:
        return self.failure is not None

    def check_store(self, store: object) -> str:
        if not isinstance(store, str) or store not in self.store_set:
            if not isinstance(store, str):
                raise TypeError(f"store must be a str, not {type(store).__name__}")
            raise UnknownStoreError(store, self.stores)
        return store

    def check_scope(self, store: str | None, instance: str | None) -> None:
        """Checks the store and instance a call is limited to, if any."""
        if store is not None:
            self.check_store(store)
        check_instance(instance, store)

    def learn(self, description: Line) -> None:
        """Keeps the action types of a `describe` answer, to check awaited types against."""
        self.actions = {
            store["name"]: [action["type"] for action in store["actions"]] for store in description["stores"]
        }
        self.known = {store: frozenset(types) for store, types in self.actions.items()}
        self.known[None] = frozenset(itertools.chain(*self.actions.values()))

    def needs_description(self, until: object) -> bool:
        """Whether checking `until` needs the `describe` answer, not fetched yet (and still
        available: once the process ended, the lines kept can be searched unchecked)."""
        return isinstance(until, str) and not self.ticks and self.actions is None and self.failure is None

    def check_until(self, until: object, store: str | None) -> None:
        """Refuses, before anything is written or awaited, what could never match: an action
        type unknown to `describe` (needs `learn` first when `until` is a str)."""
        if callable(until):
            return
        if not isinstance(until, str):
            raise TypeError(f"until must be an action type (str) or a predicate on lines, not {type(until).__name__}")
        if self.ticks:
            raise ValueError(
                f"under --emit ticks no line names its action type, so {until!r} could never match: "
                "pass a predicate on lines instead"
            )
        if self.actions is None:  # the process ended before describe could be asked
            return
        if until not in self.known.get(store or None, ()):
            known = self.actions.get(store, []) if store else sorted(self.known[None])
            raise UnknownActionError(until, store, known)

    # Writing: each method returns the bytes to write and the calls to wait on.

    def request(
        self, message: Mapping[str, Any], answers: frozenset[str], subject: str, internal: bool = False,
    ) -> tuple[bytes, Call]:
        if self.failure:
            raise self.failure
        # Encoded first: a message that cannot be (a NaN, an object) takes no id, so the ids
        # stay the numbers of the lines written.
        data = encode({**message, "id": self._last_id + 1})
        return data, self._call(answers, subject, internal)

    def _call(self, answers: frozenset[str], subject: str, internal: bool = False) -> Call:
        if self.failure:
            raise self.failure
        self._last_id = id = self._last_id + 1
        call = self._calls[id] = Call(id, answers, subject, internal=internal)
        return call

    def send(
        self, store: str, instance: str | None, action: str | Mapping[str, Any], payload: Mapping[str, Any],
        until: Until | None, settle: bool, any_id: bool = False,
    ) -> tuple[bytes, Call, Call]:
        """The bytes, the call whose end ends the wait, and the call whose lines answer it.

        `until` (checked with `check_until` first) watches the lines read from now on that carry
        the action's id, or with `any_id` every line."""
        if until is not None and settle:
            raise ValueError("pass until or settle, not both")
        if isinstance(action, str):
            message_action: str | Mapping[str, Any] = {"type": action, **payload} if payload else action
            kind = action
        elif isinstance(action, Mapping):
            message_action = {**action, **payload} if payload else action
            kind = str(action.get("type"))
        else:
            raise TypeError(f"action must be an action type (str) or an action object (dict), not {type(action).__name__}")
        # The host's own line is an `action` line, or under --emit ticks the `state` line naming it.
        answers = _NEVER if settle else _OWN_LINE
        seed = self.seed(store, instance) if self.durable else b""
        if message_action is action and isinstance(action, str):
            # An action given by its type alone: from the bytes kept for it.
            prefix = _PREFIXES.get((store, instance, action)) or _prefix(store, instance, action)
            if self.failure:
                raise self.failure
            # `_call` inline: a call costs as much as what it does, on every send.
            self._last_id = id = self._last_id + 1
            call = self._calls[id] = Call(id, answers, action, store, instance)
            data = b"%s%d}\n" % (prefix, id)
        else:
            data, call = self.request({**addressed(store, instance), "action": message_action}, answers, kind)
            call.store = store
            call.instance = instance
        if seed:
            data = seed + data
        if until is not None:
            if any_id or not isinstance(until, str):
                watch = self._watch(until, store, instance, self.received, None if any_id else call.id)
                watch.call = call
                call.watch = watch
                if any_id:
                    self._register(watch)
            else:
                call.awaits = until
        if not settle:
            return data, call, call
        settle_data, settled = self.command("settle")
        return data + settle_data, settled, call

    def command(self, cmd: str, **fields: Any) -> tuple[bytes, Call]:
        return self.request({"cmd": cmd, **fields}, frozenset((_ANSWERS[cmd],)), cmd)

    def ask(self, cmd: str) -> tuple[bytes, Call]:
        """A command the client writes for itself: its answer is not kept in the backlog."""
        return self.request({"cmd": cmd}, frozenset((_ANSWERS[cmd],)), cmd, internal=True)

    def seed(self, store: str, instance: str | None) -> bytes:
        """Under durable storage, the snapshot to write just before the first action to an
        instance without a mirror (nobody waits for it: its line seeds the mirror before the
        action's patch comes); nothing otherwise, and nothing while one is on its way."""
        key = (store, instance)
        if not self.durable or key in self.mirror or key in self._seeding:
            return b""
        data, call = self.command("snapshot", **addressed(store, instance))
        call.seeds = key
        self._seeding.add(key)
        return data

    def cursor(self) -> int:
        """Where this flow's next `wait_for` starts (0, the first line, for a flow that has not
        waited yet, nor the code that started it)."""
        return _CURSORS.get({}).get(self._token, 0)

    def passed(self, watch: Watch) -> None:
        """Moves this flow's cursor just past the line a `wait_for` returned."""
        cursors = _CURSORS.get({})
        if watch.line is not None and watch.index + 1 > cursors.get(self._token, 0):
            _CURSORS.set({**cursors, self._token: watch.index + 1})

    def state(self, store: str, instance: str | None) -> Any:
        """A copy of the instance's mirror."""
        try:
            return copy.deepcopy(self.mirror[store, instance])
        except KeyError:
            assert instance is not None  # every store's default is seeded at start
            raise UnknownInstanceError(store, instance) from None

    @staticmethod
    def page(store: str, limit: int, after: str | None) -> dict[str, Any]:
        """The fields of an `instances` command asking for the page after `after`."""
        return {"store": store, "limit": limit} if after is None else {"store": store, "limit": limit, "after": after}

    @staticmethod
    def keys(answer: Line) -> list[str]:
        """An `instances` page's keys, those in memory and (under --state-dir) those stored
        only, as one list in byte order: the process pages both together, so each page is one
        range of that order and the pages follow each other. A str's order is that of its code
        points, which is the byte order of its UTF-8."""
        active: list[str] = answer["active"]
        passivated: list[str] = answer.get("passivated", [])
        return sorted(active + passivated) if passivated else active

    def quit(self) -> bytes:
        return self.request({"cmd": "quit"}, _NEVER, "quit")[0]

    def wait_for(self, until: Until, store: str | None, instance: str | None) -> Watch:
        """A watch from this flow's `wait_for` cursor on (the caller moves it with `passed` once
        the watch matched): done at once if a line still in the backlog
        matches (a predicate that raises here raises to the caller), else registered so that
        `receive` offers it every new line. Raises the session's failure when it ended."""
        watch = self._watch(until, store, instance, self.cursor())
        for index, line in self.kept(watch.start):
            if watch.matches(line):
                self._matched(watch, line, index)
                return watch
        if self.failure:
            raise self.failure
        self._register(watch)
        return watch

    def kept(self, start: int = 0) -> Iterator[tuple[int, Line]]:
        """The lines still kept from index `start` on, parsed afresh, with their indexes."""
        base = self.received - len(self.backlog)
        start = max(start, base)
        for index, text in enumerate(itertools.islice(self.backlog, start - base, None), start):
            yield index, decode(text)

    # Reading.

    def receive(self, text: str | bytes) -> tuple[Line, list[Waiter]]:
        """Parses one output line, mirrors it, keeps it in the backlog, and returns it with the
        calls and watches it finished."""
        # `decode` inline (a line read is almost always one value, nothing around it): this runs
        # for every line, and a call here is a fair part of what the client adds to a round trip.
        string = text.decode() if isinstance(text, bytes) else text
        try:
            line, end = _SCAN(string, 0)
        except StopIteration:
            end = -1
        if end != len(string):
            line = decode(string)
        kind = line["type"]
        if kind in ("action", "state"):
            key = (line["store"], line.get("instance"))
            state = self.mirror.get(key)
            if state is None and key[1] is not None and key[0] in self.initial and not self.durable:
                state = copy.deepcopy(self.initial[key[0]])  # its first line: just activated
            if state is not None:
                self.mirror[key] = apply_patch(state, line["patch"])
        elif kind == "snapshot":
            # The clients snapshot every store at start to seed the mirror; a later snapshot
            # must match the mirror, not silently replace it.
            key = (line["store"], line.get("instance"))
            if key not in self.mirror:
                # A copy: the line (kept in the backlog, its state returned by `snapshot`) must
                # go on showing the state it was, not the mirror as patches change it.
                self.mirror[key] = copy.deepcopy(line["state"])
                if key[1] is None:
                    self.initial[key[0]] = copy.deepcopy(line["state"])
        elif kind in ("stopped", "forgotten"):
            # Freed by the process (and, forgotten, deleted from storage): a later line naming
            # the key starts it afresh.
            self.mirror.pop((line["store"], line["instance"]), None)
        index = self.received
        if kind == "describe" and (asked := self._calls.get(line.get("id", -1))) is not None and asked.internal:
            # The client's own question (the action types to check `until` with): the answer
            # is not one of the user's lines, and ~20 KB of backlog.
            index = -1
        else:
            self.received = index + 1
            self.backlog.append(text)
        finished: list[Waiter] = []
        if kind != "exit":
            id = line.get("id", _ids)
            for id in (id,) if id is not _ids else _ids(line):
                call = self._calls.get(id)
                if call is None:
                    continue
                call.lines.append(line)
                if kind == "error":
                    call.error = ComposableActorError(line)
                elif not call.answered and kind in call.answers:
                    call.answered = True
                watch = call.watch
                if watch is None:
                    awaits = call.awaits
                    if awaits is None:
                        if call.error or call.answered:
                            finished.append(self._finish(call))
                        continue
                    # An action of its type, in its store's instance (as `_is_action` matches).
                    if (not call.matched and kind == "action" and line["action"]["type"] == awaits
                            and line["store"] == call.store and line.get("instance") == call.instance):
                        call.matched = True
                    if call.error or (call.answered and call.matched):
                        finished.append(self._finish(call))
                    continue
                # A send's own `until` is offered the lines of its id only: found with its call.
                if (watch.own is not None and call.error is None and watch.line is None and watch.error is None
                        and index >= watch.start):
                    if self._offer(watch, line, index):
                        call.error = watch.error
                if call.error or (call.answered and watch.line is not None):
                    finished.append(self._finish(call))
        if index >= 0:
            # Every other wait is found by what it waits for: an action line is offered to the
            # waits for its action type only, and any line to the waits on a predicate.
            if kind == "action" and self._typed:
                action_type = line["action"]["type"]
                waits = self._typed.get(action_type)
                if waits:
                    self._offer_all(waits, line, index, finished)
                    if not waits:
                        self._typed.pop(action_type, None)
            if self._predicates:
                self._offer_all(self._predicates, line, index, finished)
        if kind == "exit":
            self.exit_line = line
            finished += self.end()
        return line, finished

    def end(self, failure: Exception | None = None) -> list[Waiter]:
        """Fails every pending call and watch and every later one: the process is gone (or,
        given a `failure`, its output could not be followed, so the mirror cannot be trusted)."""
        self.failure = self.failure or failure or ProcessExitedError(self.exit_line)
        ended: list[Waiter] = []
        for call in list(self._calls.values()):
            call.error = self.failure
            ended.append(self._finish(call))
        for watches in (self._predicates, *self._typed.values()):
            for watch in watches:
                if watch.call is None:
                    watch.error = self.failure
                    ended.append(watch)
        self._predicates.clear()
        self._typed.clear()
        return ended

    @staticmethod
    def result(waited: Call, answer: Call) -> list[Line]:
        """The lines of `answer` once `waited` finished, plus the line its watch matched when
        that one carries another id; raises the error either met."""
        error = answer.error or waited.error
        if error:
            raise error
        watch = answer.watch
        # A send's own `until` matched one of its lines.
        if (watch is not None and watch.own is None and watch.line is not None
                and not any(line is watch.line for line in answer.lines)):
            return [*answer.lines, watch.line]
        return answer.lines

    @staticmethod
    def watched(watch: Watch) -> Line:
        if watch.error:
            raise watch.error
        assert watch.line is not None
        return watch.line

    def forget(self, *waiters: Waiter) -> None:
        """Stops collecting lines for calls and watches nobody waits on any more."""
        for waiter in waiters:
            if waiter.finished:
                continue  # `_finish` (or, for a watch, its match) let it go already
            if isinstance(waiter, Call):
                self._calls.pop(waiter.id, None)
                watch = waiter.watch
                if watch is not None:
                    watch.call = None  # the cycle, as `_finish` breaks it
            else:
                watch = waiter
            if watch is not None and watch.own is None:
                self._unregister(watch)

    def timed_out(self, what: str, seconds: float | None) -> TimeoutError:
        """The error of a wait that ran out of time: what it waited for and the last lines."""
        shown = [decode(text) for text in list(itertools.islice(reversed(self.backlog), _SHOWN_LINES))[::-1]]
        last = "".join(f"\n  {describe_line(line)}" for line in shown) if shown else " none"
        return TimeoutError(
            f"timed out after {seconds} s waiting for {what}; the last {len(shown)} lines read "
            f"(of {self.received}):{last}"
        )

    def _watch(self, until: Until, store: str | None, instance: str | None, start: int, own: int | None = None) -> Watch:
        """With a store, only the lines of that store's `instance` (None: its default) match;
        with `own`, only lines carrying that id (a send's `until`)."""
        if callable(until):
            ours = about(store, instance)
            matches = until if ours is None else (lambda line: ours(line) and until(line))
            return Watch(matches, start, until, store, instance, None, own)
        matches = _ACTION_MATCHERS.get((until, store, instance)) or _is_action(until, store, instance)
        return Watch(matches, start, until, store, instance, until, own)

    def _register(self, watch: Watch) -> None:
        """Adds a wait that is not its call's own to those offered new lines."""
        if watch.action is None:
            self._predicates[watch] = None
        else:
            self._typed.setdefault(watch.action, {})[watch] = None

    def _unregister(self, watch: Watch) -> None:
        if watch.own is not None:  # a send's own `until` is its call's, never registered
            return
        if watch.action is None:
            self._predicates.pop(watch, None)
        elif (waits := self._typed.get(watch.action)) is not None:
            waits.pop(watch, None)
            if not waits:
                del self._typed[watch.action]

    def _offer_all(self, watches: dict[Watch, None], line: Line, index: int, finished: list[Waiter]) -> None:
        """Offers `line` to `watches`, removing and finishing (into `finished`) those it ends."""
        for watch in list(watches):
            if index >= watch.start and self._offer(watch, line, index):
                del watches[watch]
                call = watch.call
                if call is None:
                    finished.append(watch)
                elif not call.finished and (call.answered or watch.error):
                    call.error = call.error or watch.error
                    finished.append(self._finish(call))

    def _offer(self, watch: Watch, line: Line, index: int) -> bool:
        """Whether `line` ends `watch`: it matches, or the predicate raised (the error is the
        watch's, for its own caller; the client goes on)."""
        try:
            if not watch.matches(line):
                return False
        except Exception as error:
            watch.error = error
            return True
        self._matched(watch, line, index)
        return True

    def _matched(self, watch: Watch, line: Line, index: int) -> None:
        watch.line = line
        watch.index = index

    def _finish(self, call: Call) -> Call:
        call.finished = True
        if call.seeds is not None:
            self._seeding.discard(call.seeds)
        self._calls.pop(call.id, None)
        watch = call.watch
        if watch is not None:
            if watch.own is None:  # a send's own `until` was never registered
                self._unregister(watch)
            # A call and its watch point at each other: without this, they (and the lines they
            # hold) would wait for the garbage collector to find the cycle.
            watch.call = None
        return call


class Follower:
    """An `events()` iterator's place in the backlog. It holds no line of its own, so it costs
    nothing however far behind it is or whether it is iterated at all: it takes its place (the
    oldest line kept) on its first step, and reads the session's backlog from there."""

    def __init__(self, session: Session, store: str | None, instance: str | None):
        self.session = session
        self.store = store
        self.instance = instance
        self.ours = about(store, instance)
        self.position: int | None = None

    def step(self) -> Line | None:
        """The next line for the iterator, or None when it must wait for one. Raises
        `MissedLinesError` when lines it had not read were dropped (and moves on to the oldest
        kept), and at the end the session's failure, unless the process wrote its exit line
        (then StopIteration, as a plain end)."""
        session = self.session
        base = session.received - len(session.backlog)
        if self.position is None:
            self.position = base
        while True:
            if self.position < base:
                missed, self.position = base - self.position, base
                raise MissedLinesError(missed, self.store, self.instance)
            if self.position < session.received:
                line: Line = decode(session.backlog[self.position - base])
                self.position += 1
                if self.ours is None or self.ours(line):
                    return line
                continue
            if not session.ended:
                return None
            if session.exit_line is not None and isinstance(session.failure, ProcessExitedError):
                raise StopIteration
            assert session.failure is not None
            raise session.failure


def _ids(line: Line) -> list[Any]:
    if "id" in line:
        return [line["id"]]
    if "ids" in line:
        ids: list[Any] = line["ids"]
        return ids
    if line["type"] == "error" and "line" in line:
        return [line["line"]]
    return []
