"""Instances through the binary: many keyed instances of a store in one process."""

import jsonpatch

import json
import re
import subprocess

from actor import BINARY, ROOT, SANITIZED, run_lines
from conftest import INPUT


def primes(action, instance=None, **members):
    message = {"store": "primes", "action": action, **members}
    if instance is not None:
        message["instance"] = instance
    return message


def todo(action, instance):
    return {"store": "randomTodo", "instance": instance, "action": action}


def answer(actor, message, timeout=10.0):
    """Sends a command and returns its answer, reading (and keeping) the lines before it."""
    actor.send(message)
    answers = {"snapshot", "instances", "stopped", "advanced", "error"}
    return actor.read_until(lambda line: line["type"] in answers, timeout)[-1]


def test_the_readmes_instances_example_prints_exactly_its_lines():
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Instances"):]
    example = section[section.index("```console\n") + len("```console\n"):]
    example = example[: example.index("```")].splitlines()
    inputs = re.findall(r"'(\{[^']*\})'", "".join(example[:3]))
    assert len(inputs) == 3
    lines = "".join(line + "\n" for line in inputs).encode()
    result = subprocess.run([str(BINARY)], input=lines, capture_output=True, timeout=10)
    assert result.returncode == 0
    assert result.stdout.decode().splitlines() == example[3:]


def test_each_instance_has_its_own_state_and_every_line_about_it_names_it(process):
    actor = process()
    actor.send(primes("counter.incrTapped", "alice", id=1), primes("counter.incrTapped"))
    alice, default = actor.read(), actor.read()
    assert alice == {
        "type": "action", "store": "primes", "instance": "alice", "seq": 1, "id": 1,
        "source": "host", "action": {"type": "counter.incrTapped"},
        "patch": [{"op": "replace", "path": "/count", "value": 1}],
    }
    assert "instance" not in default and default["seq"] == 2
    actor.send(primes("counter.incrTapped", "alice"), primes("counter.nthPrimeButtonTapped", "alice"))
    lines = actor.read_until(lambda line: line["action"]["type"] == "counter.nthPrimeResponse")
    assert {line["instance"] for line in lines} == {"alice"}
    assert lines[-1]["source"] == "effect" and lines[-1]["action"]["value"] == 3
    assert actor.request({"cmd": "snapshot", "store": "primes", "instance": "alice"})["state"]["count"] == 2
    assert actor.snapshot("primes")["state"]["count"] == 1


def test_an_instances_patches_rebuild_its_state_from_the_initial_one(process):
    actor = process()
    initial = actor.request({"cmd": "snapshot", "store": "primes", "instance": "fresh"})["state"]
    states = {key: initial for key in ("a", "b")}
    for step in range(30):
        key = "ab"[step % 2]
        action = ["counter.incrTapped", "primeModal.saveFavoritePrimeTapped", "counter.decrTapped"][step % 3]
        actor.send(primes(action, key))
        line = actor.read()
        assert line["instance"] == key
        states[key] = jsonpatch.apply_patch(states[key], line["patch"])
    for key, state in states.items():
        assert actor.request({"cmd": "snapshot", "store": "primes", "instance": key})["state"] == state


def test_timers_and_cancel_ids_are_per_instance(process, fixture_server):
    actor = process("--todos-url", fixture_server.url, "--seed", "1", "--clock", "virtual")
    actor.send(todo("viewDidAppear", "a"), todo("viewDidAppear", "b"), todo("stopRandomText", "a"))
    actor.read_until(lambda line: line.get("action", {}).get("type") == "stopRandomText")
    advanced = answer(actor, {"cmd": "advance", "ms": 10_000})
    ticks = [line for line in actor.lines if line.get("action", {}).get("type") == "timerTicked"]
    assert advanced["type"] == "advanced"
    assert ticks and {line["instance"] for line in ticks} == {"b"}, "a's timer was stopped, b's was not"


