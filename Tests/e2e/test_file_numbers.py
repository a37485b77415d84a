"""Numbers a user hands over in a recording or a scenario: at the ends of their ranges and past
them, each is taken or refused with a line naming the file and line, never a crash."""

import json
import subprocess

import pytest

from actor import BINARY, ROOT, run_lines

LIVE = ROOT / "Examples" / "recordings" / "primes-answers-live.jsonl"
INT64_MAX = 2**63 - 1
# ActionTime.maximumMilliseconds: JavaScript's Date range, the farthest time a file may give.
MAXIMUM_TIME = 8_640_000_000_000_000
# Session.maxAdvance: a century, the longest advance of run and of a scenario.
MAXIMUM_ADVANCE = 3_162_240_000_000


def command(*args, input=None):
    return subprocess.run(
        [str(BINARY), *map(str, args)], capture_output=True, text=True, timeout=60, input=input
    )


def edited_recording(tmp_path, line_number, **members):
    """The live example recording with members of one line (from 1) replaced."""
    lines = LIVE.read_text().splitlines()
    line = json.loads(lines[line_number - 1])
    line.update(members)
    lines[line_number - 1] = json.dumps(line, separators=(",", ":"))
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "line, members, message",
    [
        (2, {"t": INT64_MAX}, f'line 2: "t" is {INT64_MAX}'),
        (2, {"t": -(2**63)}, f'line 2: "t" is {-(2**63)}'),
        (4, {"t": MAXIMUM_TIME + 1}, f'line 4: "t" is {MAXIMUM_TIME + 1}'),
        (1, {"startTime": INT64_MAX}, f'line 1: the header\'s "startTime" is {INT64_MAX}'),
    ],
    ids=["action-t-max", "action-t-min", "answer-t", "start-time"],
)
@pytest.mark.parametrize("tool", [["replay"], ["replay", "--to-scenario"], ["timeline", "--format", "text"]])
def test_a_recorded_time_past_its_range_is_refused_naming_the_file_and_line(tmp_path, line, members, message, tool):
    path = edited_recording(tmp_path, line, **members)
    result = command(tool[0], path, *tool[1:])
    assert result.returncode == 65, (result.returncode, result.stderr)
    assert f"{path}: {message}" in result.stderr
    assert str(MAXIMUM_TIME) in result.stderr
    assert result.stdout == ""


def test_recorded_times_at_the_ends_of_their_range_reach_the_reducers(tmp_path):
    path = edited_recording(tmp_path, 1, startTime=MAXIMUM_TIME)
    lines = path.read_text().splitlines()
    first = json.loads(lines[1])
    first["t"] = -MAXIMUM_TIME
    lines[1] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n")
    result = command("replay", "--format", "json", path)
    # The favourite saved at t = 1202 is stamped startTime + t, where the recording has the
    # live run's time: the step differs there, and only there.
    assert result.returncode == 1, result.stderr
    divergence = json.loads(result.stdout)
    assert divergence["seq"] == 7
    assert [(d["path"], d["actual"]) for d in divergence["differences"]] == [
        ("/activityFeed/0/timestamp", MAXIMUM_TIME + 1202)
    ]


def run_scenario(tmp_path, *lines, jobs="1"):
    path = tmp_path / "numbers.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = command("test", "-j", jobs, path)
    return path, result


HEADER = {"scenario": "numbers", "store": "primes"}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    "header, step, message",
    [
        ({}, {"advance": INT64_MAX}, f'"advance" must be whole milliseconds, 0 to {MAXIMUM_ADVANCE}'),
        ({}, {"advance": MAXIMUM_ADVANCE + 1}, f'"advance" must be whole milliseconds, 0 to {MAXIMUM_ADVANCE}'),
        ({"startTime": INT64_MAX}, {"settle": True}, f'"startTime" must be milliseconds since the Unix epoch, 0 to {MAXIMUM_TIME}'),
        (
            {"effects": "recorded"},
            {"send": "counter.incrTapped", "t": INT64_MAX},
            f'"t" must be milliseconds since the start, at most {MAXIMUM_TIME} either way',
        ),
        ({}, {"nthPrimes": {"1": 2}, "delay": 1e300}, f'"delay" must be milliseconds, 0 to {MAXIMUM_TIME}'),
    ],
    ids=["advance-int64-max", "advance-past-a-century", "start-time", "t", "delay"],
)
def test_a_scenario_number_past_its_range_fails_its_line_in_process_or_not(tmp_path, header, step, message, jobs):
    line = 1 if "startTime" in header else 2
    path, result = run_scenario(tmp_path, {**HEADER, **header}, step, jobs=jobs)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert f"{path}:{line}: {message}" in result.stdout, result.stdout


