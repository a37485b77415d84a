#!/usr/bin/env python3
"""The scaling table: what one action costs as a store's state grows.

For each row (a store and a probe action) and each state size (default 0, 1,000, 10,000 and
100,000 items held), it prints and, with --json, writes:

- CPU µs per probe: the real release binary runs `run`; the state is grown with host lines,
  then a few warm-up probes are sent, then a batch of probes; the CPU time of the process is
  the sum over its threads of /proc/PID/task/*/schedstat (ns on a CPU), read when the process
  is idle before the batch and again once every output line of the batch has arrived and the
  counter stopped moving. Noisy on this 2-core machine, as CPU times are.
- instructions per probe: the same run under `valgrind --tool=callgrind --instr-atstart=no` on
  a copy of the binary made with `strip --strip-debug` (valgrind cannot read the debug info).
  The state grows uninstrumented; `callgrind_control` zeroes the counters and switches
  instrumentation on just for the batch, then off, and dumps; the dump's total Ir is divided by
  the probes. Repeatable whatever else the machine does.
- bytes of output per probe: the stdout bytes of the batch's lines, divided by the probes.
- per row and measure, the ratio of the largest measured size's figure to the smallest's. The
  issue's target is at most 2 for every row: an action's cost follows its change, not the
  state's size.

The states grow the fastest way each store allows: injected effect actions (with
`--allow-effect-actions`: the websocket's received messages, the votes' pages), or a load from
a prepared data directory (the primes favourites, the example's todos). Every probe changes the
state, and probes that would grow it undo their change (an added todo is deleted again) or are
few, so the size stays what the column says. stdout is always read by a thread, so the process
never stalls on a full pipe, and any `error` line fails the run.

Batches: enough probes for about --batch-seconds (0.5 s; --callgrind-batch-seconds, 5 s, under
callgrind), at least 3 (2), at most 2,000 (200); a probe that grows the state has a fixed count.

Actions that cost O(state) make growing quadratic, valgrind runs the binary about 12× slower
uninstrumented and callgrind's instrumented batches about 100× slower: each scenario (one grown
process per size, shared by its probes) has a wall-clock budget per method, all sizes together
(`--budget`, `--callgrind-budget`). Before each size and each probe, the time it will take is
predicted (under callgrind from the CPU run at the same size, otherwise from the smaller sizes);
a cell that would not fit, or that runs past the budget, is printed as "skipped" (over budget)
rather than dropped, and the ratio is then over the sizes measured.

The rows are data: `SCENARIOS` below, each a store, its binary and options, the lines that grow
it, and its probes.

    python3 bench/scaling.py --actor .build/release/composable-actor \\
        --todo-actor Examples/custom-store/.build/release/todo-actor [--json scaling.json]
"""

import argparse
import json
import math
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "Tests/servers"))
from fixture_server import PRIMES  # noqa: E402  (the Nth prime, by a sieve kept)
from lines import action_line  # noqa: E402

SIZES = (0, 1_000, 10_000, 100_000)
METHODS = ("cpu", "callgrind")
WARMUP_PROBES = 2
GROW_ID = "grow"
#: Votes per injected page: a page line must stay under the binary's --max-line-bytes (1 MiB).
VOTES_PER_PAGE = 5_000
MOST_PROBES = {"cpu": 2_000, "callgrind": 200}


# --- the rows -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """One row of the table: the lines of the `index`-th probe at size `size`. `index` counts
    this probe's sends in the process, warm-up included, so consecutive probes differ."""

    key: str
    label: str
    lines: Callable[[int, int], bytes]
    actions: int = 1  # action lines each probe makes (every probe line makes exactly one)
    #: For a probe that grows the state: exactly this many a batch (within the budget), so
    #: that every run, and both methods, measure the same sizes.
    count: int | None = None


@dataclass(frozen=True)
class Scenario:
    """A store grown to a size in one process, then probed by each of its rows in turn."""

    key: str
    binary: str  # "actor" or "todo_actor": which command-line binary runs it
    store: str
    options: Callable[[int], list[str]]
    grow: Callable[[int], bytes]  # the grow lines; the last one carries the id GROW_ID
    grown: str  # the action type of the line, with id GROW_ID, that ends growing
    probes: tuple[Probe, ...]
    files: Callable[[int, Path], None] = lambda size, directory: None  # the data directory
    note: str = ""


