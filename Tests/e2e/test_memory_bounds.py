"""What the tools that read a user's files hold in memory: a small multiple of what they were
handed, or less where they stream (README, Reliability: "Memory")."""

import json
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
