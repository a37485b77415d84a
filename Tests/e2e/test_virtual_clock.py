"""--clock virtual: advance and settle through the binary (issue 5 §1)."""

import time

from actor import run_lines

VIRTUAL = ("--clock", "virtual")


def kinds(lines):
    return [line["action"]["type"] if line["type"] == "action" else line["type"] for line in lines]


def action(store, type_, id=None):
    message = {"store": store, "action": type_}
    if id is not None:
        message["id"] = id
    return message


def test_advance_fires_timers_in_deadline_order_and_reports_the_virtual_time(process):
    actor = process(*VIRTUAL, "--todos-url", "http://127.0.0.1:9")
    actor.send(action("randomTodo", "viewDidAppear", id="appear"))
    actor.read()
    actor.send({"cmd": "advance", "ms": 2999, "id": "a1"})
    assert actor.read() == {"type": "advanced", "ms": 2999, "now": 2999, "id": "a1"}
    actor.send({"cmd": "advance", "ms": 6001, "id": "a2"})
    lines = actor.read_until(lambda line: line["type"] == "advanced")
    ticks = [line for line in lines if line["type"] == "action" and line["action"]["type"] == "timerTicked"]
    # Ticks at 3 s, 6 s and 9 s, each echoing the id of the action that started the timer.
    assert len(ticks) == 3 and {tick["id"] for tick in ticks} == {"appear"}
    assert lines[-1] == {"type": "advanced", "ms": 6001, "now": 9000, "id": "a2"}


def test_lines_after_an_advance_wait_for_it():
    lines, code, _ = run_lines(
        [
            action("randomTodo", "viewDidAppear"),
            {"cmd": "advance", "ms": 3000},
            action("primes", "counter.incrTapped"),
        ],
        *VIRTUAL, "--todos-url", "http://127.0.0.1:9",
    )
    assert code == 0
    order = kinds(lines)
    assert order.index("timerTicked") < order.index("advanced") < order.index("counter.incrTapped")


def test_settle_waits_for_work_on_the_thread_pool(data_dir):
    lines, code, _ = run_lines(
        [
            {"store": "primes", "action": {"type": "counter.countChanged", "value": 200000}},
            action("primes", "counter.nthPrimeButtonTapped"),
            {"cmd": "settle", "id": "s"},
            {"cmd": "snapshot", "store": "primes"},
        ],
        *VIRTUAL, data_dir=data_dir,
    )
    assert code == 0
    order = kinds(lines)
    assert order.index("counter.nthPrimeResponse") < order.index("settled")
    response = next(line for line in lines if kinds([line]) == ["counter.nthPrimeResponse"])
    assert response["action"]["value"] == 2750159


def test_reducers_read_the_virtual_time(data_dir):
    lines, code, _ = run_lines(
        [
            {"cmd": "advance", "ms": 1234},
            {"store": "primes", "action": {"type": "counter.countChanged", "value": 7}},
            action("primes", "primeModal.saveFavoritePrimeTapped"),
        ],
        *VIRTUAL, data_dir=data_dir,
    )
    assert code == 0
    saved = lines[-2]
    assert saved["action"]["type"] == "primeModal.saveFavoritePrimeTapped"
    feed = next(op for op in saved["patch"] if op["path"] == "/activityFeed/0")
    assert feed["value"] == {"timestamp": 1234, "type": "addedFavoritePrime", "prime": 7}


def test_end_of_input_settles_then_cancels_what_waits_for_time():
    # A live run would linger up to 60 s for the refresh timer; a virtual one cannot wait
    # for time that never comes, so it ends at once and counts the timer as cancelled.
    started = time.monotonic()
    lines, code, _ = run_lines(
        [action("randomTodo", "viewDidAppear")], *VIRTUAL, "--linger", "60", timeout=30
    )
    assert code == 0 and time.monotonic() - started < 30
    assert lines[-1] == {"type": "exit", "reason": "eof", "cancelledEffects": 1}


def test_advance_and_settle_need_the_virtual_clock():
    lines, code, _ = run_lines([{"cmd": "advance", "ms": 5, "id": 1}, {"cmd": "settle", "id": 2}])
    assert code == 0
    errors = [line for line in lines if line["type"] == "error"]
    assert [(e["code"], e["id"], e["line"]) for e in errors] == [
        ("clock_not_virtual", 1, 1),
        ("clock_not_virtual", 2, 2),
    ]


def test_bad_advances_are_refused_and_change_nothing():
    lines, code, _ = run_lines(
        [
            {"cmd": "advance"},
            {"cmd": "advance", "ms": -1},
            {"cmd": "advance", "ms": 1.5},
            {"cmd": "advance", "ms": 10, "by": 2},
            {"cmd": "advance", "ms": 10},
        ],
        *VIRTUAL,
    )
    assert code == 0
    assert kinds(lines) == ["ready"] + ["error"] * 4 + ["advanced", "exit"]
    assert {line["code"] for line in lines if line["type"] == "error"} == {"invalid_command"}
    assert lines[-2]["now"] == 10


def test_an_advance_stops_after_its_wake_up_limit_so_a_quit_behind_it_is_read(process):
    # A 3 s timer, advanced by a century: without the limit, about a billion ticks before the
    # quit is read (issue 18).
    actor = process(*VIRTUAL, "--todos-url", "http://127.0.0.1:9", "--max-advance-wakeups", "5")
    actor.send(action("randomTodo", "viewDidAppear"))
    actor.read()
    actor.send({"cmd": "advance", "ms": 3_162_240_000_000, "id": "century"})
    lines = actor.read_until(lambda line: line["type"] == "error")
    assert kinds(lines).count("timerTicked") == 5
    assert lines[-1] == {
        "type": "error", "code": "advance_limit", "id": "century",
        "message": "advance stopped after 5 wake-ups, at 15000 ms (--max-advance-wakeups): advance again to go on",
    }
    actor.send({"cmd": "advance", "ms": 3000, "id": "more"})
    lines = actor.read_until(lambda line: line["type"] == "advanced")
    assert lines[-1] == {"type": "advanced", "ms": 3000, "now": 18000, "id": "more"}, "time went on from there"
    actor.send({"cmd": "quit"})
    assert actor.read_until(lambda line: line["type"] == "exit")[-1]["reason"] == "quit"


CENTURY = 3_162_240_000_000


def test_a_quit_behind_a_runaway_advance_ends_the_process_promptly():
    # With the old limit (1,000,000 wake-ups) a quit behind a century-long advance
    # of a 3 s timer waited about a minute of CPU; the default limit now bounds one advance.
    lines = [action("randomTodo", "viewDidAppear"), {"cmd": "advance", "ms": CENTURY, "id": "c"}, {"cmd": "quit"}]
    for ending in ("quit", "eof"):
        started = time.monotonic()
        output, code, _ = run_lines(lines if ending == "quit" else lines[:-1], *VIRTUAL, "--todos-url", "http://127.0.0.1:9", timeout=30)
        elapsed = time.monotonic() - started
        assert code == 0
        # 0.42 s measured (2.6 s through the sanitized debug binary); the old limit took minutes.
        assert elapsed < 15, f"{ending} took {elapsed:.2f} s"
        limit = [line for line in output if line["type"] == "error"]
        assert [line["code"] for line in limit] == ["advance_limit"]
        assert limit[0]["message"].startswith("advance stopped after 5000 wake-ups, at 15000000 ms")
        assert kinds(output).count("timerTicked") == 5_000
        assert output[-1]["type"] == "exit" and output[-1]["reason"] == ending
