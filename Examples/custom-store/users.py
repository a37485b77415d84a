#!/usr/bin/env python3
"""One todo list per user, 10,000 users in one todo-actor process: each user is an instance of
the `todos` store, driven through the Python client.

    python3 users.py [--binary PATH] [--users N]

Each user gets a todo of their own (every other user also ticks it off), then the example asks
the process how many instances it holds (`instances`, paged) and prints that count and the
process's resident memory (VmRSS from /proc/PID/status) before the first instance and after the
last. A sample of users' mirrors is checked against the process's own snapshots. The binary is
--binary, else the debug build `swift build` makes here. Exits 1 when a check fails.
"""

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "clients/python"))
from composable_actor import Client  # noqa: E402

STORE = "todos"


def rss_kib(pid: int) -> int:
    """The process's resident set, in KiB (the kernel's VmRSS)."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def drive(actor: Client, users: list[str]) -> list[str]:
    """Gives each user a todo; the problems found (none when all is well)."""
    for number, user in enumerate(users):
        actor.send(STORE, "add", instance=user, title=f"Call {user} back")
        if number % 2 == 0:
            actor.send(STORE, {"type": "todos.element", "id": 1, "action": "toggled"}, instance=user)
    problems = []
    for number in range(0, len(users), max(1, len(users) // 10)):
        user = users[number]
        mirror = actor.state(STORE, instance=user)
        expected = [{"id": 1, "title": f"Call {user} back", "done": number % 2 == 0}]
        if mirror["todos"] != expected or mirror != actor.snapshot(STORE, instance=user):
            problems.append(f"{user}: the mirror {mirror['todos']} is not the process's state")
    if actor.state(STORE)["todos"] != []:
        problems.append("the default instance got a todo")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--binary", type=Path, default=HERE / ".build/debug/todo-actor", help="the todo-actor binary")
    parser.add_argument("--users", type=int, default=10_000, help="how many users (instances), 10,000 by default")
    options = parser.parse_args()
    users = [f"user-{number:05}" for number in range(options.users)]
    with tempfile.TemporaryDirectory() as data, Client(options.binary, ["--data-dir", data]) as actor:
        before = rss_kib(actor.pid)
        problems = drive(actor, users)
        count = len(actor.instances(STORE))
        after = rss_kib(actor.pid)
    if count != len(users):
        problems.append(f"the process holds {count} instances, not {len(users)}")
    print(f"instances: {count}")
    per_instance = f": {(after - before) / max(1, count):.1f} KiB per instance" if count else ""
    print(f"RSS: {after / 1024:.1f} MiB, {before / 1024:.1f} MiB before the first instance{per_instance}")
    for problem in problems:
        print(f"FAIL  {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