def websocket_scenario() -> Scenario:
    def message(text: str, id=None) -> bytes:
        return action_line(
            "websocket", {"type": "receivedSocketMessage.success", "value": {"text": text}}, id)

    def held(size: int) -> int:
        return max(size, 1)  # --max-received is at least 1

    def grow(size: int) -> bytes:
        count = held(size)
        return b"".join(message(f"message {n}", GROW_ID if n == count - 1 else None)
                        for n in range(count))

    phrase = "hello, world"
    return Scenario(
        key="websocket", binary="actor", store="websocket",
        options=lambda size: ["--allow-effect-actions", "--max-received", str(held(size))],
        grow=grow, grown="receivedSocketMessage.success",
        note="N messages held, the list full (--max-received N); at size 0, 1 message and cap 1",
        probes=(
            Probe("websocket.typing", "websocket: type one character (messageToSendChanged)",
                  lambda size, index: action_line(
                      "websocket", {"type": "messageToSendChanged",
                                    "value": phrase[: index % len(phrase) + 1]})),
            Probe("websocket.full", "websocket: a new message, the list full (cap N)",
                  lambda size, index: message(f"new message {index}")),
        ))


def votes_scenario() -> Scenario:
    def page(number: int, first: int, count: int, last: bool) -> bytes:
        items = [{"id": n, "title": f"Vote {n}", "category": f"category {n % 4}", "votes": n % 97}
                 for n in range(first, first + count)]
        value = {"items": items, "page": number, "size": VOTES_PER_PAGE, "hasNext": not last}
        return action_line("votes", {"type": "inner.updateVoteItems.success", "value": value},
                           GROW_ID if last else None)

    def grow(size: int) -> bytes:
        pages = max(1, math.ceil(size / VOTES_PER_PAGE))
        return b"".join(
            page(n + 1, n * VOTES_PER_PAGE + 1, min(VOTES_PER_PAGE, size - n * VOTES_PER_PAGE),
                 n == pages - 1)
            for n in range(pages))

    return Scenario(
        key="votes", binary="actor", store="votes",
        options=lambda size: ["--allow-effect-actions"],
        grow=grow, grown="inner.updateVoteItems.success",
        note=f"N votes held, injected as pages of {VOTES_PER_PAGE:,}",
        probes=(
            Probe("votes.isLoading", "votes: the isLoading toggle (an effect action)",
                  lambda size, index: action_line(
                      "votes", {"type": "isLoading", "value": index % 2 == 0})),
        ))


def primes_scenario() -> Scenario:
    def files(size: int, directory: Path):
        (directory / "favorite-primes.json").write_text(json.dumps(first_primes(size)))

    def save(size: int, index: int) -> bytes:
        prime = PRIMES.nth(size + index + 1)  # one not held yet
        return (action_line("primes", {"type": "counter.countChanged", "value": prime})
                + action_line("primes", "primeModal.saveFavoritePrimeTapped"))

    return Scenario(
        key="primes", binary="actor", store="primes",
        options=lambda size: [],
        grow=lambda size: action_line("primes", "favoritePrimes.loadButtonTapped", GROW_ID),
        grown="favoritePrimes.loadedFavoritePrimes", files=files,
        note="N favourites held, loaded from <data-dir>/favorite-primes.json",
        probes=(
            Probe("primes.incr", "primes: a counter tap (counter.incrTapped)",
                  lambda size, index: action_line("primes", "counter.incrTapped")),
            # Each save adds a favourite and an activity: few, so the size stays N.
            Probe("primes.save",
                  "primes: save a favourite (countChanged to a new prime, then "
                  "saveFavoritePrimeTapped: 2 actions)",
                  save, actions=2, count=10),
        ))


