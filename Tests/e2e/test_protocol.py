"""The wire protocol through the real binary: line shapes, ids, patches, commands."""

import json
import subprocess
import time

import jsonpatch

from actor import BINARY, ROOT, run_lines, store_names


def test_the_readmes_first_example_prints_exactly_its_three_lines():
    readme = (ROOT / "README.md").read_text()
    example = readme[readme.index("```console\n") + len("```console\n"):]
    example = example[: example.index("```")].splitlines()
    assert example[0] == """$ printf '%s\\n' '{"store":"primes","action":"counter.incrTapped"}' | composable-actor"""
    result = subprocess.run(
        [str(BINARY)],
        input=b'{"store":"primes","action":"counter.incrTapped"}\n',
        capture_output=True,
        timeout=10,
    )
    assert result.returncode == 0
    assert result.stdout.decode().splitlines() == example[1:]
    assert result.stderr == b""
    # `ready` lists the binary's catalogue, in its order.
    assert json.loads(example[1])["stores"] == store_names()


def test_ids_are_echoed_on_the_lines_an_input_causes_including_effect_lines(process):
    actor = process()
    actor.send({"store": "primes", "action": "counter.incrTapped", "id": 1})
    assert actor.read()["id"] == 1
    actor.send({"store": "primes", "action": "counter.nthPrimeButtonTapped", "id": "ask"})
    tapped = actor.read()
    assert tapped["id"] == "ask" and tapped["source"] == "host"
    response = actor.read()
    assert response == {
        "type": "action",
        "store": "primes",
        "seq": 3,
        "id": "ask",
        "source": "effect",
        "action": {"type": "counter.nthPrimeResponse", "value": 2},
        "patch": [
            {"op": "replace", "path": "/alertNthPrime", "value": {"n": 1, "prime": 2}},
            {"op": "replace", "path": "/nthPrimeRequest", "value": None},
            {"op": "replace", "path": "/isNthPrimeButtonDisabled", "value": False},
        ],
    }
    actor.send({"store": "primes", "action": "counter.incrTapped"})
    assert "id" not in actor.read()


# Ids a JSON reader would give back differently: too large for an integer, an exponent,
# trailing zeros, a negative zero.
# The last two are as long as an id may be: 256 bytes as written.
VERBATIM_IDS = [
    "18446744073709551617", "-9223372036854775809", "1E2", "1e-7", "7.50", "-0", "9" * 256,
    '"' + "k" * 254 + '"',
]


def test_numeric_ids_come_back_exactly_as_written(process, tmp_path):
    recording = tmp_path / "ids.jsonl"
    actor = process("--record", str(recording))
    for id in VERBATIM_IDS:
        # Through the compact reader, with a payload (the general parser), a command, an error.
        actor.send_raw(b'{"store":"primes","action":"counter.incrTapped","id":%s}\n' % id.encode())
        assert b',"id":%s,' % id.encode() in actor.read_bytes()
        actor.send_raw(b'{"store":"primes","action":{"type":"counter.countChanged","value":3},"id":%s}\n' % id.encode())
        assert b',"id":%s,' % id.encode() in actor.read_bytes()
        actor.send_raw(b'{"cmd":"snapshot","store":"primes","id":%s}\n' % id.encode())
        assert b',"id":%s,' % id.encode() in actor.read_bytes()
        actor.send_raw(b'{"store":"nowhere","action":"x","id":%s}\n' % id.encode())
        error = actor.read_bytes()
        assert b'"code":"unknown_store"' in error and b',"id":%s,' % id.encode() in error
    actor.close_stdin()
    actor.process.wait(10)
    # A recording keeps them, and its replay echoes them the same way.
    replayed = subprocess.run(
        [str(BINARY), "replay", str(recording), "--emit"], capture_output=True, timeout=30, check=True
    ).stdout
    for id in VERBATIM_IDS:
        assert replayed.count(b',"id":%s,' % id.encode()) == 2, id


def test_ticks_list_the_ids_as_written(process):
    actor = process("--emit", "ticks")
    actor.send_raw(b'{"store":"primes","action":"counter.incrTapped","id":1E2}\n'
                   b'{"store":"primes","action":"counter.incrTapped","id":"two"}\n')
    line = b""
    while b'"type":"state"' not in line:
        line = actor.read_bytes()
    assert b'"ids":[1E2,"two"]' in line


