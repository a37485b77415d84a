"""What the tools that read a user's files hold in memory: a small multiple of what they were
handed, or less where they stream (README, Reliability: "Memory")."""

import json
import time
import subprocess
import sys

import pytest

import actor
from actor import BINARY

pytestmark = pytest.mark.skipif(
    actor.SANITIZED, reason="AddressSanitizer's shadow memory and quarantine are not the binary's"
)

MIB = 1 << 20
# Measured in a child of its own, so that no earlier child's peak counts.
PEAK_RSS = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
    "sys.stderr.buffer.write(done.stderr)\n"
)


def peak_rss(*args):
    """The exit code and peak resident bytes of the binary run with `args`."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, str(BINARY), *args], capture_output=True, text=True, timeout=300
    )
    code, peak = done.stdout.split()
    return int(code), int(peak), done.stderr


@pytest.fixture(scope="module")
def large_recording(tmp_path_factory):
    """A recording of about 96 MiB in 48 lines: a 1 MiB message typed and retyped, each line
    carrying it twice (the action and the patch)."""
    path = tmp_path_factory.mktemp("memory") / "large.jsonl"
    messages = [
        {"store": "websocket", "action": {"type": "messageToSendChanged", "value": chr(97 + n % 26) * MIB}}
        for n in range(48)
    ]
    stdin = b"".join(json.dumps(message).encode() + b"\n" for message in messages)
    done = subprocess.run(
        [str(BINARY), "run", "--record", str(path), "--max-line-bytes", str(4 * MIB)],
        input=stdin, capture_output=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert path.stat().st_size > 90 * MIB
    return path


def test_replay_holds_a_line_at_a_time_not_the_file(large_recording):
    code, peak, stderr = peak_rss("replay", str(large_recording))
    assert code == 0, stderr
    # Reading the file whole held it, every line parsed, and more: over 250 MiB.
    assert peak < 40 * MIB, f"{peak / MIB:.0f} MiB for a {large_recording.stat().st_size / MIB:.0f} MiB recording"


def test_the_timeline_page_holds_the_page_and_a_line(large_recording, tmp_path):
    size = large_recording.stat().st_size
    code, peak, stderr = peak_rss("timeline", str(large_recording), "-o", str(tmp_path / "page.html"))
    assert code == 0, stderr
    # The page is the recording's lines and the template: held once, beside the line being read.
    assert peak < size + 48 * MIB, f"{peak / MIB:.0f} MiB for a {size / MIB:.0f} MiB recording"
    assert (tmp_path / "page.html").stat().st_size > size * 0.95


def primes_below(limit):
    sieve = bytearray([1]) * limit
    sieve[:2] = b"\0\0"
    for n in range(2, int(limit**0.5) + 1):
        if sieve[n]:
            sieve[n * n :: n] = bytes(len(range(n * n, limit, n)))
    return [n for n in range(limit) if sieve[n]]


def test_loading_favourites_holds_the_list_not_an_operation_per_prime(tmp_path):
    """4 MB of small primes: the file whose elements cost the most per byte."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    primes = primes_below(8_000_000)
    (data_dir / "favorite-primes.json").write_text(json.dumps(primes, separators=(",", ":")))
    size = (data_dir / "favorite-primes.json").stat().st_size
    load = tmp_path / "load.jsonl"
    load.write_text(json.dumps({"store": "primes", "action": "favoritePrimes.loadButtonTapped"}) + "\n")
    with open(load) as stdin:
        done = subprocess.run(
            [sys.executable, "-c", PEAK_RSS_WITH_OUTPUT, str(BINARY), "run", "--data-dir", str(data_dir)],
            stdin=stdin, capture_output=True, timeout=300,
        )
    lines = [json.loads(line) for line in done.stdout.splitlines()[1:]]
    peak = json.loads(done.stdout.splitlines()[0])["peak"]
    (loaded,) = [l for l in lines if l.get("action", {}).get("type") == "favoritePrimes.loadedFavoritePrimes"]
    assert loaded["patch"] == [{"op": "replace", "path": "/favoritePrimes", "value": primes}]
    # An operation per prime, written before the one replace won, took 53 times the file.
    assert peak < 28 * size + 16 * MIB, f"{peak / MIB:.0f} MiB for a {size / MIB:.1f} MiB file"


# The same measure, with the child's output passed on after a first line that has the peak.
PEAK_RSS_WITH_OUTPUT = (
    "import json, resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
    "sys.stdout.buffer.write(json.dumps({'code': done.returncode, 'peak': peak}).encode() + b'\\n')\n"
    "sys.stdout.buffer.write(done.stdout)\n"
)


def test_a_scenario_holds_its_file_and_the_step_it_runs(tmp_path):
    steps = 200_000
    path = tmp_path / "taps.jsonl"
    with open(path, "w") as file:
        file.write('{"scenario":"taps","store":"primes","exhaustive":false}\n')
        for n in range(1, steps + 1):
            file.write('{"send":"counter.incrTapped","state":{"count":%d}}\n' % n)
    size = path.stat().st_size
    code, peak, stderr = peak_rss("test", str(path))
    assert code == 0, stderr
    # Every step parsed at once took 11 times the file.
    assert peak < 3 * size + 32 * MIB, f"{peak / MIB:.0f} MiB for a {size / MIB:.1f} MiB scenario file"


def resident(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024


def test_the_heap_a_burst_freed_goes_back_to_the_system(process, fixture_server):
    actor_process = process("--todos-url", fixture_server.url)
    clicks = 10_000
    actor_process.send_raw(b'{"store":"randomTodo","action":"clickButton"}\n' * clicks)
    seen = 0
    while seen < clicks:
        line = actor_process.read(timeout=60)
        seen += line.get("action") == {"type": "clickButton"}
    actor_process.read_until(lambda line: line.get("action", {}).get("type", "").startswith("fetchResult."), timeout=60)
    pid = actor_process.process.pid
    after_burst = resident(pid)
    # A second without work, then the trim: glibc kept 148 MB after such a burst.
    deadline = time.monotonic() + 30
    while resident(pid) > 48 * MIB and time.monotonic() < deadline:
        time.sleep(0.2)
    assert resident(pid) < 48 * MIB, f"{resident(pid) / MIB:.0f} MiB, {after_burst / MIB:.0f} MiB after the burst"