def todos_scenario() -> Scenario:
    def held(size: int) -> int:
        return max(size, 1)  # something to toggle

    def files(size: int, directory: Path):
        todos = [{"id": n, "title": f"todo {n}", "done": False} for n in range(1, held(size) + 1)]
        (directory / "todos.json").write_text(json.dumps(todos))

    def add_and_delete(size: int, index: int) -> bytes:
        added = held(size) + 1 + index  # nextID after the load, plus the adds before
        return (action_line("todos", {"type": "add", "title": f"probe {index}"})
                + action_line("todos", {"type": "delete", "id": added}))

    return Scenario(
        key="todos", binary="todo_actor", store="todos",
        options=lambda size: [],
        grow=lambda size: action_line("todos", "load", GROW_ID),
        grown="loaded", files=files,
        note="Examples/custom-store's todo-actor; N todos held, loaded from <data-dir>/todos.json; "
             "at size 0, 1 todo",
        probes=(
            Probe("todos.toggle", "todos: toggle the middle todo",
                  lambda size, index: action_line(
                      "todos", {"type": "todos.element", "id": held(size) // 2 + 1,
                                "action": {"type": "toggled"}})),
            Probe("todos.add", "todos: add a todo, then delete it (2 actions)",
                  add_and_delete, actions=2),
        ))


SCENARIOS = (websocket_scenario(), votes_scenario(), primes_scenario(), todos_scenario())


def first_primes(count: int) -> list[int]:
    return [PRIMES.nth(n) for n in range(1, count + 1)]


# --- one process ----------------------------------------------------------------------------


class OverBudget(Exception):
    pass


class Actor:
    """The binary (or callgrind running it), with stdin fed by one thread and stdout read by
    another, which counts the action lines and their bytes and notes the line that ends
    growing. Every wait has a deadline: past it, OverBudget."""

    def __init__(self, command: list[str], deadline: float, workdir: Path):
        self.deadline = deadline
        self.stderr = open(workdir / "stderr.log", "w+b")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.condition = threading.Condition()
        self.actions = 0
        self.unchanged = 0  # action lines whose patch is empty
        self.bytes = 0
        self.ready = False
        self.ended = False
        self.errors: list[bytes] = []
        self.grown: set[str] = set()
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._write, daemon=True).start()
        self.wait(lambda: self.ready, "the ready line")

    def _read(self):
        for line in self.process.stdout:
            with self.condition:
                self.bytes += len(line)
                if line.startswith(b'{"type":"action"'):
                    self.actions += 1
                    if line.endswith(b'"patch":[]}\n'):
                        self.unchanged += 1
                    if f'"id":"{GROW_ID}"'.encode() in line[:200]:
                        self.grown.add(json.loads(line)["action"]["type"])
                elif line.startswith(b'{"type":"ready"'):
                    self.ready = True
                elif line.startswith(b'{"type":"error"'):
                    self.errors.append(line[:2000])
                self.condition.notify_all()
        with self.condition:
            self.ended = True
            self.condition.notify_all()

    def _write(self):
        while (data := self.inbox.get()) is not None:
            try:
                self.process.stdin.write(data)
                self.process.stdin.flush()
            except (BrokenPipeError, ValueError):
                return

    def send(self, data: bytes):
        self.inbox.put(data)

    def wait(self, condition: Callable[[], bool], what: str):
        with self.condition:
            while not condition():
                if self.errors:
                    raise RuntimeError(f"the binary refused a line: {self.errors[0].decode()}")
                if self.ended:
                    self.stderr.seek(0)
                    raise RuntimeError(f"the binary ended while waiting for {what}: "
                                       f"{self.stderr.read()[-2000:].decode(errors='replace')}")
                left = self.deadline - time.monotonic()
                if left <= 0:
                    raise OverBudget(what)
                self.condition.wait(min(left, 1.0))

    def wait_actions(self, count: int):
        self.wait(lambda: self.actions >= count, f"{count} action lines")

    def cpu_ns(self) -> int:
        """ns on a CPU, summed over the process's threads."""
        total = 0
        directory = f"/proc/{self.process.pid}/task"
        for task in os.listdir(directory):
            try:
                with open(f"{directory}/{task}/schedstat") as file:
                    total += int(file.read().split()[0])
            except FileNotFoundError:
                pass  # the thread ended meanwhile
        return total

    def idle_cpu_ns(self) -> int:
        """The CPU counter once it stopped moving: the process has finished writing."""
        last = self.cpu_ns()
        for _ in range(100):
            time.sleep(0.002)
            now = self.cpu_ns()
            if now == last:
                break
            last = now
        return last

    def close(self):
        self.inbox.put(None)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.stderr.close()


