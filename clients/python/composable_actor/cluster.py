"""composable-actor processes on a Ray cluster, driven like one `Client` (the `ray` extra).

    from composable_actor.cluster import ActorCluster

    with ActorCluster(processes=3, storage="postgresql://user:pw@127.0.0.1:5432/db") as cluster:
        cluster.send("primes", "counter.incrTapped", instance="alice")
        cluster.state("primes", instance="alice")            # {'count': 1, ...}
        cluster.add_process()                                 # a quarter of the instances move

`import composable_actor` never imports Ray; only this module does (`pip install
composable-actor[ray]`). clients/python/README.md ("A cluster") is the reference; the design:

**Processes.** Each composable-actor process is owned by one Ray actor, a *named* actor (the name
is the process id, `composable-actor-0`, ...) that wraps a `Client` and runs the binary as
`run --state-url URL --process-id NAME [--lease-seconds S]` plus the caller's arguments. It is
created with `max_restarts` (default: unlimited) and `max_task_retries=0`, because a retried
task could apply an action twice. A restarted actor keeps its name and so its `--process-id`:
its new binary takes its instances back at once instead of waiting for their leases. When only
the binary dies (SIGKILL, OOM) the actor's Python lives on and starts a new binary at its next
call. Each actor asks for a hundredth of a CPU and Ray's SPREAD strategy, which places them round
the alive nodes and a restarted one on another node when its own is gone (Ray places an actor
that asks for no resource on a node of its choosing, and follows only a hard node affinity for
it, which would keep a restarted actor from ever leaving a dead node).

**Routing.** A store's instance (None: its default instance) belongs to one live process by
rendezvous hashing (`_rendezvous.py`: BLAKE2b of process, store and key; the heaviest process
wins). Every driver that knows the same live processes routes alike; adding or removing a
process moves only that process's share.

**Ownership and moves.** The binary is the authority: an instance is active in one process,
fenced in PostgreSQL. A line naming an instance that another live process holds is refused with
`instance_elsewhere` and that `owner`; so is a change whose commit found the instance taken
over (the change is taken back, not applied). Either way nothing was applied, so the cluster
asks the owner to `stop` the instance (which stores it and lets it go) when the owner is one of
its live processes, and sends again. A store's default instance cannot be stopped (`stop` needs
a key), so a call to it follows it to the live process that holds it instead. When the owner is no live process of the cluster (a
process that died for good) its lease runs out within `lease_seconds` (default 10) and the
cluster retries with backoff (0.05 s doubling to 1 s) until then: at most `MAX_ATTEMPTS` (40)
sends, within `lease_seconds + 10` s of the first. `add_process()` starts a process, routes to
it at once, then asks every other process for its `active` instances (`instances`, by pages)
and stops those the new process now owns, so they move eagerly; `remove_process(name)` stops
routing to it and quits it (`quit` stores everything and lets every instance go) and its share
moves lazily, on its next line.

**Mirrors.** The driver keeps one mirror per (store, instance), as `Client` does. An instance
read back from storage starts from its stored state, so each process's actor takes a
`snapshot` of an instance the first time it names it (per binary started), before the action;
every call's answer carries the process's lines that no answer carried yet (its `tail`,
numbered), the snapshot among them, and the driver applies them in the process's order (tails
of asyncio calls that end out of order wait for the ones before; after a lost answer the next
call asks again from the driver's cursor): a snapshot line sets the mirror, an action line
patches the mirror only when that mirror came from the same binary. A moved instance is
snapshotted by its new process before its first patch there. One driver per cluster: the named
actors are its own, and each line goes to one driver once.

**Failures.** A call whose process was lost while it was in flight (the binary exited, the
Ray actor died or its node went away, or no answer within `timeout` + 30 s) raises
`ProcessLostError`: the action *may or may not* have been applied (it may be stored, and then
a later `state` shows it). Such a send is never retried: the caller decides. Everything that
cannot apply an action twice (`snapshot`, `state`, `stop`, `instances`, the pulls of `events`)
is retried. After a loss the next call to that process first waits for its actor to answer a
ping: a restarted actor (same name) takes the calls again; an actor that Ray will not restart
leaves the cluster (as `remove_process` without the quit) and its instances go to the others
once its lease runs out. So a caller gets a success or a clear error within `timeout` + 30 s
for the ping (`RESTART_SECONDS`) plus `lease_seconds` + 10 s of retries; no call waits on a dead
process forever.

**Events.** `events()` and `wait_for()` read one merged backlog (at most `backlog` lines, the
oldest dropped first) of every line every call brought back, in the order the driver read
them (each process's own lines in their order; no order between processes). When they need
more they pull every process at once (a pull waits at most `PULL_SECONDS`, 0.2 s, for a first
new line, and holds that process's calls for as long), so a line reaches them within about
that plus one round trip. A process writing more than its actor's backlog (100,000 lines)
between two calls loses lines for the driver: its mirrors are then re-read by `snapshot`.

Without a PostgreSQL URL (`storage` a folder, or None), each process has its own state folder
(`--state-dir storage/NAME`) or none: there is no shared store and no fencing, so an instance
that moves starts afresh in its new process. That mode is for trying the cluster out.
"""

from __future__ import annotations

import asyncio
import collections
import copy
import itertools
import os
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import ray
import ray.exceptions

from . import _rendezvous
from ._patch import JsonPatchError, apply_patch
from ._session import (
    DEFAULT_BACKLOG, ComposableActorError, Line, ProcessExitedError, Session, Until, about, addressed,
    check_instance, find_binary,
)
from ._sync import Client

__all__ = [
    "ActorCluster", "AsyncActorCluster", "ClusterStartError", "ProcessLostError", "owner", "weight",
]

