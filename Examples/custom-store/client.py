#!/usr/bin/env python3
"""The todos store driven from Python, through the composable_actor client.

    python3 client.py [--binary PATH] [--url URL]

Spawns the todo-actor binary (--binary, else .build/release/todo-actor, else
.build/debug/todo-actor), adds todos, filters, saves, syncs and loads, and checks the state
after each step. --url is the base URL of a running Tests/servers/fixture_server.py, which
answers POST /todos/sync; without it the example starts one on 127.0.0.1. Exits 1 when a state
is not the one expected.

The process runs with `--clock virtual`, so the filter's 300 ms debounce fires exactly when the
example advances the clock, and with a throw-away data folder.
"""

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "clients/python"))
from composable_actor import Client  # noqa: E402

STORE = "todos"
failures = []


def check(what, actual, expected):
    if actual == expected:
        print(f"ok    {what}: {json.dumps(actual)}")
    else:
        failures.append(what)
        print(f"FAIL  {what}:\n      expected {json.dumps(expected)}\n      actual   {json.dumps(actual)}")


def todo(id, title, done=False):
    return {"id": id, "title": title, "done": done}


def drive(actor, data_dir, url):
    for title in ("Buy milk", "Walk the dog", "Mix the paint"):
        actor.send(STORE, "add", title=title)
    # Each todo is a feature of its own: its action goes to it by id. (`action` is the send's
    # own parameter, so the whole action is given as an object.)
    actor.send(STORE, {"type": "todos.element", "id": 1, "action": {"type": "toggled"}})
    local = [todo(1, "Buy milk", True), todo(2, "Walk the dog"), todo(3, "Mix the paint")]
    check("todos after adding three and toggling the first", actor.state(STORE)["todos"], local)

    actor.send(STORE, "filterChanged", text="MI")
    check("visible before the debounce fires", actor.state(STORE)["visibleIDs"], [1, 2, 3])
    # advance answers once everything due by then was reduced: the mirror has filterApplied.
    actor.advance(300)
    check("visible 300 ms later (titles containing \"mi\")", actor.state(STORE)["visibleIDs"], [1, 3])

    # The write runs on the thread pool: settle waits for it under the virtual clock.
    actor.send(STORE, "save", settle=True)
    state = actor.state(STORE)
    check("saving finished without an error", [state["isSaving"], state["storageError"]], [False, None])
    check("what todos.json holds", json.loads((data_dir / "todos.json").read_text()), local)

    # Network I/O, which settle does not wait for: wait for the sync's outcome instead.
    actor.send(STORE, "sync", until=lambda line: line["type"] == "action"
               and line["action"]["type"] in ("synced", "syncFailed"))
    state = actor.state(STORE)
    check("sync error", state["syncError"], None)
    with urllib.request.urlopen(f"{url}/_control/requests", timeout=5) as answer:
        log = json.load(answer)["requests"]
    posted = [entry["body"] for entry in log if entry["method"] == "POST" and entry["path"] == "/todos/sync"]
    check("what the sync sent the server", json.loads(posted[-1]) if posted else None, local)
    synced = [todo(1, "Buy milk", True), todo(2, "Walk the dog", True), todo(3, "Mix the paint"),
              todo(101, "Book flights")]
    check("todos after the sync (server's 2 replaced, 101 appended)", state["todos"], synced)
    check("nextID after the sync", state["nextID"], 102)
    check("visible after the sync", state["visibleIDs"], [1, 3])

    actor.send(STORE, "load", settle=True)
    state = actor.state(STORE)
    check("todos loaded back from the file", state["todos"], local)
    check("nextID after loading (ids stay unique)", state["nextID"], 102)
    actor.send(STORE, "add", title="Milk the cow")
    check("the next todo's id", actor.state(STORE)["todos"][-1], todo(102, "Milk the cow"))
    check("the local mirror equals the process's state", actor.state(STORE), actor.snapshot(STORE))


def default_binary():
    for configuration in ("release", "debug"):
        path = HERE / ".build" / configuration / "todo-actor"
        if path.is_file():
            return path
    sys.exit("no todo-actor binary: run `swift build` in Examples/custom-store, or pass --binary")


def start_fixture_server(stack):
    """Starts Tests/servers/fixture_server.py on a free port until `stack` closes; its URL."""
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "Tests/servers/fixture_server.py"), "--port", "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def stop():
        server.stdin.close()  # it serves until its stdin closes
        server.wait(5)

    stack.callback(stop)
    ready = server.stdout.readline()
    if not ready:
        sys.exit("the fixture server printed no ready line")
    return json.loads(ready)["url"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, help="the todo-actor binary")
    parser.add_argument("--url", help="base URL of a running fixture_server.py")
    options = parser.parse_args()
    with contextlib.ExitStack() as stack:
        url = options.url or start_fixture_server(stack)
        data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        actor = stack.enter_context(Client(options.binary or default_binary(), [
            "--clock", "virtual", "--data-dir", str(data_dir), "--todos-sync-url", url]))
        drive(actor, data_dir, url)
    if failures:
        print(f"{len(failures)} check(s) failed")
        sys.exit(1)
    print("every check passed")


if __name__ == "__main__":
    main()
