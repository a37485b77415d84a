"""The WebSocket conformance run (Tests/conformance) through the binary: every case OK, a few
named ones at least non-strict; and the judge itself, on what a broken client would do."""

import sys
from dataclasses import replace
from pathlib import Path

import pytest

import actor

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance"))
from cases import BY_ID, CASES  # noqa: E402
from frames import BINARY, TEXT  # noqa: E402
from peer import FAILED, NON_STRICT, NO_CLOSE, OK, Observed, judge  # noqa: E402
from run import run_cases  # noqa: E402

# Allowed to be non-strict, and why. A valid message arrives in the same read as a frame that
# breaks the protocol: lws hands the message over and drops the connection in that read, before
# the host's echo can come back (RFC 6455 lets it fail at once). And lws hands over a frame's
# payload when the frame ends or its buffer fills, so invalid UTF-8 in the middle of one frame
# is found at the frame's end, not at the bad byte (across frames it is found at once, 6.4.1-2).
NON_STRICT_ALLOWED = {
    **dict.fromkeys(["3.2", "4.1.3", "4.1.4", "4.2.3", "4.2.4", "5.15"], "the echo loses to the failure"),
    # The same a byte a millisecond: whether the echo is back before the bad frame is whole
    # depends on the machine's load (OK when idle, non-strict under the parallel suite).
    **dict.fromkeys(["3.4", "4.1.5", "4.2.5"], "the echo races the failure"),
    **dict.fromkeys(["6.4.3", "6.4.4"], "UTF-8 is checked per frame payload lws delivers"),
}


# Under AddressSanitizer the limits group (messages up to 16 MiB, thousands of round trips)
# takes many times longer through the debug binary, on the same code paths as the framing cases.
# The rest runs with three times the time to answer, two at a time: four sanitized debug
# processes on two cores took over the 5 s a 64 KiB binary echo has (1.2.6-1.2.8, now and then).
if actor.SANITIZED:
    RUN = [replace(case, timeout=case.timeout * 3) for case in CASES if not case.id.startswith("9.")]
    JOBS = 2
else:
    RUN, JOBS = CASES, 4


@pytest.fixture(scope="module")
def results():
    return {result.case.id: result for result in run_cases(str(actor.BINARY), RUN, jobs=JOBS)}


@pytest.mark.parametrize("case_id", [case.id for case in RUN])
def test_case(results, case_id):
    verdict = results[case_id].verdict
    allowed = (OK, NON_STRICT) if case_id in NON_STRICT_ALLOWED else (OK,)
    assert verdict.verdict in allowed, verdict.reasons


def observed(**fields):
    return Observed(**{"close_code": 1000, "ended_step": 1, **fields})


def test_the_judge_fails_a_client_that_echoes_wrong_or_not_at_all():
    case = BY_ID["1.1.2"]
    assert judge(case, observed(messages=[(TEXT, b"*" * 125)])).verdict == OK
    assert judge(case, observed(messages=[(BINARY, b"*" * 125)])).verdict == FAILED
    assert judge(case, observed(messages=[(TEXT, b"*" * 124)])).verdict == FAILED
    assert judge(case, observed()).reasons == ["FAILED: echoed nothing, expected text[125]"]
    assert judge(case, observed(messages=[(TEXT, b"*" * 125)] * 2)).verdict == FAILED


def test_the_judge_fails_a_client_that_does_not_fail_the_connection():
    case = BY_ID["3.1"]
    assert judge(case, observed(close_code=1002)).verdict == OK
    assert judge(case, observed(close_code=1000)).reasons == ["FAILED: failed with close code 1000, expected [1002]"]
    assert judge(case, observed(close_code=NO_CLOSE, ended_step=None)).reasons == ["FAILED: kept the connection open"]
    assert judge(case, observed(close_code=NO_CLOSE)).reasons == [
        "NON-STRICT: dropped the connection without a close frame"
    ]


def test_the_judge_tells_fail_fast_from_late():
    case = BY_ID["6.4.1"]
    assert judge(case, observed(close_code=1007, close_step=2)).verdict == OK
    assert judge(case, observed(close_code=1007, close_step=4)).reasons == [
        "NON-STRICT: failed only after the rest of the message arrived, not at once"
    ]


def test_the_judge_takes_the_latest_pong_as_non_strict_and_the_first_as_failed():
    case = BY_ID["2.10"]
    assert judge(case, observed(pongs=list(case.pongs))).verdict == OK
    assert judge(case, observed(pongs=[case.pongs[-1]])).verdict == NON_STRICT
    assert judge(case, observed(pongs=[case.pongs[0]])).verdict == FAILED


def test_the_judge_fails_a_client_that_speaks_after_its_close_or_unmasked():
    case = BY_ID["2.7"]
    violations = ["the client sent an unmasked frame", "the client sent a frame after its close frame"]
    assert judge(case, observed(violations=violations)).reasons == [f"FAILED: {v}" for v in violations]