owner = _rendezvous.owner
weight = _rendezvous.weight

# Sends of one call, whatever they meet (instance_elsewhere, a process restarting).
MAX_ATTEMPTS = 40
# How long a lost process's actor may take to answer a ping before it is given up, and how often
# one that Ray says is restarting is asked again.
RESTART_SECONDS = 30.0
REVIVE_INTERVAL = 0.1
# Added to a call's timeout for Ray's own overhead before the call is taken as lost.
GRACE_SECONDS = 30.0
# The CPU each process's actor asks for: enough for SPREAD to place the actors round the nodes,
# little enough that a node of one CPU holds a hundred.
ACTOR_CPUS = 0.01
# How long a pull for events waits for a first new line.
PULL_SECONDS = 0.2
# Lines each process's actor keeps for the driver to pull.
HOST_BACKLOG = 100_000
_BACKOFF_FIRST = 0.05
_BACKOFF_LAST = 1.0


class ProcessLostError(ComposableActorError):
    """The process a call went to was lost while the call was in flight: its binary exited, its
    Ray actor died or its node went away, or it did not answer in time. An action sent **may or
    may not have been applied** (and stored): it is not retried. Later calls go to the
    restarted process, or to the others."""

    def __init__(self, process: str, store: str | None, instance: str | None, cause: str):
        line: Line = {"type": "error", "code": "process_lost", "message": f"process {process} was lost: {cause}"}
        if store is not None:
            line["store"] = store
        if instance is not None:
            line["instance"] = instance
        super().__init__(line)
        self.process = process
        self.cause = cause
        where = "" if store is None else f" (store {store!r}" + ("" if instance is None else f" instance {instance!r}") + ")"
        Exception.__init__(
            self, f"process {process} was lost while a call{where} was in flight: {cause}. An action sent may or "
            "may not have been applied; it was not retried")


class ClusterStartError(ComposableActorError):
    """A process could not start (its binary exited before `ready`: an unreachable database, bad
    arguments); the message has the end of its stderr."""

    def __init__(self, process: str, cause: str):
        super().__init__({"type": "error", "code": "process_failed", "message": f"process {process}: {cause}"})
        Exception.__init__(self, f"process {process} could not start: {cause}")
        self.process = process


def _storage_args(storage: str | os.PathLike[str] | None, name: str, lease_seconds: float | None) -> list[str]:
    if storage is None:
        return []
    text = os.fspath(storage)
    if text.startswith(("postgresql://", "postgres://")):
        args = ["--state-url", text, "--process-id", name]
        if lease_seconds is not None:
            args += ["--lease-seconds", f"{lease_seconds:g}"]
        return args
    folder = Path(text) / name
    folder.mkdir(parents=True, exist_ok=True)
    return ["--state-dir", str(folder)]


class _HostClient(Client):
    _seeds_mirrors = False

    def __init__(self, binary: str, args: Sequence[str], timeout: float | None, stderr: Any):
        self._stderr = stderr
        super().__init__(binary, args, timeout=timeout, backlog=HOST_BACKLOG)