def test_instances_pages_through_the_keys_in_byte_order(process):
    actor = process()
    keys = [f"user-{n:03}" for n in range(250)]
    for key in reversed(keys):
        actor.send(primes("counter.incrTapped", key))
    actor.read_until(lambda line: line.get("instance") == keys[0])
    listed, after = [], None
    while True:
        request = {"cmd": "instances", "store": "primes", "limit": 100}
        if after is not None:
            request["after"] = after
        page = actor.request(request)
        assert page["count"] == 250
        listed += page["active"]
        if "next" not in page:
            break
        after = page["next"]
    assert listed == keys


def test_stop_cancels_the_instances_effects_and_a_later_line_starts_it_afresh(process, fixture_server):
    actor = process("--todos-url", fixture_server.url, "--clock", "virtual", "--trace", "effects")
    actor.send(todo("viewDidAppear", "a"), primes("counter.incrTapped", "a"))
    actor.read_until(lambda line: line.get("store") == "primes")
    stopped = answer(actor, {"cmd": "stop", "store": "randomTodo", "instance": "a", "id": "s"})
    assert stopped == {
        "type": "stopped", "store": "randomTodo", "instance": "a", "id": "s", "cancelledEffects": 1,
    }
    cancelled = [line for line in actor.lines if line["type"] == "effect" and line["event"] == "cancelled"]
    assert [(line["instance"], line["by"]) for line in cancelled] == [("a", {"reason": "stop"})]
    assert answer(actor, {"cmd": "advance", "ms": 10_000})["type"] == "advanced"
    assert not [line for line in actor.lines if line.get("action", {}).get("type") == "timerTicked"]
    # The primes instance of the same key is another store's and goes on.
    assert actor.request({"cmd": "instances", "store": "primes"})["active"] == ["a"]
    again = actor.request({"cmd": "stop", "store": "randomTodo", "instance": "a"})
    assert again["code"] == "unknown_instance" and again["instance"] == "a"
    assert again["message"] == 'stop: randomTodo has no instance "a" in memory'
    restarted = actor.request({"cmd": "snapshot", "store": "randomTodo", "instance": "a"})["state"]
    assert restarted == actor.request({"cmd": "snapshot", "store": "randomTodo"})["state"]


def test_bad_keys_are_refused_with_the_reason_and_change_nothing(process):
    actor = process()
    clef = "\U0001D11E" * 64  # 256 bytes of UTF-8 in 4-byte characters: the longest key
    bad = {
        "": '"instance" must not be empty',
        "k" * 257: '"instance" must be at most 256 bytes of UTF-8, got 257',
        "é" * 129: '"instance" must be at most 256 bytes of UTF-8, got 258',
        "a\nb": '"instance" must not contain control characters, got U+000A at byte 1',
        "a\u0085": '"instance" must not contain control characters, got U+0085 at byte 1',
        7: '"instance" must be a string, got 7',
        None: '"instance" must be a string, got null',
    }
    for key, message in bad.items():
        line = {"store": "primes", "instance": key, "action": "counter.incrTapped", "id": "bad"}
        # JSON Schema counts characters, not bytes: it cannot see that 129 é are too long.
        assert INPUT.is_valid(line) == (key == "é" * 129), key
        actor.send(line)
        assert actor.read() == {
            "type": "error", "code": "invalid_message", "line": len(actor.lines) - 1, "id": "bad",
            "message": message,
        }
    actor.send(primes("counter.incrTapped", clef))
    assert actor.read()["instance"] == clef
    listed = actor.request({"cmd": "instances", "store": "primes"})
    assert listed["active"] == [clef] and listed["count"] == 1