class Callgrind:
    """callgrind_control on a process started under callgrind with --instr-atstart=no."""

    def __init__(self, actor: Actor, workdir: Path):
        self.actor, self.workdir, self.dumps = actor, workdir, 0
        self.out = workdir / "callgrind.out"

    def control(self, *arguments: str):
        subprocess.run(["callgrind_control", f"--vgdb-prefix={self.workdir / 'vgdb'}", *arguments,
                        str(self.actor.process.pid)], check=True, capture_output=True, timeout=120)

    def start(self):
        self.control("--zero")
        self.control("--instr=on")

    def stop(self) -> int:
        """Instructions since start()."""
        self.control("--instr=off")
        self.control("--dump")
        self.dumps += 1
        for text in Path(f"{self.out}.{self.dumps}").read_text().splitlines():
            if text.startswith("totals:"):
                return int(text.split()[1])
        raise RuntimeError(f"no totals in {self.out}.{self.dumps}")


# --- measuring a cell -----------------------------------------------------------------------


LEAST_PROBES = {"cpu": 3, "callgrind": 2}
#: valgrind running the binary uninstrumented, against the binary alone (measured: 10-12×).
VALGRIND_SLOWDOWN = 12.0
#: callgrind's instrumented code against the same code uninstrumented (measured: 5-12×), until
#: a batch long enough to tell measures it (a short one is mostly a round trip's fixed costs).
INSTRUMENTED_SLOWDOWN = 10.0


@dataclass
class Budget:
    """Wall-clock seconds one scenario may take under one method, all sizes together."""

    seconds: float
    started: float = field(default_factory=time.monotonic)

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    def left(self) -> float:
        return self.deadline - time.monotonic()


@dataclass
class Timings:
    """What one scenario took so far, to predict the next cell: wall seconds to grow to each
    size, and the pace of each probe's warm-up (seconds a probe), per method."""

    seconds: dict[tuple[str, str, int], float] = field(default_factory=dict)
    instrumented: float = INSTRUMENTED_SLOWDOWN

    def record(self, method: str, what: str, size: int, seconds: float):
        self.seconds[(method, what, size)] = seconds

    def predict(self, method: str, what: str, size: int) -> float:
        """Under callgrind, from the CPU run at the same size when there was one; otherwise
        from the smaller sizes (0 when there are none)."""
        if method == "callgrind" and ("cpu", what, size) in self.seconds:
            return self.seconds[("cpu", what, size)] * VALGRIND_SLOWDOWN
        history = {n: s for (m, w, n), s in self.seconds.items() if (m, w) == (method, what)}
        return extrapolate(history, size)

    def batch_cost(self, method: str, pace: float) -> float:
        """Seconds a measured probe takes, from the warm-up's pace."""
        return pace * (self.instrumented if method == "callgrind" else 1.0)

    def probe_need(self, method: str, key: str, size: int) -> float:
        """Predicted seconds for a probe's warm-up and its smallest batch."""
        pace = self.predict(method, key, size)
        return pace * WARMUP_PROBES + self.batch_cost(method, pace) * LEAST_PROBES[method]


def extrapolate(history: dict[int, float], size: int) -> float:
    """Seconds at `size` from those at smaller sizes: the time at size 0 (what does not
    depend on the size), plus a power law through the last two nonzero sizes, its exponent
    kept within 1 to 2 (today's growth is at most quadratic); linear from a single one. An
    estimate for skipping what clearly will not fit: the budget's deadline is what holds."""
    fixed = history.get(0, 0.0)
    known = sorted((n, seconds - fixed) for n, seconds in history.items() if 0 < n < size)
    if not known:
        return fixed
    n1, t1 = known[-1]
    exponent = 1.0
    if len(known) > 1:
        n0, t0 = known[-2]
        if t0 > 0 and t1 > 0:
            exponent = min(2.0, max(1.0, math.log(t1 / t0) / math.log(n1 / n0)))
    return fixed + max(t1, 0.0) * (size / n1) ** exponent


def command_for(scenario: Scenario, size: int, binaries: dict[str, Path], method: str,
                workdir: Path) -> list[str]:
    binary = binaries[scenario.binary if method == "cpu" else scenario.binary + "_stripped"]
    command = [str(binary), "run", "--data-dir", str(workdir), *scenario.options(size)]
    if method == "callgrind":
        # The control FIFOs go to the temporary directory too: a killed valgrind leaves them.
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                   f"--callgrind-out-file={workdir / 'callgrind.out'}",
                   f"--vgdb-prefix={workdir / 'vgdb'}", *command]
    return command