class _Host:
    """The Ray actor that owns one composable-actor process (also usable without Ray)."""

    def __init__(self, name: str, binary: str, args: list[str], timeout: float | None):
        self._name = name
        self._binary = binary
        self._args = args
        self._timeout = timeout
        self._client: _HostClient | None = None
        self._incarnation = ""
        self._seen: set[tuple[str, str | None]] = set()
        self._failure: str | None = None
        self.starts = 0
        self._start()

    def _start(self) -> None:
        if self._client is not None:
            self._client.close(1.0)
        self._client = None
        self._seen = set()
        self._returned = 0  # lines of this binary already returned in a tail
        self._incarnation = uuid.uuid4().hex
        with tempfile.TemporaryFile() as stderr:
            try:
                self._client = _HostClient(self._binary, self._args, self._timeout, stderr)
                self._failure = None
                self.starts += 1
            except (ProcessExitedError, TimeoutError, OSError, ValueError) as error:
                stderr.seek(0)
                said = stderr.read()[-2000:].decode(errors="replace").strip()
                self._failure = f"{error}" + (f"; its stderr: {said}" if said else "")

    def _alive(self) -> _HostClient | None:
        client = self._client
        if client is None or client.returncode is not None or client._session.ended:
            self._start()
        return self._client

    def ready(self) -> dict[str, Any]:
        client = self._alive()
        if client is None:
            return {"failed": self._failure}
        return {"stores": client.stores, "pid": client.pid, "incarnation": self._incarnation, "starts": self.starts}

    def pid(self) -> int | None:
        return None if self._client is None else self._client.pid

    def node(self) -> str:
        """The id of the Ray node this actor runs on."""
        return str(ray.get_runtime_context().get_node_id())

    def close(self) -> int | None:
        client, self._client = self._client, None
        return None if client is None else client.close(5.0)

    def call(
        self, op: str, store: str | None, instance: str | None, params: dict[str, Any], incarnation: str, cursor: int,
        resend: bool = False,
    ) -> dict[str, Any]:
        client = self._alive()
        if client is None:
            return {"failed": self._failure, "tail": self._tail(incarnation, cursor, resend)}
        result: dict[str, Any] = {}
        key = (store or "", instance)
        timeout = params.get("timeout")
        try:
            if op in ("send", "snapshot"):
                assert store is not None
                fresh = key not in self._seen
                if fresh:
                    client._session.mirror.pop(key, None)
                    result["value"] = client.snapshot(store, instance=instance, timeout=timeout)
                    self._seen.add(key)
                if op == "send":
                    result["value"] = client.send(
                        store, params["action"], instance=instance, until=params.get("until"),
                        settle=params.get("settle", False), any_id=params.get("any_id", False), timeout=timeout,
                        **params["payload"],
                    )
                elif not fresh:
                    result["value"] = client.snapshot(store, instance=instance, timeout=timeout)
            elif op == "stop":
                assert store is not None and instance is not None
                self._seen.discard(key)
                result["value"] = client.stop(store, instance, timeout=timeout)
            elif op == "stop_all":
                # Many stops in one Ray call: each is then a round trip on the local pipe, not
                # a Ray task (about 1.6 ms each on this machine).
                assert store is not None
                stopped = 0
                for name in params["instances"]:
                    self._seen.discard((store, name))
                    try:
                        client.stop(store, name, timeout=timeout)
                        stopped += 1
                    except ComposableActorError as error:
                        if error.code != "unknown_instance":  # already out of memory: let go
                            raise
                result["value"] = stopped
            elif op == "instances":
                assert store is not None
                result["value"] = client._command(
                    "instances", timeout, **Session.page(store, params["limit"], params.get("after")))[-1]
            elif op == "pull":
                if (not client.poll() and incarnation == self._incarnation
                        and client._session.received <= max(cursor, self._returned)):
                    client._read_line(time.monotonic() + params["wait"])
                    client.poll()
            else:
                raise ValueError(f"unknown op {op!r}")
        except ComposableActorError as error:
            result["error"] = error.fields
            if error.code in ("instance_elsewhere", "unknown_instance"):
                self._seen.discard(key)
                client._session.mirror.pop(key, None)
        except ProcessExitedError as error:
            result["lost"] = f"its binary exited ({error}); it starts again at the next call"
        except TimeoutError as error:
            result["timeout"] = str(error)
        result["tail"] = self._tail(incarnation, cursor, resend)
        return result

    def _tail(self, incarnation: str, cursor: int, resend: bool) -> dict[str, Any]:
        """The lines no tail returned yet (from the driver's cursor on when it asks them again,
        having lost an answer; from the start for a binary it has not seen). Each line goes out
        once, so that concurrent calls do not each carry the same lines."""
        client = self._client
        if client is None:
            return {"incarnation": "", "start": 0, "lines": [], "resent": resend}
        session = client._session
        base = session.received - len(session.backlog)
        start = max(base, cursor if incarnation == self._incarnation else 0)
        if not resend:
            start = max(start, self._returned)
        lines = [line for _, line in session.kept(start)]
        self._returned = max(self._returned, session.received)
        return {"incarnation": self._incarnation, "start": start, "lines": lines, "resent": resend}


@dataclass
class _Process:
    name: str
    handle: Any  # ray.actor.ActorHandle
    incarnation: str = ""
    applied: int = 0  # lines of that binary the driver has applied
    # Tails that came before one that precedes them (asyncio calls end in any order), by start.
    pending: dict[int, list[Line]] = field(default_factory=dict)
    resend: bool = False  # an answer was lost: ask its lines again
    suspect: bool = False  # lost a call: ping it before the next one


@dataclass
class _Mirror:
    state: Any
    source: tuple[str, str] | None  # (process, incarnation) whose lines patch it


@dataclass
class _Outcome:
    """What a driver does after one call's answer."""

    value: Any = None
    error: BaseException | None = None
    stop_at: str | None = None  # ask that process to stop the instance, then send again
    wait: float | None = None  # wait that long, then send again


@dataclass
class _Request:
    op: str
    store: str | None
    instance: str | None
    params: dict[str, Any]
    timeout: float | None
    started: float = field(default_factory=time.monotonic)
    attempt: int = 0
    backoff: float = _BACKOFF_FIRST
    via: str | None = None  # the process that holds a default instance, when not its owner by hash


