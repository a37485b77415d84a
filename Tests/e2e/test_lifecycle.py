"""How the process ends, and how it behaves under a slow reader."""

import json
import os
import signal
import subprocess
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


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


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
