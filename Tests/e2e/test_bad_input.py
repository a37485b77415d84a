"""Every kind of bad input: an error line with a stable code, the line number and the id when
it could be read; the state unchanged; the process goes on."""

import pytest

from actor import run_lines

INCR = b'{"store":"primes","action":"counter.incrTapped"}'


def nested_payload(levels: int) -> bytes:
    """Objects nested `levels` deep behind a long string, each with 61 members after the one
    holding the next level: where each key was once checked against the earlier ones by reading
    the object again, every value included, a line of 900 KB took seconds."""
    keys = b"".join(b',"k%d":0' % n for n in range(1, 62))
    value = b'["' + b"x" * 100_000 + b'"]'
    for _ in range(levels):
        value = b'{"v":' + value + keys + b"}"
    return value


CASES = [
    # (input line, expected code, expected id or None, message fragment)
    (b"this is not json", "invalid_json", None, ""),
    (b'{"store":"primes",', "invalid_json", None, ""),
    (b'{"store":"primes","action":"counter.incrTapped"} trailing', "invalid_json", None, ""),
    (b"[1,2,3]", "invalid_message", None, "must be a JSON object"),
    (b'"counter.incrTapped"', "invalid_message", None, "must be a JSON object"),
    (b'{"action":"counter.incrTapped","id":4}', "invalid_message", 4, "\"store\""),
    (b'{"store":7,"action":"counter.incrTapped","id":"x"}', "invalid_message", "x", "\"store\" must be a string"),
    (b'{"store":"primes","id":"no-action"}', "invalid_message", "no-action", "needs an \"action\""),
    (b'{"store":"primes","action":"counter.incrTapped","id":[1]}', "invalid_message", None, "\"id\""),
    (b'{"store":"primes","action":"counter.incrTapped","extra":1,"id":5}', "invalid_message", 5, "extra"),
    (b'{"store":"nope","action":"counter.incrTapped","id":"s"}', "unknown_store", "s", "primes"),
    (b'{"store":"primes","action":"counter.nope","id":1}', "unknown_action", 1, "counter.nope"),
    (b'{"store":"primes","action":"counter","id":2}', "unknown_action", 2, ""),
    (b'{"store":"primes","action":{"type":"counter.incrTapped.deeper"},"id":3}', "unknown_action", 3, ""),
    (b'{"store":"primes","action":{"value":1},"id":6}', "invalid_action", 6, "type"),
    (b'{"store":"primes","action":{"type":"counter.countChanged","value":"ten"},"id":7}', "invalid_action", 7, "value"),
    (b'{"store":"primes","action":{"type":"counter.countChanged"},"id":8}', "invalid_action", 8, "value"),
    (b'{"store":"primes","action":{"type":"counter.incrTapped","bogus":true},"id":9}', "invalid_action", 9, "bogus"),
    (b'{"store":"primes","action":{"type":"favoritePrimes.deleteFavoritePrimes","indices":[1.5]},"id":10}', "invalid_action", 10, "indices"),
    (b'{"store":"primes","action":{"type":"favoritePrimes.deleteFavoritePrimes","indices":[1e30]},"id":11}', "invalid_action", 11, "range"),
    (b'{"store":"primes","action":{"type":"counter.countChanged","value":9223372036854775808},"id":12}', "invalid_action", 12, "range"),
    (b'{"store":"primes","action":{"type":"counter.countChanged","value":-9223372036854775809},"id":16}', "invalid_action", 16, "range"),
    (b'{"store":"primes","action":{"type":"counter.countChanged","value":1e400},"id":13}', "number_out_of_range", None, ""),
    # Below the smallest double: read as 0, it would pass for an integer.
    (b'{"store":"primes","action":{"type":"counter.countChanged","value":1e-400},"id":17}', "number_out_of_range", None, "too small"),
    # An id is echoed as written up to 256 bytes; a longer one is refused, whatever its kind.
    (b'{"store":"primes","action":"counter.incrTapped","id":0.' + b"7" * 10_000 + b"}", "invalid_message", None, "at most 256 bytes as written, got 10002"),
    (b'{"store":"primes","action":"counter.incrTapped","id":"' + b"k" * 255 + b'"}', "invalid_message", None, "got 257"),
    (b'{"store":"primes","action":{"type":"counter.incrTapped","v":' + nested_payload(40) + b'},"id":18}', "invalid_action", 18, 'unknown field "v"'),
    (b'{"store":"primes","action":{"type":"counter.nthPrimeResponse","value":7},"id":14}', "effect_action", 14, "--allow-effect-actions"),
    (b'{"store":"randomTodo","action":"timerTicked","id":15}', "effect_action", 15, "randomTodo: timerTicked is sent by the store's effects"),
    (b'{"store":"pr\xffimes","action":"counter.incrTapped"}', "invalid_utf8", None, ""),
    (b'{"store":"primes","action":"counter.incrTapped","id":"\xc0\xaf"}', "invalid_utf8", None, ""),
    (b"[" * 100 + b"]" * 100, "too_deep", None, ""),
    (b'{"cmd":"nope","id":"c"}', "unknown_command", "c", "snapshot"),
    (b'{"cmd":"snapshot","id":"c2"}', "invalid_command", "c2", "store"),
    (b'{"cmd":"snapshot","store":"nope","id":"c3"}', "unknown_store", "c3", "nope"),
    (b'{"cmd":"snapshot","store":"primes","extra":1,"id":"c4"}', "invalid_command", "c4", "extra"),
    (b'{"cmd":"quit","now":true,"id":"c5"}', "invalid_command", "c5", "now"),
    (b'{"cmd":5}', "invalid_message", None, "\"cmd\""),
    (b'{"cmd":"describe","store":"primes","id":"c6"}', "invalid_command", "c6", "unknown argument"),
]