class _Core:
    """What both drivers share: the processes, routing, mirrors, the merged backlog, and the
    reading of each call's answer. No I/O."""

    def __init__(
        self, binary: str | os.PathLike[str] | None, processes: int, storage: str | os.PathLike[str] | None,
        args: Sequence[str | os.PathLike[str]], address: str | None, lease_seconds: float | None,
        timeout: float | None, backlog: int, max_restarts: int, name_prefix: str,
    ):
        if isinstance(processes, bool) or not isinstance(processes, int) or processes < 1:
            raise TypeError(f"processes must be a positive int, not {processes!r}")
        if isinstance(args, (str, bytes)):
            raise TypeError(f"args must be a list of arguments, not the string {args!r}")
        self.binary = os.path.abspath(find_binary(binary))
        self.args = [os.fspath(arg) for arg in args]
        self.storage = storage
        self.lease_seconds = lease_seconds
        self.timeout = timeout
        self.max_restarts = max_restarts
        self.name_prefix = name_prefix
        self.durable = storage is not None and os.fspath(storage).startswith(("postgresql://", "postgres://"))
        self.started_ray = False
        if not ray.is_initialized():
            # The workers import this package from what the driver uploads, so that it need
            # not be installed on every node (a Ray that was started already must have it).
            package = str(Path(__file__).resolve().parent)
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     runtime_env={"py_modules": [package]})
            self.started_ray = True
        self.processes: dict[str, _Process] = {}
        self.stores: list[str] = []
        self.mirrors: dict[tuple[str, str | None], _Mirror] = {}
        self.backlog: collections.deque[Line] = collections.deque(maxlen=backlog)
        self.received = 0
        self.cursor = 0
        self.closed = False
        self._next_index = 0

    @property
    def names(self) -> list[str]:
        return sorted(self.processes)

    def new_name(self) -> str:
        while True:
            name = f"{self.name_prefix}-{self._next_index}"
            self._next_index += 1
            if name not in self.processes:
                return name

    def create(self, name: str) -> _Process:
        args = [*_storage_args(self.storage, name, self.lease_seconds), *self.args]
        remote = ray.remote(_Host).options(
            name=name, max_restarts=self.max_restarts, max_task_retries=0,
            num_cpus=ACTOR_CPUS, scheduling_strategy="SPREAD",
        )
        handle = remote.remote(name, self.binary, ["run", *args], self.timeout)
        return _Process(name, handle)

    def started(self, process: _Process, answer: dict[str, Any]) -> None:
        if answer.get("failed") is not None:
            raise ClusterStartError(process.name, str(answer["failed"]))
        self.stores = list(answer["stores"])
        self.processes[process.name] = process

    def route(self, store: str, instance: str | None, via: str | None = None) -> _Process:
        if self.closed:
            raise RuntimeError("the cluster is closed")
        if via is not None and via in self.processes:
            return self.processes[via]
        return self.processes[owner(self.processes, store, instance)]

    def check_store(self, store: object) -> str:
        if not isinstance(store, str):
            raise TypeError(f"store must be a str, not {type(store).__name__}")
        if self.stores and store not in self.stores:
            from ._session import UnknownStoreError
            raise UnknownStoreError(store, self.stores)
        return store

    def remote_call(self, process: _Process, request: _Request) -> Any:
        resend, process.resend = process.resend, False
        return process.handle.call.remote(
            request.op, request.store, request.instance, {**request.params, "timeout": request.timeout},
            process.incarnation, process.applied, resend,
        )

    def absorb(self, process: _Process, answer: dict[str, Any]) -> None:
        """Applies the lines of a call's answer that the driver has not applied yet."""
        tail = answer.get("tail")
        if not tail or not tail["incarnation"]:
            return
        if tail["incarnation"] != process.incarnation:
            process.incarnation = tail["incarnation"]
            process.applied = 0
            process.pending.clear()
        source = (process.name, process.incarnation)
        start: int = tail["start"]
        if tail["resent"] and start > process.applied:
            # Lines its backlog dropped before the driver had them: those mirrors are read again.
            for mirror in self.mirrors.values():
                if mirror.source == source:
                    mirror.source = None
            process.applied = start
        if tail["lines"]:
            process.pending[start] = tail["lines"]
        for first in sorted(process.pending):
            lines = process.pending[first]
            if first > process.applied:
                break  # an earlier tail is still on its way (or lost: then it is asked again)
            del process.pending[first]
            for index, line in enumerate(lines[process.applied - first:], process.applied):
                process.applied = index + 1
                self.apply(line, source)

    def apply(self, line: Line, source: tuple[str, str]) -> None:
        kind = line["type"]
        if kind in ("action", "state", "snapshot", "stopped", "forgotten"):
            key = (line["store"], line.get("instance"))
            if kind == "snapshot":
                self.mirrors[key] = _Mirror(copy.deepcopy(line["state"]), source)
            elif kind in ("stopped", "forgotten"):
                mirror = self.mirrors.get(key)
                if mirror is not None and mirror.source == source:
                    if kind == "forgotten":
                        del self.mirrors[key]
                    else:
                        mirror.source = None  # stored as it is; whoever takes it next snapshots it
            else:
                mirror = self.mirrors.get(key)
                if mirror is not None and mirror.source == source:
                    try:
                        mirror.state = apply_patch(mirror.state, line["patch"])
                    except JsonPatchError:
                        mirror.source = None
        self.received += 1
        self.backlog.append(line)

    def outcome(self, process: _Process, request: _Request, answer: dict[str, Any]) -> _Outcome:
        request.attempt += 1
        last = request.attempt >= MAX_ATTEMPTS or time.monotonic() - request.started > self.patience()
        if answer.get("failed") is not None:
            # Its binary could not start again (its state folder still held, the database away):
            # nothing was sent to it, so any call may try again.
            if not last:
                return self.backoff(request)
            return _Outcome(error=ClusterStartError(process.name, str(answer["failed"])))
        if "lost" in answer:
            process.suspect = process.resend = True
            if request.op != "send" and not last:
                return self.backoff(request)
            return _Outcome(error=ProcessLostError(process.name, request.store, request.instance, answer["lost"]))
        if "timeout" in answer:
            return _Outcome(error=TimeoutError(
                f"{answer['timeout']} (process {process.name}; an action sent may still be applied)"))
        error = answer.get("error")
        if error is not None:
            if error["code"] == "instance_elsewhere" and not last:
                holder = error.get("owner")
                if isinstance(holder, str) and holder != process.name and holder in self.processes:
                    if request.instance is None:
                        # A default instance cannot be stopped (`stop` needs a key): follow it to
                        # the process that holds it.
                        request.via = holder
                        return _Outcome(wait=0.0)
                    return _Outcome(stop_at=holder)
                return self.backoff(request)  # a lost process's lease runs out
            return _Outcome(error=ComposableActorError(error))
        return _Outcome(value=answer.get("value"))

    def lost(self, process: _Process, request: _Request, cause: BaseException) -> _Outcome:
        """A call that Ray could not complete (the actor died, its node went away, no answer)."""
        process.suspect = process.resend = True
        request.attempt += 1
        if request.op != "send" and request.attempt < MAX_ATTEMPTS:
            return self.backoff(request)
        return _Outcome(error=ProcessLostError(process.name, request.store, request.instance, _reason(cause)))

    def backoff(self, request: _Request) -> _Outcome:
        delay = request.backoff
        request.backoff = min(_BACKOFF_LAST, request.backoff * 2)
        return _Outcome(wait=delay)

    def patience(self) -> float:
        """How long a call retries while an instance's lease runs out or a process restarts."""
        return (10.0 if self.lease_seconds is None else self.lease_seconds) + 10.0

    def call_seconds(self, timeout: float | None) -> float:
        timeout = self.timeout if timeout is None else timeout
        return (3600.0 if timeout is None else timeout) + GRACE_SECONDS

    def drop(self, name: str) -> _Process | None:
        return self.processes.pop(name, None)

    def mirror_state(self, store: str, instance: str | None) -> Any:
        mirror = self.mirrors.get((store, instance))
        if mirror is None:
            from ._session import UnknownInstanceError
            if instance is None:
                raise KeyError(f"no line of store {store!r}'s default instance was read yet: snapshot it first")
            raise UnknownInstanceError(store, instance)
        return copy.deepcopy(mirror.state)

    def needs_snapshot(self, store: str, instance: str | None, process: _Process) -> bool:
        mirror = self.mirrors.get((store, instance))
        return mirror is not None and mirror.source != (process.name, process.incarnation)

    def matcher(self, until: Until, store: str | None, instance: str | None) -> Callable[[Line], bool]:
        check_instance(instance, store)
        ours = about(store, instance)
        if callable(until):
            check = until
        elif isinstance(until, str):
            def check(line: Line) -> bool:
                return bool(line["type"] == "action" and line["action"]["type"] == until)
        else:
            raise TypeError(f"until must be an action type (str) or a predicate on lines, not {type(until).__name__}")
        return check if ours is None else (lambda line: ours(line) and check(line))

    def search(self, matches: Callable[[Line], bool], start: int) -> tuple[int, Line] | None:
        base = self.received - len(self.backlog)
        for index, line in enumerate(itertools.islice(self.backlog, max(0, start - base), None), max(start, base)):
            if matches(line):
                return index, line
        return None