def test_activations_past_max_instances_are_refused_and_memory_stays_bounded():
    keys = 3000
    lines = [primes("counter.incrTapped", f"k{n}") for n in range(keys)]
    lines.append({"cmd": "instances", "store": "primes", "limit": 1})
    lines.append(primes("counter.incrTapped"))
    output, code, _ = run_lines(lines, "--max-instances", "1000", timeout=60)
    assert code == 0
    refused = [line for line in output if line.get("code") == "instance_limit"]
    assert len(refused) == keys - 1000
    assert refused[0]["instance"] == "k1000" and refused[0]["store"] == "primes"
    listing = next(line for line in output if line["type"] == "instances")
    assert listing["count"] == 1000 and listing["next"] == "k0"
    assert output[-2]["type"] == "action" and "instance" not in output[-2], "the default instance still works"


def test_ticks_write_one_state_line_per_instance_that_changed(process):
    actor = process("--emit", "ticks")
    actor.send(primes("counter.incrTapped", "a"), primes("counter.incrTapped"), primes("counter.incrTapped", "a"))
    states = actor.read_until(lambda line: line.get("instance") == "a")
    if len(states) == 1:  # the lines were read in two loop iterations
        states += actor.read_until(lambda line: "instance" not in line)
    by_instance = {line.get("instance"): line for line in states}
    assert set(by_instance) == {None, "a"}
    applied = jsonpatch.apply_patch({"count": 0, "isPrime": False}, by_instance["a"]["patch"])
    assert applied["count"] == 2 and applied["isPrime"] is True


def rss_kib(pid):
    status = open(f"/proc/{pid}/status").read()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


def test_the_memory_of_an_idle_instance_is_bounded(process):
    """bench/ measures the figure; this bounds it coarsely, so that a leak per instance fails."""
    if SANITIZED:
        return
    actor = process()
    actor.request({"cmd": "snapshot", "store": "primes", "instance": "warm-up"})
    before = rss_kib(actor.process.pid)
    count = 20_000
    # In bursts, each read before the next is sent: a host that writes without reading stalls
    # the process's output, which stops its input. Read as bytes: validating 20,000 action
    # lines against the schemas would take most of a minute, and the other tests validate such
    # lines.
    for burst in range(0, count, 1000):
        actor.send(*[primes("counter.incrTapped", f"user-{n}") for n in range(burst, burst + 1000)])
        for _ in range(1000):
            actor.read_bytes()
    assert answer(actor, {"cmd": "instances", "store": "primes", "limit": 1})["count"] == count + 1
    per_instance = (rss_kib(actor.process.pid) - before) * 1024 / count
    print(f"RSS per idle primes instance: {per_instance:.0f} bytes")
    assert per_instance < PER_INSTANCE_BOUND


# The bound the test holds for now; the instances issue's goal is 1 KB beyond the state.
PER_INSTANCE_BOUND = 16_384


def test_each_instance_keeps_its_files_in_a_folder_of_its_own(process, data_dir):
    actor = process()
    for key, count in (("alice", 2), ("a/../b", 3)):
        actor.send(*[primes("counter.incrTapped", key)] * count)
        actor.send(primes("primeModal.saveFavoritePrimeTapped", key), primes("favoritePrimes.saveButtonTapped", key))
    actor.send(primes("favoritePrimes.saveButtonTapped"))
    # The end of input waits for the saves, which run on the thread pool.
    actor.finish()
    assert json.loads((data_dir / "instances/alice/favorite-primes.json").read_text()) == [2]
    assert json.loads((data_dir / "instances/a%2F%2E%2E%2Fb/favorite-primes.json").read_text()) == [3]
    assert json.loads((data_dir / "favorite-primes.json").read_text()) == []