@pytest.mark.parametrize("line, code, id, fragment", CASES, ids=[c[1] + ":" + str(i) for i, c in enumerate(CASES)])
def test_a_bad_line_gets_an_error_and_changes_nothing(line, code, id, fragment):
    snapshot = b'{"cmd":"snapshot","store":"primes"}'
    lines, exit_code, stderr = run_lines(
        [], stdin_bytes=INCR + b"\n" + snapshot + b"\n" + line + b"\n" + snapshot + b"\n" + INCR + b"\n"
    )
    assert exit_code == 0, stderr
    ready, first, before, error, after, second, exit_line = lines
    assert error["type"] == "error", error
    assert error["code"] == code, error
    assert error["line"] == 3
    assert error.get("id") == id
    assert fragment in error["message"], error["message"]
    assert before["state"] == after["state"]
    assert second["type"] == "action" and second["patch"][0] == {"op": "replace", "path": "/count", "value": 2}
    assert exit_line["reason"] == "eof"


def test_an_overlong_line_is_skipped_and_the_next_one_read():
    long_line = b'{"store":"primes","action":"counter.incrTapped","id":"' + b"x" * 5000 + b'"}'
    lines, code, _ = run_lines([], "--max-line-bytes", "1000", stdin_bytes=long_line + b"\n" + INCR + b"\n")
    assert code == 0
    assert lines[1] == {
        "type": "error",
        "code": "line_too_long",
        "line": 1,
        "message": "line is longer than 1000 bytes (--max-line-bytes); it was skipped",
    }
    assert lines[2]["type"] == "action" and lines[2]["patch"][0]["value"] == 1


def test_the_default_limit_is_one_mebibyte():
    payload = b"x" * (1024 * 1024)
    line = b'{"store":"primes","action":"counter.incrTapped","id":"' + payload + b'"}'
    lines, code, _ = run_lines([], stdin_bytes=line + b"\n" + INCR + b"\n")
    assert code == 0
    assert lines[1]["code"] == "line_too_long"
    assert lines[2]["type"] == "action"


def test_invalid_arguments_fail_with_a_usage_error():
    lines, code, stderr = run_lines([], "--max-line-bytes", "1")
    assert code == 64
    assert lines == []
    assert "--max-line-bytes" in stderr


def test_every_fuzz_corpus_input_gets_one_line_and_the_process_survives():
    """Inputs the fuzzer found (and the seeds) replayed through the real binary."""
    from actor import ROOT

    corpus = sorted((ROOT / "Tests/FuzzCorpus").iterdir())
    data = b"".join(path.read_bytes().replace(b"\n", b" ") + b"\n" for path in corpus)
    lines, code, stderr = run_lines([], "--max-line-bytes", "8192", stdin_bytes=data + INCR + b"\n")
    assert code == 0, stderr
    assert lines[-1]["reason"] == "eof"
    host_actions = [line for line in lines if line.get("source") == "host"]
    assert host_actions[-1]["action"] == {"type": "counter.incrTapped"}


def test_a_socket_message_with_both_text_and_binary_is_refused_whole():
    # Taking one member would silently drop the other.
    def received(message, id):
        action = {"type": "receivedSocketMessage.success", "value": message}
        return {"store": "websocket", "action": action, "id": id}

    lines, code, _ = run_lines(
        [received({"binary": "AA==", "text": "x"}, 1), received({"binary": "not base64" * 100_000}, 2)],
        "--allow-effect-actions")
    assert code == 0
    errors = [l for l in lines if l["type"] == "error"]
    assert [e["id"] for e in errors] == [1, 2]
    assert errors[0]["code"] == "invalid_action"
    assert 'a message has "text" or "binary", not both' in errors[0]["message"]
    assert "not base64" in errors[1]["message"] and len(errors[1]["message"]) < 400


def test_a_socket_message_whose_type_contradicts_its_member_is_refused():
    def send(message, id):
        return {"store": "websocket", "action": {"type": "sendMessage", "value": message}, "id": id}

    lines, code, _ = run_lines(
        [send({"type": "binary", "text": "x"}, 1), send({"type": "texte", "text": "x"}, 2)])
    assert code == 0
    errors = [l for l in lines if l["type"] == "error"]
    assert [(e["id"], e["code"]) for e in errors] == [(1, "invalid_action"), (2, "invalid_action")]
    assert 'a message of type "binary" has "text"' in errors[0]["message"]
    assert 'a message of type "texte" has "text"' in errors[1]["message"]
