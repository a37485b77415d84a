"""Typed views of a binary's stores, for the module `composable-actor types --language python`
writes: its `store(client, name)` picks, by the store's name, the host actions a `Store` (or an
`AsyncStore`) sends, the state it returns and the lines it reads, so that mypy rejects an
unknown store, an action type the store has not, a payload of the wrong type and an action
only the store's effects send.

    from stores import store                  # the generated module
    primes = store(actor, "primes")           # Store[Literal["primes"], PrimesHostAction, …]
    for line in primes.send({"type": "counter.countChanged", "value": 7}):
        if line["type"] == "action":          # narrowed: line["action"] is a PrimesAction
            ...

A view holds no state of its own: it calls the client it was made from, which stays usable as
it is (untyped). The line types follow schemas/output.schema.json.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar, Union, cast

from ._async import AsyncClient
from ._session import UnknownStoreError
from ._sync import Client

N = TypeVar("N", bound=str)
"""The store's name, a literal."""
A = TypeVar("A")
"""Any action of the store."""
H = TypeVar("H")
"""The actions a host sends it."""
S = TypeVar("S")
"""Its state."""

Patch = list[dict[str, Any]]
"""RFC 6902 operations: `op`, `path`, and `value` or `from`."""


class ActionLine(TypedDict, Generic[N, A]):
    """One reduced action and the patch it produced."""

    type: Literal["action"]
    store: N
    instance: NotRequired[str]
    seq: int
    id: NotRequired[str | int]
    source: Literal["host", "effect"]
    effect: NotRequired[int]
    action: A
    patch: Patch


class StateLine(TypedDict, Generic[N, A]):
    """With --emit ticks: the actions one store reduced in one loop iteration, one patch."""

    type: Literal["state"]
    store: N
    instance: NotRequired[str]
    seq: int
    actions: int
    ids: NotRequired[list[str | int]]
    patch: Patch


class SnapshotLine(TypedDict, Generic[N, S]):
    """The whole state after the action numbered `seq`."""

    type: Literal["snapshot"]
    store: N
    instance: NotRequired[str]
    seq: int
    id: NotRequired[str | int]
    state: S


class EffectCancellation(TypedDict):
    reason: str
    seq: NotRequired[int]


class EffectLine(TypedDict, Generic[N]):
    """With run --trace effects: a moment in the life of one effect."""

    type: Literal["effect"]
    store: N
    instance: NotRequired[str]
    effect: int
    event: Literal["started", "sleeping", "finished", "cancelled", "failed"]
    cause: int
    operator: Literal["run", "merge", "concatenate", "throttle", "cancellable"]
    cancelID: NotRequired[str]
    by: NotRequired[EffectCancellation]
    error: NotRequired[str]
    until: NotRequired[int]
    t: int


class ErrorLine(TypedDict):
    """An input line refused (it changed nothing), or an effect's failure; `code` says which."""

    type: Literal["error"]
    code: str
    message: str
    line: NotRequired[int]
    store: NotRequired[str]
    instance: NotRequired[str]
    action: NotRequired[dict[str, Any]]
    owner: NotRequired[str]
    id: NotRequired[str | int]


class SettledLine(TypedDict):
    type: Literal["settled"]
    id: NotRequired[str | int]


class AdvancedLine(TypedDict):
    type: Literal["advanced"]
    ms: int
    now: int
    id: NotRequired[str | int]


class ExitLine(TypedDict):
    """The last line."""

    type: Literal["exit"]
    reason: Literal["eof", "quit", "signal"]
    signal: NotRequired[str]
    cancelledEffects: int


StoreLine = Union[
    ActionLine[N, A], StateLine[N, A], SnapshotLine[N, S], EffectLine[N], ErrorLine, SettledLine, AdvancedLine,
    ExitLine,
]
"""A line a store's view reads: narrow it by its `type`."""

TypedUntil = Union[str, Callable[[Any], bool]]


class Store(Generic[N, A, H, S]):
    """A `Client`'s store, typed: the generated `store(client, name)` makes it."""

    def __init__(self, client: Client, name: N) -> None:
        self.client = client
        self.name = name

    def send(
        self, action: H, *, instance: str | None = None, until: TypedUntil | None = None, settle: bool = False,
        any_id: bool = False, timeout: float | None = None,
    ) -> list[StoreLine[N, A, S]]:
        """`Client.send` of a whole action."""
        whole: Any = action  # a TypedDict of the store's: the client takes any mapping
        lines = self.client.send(
            self.name, whole, instance=instance, until=until, settle=settle, any_id=any_id, timeout=timeout)
        return cast("list[StoreLine[N, A, S]]", lines)

    def state(self, *, instance: str | None = None) -> S:
        """`Client.state`: the local mirror."""
        state: S = self.client.state(self.name, instance=instance)
        return state

    def snapshot(self, *, instance: str | None = None, timeout: float | None = None) -> S:
        state: S = self.client.snapshot(self.name, instance=instance, timeout=timeout)
        return state

    def wait_for(
        self, until: TypedUntil, *, instance: str | None = None, timeout: float | None = None,
    ) -> StoreLine[N, A, S]:
        line = self.client.wait_for(until, store=self.name, instance=instance, timeout=timeout)
        return cast("StoreLine[N, A, S]", line)

    def events(self, *, instance: str | None = None) -> Iterator[StoreLine[N, A, S]]:
        return cast("Iterator[StoreLine[N, A, S]]", self.client.events(store=self.name, instance=instance))


class AsyncStore(Generic[N, A, H, S]):
    """An `AsyncClient`'s store, typed, as `Store` is a `Client`'s."""

    def __init__(self, client: AsyncClient, name: N) -> None:
        self.client = client
        self.name = name

    async def send(
        self, action: H, *, instance: str | None = None, until: TypedUntil | None = None, settle: bool = False,
        any_id: bool = False, timeout: float | None = None,
    ) -> list[StoreLine[N, A, S]]:
        whole: Any = action  # a TypedDict of the store's: the client takes any mapping
        lines = await self.client.send(
            self.name, whole, instance=instance, until=until, settle=settle, any_id=any_id, timeout=timeout)
        return cast("list[StoreLine[N, A, S]]", lines)

    def state(self, *, instance: str | None = None) -> S:
        state: S = self.client.state(self.name, instance=instance)
        return state

    async def snapshot(self, *, instance: str | None = None, timeout: float | None = None) -> S:
        state: S = await self.client.snapshot(self.name, instance=instance, timeout=timeout)
        return state

    async def wait_for(
        self, until: TypedUntil, *, instance: str | None = None, timeout: float | None = None,
    ) -> StoreLine[N, A, S]:
        line = await self.client.wait_for(until, store=self.name, instance=instance, timeout=timeout)
        return cast("StoreLine[N, A, S]", line)

    def events(self, *, instance: str | None = None) -> AsyncIterator[StoreLine[N, A, S]]:
        return cast("AsyncIterator[StoreLine[N, A, S]]", self.client.events(store=self.name, instance=instance))


def store(client: Client | AsyncClient, name: str) -> Store[Any, Any, Any, Any] | AsyncStore[Any, Any, Any, Any]:
    """The view of `client`'s store `name`; the generated `store` types it. A name the
    binary has no store of raises `UnknownStoreError` (for an `AsyncClient` not yet started: at
    its first call)."""
    if isinstance(client, Client) and name not in client.stores:
        raise UnknownStoreError(name, client.stores)
    if isinstance(client, AsyncClient):
        return AsyncStore(client, name)
    return Store(client, name)
