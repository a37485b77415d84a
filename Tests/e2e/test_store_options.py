"""Each store's options, declared in its definition, through the binary's command line."""

import json
import subprocess

from actor import BINARY, store_names


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([str(BINARY), *args], input=stdin, capture_output=True, text=True, timeout=30)


def test_the_help_lists_every_stores_options_with_their_defaults():
    # The help wraps its lines to the terminal: compare with the line breaks taken out.
    help_text = " ".join(run("run", "--help").stdout.split())
    for store in store_names():
        assert f"Options of the {store} store:" in help_text
    assert "--max-received <n>: Messages the websocket store keeps (the last ones). (default: 1000)" in help_text
    assert "--todos-url <text>" in help_text


def test_an_unknown_option_is_a_usage_error_that_names_it():
    result = run("--todos-ulr", "http://127.0.0.1:1")
    assert result.returncode == 64
    assert "unknown option '--todos-ulr'" in result.stderr
    assert result.stdout == ""


def test_a_value_the_store_refuses_is_a_usage_error_that_says_why():
    result = run("--max-received", "0")
    assert result.returncode == 64
    assert "--max-received must be at least 1" in result.stderr
    result = run("--ping-interval=soon")
    assert result.returncode == 64
    assert "--ping-interval: \"soon\" is not a valid seconds" in result.stderr
    # Past a day, the interval in milliseconds once overflowed the clock's integer, which killed
    # the process when the store was first used.
    for seconds in ("1e300", "0", "0.0001", "-1"):
        result = run(f"--ping-interval={seconds}")
        assert result.returncode == 64, seconds
        assert "--ping-interval must be between 0.001 and 86400 seconds" in result.stderr


def test_a_stores_option_reaches_its_store(tmp_path):
    # With --max-received 1 the second message pushes the first out, in either spelling; with
    # the default both are kept, so the scenario's expectation fails.
    def scenario(arguments: list[str]) -> str:
        lines = [
            {"scenario": "keeps the last message", "store": "websocket", "arguments": arguments,
             "exhaustive": False},
            {"websocket": {"accept": True}},
            {"send": "connectButtonTapped"},
            {"receive": {"type": "webSocket.didOpen", "protocol": None}},
            {"peer": {"message": {"text": "one"}}},
            {"receive": {"type": "receivedSocketMessage.success", "value": {"type": "text", "text": "one"}}},
            {"peer": {"message": {"text": "two"}}},
            {"receive": {"type": "receivedSocketMessage.success", "value": {"type": "text", "text": "two"}},
             "state": {"receivedMessages": ["two"]}},
            {"send": "connectButtonTapped"},
        ]
        path = tmp_path / f"s{len(arguments)}.jsonl"
        path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        return str(path)

    for arguments in (["--max-received", "1"], ["--max-received=1"]):
        result = run("test", scenario(arguments))
        assert result.returncode == 0, result.stdout
    result = run("test", scenario([]))
    assert result.returncode == 1
    assert "receivedMessages" in result.stdout