def grow(actor: Actor, scenario: Scenario, size: int):
    actor.send(scenario.grow(size))
    actor.wait(lambda: scenario.grown in actor.grown, f"the grown state ({scenario.grown})")


@dataclass
class Cell:
    """One process at one size under one method, and what it may spend."""

    actor: Actor
    size: int
    method: str
    budget: Budget
    timings: Timings
    callgrind: Callgrind | None
    target_seconds: float  # about how long a batch should run


def probe_count(cell: Cell, probe: Probe, pace: float) -> int:
    """Probes for the batch: the probe's count, or enough for about the target time, at least
    a few; within what the budget has left (0: it cannot)."""
    least = LEAST_PROBES[cell.method]
    cost = max(cell.timings.batch_cost(cell.method, pace), 1e-6)
    affordable = int(0.8 * cell.budget.left() / cost)
    if affordable < least:
        return 0
    wanted = probe.count or min(MOST_PROBES[cell.method],
                                max(least, round(cell.target_seconds / cost)))
    return min(wanted, affordable)


def measure_probe(cell: Cell, probe: Probe) -> dict | None:
    """Warm-up probes, then one measured batch. None: it would not fit the budget."""
    if cell.timings.probe_need(cell.method, probe.key, cell.size) > cell.budget.left():
        return None
    actor, sent = cell.actor, 0

    def batch(count: int) -> tuple[float, int]:
        nonlocal sent
        data = b"".join(probe.lines(cell.size, sent + n) for n in range(count))
        sent += count
        start, before, unchanged = time.monotonic(), actor.bytes, actor.unchanged
        actor.send(data)
        actor.wait_actions(actor.actions + count * probe.actions)
        if actor.unchanged != unchanged:
            raise RuntimeError(f"{probe.key}: a probe action changed nothing (a wrong id, a "
                               "wrong wire form?): it would measure a no-op")
        return time.monotonic() - start, actor.bytes - before

    pace = batch(WARMUP_PROBES)[0] / WARMUP_PROBES
    cell.timings.record(cell.method, probe.key, cell.size, pace)
    count = probe_count(cell, probe, pace)
    if count == 0:
        return None
    if cell.method == "cpu":
        before = actor.idle_cpu_ns()
        seconds, output = batch(count)
        figures = {"cpu_us": round((actor.idle_cpu_ns() - before) / count / 1e3, 3)}
    else:
        cell.callgrind.start()
        seconds, output = batch(count)
        figures = {"instructions": round(cell.callgrind.stop() / count)}
        if seconds > 2:
            cell.timings.instrumented = max(1.0, seconds / count / pace)
    log(f"  {probe.key}: {count} probes in {seconds:.1f} s")
    return {"probes": count, "bytes": round(output / count, 1), **figures}


def predicted_need(scenario: Scenario, size: int, method: str, timings: Timings) -> float:
    """Seconds predicted for growing to `size` and the cheapest probe's smallest batch: the
    probes that would not fit are skipped one by one (`measure_probe`)."""
    return (timings.predict(method, "grow", size)
            + min(timings.probe_need(method, probe.key, size) for probe in scenario.probes))


def measure_cell(scenario: Scenario, size: int, method: str, binaries: dict[str, Path],
                 budget: Budget, timings: Timings, target_seconds: float) -> dict[str, dict | None]:
    """One process at one size: grow it, then each probe. A probe maps to its figures, or to
    None when skipped for the budget."""
    results: dict[str, dict | None] = {probe.key: None for probe in scenario.probes}
    if predicted_need(scenario, size, method, timings) > budget.left():
        return results
    with tempfile.TemporaryDirectory(prefix=f"scaling-{scenario.key}-") as directory:
        workdir = Path(directory)
        scenario.files(size, workdir)
        actor = Actor(command_for(scenario, size, binaries, method, workdir), budget.deadline,
                      workdir)
        try:
            start = time.monotonic()
            grow(actor, scenario, size)
            timings.record(method, "grow", size, time.monotonic() - start)
            callgrind = Callgrind(actor, workdir) if method == "callgrind" else None
            cell = Cell(actor, size, method, budget, timings, callgrind, target_seconds)
            for probe in scenario.probes:
                results[probe.key] = measure_probe(cell, probe)
        except OverBudget as reason:
            log(f"  over budget while waiting for {reason}")
        finally:
            actor.close()
    return results


