"""Starting a client: where the binary comes from, arguments of the wrong type, and processes
ended when Python exits without close()."""

import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from composable_actor import _session
from composable_actor import ENV_BINARY, AsyncClient, Client, find_binary

PACKAGE = Path(__file__).resolve().parents[1] / "composable_actor"


@pytest.fixture
def binary():
    # Found as the client finds it (conftest stops the run, saying what to set, when it is not).
    return str(Path(find_binary()).resolve())


@pytest.fixture
def on_path(tmp_path, binary):
    """A folder holding only a `composable-actor` symlink to the binary."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "composable-actor").symlink_to(binary)
    return folder


def test_args_as_one_string_is_a_type_error_that_shows_the_list():
    with pytest.raises(TypeError, match=r"list of arguments, such as \['--clock', 'virtual'\], not the string"):
        Client(args="--clock virtual")
    with pytest.raises(TypeError, match=r"args\[1\] is 1 \(int\).*'1'"):
        Client(args=["--seed", 1])
    with pytest.raises(TypeError, match="args must be a list of strings, not int"):
        Client(args=3)
    with pytest.raises(TypeError, match="timeout"):
        Client(timeout="5")
    with pytest.raises(TypeError, match="backlog"):
        AsyncClient(backlog=0)
    with pytest.raises(TypeError, match="binary must be a path"):
        Client(binary=42)


def test_wrong_types_in_calls_are_clear_errors(start):
    actor = start()
    with pytest.raises(TypeError, match="until must be an action type"):
        actor.send("primes", "counter.incrTapped", until=7)
    with pytest.raises(TypeError, match="action must be"):
        actor.send("primes", 7)
    with pytest.raises(TypeError, match="store must be a str"):
        actor.state(None)
    with pytest.raises(TypeError, match="timeout"):
        actor.wait_for("counter.incrTapped", timeout="1")
    with pytest.raises(ValueError, match="until or settle"):
        actor.send("primes", "counter.incrTapped", until="counter.incrTapped", settle=True)
    assert actor.send("primes", "counter.incrTapped")[0]["id"] == len(actor.stores) + 2  # after describe


def test_the_binary_comes_from_the_argument_then_the_variable_then_path(monkeypatch, tmp_path, binary, on_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "composable-actor").symlink_to(binary)
    monkeypatch.setenv("PATH", f"{on_path}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setenv(ENV_BINARY, str(other / "composable-actor"))
    assert find_binary(tmp_path / "other/composable-actor") == str(other / "composable-actor")
    assert find_binary() == str(other / "composable-actor")
    monkeypatch.delenv(ENV_BINARY)
    assert find_binary() == str(on_path / "composable-actor")
    with Client(args=["--data-dir", str(tmp_path)]) as actor:
        assert Path(f"/proc/{actor.pid}/exe").resolve() == Path(binary).resolve()
    # A path given that is wrong is an error, not a reason to look elsewhere.
    with pytest.raises(FileNotFoundError, match="the binary argument"):
        find_binary(tmp_path / "missing")
    monkeypatch.setenv(ENV_BINARY, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError, match=ENV_BINARY):
        Client()


def test_not_found_lists_every_place_looked_at(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_BINARY, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    # The checkout's release build is looked at last; here one that was not built.
    build = tmp_path / ".build/release/composable-actor"
    monkeypatch.setattr(_session, "_checkout_build", lambda: build)
    with pytest.raises(FileNotFoundError) as raised:
        find_binary()
    message = str(raised.value)
    assert f"${ENV_BINARY} (not set)" in message and f"on PATH ({tmp_path})" in message
    assert str(build) in message


def run_copy(package_root, env, code):
    return subprocess.run(
        [sys.executable, "-c", code], cwd=package_root.parent, env={**env, "PYTHONPATH": str(package_root)},
        capture_output=True, text=True, timeout=30,
    )


def test_the_build_folder_counts_only_inside_a_checkout(tmp_path, binary):
    env = {key: value for key, value in os.environ.items() if key != ENV_BINARY}
    env["PATH"] = "/usr/bin:/bin"
    code = "from composable_actor import find_binary; print(find_binary())"
    checkout = tmp_path / "checkout"
    shutil.copytree(PACKAGE, checkout / "clients/python/composable_actor")
    (checkout / "Package.swift").write_text("// a checkout\n")
    (checkout / ".build/release").mkdir(parents=True)
    (checkout / ".build/release/composable-actor").symlink_to(binary)
    found = run_copy(checkout / "clients/python", env, code)
    assert found.stdout.strip() == str(checkout / ".build/release/composable-actor"), found.stderr

    elsewhere = tmp_path / "site-packages"
    shutil.copytree(PACKAGE, elsewhere / "composable_actor")
    missing = run_copy(elsewhere, env, code)
    assert "FileNotFoundError" in missing.stderr and "not inside a checkout" in missing.stderr


def test_processes_end_when_python_exits_without_close(tmp_path):
    script = textwrap.dedent(f"""
        import asyncio, sys
        sys.path.insert(0, {str(PACKAGE.parent)!r})
        from composable_actor import AsyncClient, Client

        actor = Client(args=["--data-dir", {str(tmp_path)!r}])
        actor.send("randomTodo", "viewDidAppear")  # a timer effect: the process would linger
        print(actor.pid, flush=True)

        async def main():
            other = await AsyncClient(args=["--data-dir", {str(tmp_path)!r}]).start()
            await other.send("randomTodo", "viewDidAppear")
            print(other.pid, flush=True)
            globals()["kept"] = other  # never closed, still referenced at exit

        asyncio.run(main())
    """)
    # stderr to a file: the processes inherit it, and a pipe would wait for them to end.
    with open(tmp_path / "stderr", "w+") as stderr:
        done = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=30)
    pids = [int(pid) for pid in done.stdout.split()]
    assert len(pids) == 2, (tmp_path / "stderr").read_text()
    # Without a kill, each would wait out --linger (10 s) for its timer after stdin closed.
    deadline = time.monotonic() + 3
    while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if Path(f"/proc/{pid}").exists()]
