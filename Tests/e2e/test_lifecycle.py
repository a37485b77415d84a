"""How the process ends, and how it behaves under a slow reader."""

import json
import os
import signal
import socket
import subprocess
import threading
import time

from actor import BINARY, PRINTED, run_lines


def big_request(n=1_000_000_000):
    """Lines that start an nth-prime computation taking about a second or more."""
    return [
        {"store": "primes", "action": {"type": "counter.countChanged", "value": n}},
        {"store": "primes", "action": "counter.nthPrimeButtonTapped", "id": "big"},
    ]


def test_end_of_input_waits_for_effects_in_flight():
    lines, code, _ = run_lines(big_request(20_000_000), timeout=30)
    assert code == 0
    response = lines[-2]
    assert response["action"] == {"type": "counter.nthPrimeResponse", "value": 373_587_883}
    assert response["id"] == "big" and response["source"] == "effect"
    assert lines[-1] == {"type": "exit", "reason": "eof", "cancelledEffects": 0}


def test_linger_expiry_cancels_what_still_runs():
    started = time.monotonic()
    lines, code, _ = run_lines(big_request(), "--linger", "0.3", timeout=30)
    assert time.monotonic() - started < 2.5
    assert code == 0
    assert [line["type"] for line in lines] == ["ready", "action", "action", "exit"]
    assert lines[-1] == {"type": "exit", "reason": "eof", "cancelledEffects": 1}