def test_patches_replay_to_every_snapshot(process):
    actor = process()
    state = actor.snapshot()["state"]
    steps = [
        "counter.incrTapped", "counter.incrTapped", "primeModal.saveFavoritePrimeTapped",
        "counter.incrTapped", "primeModal.saveFavoritePrimeTapped", "counter.incrTapped",
        "counter.incrTapped", "primeModal.saveFavoritePrimeTapped",
        {"type": "favoritePrimes.deleteFavoritePrimes", "indices": [1]},
        "primeModal.removeFavoritePrimeTapped", "counter.decrTapped",
    ]
    for step in steps:
        line = actor.request({"store": "primes", "action": step})
        state = jsonpatch.apply_patch(state, line["patch"])
        assert state == actor.snapshot()["state"]
    assert state["favoritePrimes"] == [2]
    assert [entry["type"] for entry in state["activityFeed"]] == [
        "addedFavoritePrime", "addedFavoritePrime", "addedFavoritePrime",
        "removedFavoritePrime", "removedFavoritePrime",
    ]


def test_patches_are_minimal_for_common_changes(process):
    actor = process()
    actor.request({"store": "primes", "action": "counter.incrTapped"})
    line = actor.request({"store": "primes", "action": "counter.incrTapped"})
    assert line["patch"] == [
        {"op": "replace", "path": "/count", "value": 2},
        {"op": "replace", "path": "/isPrime", "value": True},
    ]
    line = actor.request({"store": "primes", "action": "primeModal.saveFavoritePrimeTapped"})
    assert line["patch"][0] == {"op": "add", "path": "/favoritePrimes/0", "value": 2}
    assert line["patch"][1]["op"] == "add" and line["patch"][1]["path"] == "/activityFeed/0"
    line = actor.request({"store": "primes", "action": "primeModal.removeFavoritePrimeTapped"})
    assert line["patch"][0] == {"op": "remove", "path": "/favoritePrimes/0"}


def test_snapshot_carries_the_sequence_it_follows(process):
    actor = process()
    assert actor.snapshot()["seq"] == 0
    actor.request({"store": "primes", "action": "counter.incrTapped"})
    snapshot = actor.request({"cmd": "snapshot", "store": "primes", "id": "s"})
    assert snapshot["seq"] == 1 and snapshot["id"] == "s" and snapshot["state"]["count"] == 1


def sample(schema):
    """A value the JSON Schema accepts: how the test fills every described payload."""
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "oneOf" in schema:
        return sample(next(option for option in schema["oneOf"] if option.get("type") != "null"))
    kind = schema["type"]
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "object":
        return {name: sample(schema["properties"][name]) for name in schema["required"]}
    return {"integer": max(3, schema.get("minimum", 3)), "string": "x", "boolean": True, "array": []}[kind]


def test_describe_lists_every_action_and_each_one_decodes(process, fixture_server, ws_servers):
    # Every effect the actions start stays on 127.0.0.1. The effect-only actions are injected.
    actor = process(
        "--todos-url", fixture_server.url, "--votes-url", fixture_server.url,
        "--websocket-url", ws_servers.url + "/echo", "--allow-effect-actions",
    )
    describe = actor.request({"cmd": "describe", "id": 9})
    assert describe["id"] == 9
    stores = {store["name"]: store for store in describe["stores"]}
    assert list(stores) == actor.ready["stores"] == store_names()
    primes = {action["type"]: action for action in stores["primes"]["actions"]}
    assert primes["counter.incrTapped"]["sentBy"] == "host"
    assert primes["counter.nthPrimeResponse"]["sentBy"] == "effect"
    for name, store in stores.items():
        for action in store["actions"]:
            payload = sample(action["payload"])
            wire = {"type": action["type"], **payload}
            actor.send({"store": name, "action": wire, "id": action["type"]})
            line = actor.read_until(lambda line: line.get("id") == action["type"] and line.get("source") == "host")[-1]
            assert line["type"] == "action" and line["store"] == name, line
            assert line["action"] == wire


def test_a_host_may_send_only_the_actions_describe_says_it_sends(process, fixture_server, ws_servers):
    actor = process(
        "--todos-url", fixture_server.url, "--votes-url", fixture_server.url,
        "--websocket-url", ws_servers.url + "/echo",
    )
    describe = actor.request({"cmd": "describe"})
    for store in describe["stores"]:
        for action in store["actions"]:
            wire = {"type": action["type"], **sample(action["payload"])}
            actor.send({"store": store["name"], "action": wire, "id": action["type"]})
            line = actor.read_until(lambda line: line.get("id") == action["type"])[-1]
            if action["sentBy"] == "effect":
                assert line["type"] == "error" and line["code"] == "effect_action", line
                assert action["type"] in line["message"] and "--allow-effect-actions" in line["message"]
            else:
                assert line["type"] == "action" and line["source"] == "host", line