# --- all cells, and the table ---------------------------------------------------------------


def log(text: str):
    print(text, file=sys.stderr, flush=True)


def stripped_copy(binary: Path, out: Path) -> Path:
    """A copy valgrind can read: without debug info (valgrind 3.19 fails on Swift's)."""
    copy = out / f"{binary.name}.stripped"
    if not copy.exists() or copy.stat().st_mtime < binary.stat().st_mtime:
        subprocess.run(["strip", "--strip-debug", "-o", str(copy), str(binary)], check=True)
    return copy


def measure_all(scenarios, sizes, methods, binaries, budgets, targets) -> dict:
    """{probe key: {size: {figures..., "skipped": [methods]}}}"""
    cells: dict[str, dict[int, dict]] = {
        probe.key: {size: {"skipped": []} for size in sizes}
        for scenario in scenarios for probe in scenario.probes}
    for scenario in scenarios:
        timings = Timings()
        for method in methods:
            budget = Budget(budgets[method])
            for size in sizes:
                start = time.monotonic()
                results = measure_cell(scenario, size, method, binaries, budget, timings,
                                       targets[method])
                log(f"scaling: {scenario.key} under {method} at {size:,}: "
                    f"{time.monotonic() - start:.1f} s, {budget.left():.0f} s of budget left")
                for key, figures in results.items():
                    cell = cells[key][size]
                    if figures is None:
                        cell["skipped"].append(method)
                        continue
                    cell[f"probes_{method}"] = figures.pop("probes")
                    # Output bytes are the same either way; the CPU run's are kept.
                    if "bytes" in cell:
                        figures.pop("bytes")
                    cell.update(figures)
    return cells


MEASURES = (("cpu_us", "CPU µs", "cpu"), ("instructions", "instructions", "callgrind"),
            ("bytes", "output bytes", None))


def ratio(figures: dict[int, dict], measure: str, sizes) -> tuple[float, int, int] | None:
    measured = [size for size in sizes if measure in figures[size]]
    if len(measured) < 2:
        return None
    low, high = measured[0], measured[-1]
    if figures[low][measure] <= 0:
        return None
    return figures[high][measure] / figures[low][measure], low, high