def test_two_instances_of_the_websocket_store_have_a_socket_each(process, ws_servers):
    actor = process("--websocket-url", ws_servers.url + "/echo")

    def socket(action, instance):
        return {"store": "websocket", "instance": instance, "action": action}

    def received(instance):
        return lambda line: (
            line.get("instance") == instance
            and line.get("action", {}).get("type") == "receivedSocketMessage.success")

    for key in ("a", "b"):
        actor.send(socket("connectButtonTapped", key))
        actor.read_until(received(key))  # the echo server's welcome
    for key in ("a", "b"):
        actor.send(socket({"type": "messageToSendChanged", "value": f"from {key}"}, key), socket("sendButtonTapped", key))
    echoes = [actor.read_until(received(key))[-1] for key in ("a", "b")]
    assert {line["instance"]: line["action"]["value"] for line in echoes} == {"a": {"type": "text", "text": "from a"}, "b": {"type": "text", "text": "from b"}}
    for key in ("a", "b"):
        state = answer(actor, {"cmd": "snapshot", "store": "websocket", "instance": key})["state"]
        assert state["receivedMessages"] == ["Welcome to the echo server", f"from {key}"]
        assert state["connectivityState"] == "connected"
    stopped = answer(actor, {"cmd": "stop", "store": "websocket", "instance": "a"})
    assert stopped["cancelledEffects"] >= 1
    actor.send(socket({"type": "messageToSendChanged", "value": "still here"}, "b"), socket("sendButtonTapped", "b"))
    assert actor.read_until(received("b"))[-1]["action"]["value"] == {"type": "text", "text": "still here"}


def run_binary(*args, input=None):
    return subprocess.run([str(BINARY), *args], capture_output=True, text=True, timeout=60, input=input)


def record_instances(tmp_path, data_dir, *args):
    """A live session over two instances and the default one, recorded; returns its path."""
    path = tmp_path / "instances.jsonl"
    inputs = [
        primes({"type": "counter.countChanged", "value": 5}, "alice"),
        primes("counter.incrTapped", "bob"),
        primes("counter.nthPrimeButtonTapped", "alice", id="nth"),
        primes("counter.incrTapped"),
        primes("primeModal.saveFavoritePrimeTapped", "alice"),
    ]
    output, code, stderr = run_lines(inputs, "--record", str(path), "--seed", "5", *args, data_dir=data_dir)
    assert code == 0, stderr
    return path


def test_a_recording_over_instances_replays_each_instance_to_its_patches(tmp_path, data_dir):
    path = record_instances(tmp_path, data_dir)
    actions = [json.loads(text) for text in path.read_text().splitlines()[1:]]
    assert [line.get("instance") for line in actions if line.get("type") == "action"] == [
        "alice", "bob", "alice", None, "alice", "alice"]
    replayed = run_binary("replay", str(path))
    assert replayed.returncode == 0, replayed.stderr
    until = run_binary("replay", str(path), "--until", "6")
    snapshots = [json.loads(text) for text in until.stdout.splitlines()]
    primes_states = {line.get("instance"): line["state"] for line in snapshots if line["store"] == "primes"}
    assert {key: state["count"] for key, state in primes_states.items()} == {None: 1, "alice": 5, "bob": 1}
    assert primes_states["alice"]["favoritePrimes"] == [5]
    # A patch edited in bob's line makes the replay diverge there, naming the instance.
    lines = path.read_text().splitlines()
    bob = next(i for i, text in enumerate(lines) if '"instance":"bob"' in text)
    edited = json.loads(lines[bob])
    edited["patch"][0]["value"] = 7
    lines[bob] = json.dumps(edited)
    path.write_text("\n".join(lines) + "\n")
    diverged = run_binary("replay", str(path), "--format", "json")
    assert diverged.returncode == 1
    result = json.loads(diverged.stdout)
    assert result["instance"] == "bob" and result["store"] == "primes" and result["line"] == bob + 1
    assert 'action: primes "bob" {"type":"counter.incrTapped"}' in diverged.stderr


def test_to_scenario_writes_each_step_with_its_instance_and_the_scenario_passes(tmp_path, data_dir):
    path = record_instances(tmp_path, data_dir)
    scenario = tmp_path / "regression.jsonl"
    written = run_binary("replay", str(path), "--to-scenario")
    assert written.returncode == 0, written.stderr
    scenario.write_text(written.stdout)
    steps = [json.loads(text) for text in written.stdout.splitlines()[1:]]
    sends = [step for step in steps if "send" in step]
    assert [step.get("instance") for step in sends] == ["alice", "bob", "alice", None, "alice"]
    ran = run_binary("test", str(scenario))
    assert ran.returncode == 0, ran.stdout


