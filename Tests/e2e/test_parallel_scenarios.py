"""composable-actor test -j N: scenario files run in worker processes, reported as one process
would report them."""

import json
import os
import resource
import select
import signal
import subprocess
import time

import pytest

from actor import BINARY, ROOT
from conftest import validator

RESULT = validator("urn:composable-actor:test-result")
EXAMPLES = ROOT / "Examples" / "scenarios"
FORMATS = ["text", "json", "tap", "junit"]


def run_test(*args, **kwargs):
    result = subprocess.run(
        [str(BINARY), "test", *map(str, args)], capture_output=True, timeout=120, **kwargs
    )
    return result.returncode, result.stdout


def write(path, *lines):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def count_up(path, expected=1):
    """A scenario file that passes with `expected` 1 and fails with any other count."""
    return write(path, {"scenario": f"count up in {path.stem}", "store": "primes"},
                 {"send": "counter.incrTapped", "state": {"count": expected}})


def assert_same_in_parallel(*args, stdin=None):
    """Every format prints the same bytes and exits the same with -j 3 as with -j 1."""
    codes = set()
    for form in FORMATS:
        serial = run_test("-j", "1", "--format", form, *args, input=stdin)
        parallel = run_test("-j", "3", "--format", form, *args, input=stdin)
        assert parallel == serial, form
        if form == "json":
            for line in parallel[1].decode().splitlines():
                RESULT.validate(json.loads(line))
        codes.add(serial[0])
    assert len(codes) == 1
    return codes.pop()


@pytest.mark.parametrize("form", FORMATS)
def test_the_examples_report_the_same_with_two_jobs_as_with_one(form):
    serial = run_test("-j", "1", "--format", form, EXAMPLES)
    assert serial[0] == 0 and serial[1]
    assert run_test("-j", "2", "--format", form, EXAMPLES) == serial
    # As make's and pytest-xdist's users type it.
    assert run_test("-j2", "--format", form, EXAMPLES) == serial
    # The default is the number of cores: parallel on any machine with two.
    assert run_test("--format", form, EXAMPLES) == serial


def test_failures_unreadable_files_and_stdin_report_the_same_in_parallel(tmp_path):
    suite = tmp_path / "suite"
    count_up(suite / "a.jsonl")
    wrong = count_up(suite / "b.jsonl", expected=2)
    write(suite / "c.jsonl", {"scenario": "bad step", "store": "primes"}, {"advance": -5})
    (suite / "d.jsonl").write_text("not json\n")
    count_up(suite / "nested" / "e.jsonl")
    later = count_up(tmp_path / "later.jsonl")
    stdin = wrong.read_bytes()
    code = assert_same_in_parallel(suite, "-", tmp_path / "missing.jsonl", later, stdin=stdin)
    assert code == 1

    _, out = run_test("-j", "3", suite, "-", tmp_path / "missing.jsonl", later, input=stdin)
    lines = out.decode().splitlines()
    assert [line.split()[1] for line in lines if line.startswith(("ok", "FAIL"))] == [
        f"{suite}/a.jsonl:1", f"{suite}/b.jsonl:1", f"{suite}/c.jsonl", f"{suite}/d.jsonl",
        f"{suite}/nested/e.jsonl:1", "<stdin>:1", str(tmp_path / "missing.jsonl"), f"{later}:1"]
    assert lines[-1] == "3 passed, 5 failed"


def test_the_json_failure_carries_the_report_the_text_shows(tmp_path):
    wrong = count_up(tmp_path / "wrong.jsonl", expected=2)
    _, text = run_test("-j", "2", wrong, wrong)
    _, out = run_test("-j", "2", "--format", "json", wrong, wrong)
    failure = json.loads(out.decode().splitlines()[0])["failure"]
    RESULT.validate(json.loads(out.decode().splitlines()[0]))
    shown = text.decode().splitlines()[2:7]
    assert failure["report"] == ["  {", "−   count: 2", "+   count: 1", "    … (9 unchanged)", "  }"]
    assert shown == ["      " + "  " + line for line in failure["report"]]


def test_a_filter_must_match_in_some_file_not_in_each(tmp_path):
    for name in ["a", "b", "c"]:
        count_up(tmp_path / f"{name}.jsonl")
    code, out = run_test("-j", "2", "--filter", "in b", tmp_path)
    assert code == 0
    assert out.decode().splitlines() == [f"ok    {tmp_path}/b.jsonl:1  count up in b", "1 passed, 0 failed"]
    assert assert_same_in_parallel("--filter", "in b", tmp_path) == 0

    code, out = run_test("-j", "2", "--filter", "sideways", tmp_path)
    assert code == 1
    assert out.decode().splitlines() == [
        f"FAIL  {tmp_path}  (unreadable)",
        f"      {tmp_path}: no scenario's name contains \"sideways\"",
        "0 passed, 1 failed",
    ]
    # A filter that looks like an option reaches the workers as a filter.
    assert run_test("-j", "2", "--filter=--x", tmp_path)[0] == 1