def compact(value: float, unit: str = "") -> str:
    """3 significant figures with k/M/G: 6.51k, 12.3M."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}{unit}"
    return f"{value:.3g}{unit}"


def size_name(size: int) -> str:
    return compact(size) if size else "0"


def format_table(scenarios, sizes, cells) -> str:
    width, column = 34, 11
    header = (f"{'row':<{width}} {'measure':<13}"
              + "".join(f"{size_name(size):>{column}}" for size in sizes) + "  largest/smallest")
    out = ["Scaling: cost per probe at each state size; target largest/smallest <= 2",
           header, "-" * len(header)]
    for scenario in scenarios:
        out.append(f"{scenario.key} ({scenario.note})")
        for probe in scenario.probes:
            figures = cells[probe.key]
            label_lines = wrap(probe.label, width)
            for index, (measure, name, method) in enumerate(MEASURES):
                row = f"{(label_lines[index] if index < len(label_lines) else ''):<{width}} {name:<13}"
                for size in sizes:
                    cell = figures[size]
                    if measure in cell:
                        unit = " µs" if measure == "cpu_us" else ""
                        text = (f"{cell[measure]:,.2f}" if measure == "cpu_us" and cell[measure] < 10
                                else f"{cell[measure]:,.0f}" if measure == "cpu_us"
                                else compact(cell[measure]))
                        row += f"{text:>{column}}"
                    elif method in cell["skipped"] or (method is None and cell["skipped"]):
                        row += f"{'skipped':>{column}}"
                    else:
                        row += f"{'-':>{column}}"
                found = ratio(figures, measure, sizes)
                if found:
                    value, low, high = found
                    span = "" if (low, high) == (sizes[0], sizes[-1]) else \
                        f" ({size_name(high)}/{size_name(low)})"
                    row += f"  {value:,.{1 if value < 100 else 0}f}×{span}"
                out.append(row.rstrip())
            for extra in label_lines[len(MEASURES):]:
                out.append(extra)
    out.append("Figures are per probe (a row's probe may be 2 actions, as its name says). skipped: "
               "not measured, over budget (--budget, --callgrind-budget).")
    return "\n".join(out)


def wrap(text: str, width: int) -> list[str]:
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line]


def write_json(path: Path, scenarios, sizes, cells, arguments, seconds: float):
    rows = []
    for scenario in scenarios:
        for probe in scenario.probes:
            figures = cells[probe.key]
            ratios = {}
            for measure, _, _ in MEASURES:
                found = ratio(figures, measure, sizes)
                if found:
                    ratios[measure] = {"ratio": round(found[0], 2), "from": found[1], "to": found[2]}
            rows.append({"key": probe.key, "store": scenario.store, "label": probe.label,
                         "scenario": scenario.note,
                         "sizes": {str(size): figures[size] for size in sizes},
                         "ratios": ratios})
    document = {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": commit(),
                "seconds": round(seconds), "sizes": list(sizes),
                "budget": arguments.budget, "callgrind_budget": arguments.callgrind_budget,
                "rows": rows}
    path.write_text(json.dumps(document, indent=2) + "\n")


def commit() -> str | None:
    """The checkout's commit, with "+" when it has changes: what the figures are of."""
    try:
        head = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                              check=True, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(HERE), "status", "--porcelain", "--untracked-files=no"],
                               check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actor", type=Path, default=Path(".build/release/composable-actor"),
                        help="the release binary (default %(default)s)")
    parser.add_argument("--todo-actor", type=Path,
                        default=Path("Examples/custom-store/.build/release/todo-actor"),
                        help="Examples/custom-store's release binary (default %(default)s)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="state sizes, comma-separated (default %(default)s)")
    parser.add_argument("--rows", default=",".join(s.key for s in SCENARIOS),
                        help="scenarios to run, comma-separated (default %(default)s)")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help="cpu, callgrind or both (default %(default)s)")
    parser.add_argument("--budget", type=float, default=150,
                        help="wall seconds per scenario for the CPU runs, all sizes (default %(default)s)")
    parser.add_argument("--callgrind-budget", type=float, default=100,
                        help="the same for the callgrind runs (default %(default)s)")
    parser.add_argument("--batch-seconds", type=float, default=0.5,
                        help="about how long a CPU batch of probes runs (default %(default)s)")
    parser.add_argument("--callgrind-batch-seconds", type=float, default=5,
                        help="the same under callgrind (default %(default)s)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    arguments = parser.parse_args()

    sizes = sorted({int(size) for size in arguments.sizes.split(",")})
    methods = [m for m in METHODS if m in arguments.methods.split(",")]
    if "callgrind" in methods and not shutil.which("callgrind_control"):
        log("scaling: valgrind is not installed, so no instruction counts (apt-get install valgrind)")
        methods.remove("callgrind")
    wanted = arguments.rows.split(",")
    scenarios = [s for s in SCENARIOS if s.key in wanted]
    out = Path(tempfile.gettempdir()) / "composable-actor-bench"
    out.mkdir(exist_ok=True)
    binaries = {"actor": arguments.actor.resolve(), "todo_actor": arguments.todo_actor.resolve()}
    if "callgrind" in methods:
        for key in list(binaries):
            if any(s.binary == key for s in scenarios):
                binaries[key + "_stripped"] = stripped_copy(binaries[key], out)
    budgets = {"cpu": arguments.budget, "callgrind": arguments.callgrind_budget}
    targets = {"cpu": arguments.batch_seconds, "callgrind": arguments.callgrind_batch_seconds}

    start = time.monotonic()
    cells = measure_all(scenarios, sizes, methods, binaries, budgets, targets)
    seconds = time.monotonic() - start
    print(format_table(scenarios, sizes, cells))
    print(f"(the scaling table took {seconds:.0f} s)")
    if arguments.json:
        write_json(arguments.json, scenarios, sizes, cells, arguments, seconds)


if __name__ == "__main__":
    main()
