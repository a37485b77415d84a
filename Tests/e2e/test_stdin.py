"""stdin as a pipe, a regular file and a terminal; line framing."""

import json
import os
import pty
import select
import subprocess
import time

from actor import BINARY, PRINTED, run_lines

INCR = b'{"store":"primes","action":"counter.incrTapped"}'


def counts(lines):
    return [line["patch"][0]["value"] for line in lines if line["type"] == "action"]


def test_crlf_empty_lines_and_a_last_line_without_newline():
    data = INCR + b"\r\n\r\n\n" + INCR + b"\r\n   \n" + b'{"cmd":"bogus"}\r\n' + INCR
    lines, code, _ = run_lines([], stdin_bytes=data)
    assert code == 0
    assert counts(lines) == [1, 2, 3]
    # Empty lines are skipped but counted, so error line numbers match the input.
    assert [line["line"] for line in lines if line["type"] == "error"] == [6]


def test_a_regular_file_as_stdin(tmp_path):
    path = tmp_path / "actions.jsonl"
    path.write_bytes((INCR + b"\n") * 1000)
    with open(path, "rb") as stdin:
        result = subprocess.run([str(BINARY)], stdin=stdin, capture_output=True, timeout=20)
    lines = [json.loads(text) for text in result.stdout.decode().splitlines()]
    PRINTED.extend(result.stdout.decode().splitlines())
    assert result.returncode == 0
    assert counts(lines) == list(range(1, 1001))
    assert lines[-1] == {"type": "exit", "reason": "eof", "cancelledEffects": 0}


def test_dev_null_as_stdin():
    with open(os.devnull, "rb") as stdin:
        result = subprocess.run([str(BINARY)], stdin=stdin, capture_output=True, timeout=10)
    assert result.returncode == 0
    assert [json.loads(t)["type"] for t in result.stdout.decode().splitlines()] == ["ready", "exit"]


def test_a_pipe_shared_with_other_processes_stays_blocking():
    """libuv sets O_NONBLOCK on pipes it opens; the process must not leak that to the writer."""
    read_end, write_end = os.pipe()
    process = subprocess.Popen([str(BINARY)], stdin=read_end, stdout=subprocess.PIPE)
    os.close(read_end)
    try:
        time.sleep(0.2)
        import fcntl

        assert not fcntl.fcntl(write_end, fcntl.F_GETFL) & os.O_NONBLOCK
        os.write(write_end, INCR + b"\n")
    finally:
        os.close(write_end)
    out, _ = process.communicate(timeout=10)
    PRINTED.extend(out.decode().splitlines())
    assert counts([json.loads(t) for t in out.decode().splitlines()]) == [1]


def test_a_terminal_as_stdin():
    controller, terminal = pty.openpty()
    # Turn off echo so the terminal only carries what the test types.
    import termios

    attributes = termios.tcgetattr(terminal)
    attributes[3] &= ~termios.ECHO
    termios.tcsetattr(terminal, termios.TCSANOW, attributes)
    process = subprocess.Popen([str(BINARY)], stdin=terminal, stdout=subprocess.PIPE)
    os.close(terminal)
    try:
        os.write(controller, INCR + b"\n")
        first = read_line(process.stdout, 5)
        assert json.loads(first)["type"] == "ready"
        second = json.loads(read_line(process.stdout, 5))
        assert second["type"] == "action" and second["patch"][0]["value"] == 1
        os.write(controller, b"\x04")  # ^D: end of input on a terminal
        rest = process.stdout.read().decode().splitlines()
        assert json.loads(rest[-1])["reason"] == "eof"
        assert process.wait(5) == 0
        PRINTED.extend([first, json.dumps(second)] + rest)
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()


def read_line(stream, timeout):
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        assert select.select([stream], [], [], max(0, deadline - time.monotonic()))[0], "timed out"
        data += os.read(stream.fileno(), 1)
    return data.decode().rstrip("\n")


def test_closed_standard_streams_do_not_crash(tmp_path):
    """Started without stdin, the process sees empty input; without stdout, it discards."""
    result = subprocess.run([str(BINARY)], stdin=subprocess.DEVNULL, capture_output=True, timeout=10,
                            preexec_fn=lambda: os.close(0))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    PRINTED.extend(lines)
    assert [json.loads(line)["type"] for line in lines] == ["ready", "exit"]
    result = subprocess.run([str(BINARY)], input=INCR + b"\n", stderr=subprocess.PIPE, timeout=10,
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