def test_quit_cancels_effects_and_ignores_later_lines(process):
    actor = process()
    actor.request({"store": "primes", "action": {"type": "counter.countChanged", "value": 1_000_000_000}})
    actor.request({"store": "primes", "action": "counter.nthPrimeButtonTapped"})
    started = time.monotonic()
    actor.send(
        {"store": "primes", "action": "counter.incrTapped"},
        {"cmd": "quit", "id": "bye"},
        {"store": "primes", "action": "counter.incrTapped"},
    )
    lines, code = actor.finish()
    # The nth prime of 10^9 takes seconds; quit does not wait for it.
    assert time.monotonic() - started < 1.5
    assert [line["type"] for line in lines] == ["action", "exit"]
    assert lines[-1] == {"type": "exit", "reason": "quit", "cancelledEffects": 1}
    assert code == 0


def test_ticks_merge_a_burst_into_state_lines(process):
    actor = process("--emit", "ticks")
    initial = actor.snapshot()["state"]
    burst = b"".join(
        json.dumps({"store": "primes", "action": "counter.incrTapped", "id": i}).encode() + b"\n"
        for i in range(500)
    )
    # Each id is sent twice in a row: a state line names each of its ids once.
    repeated = b"".join(
        json.dumps({"store": "primes", "action": "counter.decrTapped", "id": 1000 + i // 2}).encode() + b"\n"
        for i in range(1000)
    )
    actor.send_raw(burst + repeated)
    state, actions, ids = initial, 0, []
    while actions < 1500:
        line = actor.read()
        assert line["type"] == "state"
        assert len(set(map(json.dumps, line["ids"]))) == len(line["ids"]), line["ids"]
        state = jsonpatch.apply_patch(state, line["patch"])
        actions += line["actions"]
        ids += [i for i in line["ids"] if not ids or i != ids[-1]]
    assert state["count"] == -500
    assert ids == list(range(500)) + list(range(1000, 1500))
    assert len(actor.lines) < 500  # merged: far fewer lines than actions
    assert actor.snapshot()["state"] == state


def test_lines_are_flushed_without_waiting_for_more_input(process):
    actor = process()
    started = time.monotonic()
    actor.request({"store": "primes", "action": "counter.incrTapped"}, timeout=2)
    assert time.monotonic() - started < 0.5


def test_debug_logs_go_to_stderr_and_never_change_stdout():
    lines = [{"store": "primes", "action": "counter.incrTapped"}, {"store": "primes", "action": "counter.incrTapped"}]
    quiet, code, quiet_stderr = run_lines(lines)
    assert code == 0 and quiet_stderr == ""
    loud, code, stderr = run_lines(lines, "--log-level", "debug")
    assert code == 0
    assert loud == quiet
    # The logging reducer reports each action with the state it produced.
    assert stderr.count("action: counter(PrimesFeature.CounterAction.incrTapped)") == 2
    assert "state: PrimesState(counter: PrimesFeature.CounterState(count: 2," in stderr


def test_an_action_with_a_payload_is_shown_as_encoding_it_writes_it_whatever_form_it_came_in(process):
    """A line shows a payload action as the host sent it only where that is what encoding the
    action writes: any other form of the same action is shown encoded, byte for byte the same."""
    actor = process()

    def shown(line: bytes) -> bytes:
        actor.send_raw(line + b"\n")
        text = actor.read_bytes()
        return text[text.index(b',"action":') + len(b',"action":'):text.index(b',"patch":')]

    count = b'{"type":"counter.countChanged","value":5}'
    assert shown(b'{"store":"primes","action":' + count + b"}") == count
    for other in [
        b'{ "value" : 5 , "type" : "counter.countChanged" }',
        b'{"type":"counter.countChanged","value":5.0}',
        b'{"type":"counter.countChanged","_0":5}',
    ]:
        assert shown(b'{"store":"primes","action":' + other + b"}") == count
    message = '{"type":"messageToSendChanged","value":"é / \\"hi\\""}'.encode()
    written = shown(b'{"store":"websocket","action":' + message + b"}")
    assert json.loads(written) == json.loads(message)
    for other in [
        '{"value":"é / \\"hi\\"","type":"messageToSendChanged"}'.encode(),
        b'{"type":"messageToSendChanged","value":"\\u00e9 \\/ \\"hi\\""}',
    ]:
        assert shown(b'{"store":"websocket","action":' + other + b"}") == written