def _reason(cause: BaseException) -> str:
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0] if text else ''}"


_RAY_LOSSES = (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError, ray.exceptions.RaySystemError)
_Payload = Union[str, Mapping[str, Any]]


class ActorCluster:
    """composable-actor processes on a Ray cluster, driven like one `Client`.

    `binary` is the composable-actor binary (found as `Client` finds it; it must be at that path
    on every node), `processes` how many to start, `storage` a PostgreSQL URL (`--state-url`:
    shared, fenced storage) or a folder (`--state-dir FOLDER/NAME` per process, nothing shared),
    `args` more arguments for every process, `address` a running Ray cluster (else one is
    started here, or the one this Python already joined is used). The module's docstring has
    the design, the guarantees and their time bounds.
    """

    def __init__(
        self,
        binary: str | os.PathLike[str] | None = None,
        processes: int = 3,
        storage: str | os.PathLike[str] | None = None,
        args: Sequence[str | os.PathLike[str]] = (),
        address: str | None = None,
        *,
        lease_seconds: float | None = None,
        timeout: float | None = 10.0,
        backlog: int = DEFAULT_BACKLOG,
        max_restarts: int = -1,
        name_prefix: str = "composable-actor",
    ):
        self._core = _Core(binary, processes, storage, args, address, lease_seconds, timeout, backlog, max_restarts,
                           name_prefix)
        try:
            fresh = [self._core.create(self._core.new_name()) for _ in range(processes)]
            answers = self._get([process.handle.ready.remote() for process in fresh], None)
            for process, answer in zip(fresh, answers):
                self._core.processes[process.name] = process
            for process, answer in zip(fresh, answers):
                self._core.started(process, answer)
        except BaseException:
            self.close()
            raise

    @property
    def processes(self) -> list[str]:
        """The names (process ids) of the live processes."""
        return self._core.names

    @property
    def stores(self) -> list[str]:
        return list(self._core.stores)

    @property
    def backlog(self) -> list[Line]:
        """The merged lines kept (a copy), oldest first."""
        return list(self._core.backlog)

    def __enter__(self) -> ActorCluster:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def owner(self, store: str, instance: str | None = None) -> str:
        """The live process the store's instance is routed to."""
        return self._core.route(store, instance).name

    def pid(self, name: str) -> int | None:
        """The pid of the binary of process `name` (on its node)."""
        value: int | None = self._get(self._core.processes[name].handle.pid.remote(), RESTART_SECONDS)
        return value

    def node(self, name: str) -> str:
        """The id of the Ray node process `name` runs on."""
        value: str = self._get(self._core.processes[name].handle.node.remote(), RESTART_SECONDS)
        return value

    def send(
        self, store: str, action: _Payload, *, instance: str | None = None, until: Until | None = None,
        settle: bool = False, any_id: bool = False, timeout: float | None = None, **payload: Any,
    ) -> list[Line]:
        """As `Client.send`, through the process that owns the instance. `ProcessLostError`: the
        process was lost in flight, and the action may or may not have been applied."""
        self._core.check_store(store)
        check_instance(instance, store)
        params = {"action": action, "until": until, "settle": settle, "any_id": any_id, "payload": payload}
        lines: list[Line] = self._run(_Request("send", store, instance, params, timeout))
        return lines

    def snapshot(self, store: str, *, instance: str | None = None, timeout: float | None = None) -> Any:
        """The instance's state as its process has it (its mirror is set from it)."""
        self._core.check_store(store)
        check_instance(instance, store)
        return self._run(_Request("snapshot", store, instance, {}, timeout))

    def state(self, store: str, *, instance: str | None = None) -> Any:
        """The mirror of the instance's state (a copy), after pulling its process's new lines;
        read again with `snapshot` when it moved since."""
        self._core.check_store(store)
        check_instance(instance, store)
        core = self._core
        process = core.route(store, instance)
        if (store, instance) in core.mirrors:
            self._pull([process], 0.0)
        if core.needs_snapshot(store, instance, process) and core.mirrors[store, instance].source is None:
            self.snapshot(store, instance=instance)
        return core.mirror_state(store, instance)

    def instances(self, store: str, *, page: int = 1000, timeout: float | None = None) -> list[str]:
        """The keys of the store's instances in memory in every process, and (under a folder
        or PostgreSQL) stored, in byte order, without repeats."""
        keys: set[str] = set()
        for name in self.processes:
            keys.update(self._keys(name, store, page, timeout, passivated=True))
        return sorted(keys)

    def wait_for(
        self, until: Until, *, store: str | None = None, instance: str | None = None, timeout: float | None = None,
    ) -> Line:
        """As `Client.wait_for`, over the lines of every process (merged)."""
        core = self._core
        if store is not None:
            core.check_store(store)
        matches = core.matcher(until, store, instance)
        limit = core.timeout if timeout is None else timeout
        deadline = None if limit is None else time.monotonic() + limit
        while True:
            found = core.search(matches, core.cursor)
            if found is not None:
                core.cursor = found[0] + 1
                return found[1]
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError(f"timed out after {limit} s waiting for a line matching {until!r}")
            targets = [core.route(store, instance)] if store is not None else list(core.processes.values())
            self._pull(targets, PULL_SECONDS if remaining is None else min(PULL_SECONDS, remaining))

    def events(self, *, store: str | None = None, instance: str | None = None) -> Iterator[Line]:
        """Every merged line from the backlog's start, then each new one as the pulls bring it
        (blocking); ends when the cluster is closed."""
        core = self._core
        if store is not None:
            core.check_store(store)
        matches = core.matcher(lambda line: True, store, instance)
        position = core.received - len(core.backlog)

        def follow() -> Iterator[Line]:
            nonlocal position
            while True:
                found = core.search(matches, position)
                if found is not None:
                    position = found[0] + 1
                    yield found[1]
                    continue
                position = core.received
                if core.closed:
                    return
                self._pull(list(core.processes.values()), PULL_SECONDS)

        return follow()

    def add_process(self) -> str:
        """Starts one more process and moves its share of the instances to it: routing changes at
        once, then every other process stops the active instances the new one now owns. Returns
        its name."""
        core = self._core
        process = core.create(core.new_name())
        answer = self._get(process.handle.ready.remote(), None)
        if answer.get("failed") is not None:
            ray.kill(process.handle, no_restart=True)
        core.started(process, answer)
        for name in core.names:
            if name == process.name:
                continue
            for store in core.stores:
                keys = self._keys(name, store, 1000, None, passivated=False)
                self._stop_all(name, store, [key for key in keys if owner(core.processes, store, key) == process.name])
        return process.name

    def remove_process(self, name: str) -> None:
        """Stops routing to process `name`, quits it (it stores everything and lets its instances
        go) and ends its actor; its instances move to the others on their next line."""
        core = self._core
        process = core.drop(name)
        if process is None:
            raise KeyError(f"no live process {name!r}; the processes are {core.names}")
        try:
            self._get(process.handle.close.remote(), 30.0)
        except _RAY_LOSSES:
            pass
        ray.kill(process.handle, no_restart=True)

    def close(self) -> None:
        """Quits every process, ends their actors, and shuts Ray down if this cluster started it."""
        core = getattr(self, "_core", None)
        if core is None or core.closed:
            return
        core.closed = True
        handles = [process.handle for process in core.processes.values()]
        core.processes.clear()
        try:
            ray.get([handle.close.remote() for handle in handles], timeout=30.0)
        except _RAY_LOSSES:
            pass
        for handle in handles:
            ray.kill(handle, no_restart=True)
        if core.started_ray:
            ray.shutdown()

    # The driving loop.

    def _run(self, request: _Request) -> Any:
        core = self._core
        seconds = core.call_seconds(request.timeout)
        while True:
            assert request.store is not None
            process = core.route(request.store, request.instance, request.via)
            if process.suspect:
                self._revive(process)
                process = core.route(request.store, request.instance, request.via)
            try:
                answer = self._get(core.remote_call(process, request), seconds)
            except _RAY_LOSSES as error:
                outcome = core.lost(process, request, error)
            else:
                core.absorb(process, answer)
                outcome = core.outcome(process, request, answer)
            if outcome.error is not None:
                raise outcome.error
            if outcome.stop_at is not None:
                self._stop(outcome.stop_at, request.store, request.instance)
            elif outcome.wait is not None:
                time.sleep(outcome.wait)  # a lease running out or a restart: nothing to await
            else:
                return outcome.value

    def _revive(self, process: _Process) -> None:
        """After a loss: the process's actor answers (restarted, perhaps) or leaves the cluster.
        An actor Ray is restarting is asked again until `RESTART_SECONDS` have passed."""
        deadline = time.monotonic() + RESTART_SECONDS
        while True:
            try:
                answer = self._get(process.handle.ready.remote(), max(0.0, deadline - time.monotonic()))
            except ray.exceptions.ActorUnavailableError:
                if time.monotonic() < deadline:
                    time.sleep(REVIVE_INTERVAL)  # Ray tells of no restart's end: ask again
                    continue
                self._core.drop(process.name)
                return
            except _RAY_LOSSES:
                self._core.drop(process.name)
                return
            process.suspect = answer.get("failed") is not None
            return

    def _stop(self, name: str, store: str, instance: str | None) -> None:
        core = self._core
        process = core.processes.get(name)
        if process is None or instance is None:
            return
        request = _Request("stop", store, instance, {}, None)
        try:
            answer = self._get(core.remote_call(process, request), core.call_seconds(None))
        except _RAY_LOSSES:
            process.suspect = process.resend = True
            return
        core.absorb(process, answer)

    def _stop_all(self, name: str, store: str, keys: list[str]) -> None:
        """Stops the instances at process `name` in one Ray call, not one each."""
        core = self._core
        process = core.processes.get(name)
        if process is None or not keys:
            return
        request = _Request("stop_all", store, None, {"instances": keys}, None)
        try:
            answer = self._get(core.remote_call(process, request), core.call_seconds(None))
        except _RAY_LOSSES:
            process.suspect = process.resend = True
            return
        core.absorb(process, answer)

    def _keys(self, name: str, store: str, page: int, timeout: float | None, *, passivated: bool) -> list[str]:
        core = self._core
        process = core.processes[name]
        keys: list[str] = []
        after: str | None = None
        for _ in range(1_000_000):
            params: dict[str, Any] = {"limit": page} if after is None else {"limit": page, "after": after}
            request = _Request("instances", store, None, params, timeout)
            answer = self._get(core.remote_call(process, request), core.call_seconds(timeout))
            core.absorb(process, answer)
            outcome = core.outcome(process, request, answer)
            if outcome.error is not None:
                raise outcome.error
            line: Line = outcome.value
            keys += line["active"] + (line.get("passivated", []) if passivated else [])
            after = line.get("next")
            if after is None:
                break
        return keys

    def _pull(self, targets: list[_Process], wait: float) -> None:
        core = self._core
        request = _Request("pull", None, None, {"wait": wait}, None)
        refs = [core.remote_call(process, request) for process in targets]
        for process, ref in zip(targets, refs):
            try:
                core.absorb(process, self._get(ref, wait + GRACE_SECONDS))
            except _RAY_LOSSES:
                process.suspect = process.resend = True

    @staticmethod
    def _get(refs: Any, timeout: float | None) -> Any:
        return ray.get(refs, timeout=timeout)