def terminate_with(signum, expected_code, name):
    process = subprocess.Popen(
        [str(BINARY)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    for message in big_request():
        process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()
    time.sleep(0.3)
    started = time.monotonic()
    process.send_signal(signum)
    out, _ = process.communicate(timeout=10)
    assert time.monotonic() - started < 1.5
    texts = out.decode().splitlines()
    PRINTED.extend(texts)
    last = json.loads(texts[-1])
    assert last == {"type": "exit", "reason": "signal", "signal": name, "cancelledEffects": 1}
    assert process.returncode == expected_code


def test_sigterm_ends_promptly_with_an_exit_line():
    terminate_with(signal.SIGTERM, 143, "SIGTERM")


def test_sigint_ends_promptly_with_an_exit_line():
    terminate_with(signal.SIGINT, 130, "SIGINT")


def test_every_signal_that_would_end_the_process_ends_it_with_an_exit_line():
    # A closed terminal (SIGHUP) or a stray user signal used to kill the process silently.
    for signum in (signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        terminate_with(signum, 128 + signum, signum.name)


def test_a_closed_stdout_ends_the_process_cleanly():
    process = subprocess.Popen(
        [str(BINARY), "--log-level", "notice"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    process.stdout.readline()
    process.stdout.close()
    line = b'{"store":"primes","action":"counter.incrTapped"}\n'
    try:
        for _ in range(1000):
            process.stdin.write(line)
            process.stdin.flush()
    except BrokenPipeError:
        pass
    code = process.wait(timeout=10)
    assert code == 0
    assert b"stdout closed" in process.stderr.read()


def test_a_closed_stdout_is_noticed_while_nothing_is_written():
    # The reader going away used to be noticed only by the next write, so an idle
    # process (or one whose effects write nothing for a while) ran on until stdin ended.
    process = subprocess.Popen(
        [str(BINARY), "--log-level", "notice", "--todos-url", "http://127.0.0.1:9"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert json.loads(process.stdout.readline())["type"] == "ready"
    # Live, randomTodo's timer is running: an effect that writes nothing for 3 s.
    process.stdin.write(b'{"store":"randomTodo","action":"viewDidAppear"}\n')
    process.stdin.flush()
    assert json.loads(process.stdout.readline())["type"] == "action"
    time.sleep(0.2)
    started = time.monotonic()
    process.stdout.close()
    try:
        code = process.wait(timeout=2.5)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    elapsed = time.monotonic() - started
    assert code == 0
    # 3 ms measured; well under the 3 s timer, whose next line's failed write would notice too.
    assert elapsed < 2.0, f"took {elapsed:.3f} s to notice"
    assert b"stdout closed" in process.stderr.read()
    process.stdin.close()


def test_a_socket_on_stdout_is_written_while_half_closed_and_ends_the_process_when_closed():
    ours, theirs = socket.socketpair()
    process = subprocess.Popen(
        [str(BINARY), "--log-level", "notice"],
        stdin=subprocess.PIPE, stdout=theirs.fileno(), stderr=subprocess.PIPE,
    )
    theirs.close()
    reader = ours.makefile("rb")
    try:
        assert json.loads(reader.readline())["type"] == "ready"
        # The host shuts its own writing only: stdout can still be written, and is.
        ours.shutdown(socket.SHUT_WR)
        time.sleep(0.3)
        process.stdin.write(b'{"store":"primes","action":"counter.incrTapped"}\n')
        process.stdin.flush()
        assert json.loads(reader.readline())["type"] == "action"
        assert process.poll() is None
        # Then it closes the socket while nothing is written.
        started = time.monotonic()
        reader.close()
        ours.close()
        code = process.wait(timeout=2.5)
        elapsed = time.monotonic() - started
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert code == 0
    # 3 ms measured; well under the 3 s timer, whose next line's failed write would notice too.
    assert elapsed < 2.0, f"took {elapsed:.3f} s to notice"
    assert b"stdout closed" in process.stderr.read()
    process.stdin.close()


def rss_kib(pid, field="VmRSS"):
    """The process's resident set now, or at its peak with `VmHWM`."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    raise AssertionError(f"no {field}")


def test_a_slow_reader_pauses_input_and_memory_stays_bounded():
    process = subprocess.Popen(
        [str(BINARY)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    os.set_blocking(process.stdin.fileno(), False)
    line = b'{"store":"primes","action":"counter.incrTapped"}\n'
    data = line * 400_000  # 19.6 MB: far more than the pipes and the output buffer hold
    sent = 0
    stalled_since = None
    deadline = time.monotonic() + 20
    # Nobody reads stdout: the process must stop reading stdin, so our writes stall.
    while sent < len(data) and time.monotonic() < deadline:
        try:
            sent += os.write(process.stdin.fileno(), data[sent : sent + 65536])
            stalled_since = None
        except BlockingIOError:
            stalled_since = stalled_since or time.monotonic()
            if time.monotonic() - stalled_since > 1.0:
                break
            time.sleep(0.01)
    assert sent < len(data), "the process kept reading while nobody read its output"
    rss = rss_kib(process.pid)
    assert rss < 64 * 1024, f"RSS {rss} KiB with a stalled reader"
    # Closing stdin may cut the last line short; it then ends as one invalid line.
    process.stdin.close()
    out = process.stdout.read()
    assert process.wait(10) == 0
    texts = out.decode().splitlines()
    actions = sum(1 for text in texts if text.startswith('{"type":"action"'))
    errors = sum(1 for text in texts if text.startswith('{"type":"error"'))
    assert actions == sent // len(line)
    assert errors == (1 if sent % len(line) else 0)
    assert json.loads(texts[-1])["reason"] == "eof"


# A stalled host and a large state: each line's output is far larger than the line. Growing
# ends past the cap so that the baseline holds the work of a full list (a patch of every
# message, today), and the stall's snapshots keep each line's output large whatever its patch.
HELD = 10_000
GROWN = HELD + 100
STALLED = 400
# What a stalled host may add to the RSS of a process holding the same state: see README.md.
STALL_BOUND_KIB = 64 * 1024


def message(n, id=None):
    text = f"message {n:06d} " + "x" * 65
    line = {"store": "websocket", "action": {"type": "receivedSocketMessage.success", "value": {"text": text}}}
    if id is not None:
        line["id"] = id
    return line


def prefix_fields(line):
    """type, seq and id of an output line, read from its first bytes (lines are megabytes)."""
    head = line[:600].decode()
    kind = head.split('"type":"', 1)[1].split('"', 1)[0]
    seq = int(head.split('"seq":', 1)[1].split(",", 1)[0])
    id = head.split('"id":"', 1)[1].split('"', 1)[0] if '"id":"' in head else None
    return kind, seq, id


def test_a_stalled_host_keeps_memory_bounded_by_bytes_whatever_each_line_writes(process):
    actor = process("--max-received", str(HELD), "--allow-effect-actions")
    # Grow in batches, reading as we go, so that growing is never stalled itself.
    for start in range(1, GROWN + 1, 500):
        batch = range(start, min(start + 500, GROWN + 1))
        actor.send(*(message(n) for n in batch))
        for _ in batch:
            assert prefix_fields(actor.read_bytes())[0] == "action"
    actor.send({"cmd": "snapshot", "store": "websocket"})
    grown = actor.read_bytes()
    assert grown.count(b'"message ') == HELD
    last_seq = prefix_fields(grown)[1]
    baseline = rss_kib(actor.process.pid)
    peak_before = rss_kib(actor.process.pid, "VmHWM")

    # Ids padded so that the stalled input is more than the pipe and a read buffer hold. A bad
    # line halfway must be numbered as it would be without pauses.
    ids = [f"{k:04d}" + "-" * 248 for k in range(STALLED)]  # 254 bytes quoted: an id's most is 256
    bad_at = STALLED // 2
    stalled = b"".join(
        (b'{"cmd":"bogus"}\n' if k == bad_at else b"")
        + json.dumps(message(GROWN + 1 + k, id=ids[k]), separators=(",", ":")).encode() + b"\n"
        + json.dumps({"cmd": "snapshot", "store": "websocket", "id": ids[k]}).encode() + b"\n"
        for k in range(STALLED)
    )
    assert len(stalled) > 2 * 65536

    def write_stalled():
        try:
            actor.process.stdin.write(stalled)
            actor.process.stdin.flush()
        except BrokenPipeError:
            pass  # the process was killed after a failed assertion

    writer = threading.Thread(target=write_stalled)
    writer.start()
    peak = baseline
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline and peak - baseline <= STALL_BOUND_KIB:
        peak = max(peak, rss_kib(actor.process.pid))
        time.sleep(0.01)
    peak = max(peak, rss_kib(actor.process.pid))
    assert peak - baseline <= STALL_BOUND_KIB, f"RSS {baseline} KiB grew to {peak} KiB with a stalled host"
    # The high-water mark also catches a spike between two samples.
    assert rss_kib(actor.process.pid, "VmHWM") <= max(peak_before, baseline + STALL_BOUND_KIB)
    assert writer.is_alive(), "the process read all its input while nobody read its output"

    written = 0
    for k in range(STALLED):
        if k == bad_at:
            error = actor.read()
            # Lines 1 to GROWN grew the store, GROWN + 1 asked for a snapshot.
            assert (error["code"], error["line"]) == ("unknown_command", GROWN + 2 + 2 * bad_at)
        action, snapshot = actor.read_bytes(timeout=30), actor.read_bytes(timeout=30)
        written += len(action) + len(snapshot)
        assert prefix_fields(action) == ("action", last_seq + 1 + k, ids[k])
        assert prefix_fields(snapshot) == ("snapshot", last_seq + 1 + k, ids[k])
    writer.join(timeout=10)
    assert not writer.is_alive()
    # The output held back was far more than the bound: the bound is not the workload's size.
    assert written > 4 * STALL_BOUND_KIB * 1024
    state = json.loads(snapshot)["state"]["receivedMessages"]
    assert state == [message(n)["action"]["value"]["text"] for n in range(GROWN + STALLED - HELD + 1, GROWN + STALLED + 1)]
    assert actor.request({"cmd": "snapshot", "store": "primes"})["type"] == "snapshot"
    rest, code = actor.finish()
    assert code == 0 and rest[-1]["reason"] == "eof"
    print(f"baseline {baseline} KiB, peak {peak} KiB with a stalled host, {written >> 20} MiB held back")


def test_no_arguments_runs_as_run_with_its_defaults():
    """With no arguments the process skips the argument parser: it must behave as `run` does
    with every option at its default (line and depth limits, refused effect actions)."""
    lines = [
        {"store": "primes", "action": "counter.incrTapped"},
        {"store": "primes", "action": {"type": "counter.countChanged", "value": 7}},
        {"store": "primes", "action": {"type": "counter.nthPrimeResponse", "value": 17}},
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    data += b"[" * 65 + b"]" * 65 + b"\n"
    data += b'{"store":"primes","action":"' + b"x" * 1_048_576 + b'"}\n'
    data += b'{"store":"primes","action":"counter.decrTapped"}\n'
    bare = run_lines([], stdin_bytes=data)
    parsed = run_lines([], "run", stdin_bytes=data)
    assert bare == parsed
    output, code, stderr = bare
    assert code == 0 and stderr == ""
    assert [line.get("code", line["type"]) for line in output] == [
        "ready", "action", "action", "effect_action", "too_deep", "line_too_long", "action", "exit"
    ]