def test_a_scenario_may_advance_a_century_many_times(tmp_path):
    steps = [{"advance": MAXIMUM_ADVANCE}] * 3
    steps.append({"send": "counter.incrTapped", "state": {"count": 1}})
    _, result = run_scenario(tmp_path, HEADER, *steps)
    assert result.returncode == 0, result.stdout + result.stderr


def test_to_scenario_splits_an_advance_longer_than_a_scenario_takes(tmp_path):
    recording = tmp_path / "virtual.jsonl"
    incr = {"store": "primes", "action": "counter.incrTapped"}
    advance = {"cmd": "advance", "ms": MAXIMUM_ADVANCE}
    _, code, stderr = run_lines(
        [incr, advance, advance, {"cmd": "advance", "ms": 5}, incr],
        "--clock", "virtual", "--record", str(recording),
    )
    assert code == 0, stderr
    written = command("replay", "--to-scenario", recording)
    assert written.returncode == 0, written.stderr
    steps = [json.loads(line) for line in written.stdout.splitlines()]
    advances = [step["advance"] for step in steps if "advance" in step]
    assert advances == [MAXIMUM_ADVANCE, MAXIMUM_ADVANCE, 5]
    scenario = tmp_path / "replayed.jsonl"
    scenario.write_text(written.stdout)
    result = command("test", "-j", "1", scenario)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize(
    "header, step, state",
    [
        (
            {"store": "votes", "initialState": {"runningTasks": INT64_MAX}},
            {"send": {"type": "task.willRun"}},
            {"runningTasks": INT64_MAX},
        ),
        (
            {"store": "votes", "initialState": {"runningTasks": -(2**63)}},
            {"send": {"type": "task.didFinish"}},
            {"runningTasks": -(2**63)},
        ),
        (
            {"store": "websocket", "initialState": {"receivedBytes": INT64_MAX}},
            {"send": {"type": "receivedSocketMessage.success", "value": {"text": "hello"}}},
            {"receivedBytes": INT64_MAX},
        ),
        (
            {
                "store": "websocket",
                "arguments": ["--max-received", "1"],
                "initialState": {"receivedBytes": -(2**63), "receivedMessages": ["aaaaaaaaaa", "bbbbbbbbbb"]},
            },
            {"send": {"type": "receivedSocketMessage.success", "value": {"text": "hello"}}},
            {"receivedBytes": -(2**63), "receivedMessages": ["hello"]},
        ),
    ],
    ids=["votes-max", "votes-min", "websocket-max", "websocket-min"],
)
def test_a_count_an_initial_state_puts_at_the_end_of_its_range_stays_there(tmp_path, header, step, state):
    step = {**step, "state": state, "exhaustive": False}
    path, result = run_scenario(tmp_path, {"scenario": "counts", "exhaustive": False, **header}, step)
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)


@pytest.mark.parametrize("option", ["--http-timeout", "--linger"])
def test_a_wait_too_long_for_milliseconds_is_refused_wherever_the_arguments_come_from(tmp_path, option):
    message = f"{option} must be"
    _, result = run_scenario(tmp_path, {**HEADER, "arguments": [option, "1e300"]}, {"settle": True})
    assert result.returncode == 1 and message in result.stdout, result.stdout + result.stderr
    path = edited_recording(tmp_path, 1, arguments=[option, "1e300"])
    replayed = command("replay", path)
    assert replayed.returncode == 65 and message in replayed.stderr, replayed.stderr
    ran = command(option, "1e300", input="")
    assert ran.returncode == 64 and message in ran.stderr, ran.stderr