def test_a_scenario_drives_several_instances_and_checks_each(tmp_path):
    scenario = tmp_path / "instances.jsonl"
    lines = [
        {"scenario": "two users", "store": "primes"},
        {"nthPrimes": {"3": 5}},
        {"send": "counter.incrTapped", "instance": "alice", "state": {"count": 1}},
        {"send": "counter.incrTapped", "instance": "bob", "state": {"count": 1}},
        {"send": "counter.incrTapped", "instance": "alice", "state": {"count": 2, "isPrime": True}},
        {"send": {"type": "counter.countChanged", "value": 3}, "state": {"count": 3, "isPrime": True}},
        {"send": "counter.nthPrimeButtonTapped", "instance": "bob",
         "state": {"nthPrimeRequest": 1, "isNthPrimeButtonDisabled": True}},
        {"receive": "counter.nthPrimeResponse", "instance": "bob",
         "state": {"alertNthPrime": {"n": 1, "prime": 2}, "nthPrimeRequest": None, "isNthPrimeButtonDisabled": False}},
    ]
    scenario.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ran = run_binary("test", str(scenario))
    # The nth prime of 1 is not scripted: the step fails, naming what was asked.
    assert ran.returncode == 1
    lines[1] = {"nthPrimes": {"1": 2}}
    scenario.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ran = run_binary("test", str(scenario))
    assert ran.returncode == 0, ran.stdout
    # Received by the wrong instance: a TestStore-style difference that names both.
    lines[7]["instance"] = "alice"
    scenario.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ran = run_binary("test", str(scenario))
    assert ran.returncode == 1
    assert f"{scenario}:8: receive counter.nthPrimeResponse: received a different action" in ran.stdout
    assert '−   instance: "alice"' in ran.stdout and '+   instance: "bob"' in ran.stdout
    # A bad key is refused where the file is read.
    lines[7]["instance"] = ""
    scenario.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ran = run_binary("test", str(scenario))
    assert ran.returncode == 1 and f'{scenario}:8: "instance" must not be empty' in ran.stdout


def test_a_parked_hosts_next_instance_patches_from_its_own_state():
    # Past 1,024 active instances the least recently used are parked, and their hosts serve the
    # next activations: each instance's patches must start from its own state, never from the
    # state of the instance the host served before.
    def typed(instance, value, id=None):
        message = {"store": "websocket", "instance": instance,
                   "action": {"type": "messageToSendChanged", "value": value}}
        return {**message, "id": id} if id else message

    inputs = [typed(f"k{i}", f"message {i}") for i in range(1_100)]
    inputs += [
        typed("new", "", "unchanged"),  # the initial state's own value: nothing to patch
        typed("k3", "message 3", "resumed"),  # parked with it, so nothing to patch either
        typed("k4", "other", "changed"),
        {"cmd": "snapshot", "store": "websocket", "instance": "new", "id": "state"},
    ]
    lines, code, _ = run_lines(inputs, timeout=120)
    assert code == 0
    by_id = {line["id"]: line for line in lines if "id" in line}
    assert by_id["unchanged"]["patch"] == [] and by_id["unchanged"]["instance"] == "new"
    assert by_id["resumed"]["patch"] == []
    assert by_id["changed"]["patch"] == [{"op": "replace", "path": "/messageToSend", "value": "other"}]
    assert by_id["state"]["state"]["messageToSend"] == ""
    # Every instance's first line patched the initial state.
    first = [line for line in lines if line.get("type") == "action" and "id" not in line]
    assert len(first) == 1_100
    assert all(
        line["patch"] == [{"op": "replace", "path": "/messageToSend", "value": f"message {line['instance'][1:]}"}]
        for line in first
    )
