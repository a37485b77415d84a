"""The figure for a store a team writes as the README says, with no performance code in it:
the example package's todo list (Examples/custom-store), driven through its own binary, beside
the counter.

Each row is the CPU time per action of one workload read from a file with stdout to /dev/null,
at a given size of the list, so the rows show whether an action's cost follows the list's size
(bench/scaling.py measures the same in instructions, which repeat exactly).
"""

import statistics
import subprocess
from pathlib import Path

from lines import action_line


def line(action: dict) -> bytes:
    return action_line("todos", action)


def adds(count: int) -> bytes:
    return b"".join(line({"type": "add", "title": f"todo {n}"}) for n in range(count))


def seconds(host: Path, binary: Path, path: Path, data: bytes, runs: int) -> float:
    path.write_bytes(data)
    times = []
    for _ in range(runs):
        output = subprocess.run(
            [str(host), str(binary), "file", str(path), "--data-dir", str(path.parent)],
            check=True, capture_output=True, text=True,
        ).stdout
        times.append(int(output.split()[0]) / 1e9)
    return statistics.median(times)


def rows(host: Path, binary: Path, out: Path, counter_seconds_per_action: float, runs: int = 3):
    counter = counter_seconds_per_action * 1e6
    result = []

    def row(name: str, microseconds: float):
        result.append((f"todos (Examples/custom-store): {name}",
                       f"{microseconds:.2f} µs/action", f"{microseconds / counter:.1f}× the counter's {counter:.2f} µs"))

    pairs = 100_000
    add_delete = b"".join(
        line({"type": "add", "title": "t"}) + line({"type": "delete", "id": n + 1}) for n in range(pairs)
    )
    row("add, delete (0–1 todos held)", seconds(host, binary, out / "todos-ad.jsonl", add_delete, runs) / (2 * pairs) * 1e6)
    # The same number of toggles at each size: the figure is a difference of two runs' times,
    # and fewer toggles left the noise of the larger run's fill to swamp them (33.6× at 1,000
    # where callgrind counts the same instructions per toggle as at 100).
    for held, toggles in [(100, 20_000), (1_000, 20_000)]:
        prefix = adds(held)
        base = seconds(host, binary, out / "todos-prefix.jsonl", prefix, runs)
        work = prefix + b"".join(line({"type": "todos.element", "id": 1 + n % 2, "action": {"type": "toggled"}})
                                 for n in range(toggles))
        total = seconds(host, binary, out / "todos-toggle.jsonl", work, runs)
        row(f"toggle with {held:,} todos held", (total - base) / toggles * 1e6)
    return result