@pytest.mark.parametrize("jobs", ["0", "-1", "many"])
def test_a_job_count_that_is_not_one_or_more_is_a_bad_argument(tmp_path, jobs):
    path = count_up(tmp_path / "a.jsonl")
    result = subprocess.run([str(BINARY), "test", f"--jobs={jobs}", str(path)],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode == 64, result.stderr
    assert result.stdout == ""


def test_the_help_names_jobs_and_hides_the_worker_option():
    help_text = subprocess.run([str(BINARY), "test", "--help"], capture_output=True, text=True,
                               timeout=20).stdout
    assert "-j, --jobs <jobs>" in help_text
    assert "worker" not in help_text


def limit_file_size():
    """A file written past 64 KiB ends the process with SIGXFSZ: what copying a large `dataDir`
    does to the process that runs its scenario."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def test_each_file_runs_in_a_process_of_its_own_and_a_crash_fails_only_its_file(tmp_path):
    big = tmp_path / "big"
    big.mkdir()
    (big / "blob.txt").write_bytes(b"x" * 256 * 1024)
    for name in ["b", "d"]:
        write(tmp_path / f"{name}.jsonl",
              {"scenario": f"crash {name}", "store": "primes", "dataDir": "big"},
              {"send": "counter.incrTapped"})
    for name in ["a", "c", "e"]:
        count_up(tmp_path / f"{name}.jsonl")
    files = [tmp_path / f"{name}.jsonl" for name in "abcde"]

    # One process for every file: the first crash is the whole run's.
    serial = subprocess.run([str(BINARY), "test", "-j", "1", *map(str, files)],
                            capture_output=True, timeout=120, preexec_fn=limit_file_size)
    assert serial.returncode == -signal.SIGXFSZ

    result = subprocess.run([str(BINARY), "test", "-j", "2", *map(str, files)],
                            capture_output=True, text=True, timeout=120,
                            preexec_fn=limit_file_size)
    assert result.returncode == 1
    a, b, c, d, e = files
    assert result.stdout.splitlines() == [
        f"ok    {a}:1  count up in a",
        f"FAIL  {b}  (unreadable)",
        f"      {b}: the worker process ended with signal {signal.SIGXFSZ.value}",
        f"ok    {c}:1  count up in c",
        f"FAIL  {d}  (unreadable)",
        f"      {d}: the worker process ended with signal {signal.SIGXFSZ.value}",
        f"ok    {e}:1  count up in e",
        "3 passed, 2 failed",
    ]


def test_later_files_run_while_an_earlier_one_is_not_done(tmp_path):
    """Standard input's scenarios cannot run before it ends; meanwhile the workers of the files
    after it run, each at once. A worker that crashes copying its data folder leaves that folder
    behind: the trace that it ran."""
    big = tmp_path / "big"
    big.mkdir()
    (big / "blob.txt").write_bytes(b"x" * 256 * 1024)
    files = [write(tmp_path / f"{name}.jsonl",
                   {"scenario": f"crash {name}", "store": "primes", "dataDir": "big"},
                   {"send": "counter.incrTapped"}) for name in ["x", "y"]]
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    process = subprocess.Popen([str(BINARY), "test", "-j", "2", "-", *map(str, files)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               env={**os.environ, "TMPDIR": str(scratch)}, preexec_fn=limit_file_size)
    try:
        deadline = time.monotonic() + 60
        while len(list(scratch.iterdir())) < 2:
            assert time.monotonic() < deadline, "the workers did not run while stdin was open"
            time.sleep(0.05)
        assert process.poll() is None
        process.stdin.write(count_up(tmp_path / "stdin.jsonl").read_bytes())
        process.stdin.close()
        out = process.stdout.read().decode().splitlines()
        assert process.wait(timeout=60) == 1
        assert out[0] == "ok    <stdin>:1  count up in stdin"
        assert out[1:] == [line for path in files for line in [
            f"FAIL  {path}  (unreadable)",
            f"      {path}: the worker process ended with signal {signal.SIGXFSZ.value}",
        ]] + ["1 passed, 2 failed"]
    finally:
        process.kill()
        process.wait()


def read_line(stream, deadline):
    """The next line of `stream`, or a failure once `deadline` has passed."""
    remaining = deadline - time.monotonic()
    assert select.select([stream], [], [], max(0, remaining))[0], "no line came"
    return stream.readline().decode()


def test_a_files_results_are_printed_before_later_files_finish(tmp_path):
    """The scenarios of standard input cannot run before it ends: what came before is printed
    meanwhile, and what comes after waits for it, in order."""
    first = count_up(tmp_path / "first.jsonl")
    last = count_up(tmp_path / "last.jsonl")
    process = subprocess.Popen([str(BINARY), "test", "-j", "2", str(first), "-", str(last)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        assert read_line(process.stdout, deadline) == f"ok    {first}:1  count up in first\n"
        process.stdin.write(count_up(tmp_path / "stdin.jsonl").read_bytes())
        process.stdin.close()
        rest = [read_line(process.stdout, deadline) for _ in range(3)]
        assert rest == ["ok    <stdin>:1  count up in stdin\n", f"ok    {last}:1  count up in last\n",
                        "3 passed, 0 failed\n"]
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        process.wait()


def test_workers_are_this_binary_whatever_it_is_called(tmp_path):
    """Workers run /proc/self/exe, not the name the binary was started as: a team's binary,
    found in PATH under its own name, runs its own stores in its workers."""
    copy = tmp_path / "team-actor"
    copy.write_bytes(BINARY.read_bytes())
    os.chmod(copy, 0o755)
    result = subprocess.run(["team-actor", "test", "-j", "2", str(EXAMPLES)], capture_output=True,
                            timeout=120, env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"})
    assert result.returncode == 0
    assert result.stdout == run_test("-j", "1", EXAMPLES)[1]