class AsyncActorCluster:
    """`ActorCluster` for asyncio: the same arguments and methods, awaited; `async with`.

    The processes start in `start()` (which `async with` awaits)."""

    def __init__(
        self,
        binary: str | os.PathLike[str] | None = None,
        processes: int = 3,
        storage: str | os.PathLike[str] | None = None,
        args: Sequence[str | os.PathLike[str]] = (),
        address: str | None = None,
        *,
        lease_seconds: float | None = None,
        timeout: float | None = 10.0,
        backlog: int = DEFAULT_BACKLOG,
        max_restarts: int = -1,
        name_prefix: str = "composable-actor",
    ):
        self._core = _Core(binary, processes, storage, args, address, lease_seconds, timeout, backlog, max_restarts,
                           name_prefix)
        self._count = processes
        self._lock = asyncio.Lock()

    async def start(self) -> AsyncActorCluster:
        core = self._core
        if core.processes:
            return self
        fresh = [core.create(core.new_name()) for _ in range(self._count)]
        try:
            answers = await asyncio.gather(*(process.handle.ready.remote() for process in fresh))
            for process in fresh:
                core.processes[process.name] = process
            for process, answer in zip(fresh, answers):
                core.started(process, answer)
        except BaseException:
            core.processes.update({process.name: process for process in fresh})
            await self.close()
            raise
        return self

    @property
    def processes(self) -> list[str]:
        return self._core.names

    @property
    def stores(self) -> list[str]:
        return list(self._core.stores)

    @property
    def backlog(self) -> list[Line]:
        return list(self._core.backlog)

    async def __aenter__(self) -> AsyncActorCluster:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def owner(self, store: str, instance: str | None = None) -> str:
        return self._core.route(store, instance).name

    async def send(
        self, store: str, action: _Payload, *, instance: str | None = None, until: Until | None = None,
        settle: bool = False, any_id: bool = False, timeout: float | None = None, **payload: Any,
    ) -> list[Line]:
        self._core.check_store(store)
        check_instance(instance, store)
        params = {"action": action, "until": until, "settle": settle, "any_id": any_id, "payload": payload}
        lines: list[Line] = await self._run(_Request("send", store, instance, params, timeout))
        return lines

    async def snapshot(self, store: str, *, instance: str | None = None, timeout: float | None = None) -> Any:
        self._core.check_store(store)
        check_instance(instance, store)
        return await self._run(_Request("snapshot", store, instance, {}, timeout))

    async def state(self, store: str, *, instance: str | None = None) -> Any:
        self._core.check_store(store)
        check_instance(instance, store)
        core = self._core
        process = core.route(store, instance)
        if (store, instance) in core.mirrors:
            await self._pull([process], 0.0)
        if core.needs_snapshot(store, instance, process) and core.mirrors[store, instance].source is None:
            await self.snapshot(store, instance=instance)
        return core.mirror_state(store, instance)

    async def wait_for(
        self, until: Until, *, store: str | None = None, instance: str | None = None, timeout: float | None = None,
    ) -> Line:
        core = self._core
        if store is not None:
            core.check_store(store)
        matches = core.matcher(until, store, instance)
        limit = core.timeout if timeout is None else timeout
        deadline = None if limit is None else time.monotonic() + limit
        while True:
            found = core.search(matches, core.cursor)
            if found is not None:
                core.cursor = found[0] + 1
                return found[1]
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise TimeoutError(f"timed out after {limit} s waiting for a line matching {until!r}")
            targets = [core.route(store, instance)] if store is not None else list(core.processes.values())
            await self._pull(targets, PULL_SECONDS if remaining is None else min(PULL_SECONDS, remaining))

    async def events(self, *, store: str | None = None, instance: str | None = None) -> AsyncIterator[Line]:
        core = self._core
        if store is not None:
            core.check_store(store)
        matches = core.matcher(lambda line: True, store, instance)
        position = core.received - len(core.backlog)
        while True:
            found = core.search(matches, position)
            if found is not None:
                position = found[0] + 1
                yield found[1]
                continue
            position = core.received
            if core.closed:
                return
            await self._pull(list(core.processes.values()), PULL_SECONDS)

    async def add_process(self) -> str:
        core = self._core
        process = core.create(core.new_name())
        answer = await process.handle.ready.remote()
        if answer.get("failed") is not None:
            ray.kill(process.handle, no_restart=True)
        core.started(process, answer)
        for name in core.names:
            if name == process.name:
                continue
            for store in core.stores:
                keys = await self._keys(name, store, 1000)
                await self._stop_all(name, store, [key for key in keys if owner(core.processes, store, key) == process.name])
        return process.name

    async def remove_process(self, name: str) -> None:
        core = self._core
        process = core.drop(name)
        if process is None:
            raise KeyError(f"no live process {name!r}; the processes are {core.names}")
        try:
            await asyncio.wait_for(process.handle.close.remote(), 30.0)
        except (*_RAY_LOSSES, asyncio.TimeoutError):
            pass
        ray.kill(process.handle, no_restart=True)

    async def close(self) -> None:
        core = self._core
        if core.closed:
            return
        core.closed = True
        handles = [process.handle for process in core.processes.values()]
        core.processes.clear()
        try:
            await asyncio.wait_for(asyncio.gather(*(handle.close.remote() for handle in handles)), 30.0)
        except (*_RAY_LOSSES, asyncio.TimeoutError):
            pass
        for handle in handles:
            ray.kill(handle, no_restart=True)
        if core.started_ray:
            ray.shutdown()

    async def _get(self, ref: Any, timeout: float) -> Any:
        try:
            return await asyncio.wait_for(ref, timeout)
        except asyncio.TimeoutError:
            raise ray.exceptions.GetTimeoutError(f"no answer within {timeout} s") from None

    async def _run(self, request: _Request) -> Any:
        core = self._core
        seconds = core.call_seconds(request.timeout)
        while True:
            assert request.store is not None
            process = core.route(request.store, request.instance, request.via)
            if process.suspect:
                await self._revive(process)
                process = core.route(request.store, request.instance, request.via)
            try:
                answer = await self._get(core.remote_call(process, request), seconds)
            except _RAY_LOSSES as error:
                outcome = core.lost(process, request, error)
            else:
                core.absorb(process, answer)
                outcome = core.outcome(process, request, answer)
            if outcome.error is not None:
                raise outcome.error
            if outcome.stop_at is not None:
                await self._stop(outcome.stop_at, request.store, request.instance)
            elif outcome.wait is not None:
                await asyncio.sleep(outcome.wait)  # a lease running out or a restart: nothing to await
            else:
                return outcome.value

    async def _revive(self, process: _Process) -> None:
        async with self._lock:
            if not process.suspect or process.name not in self._core.processes:
                return
            deadline = time.monotonic() + RESTART_SECONDS
            while True:
                try:
                    answer = await self._get(
                        process.handle.ready.remote(), max(0.0, deadline - time.monotonic()))
                except ray.exceptions.ActorUnavailableError:
                    if time.monotonic() < deadline:
                        await asyncio.sleep(REVIVE_INTERVAL)  # Ray tells of no restart's end
                        continue
                    self._core.drop(process.name)
                    return
                except _RAY_LOSSES:
                    self._core.drop(process.name)
                    return
                process.suspect = answer.get("failed") is not None
                return

    async def _stop(self, name: str, store: str, instance: str | None) -> None:
        core = self._core
        process = core.processes.get(name)
        if process is None or instance is None:
            return
        request = _Request("stop", store, instance, {}, None)
        try:
            answer = await self._get(core.remote_call(process, request), core.call_seconds(None))
        except _RAY_LOSSES:
            process.suspect = process.resend = True
            return
        core.absorb(process, answer)

    async def _stop_all(self, name: str, store: str, keys: list[str]) -> None:
        """Stops the instances at process `name` in one Ray call, not one each."""
        core = self._core
        process = core.processes.get(name)
        if process is None or not keys:
            return
        request = _Request("stop_all", store, None, {"instances": keys}, None)
        try:
            answer = await self._get(core.remote_call(process, request), core.call_seconds(None))
        except _RAY_LOSSES:
            process.suspect = process.resend = True
            return
        core.absorb(process, answer)

    async def _keys(self, name: str, store: str, page: int) -> list[str]:
        core = self._core
        process = core.processes[name]
        keys: list[str] = []
        after: str | None = None
        for _ in range(1_000_000):
            params: dict[str, Any] = {"limit": page} if after is None else {"limit": page, "after": after}
            request = _Request("instances", store, None, params, None)
            answer = await self._get(core.remote_call(process, request), core.call_seconds(None))
            core.absorb(process, answer)
            outcome = core.outcome(process, request, answer)
            if outcome.error is not None:
                raise outcome.error
            line: Line = outcome.value
            keys += line["active"]
            after = line.get("next")
            if after is None:
                break
        return keys

    async def _pull(self, targets: list[_Process], wait: float) -> None:
        core = self._core
        request = _Request("pull", None, None, {"wait": wait}, None)
        refs = [core.remote_call(process, request) for process in targets]
        for process, ref in zip(targets, refs):
            try:
                core.absorb(process, await self._get(ref, wait + GRACE_SECONDS))
            except _RAY_LOSSES:
                process.suspect = process.resend = True
