"""Where the commands write: a regular file is replaced atomically, a link is written through to
its target, anything else (a device, a FIFO, standard output) is written in place; an output
that cannot be written ends the command with an error exit (74, or timeline's 73).

Device nodes here are made by the test (mknod, as root) so that a binary without the fix
replaces a node of the test's own, never one of /dev."""

import os
import select
import stat
import subprocess
import threading

import pytest

from actor import BINARY, ROOT

RECORDING = ROOT / "Examples" / "recordings" / "effects-virtual.jsonl"
SCENARIOS = ROOT / "Examples" / "scenarios" / "primes.jsonl"


@pytest.fixture(autouse=True)
def dev_full_stays_a_device():
    yield
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is no longer a device: mknod -m 666 /dev/full c 1 7"


def command(*args, stdout=subprocess.PIPE):
    return subprocess.run(
        [str(BINARY), *map(str, args)], stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=60
    )


# (arguments, what the command documents when its output cannot be written)
STDOUT_WRITERS = [
    (["describe"], 74),
    (["types", "--language", "python"], 74),
    (["types", "--language", "typescript"], 74),
    (["timeline", "--format", "text", RECORDING], 73),
    (["timeline", RECORDING], 73),
    (["replay", RECORDING], 74),
    (["replay", "--emit", RECORDING], 74),
    (["replay", "--until", "3", RECORDING], 74),
    (["replay", "--format", "json", RECORDING], 74),
    (["replay", "--to-scenario", RECORDING], 74),
    (["test", "-j", "1", SCENARIOS], 74),
    (["test", "-j", "1", "--format", "junit", SCENARIOS], 74),
    (["test", "-j", "2", "--format", "tap", SCENARIOS, SCENARIOS], 74),
]


@pytest.mark.parametrize("args, code", STDOUT_WRITERS, ids=[" ".join(map(str, a[:3])) for a, _ in STDOUT_WRITERS])
def test_a_command_whose_standard_output_fails_ends_with_an_error(args, code):
    with open("/dev/full", "w") as full:
        result = command(*args, stdout=full)
    assert result.returncode == code, result.stderr
    assert "cannot write standard output: No space left on device" in result.stderr


def made_device(tmp_path, name, minor):
    path = tmp_path / name
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


@pytest.mark.parametrize("tool", ["types", "timeline"])
def test_an_output_on_a_full_device_fails_and_the_device_stays(tmp_path, tool):
    full = made_device(tmp_path, "full", 7)
    args = ["types", "--language", "python", "--output", full] if tool == "types" else ["timeline", RECORDING, "-o", full]
    result = command(*args)
    assert result.returncode == (74 if tool == "types" else 73), result.stderr
    assert f"cannot write {full}: No space left on device" in result.stderr
    assert stat.S_ISCHR(os.stat(full).st_mode)
    assert [entry.name for entry in tmp_path.iterdir()] == ["full"]


def test_an_output_on_a_null_device_is_written_there_and_the_device_stays(tmp_path):
    null = made_device(tmp_path, "null", 3)
    result = command("types", "--language", "python", "--output", null)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode)


@pytest.mark.parametrize(
    "args, name",
    [
        (["types", "--language", "python", "--output"], "types.py"),
        (["timeline", "--format", "text", RECORDING, "-o"], "run.txt"),
        (["timeline", RECORDING, "-o"], "run.html"),
    ],
)
def test_an_output_through_a_link_replaces_the_target_and_keeps_the_link(tmp_path, args, name):
    target = tmp_path / "real" / name
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / name
    link.symlink_to(os.path.join("real", name))
    result = command(*args, link)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", name)
    assert target.read_text() != "old" and len(target.read_text()) > 100
    assert sorted(entry.name for entry in target.parent.iterdir()) == [name]


def test_a_link_to_nothing_yet_creates_its_target(tmp_path):
    link = tmp_path / "types.py"
    link.symlink_to(tmp_path / "made" / "types.py")
    result = command("types", "--language", "python", "--output", link)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and (tmp_path / "made" / "types.py").read_text().startswith("#")


def test_schemas_write_through_a_link_in_their_folder(tmp_path):
    target = tmp_path / "catalog.json"
    target.write_text("old")
    folder = tmp_path / "schemas"
    folder.mkdir()
    (folder / "catalog.schema.json").symlink_to(target)
    result = command("schemas", "--output", folder)
    assert result.returncode == 0, result.stderr
    assert (folder / "catalog.schema.json").is_symlink()
    assert '"$id"' in target.read_text()


def test_an_output_naming_standard_output_prints_there(tmp_path):
    # A link of the test's own to /proc/self/fd/1, the link /dev/stdout is: the output is
    # written to the descriptor, not renamed over the link.
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    result = command("types", "--language", "python", "--output", link)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("#") and "TypedDict" in result.stdout
    assert link.is_symlink()


def test_an_output_on_a_fifo_is_written_into_it(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # Open for reading first, without waiting, so the writer's open does not block.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    received = bytearray()

    def read():
        while True:
            ready, _, _ = select.select([reader], [], [], 10)
            if not ready:
                return
            chunk = os.read(reader, 65536)
            if not chunk and done.is_set():
                return
            received.extend(chunk)

    done = threading.Event()
    thread = threading.Thread(target=read)
    thread.start()
    result = command("types", "--language", "typescript", "--output", fifo)
    done.set()
    thread.join(15)
    os.close(reader)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b"export type" in received


def test_an_output_that_cannot_be_written_says_why_and_ends_with_74(tmp_path):
    result = command("types", "--language", "python", "--output", tmp_path)
    assert result.returncode == 74
    assert f"types: cannot write {tmp_path}: Is a directory" in result.stderr
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = command("schemas", "--output", blocked)
    assert result.returncode == 74
    assert f"schemas: cannot write {blocked}/" in result.stderr


def test_run_whose_stdout_fails_other_than_by_closing_ends_with_74():
    # A reader that goes away is the documented clean end (test_lifecycle.py); a full disk is
    # lines lost.
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [str(BINARY)], input=b'{"store":"primes","action":"counter.incrTapped"}\n',
            stdout=full, stderr=subprocess.PIPE, timeout=30,
        )
    assert result.returncode == 74, result.stderr
    assert b"cannot write stdout" in result.stderr and b"ENOSPC" in result.stderr
