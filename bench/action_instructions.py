#!/usr/bin/env python3
"""Instructions per action, for the counter and for each store's most common action with a
payload: what an action costs from its input line to its output line, in figures that repeat
exactly on this noisy machine.

The method of ../shared/peers/README.md: a copy of the release binary made with
`strip --strip-debug` (valgrind cannot read its DWARF) runs under `valgrind --tool=callgrind`
on 4,000 and on 12,000 lines of the action, and the difference of the two totals is divided by
8,000, so that start-up and any lines that set the state up cancel out. Payload actions vary
their value (`countChanged` with `i % 1000`, `messageToSendChanged` with "hello " + `i % 1000`).

    python3 bench/action_instructions.py --binary .build/release/composable-actor \\
        [--todo-actor Examples/custom-store/.build/release/todo-actor]
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from lines import action_line  # noqa: E402
from scaling import stripped_copy  # noqa: E402

SMALL, LARGE = 4_000, 12_000
# Arguments as a host gives them: a command, run's options and a store's (no connection is made
# before the websocket store's first action).
RUN_ARGUMENTS = ["run", "--linger", "1", "--log-level", "error", "--websocket-url",
                 "ws://127.0.0.1:9/"]


@dataclass(frozen=True)
class Row:
    name: str
    #: The i-th line of the action.
    line: Callable[[int], bytes]
    #: Lines before the actions, in both runs (they cancel out).
    setup: bytes = b""
    args: tuple[str, ...] = field(default=())
    #: Measured with the example store's binary rather than the shipped one.
    todo_actor: bool = False


def counter(i: int) -> bytes:
    """The peers' counter workload (../shared/peers/gen.py): three taps up, then one down."""
    return action_line("primes", {"type": "counter.decrTapped" if i % 4 == 3 else "counter.incrTapped"})


def todo(action: dict) -> bytes:
    return action_line("todos", action)


ROWS = [
    Row("primes counter.incrTapped ×3, decrTapped (the counter)", counter),
    Row("primes counter.countChanged, a number",
        lambda i: action_line("primes", {"type": "counter.countChanged", "value": i % 1000})),
    Row("websocket messageToSendChanged, a string",
        lambda i: action_line("websocket", {"type": "messageToSendChanged", "value": f"hello {i % 1000}"})),
    # The votes' and random todo's payload actions are their effects' answers, injected.
    Row("votes isLoading, a bool (injected; a state without @FieldwiseState)",
        lambda i: action_line("votes", {"type": "isLoading", "value": i % 2 == 0}),
        args=("--allow-effect-actions",)),
    Row("randomTodo fetchResult.success, a todo (injected)",
        lambda i: action_line("randomTodo", {"type": "fetchResult.success", "value": {
            "userId": 1, "id": i % 1000, "title": f"todo {i % 1000}", "completed": i % 2 == 0}}),
        args=("--allow-effect-actions",)),
    Row("todos (Examples/custom-store) todos.element toggled, 2 todos held",
        lambda i: todo({"type": "todos.element", "id": 1 + i % 2, "action": {"type": "toggled"}}),
        setup=todo({"type": "add", "title": "a"}) + todo({"type": "add", "title": "b"}),
        todo_actor=True),
    Row("todos (Examples/custom-store) todos.element renamed, a string",
        lambda i: todo({"type": "todos.element", "id": 1, "action": {"type": "renamed", "title": f"t {i % 1000}"}}),
        setup=todo({"type": "add", "title": "a"}), todo_actor=True),
    Row("todos (Examples/custom-store) move, two numbers",
        lambda i: todo({"type": "move", "from": i % 2, "to": 1 - i % 2}),
        setup=todo({"type": "add", "title": "a"}) + todo({"type": "add", "title": "b"}),
        todo_actor=True),
]


def total(binary: Path, data: bytes, args: tuple[str, ...], data_dir: Path) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), "run",
             "--data-dir", str(data_dir), *args],
            input=data, capture_output=True, check=True, timeout=1200,
        )
    if b'"error"' in result.stdout:
        line = next(line for line in result.stdout.splitlines() if b'"error"' in line)
        raise RuntimeError(f"the run wrote an error line: {line.decode()}")
    for line in result.stderr.decode().splitlines():
        if "Collected :" in line:
            return int(line.split()[-1])
    raise RuntimeError("callgrind printed no total")


def per_action(binary: Path, row: Row, out: Path) -> float:
    def run(count: int) -> int:
        data = row.setup + b"".join(row.line(i) for i in range(count))
        with tempfile.TemporaryDirectory(dir=out) as data_dir:
            return total(binary, data, row.args, Path(data_dir))
    return (run(LARGE) - run(SMALL)) / (LARGE - SMALL)


def start_up(binary: Path, args: list[str]) -> int:
    """Instructions of a whole run with nothing on stdin: start, the ready line, exit."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), *args],
            input=b"", capture_output=True, check=True, timeout=600)
    return next(int(line.split()[-1]) for line in result.stderr.decode().splitlines()
                if "Collected :" in line)


def rows(binary: Path, todo_actor: Path | None, out: Path) -> list[tuple[str, str, str]]:
    if shutil.which("valgrind") is None:
        return [("instructions per action", "skipped", "needs valgrind")]
    binaries = {False: stripped_copy(binary, out)}
    empty = start_up(binaries[False], [])
    given = start_up(binaries[False], RUN_ARGUMENTS)
    result = [("instructions of a run with empty input (start-up and exit)", f"{empty:,}", ""),
              ("  the same, given run's arguments (" + " ".join(RUN_ARGUMENTS) + ")", f"{given:,}",
               f"{given / empty:.2f}× the empty run's")]
    if todo_actor is not None:
        binaries[True] = stripped_copy(todo_actor, out)
    counter_figure = None
    for row in ROWS:
        if row.todo_actor not in binaries:
            continue
        figure = per_action(binaries[row.todo_actor], row, out)
        if counter_figure is None:
            counter_figure = figure
            target = "<= 5,000"
        else:
            target = f"{figure / counter_figure:.1f}× the counter (<= 2×)"
        result.append((f"instructions per action: {row.name}", f"{figure:,.0f}", target))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=Path(".build/release/composable-actor"))
    parser.add_argument("--todo-actor", type=Path, help="Examples/custom-store's binary: adds its rows")
    parser.add_argument("--only", help="measure only the rows whose name contains this")
    options = parser.parse_args()
    if options.only:
        ROWS[:] = [row for row in ROWS if row is ROWS[0] or options.only in row.name]
    out = Path(tempfile.gettempdir()) / "composable-actor-bench"
    out.mkdir(exist_ok=True)
    found = rows(options.binary.resolve(), options.todo_actor and options.todo_actor.resolve(), out)
    width = max(len(name) for name, _, _ in found)
    for name, value, target in found:
        print(f"{name.ljust(width)}  {value:>10}  {target}")


if __name__ == "__main__":
    main()
