"""`composable-actor export`: a durable instance's history (`run --state-dir`) as a recording,
which replay, replay --to-scenario, test and timeline take as they take a --record log."""

import json
import subprocess

from actor import BINARY, Actor, run_lines, store_names
from conftest import validator

RECORDING = validator("urn:composable-actor:recording")


def export(state_dir, *args):
    return subprocess.run(
        [str(BINARY), "export", "--state-dir", str(state_dir), *map(str, args)],
        capture_output=True, text=True, timeout=60)


def command(*args):
    return subprocess.run([str(BINARY), *map(str, args)], capture_output=True, text=True, timeout=120)


def drive(state_dir, data_dir, messages, *args):
    """One process on the folder, from start to end of input; returns its action lines. Not
    run_lines: the output schema check of thousands of lines each test would take a minute, and
    test_durable_instances.py checks these lines' shape."""
    data = b"".join(json.dumps(m, separators=(",", ":")).encode() + b"\n" for m in messages)
    result = subprocess.run(
        [str(BINARY), "--state-dir", str(state_dir), "--data-dir", str(data_dir), *args],
        input=data, capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr.decode()
    lines = [json.loads(text) for text in result.stdout.decode().splitlines()]
    return [line for line in lines if line["type"] == "action"]


def primes(action, instance=None, **payload):
    message = {"store": "primes", "action": {"type": action, **payload} if payload else action}
    if instance is not None:
        message["instance"] = instance
    return message


def session(instance, round):
    """Counting up, with favourites saved and removed now and then: each save or removal adds to
    the activity feed an entry stamped with the reducer's time, which a replay must reproduce."""
    messages = []
    for n in range(1200):
        messages.append(primes("counter.incrTapped", instance))
        if n % 150 == 0:
            messages.append(primes("counter.countChanged", instance, value=(7, 11, 13)[round]))
            messages.append(primes("primeModal.saveFavoritePrimeTapped", instance))
        elif n % 150 == 75:
            messages.append(primes("primeModal.removeFavoritePrimeTapped", instance))
    return messages


def records(path_or_text):
    return [json.loads(text) for text in path_or_text.splitlines()]


def test_an_exported_history_replays_becomes_a_passing_scenario_and_is_drawn(tmp_path, data_dir):
    state_dir = tmp_path / "state"
    printed = {None: [], "alice": []}
    for round in range(3):
        # The default instance asks for an nth prime too: the effect's answer is a line the
        # history holds, and a replay re-reduces it without running the effect.
        messages = session("alice", round) + session(None, round) + [
            primes("counter.nthPrimeButtonTapped")]
        for line in drive(state_dir, data_dir, messages):
            printed[line.get("instance")].append(line)

    out = tmp_path / "alice.jsonl"
    result = export(state_dir, "--store", "primes", "--instance", "alice", "-o", out)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    alice = records(out.read_text())
    for record in alice:
        RECORDING.validate(record)
    header = alice[0]
    assert header["stores"] == store_names() and header["arguments"] == [] and header["seed"] == "0"
    assert header["clock"] == "live" and set(header["fingerprints"]) == set(store_names())
    # Thousands of lines passed 64 KiB more than once: the history starts at a snapshot, not at
    # the initial state, and holds the lines since, exactly as the processes printed them.
    base = header["initialStates"]["primes"]
    assert list(header["initialStates"]) == ["primes"] and base["count"] > 0
    exported = [{k: v for k, v in r.items() if k != "t"} for r in alice[1:]]
    assert 300 < len(exported) < len(printed["alice"])
    assert exported == printed["alice"][-len(exported):]
    assert alice[1]["t"] == 0 and all(r["t"] >= 0 for r in alice[1:])

    result = command("replay", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{out}: {len(exported)} actions replayed, every state matched\n"
    # The replayed state at the last step is the stored one.
    last = command("replay", out, "--until", exported[-1]["seq"])
    replayed = next(r for r in records(last.stdout) if r.get("instance") == "alice")
    stored = run_lines(
        [{"cmd": "snapshot", "store": "primes", "instance": "alice"}], "--state-dir", state_dir,
        data_dir=data_dir)[0][1]
    assert replayed["state"] == stored["state"]

    scenario = tmp_path / "alice-scenario.jsonl"
    result = command("replay", out, "--to-scenario")
    assert result.returncode == 0, result.stderr
    scenario.write_text(result.stdout)
    scenario_header = records(result.stdout)[0]
    assert scenario_header["store"] == "primes" and scenario_header["initialState"] == base
    ran = command("test", scenario)
    assert ran.returncode == 0 and "1 passed, 0 failed" in ran.stdout, ran.stdout

    drawn = command("timeline", out, "--format", "text")
    assert drawn.returncode == 0, drawn.stderr
    assert 'primes "alice"' in drawn.stdout
    page = command("timeline", out, "-o", tmp_path / "alice.html")
    assert page.returncode == 0, page.stderr

    # The default instance, to stdout: its nth prime's answer is an effect's line.
    result = export(state_dir, "--store", "primes")
    assert result.returncode == 0, result.stderr
    default = records(result.stdout)
    assert all("instance" not in r for r in default[1:])
    assert any(r["source"] == "effect" for r in default[1:])
    path = tmp_path / "default.jsonl"
    path.write_text(result.stdout)
    assert command("replay", path).returncode == 0
    scenario.write_text(command("replay", path, "--to-scenario").stdout)
    ran = command("test", scenario)
    assert ran.returncode == 0 and "1 passed, 0 failed" in ran.stdout, ran.stdout


def test_a_history_from_the_initial_state_has_no_initial_states(tmp_path, data_dir):
    state_dir = tmp_path / "state"
    drive(state_dir, data_dir, [primes("counter.incrTapped", "bob")] * 3)
    result = export(state_dir, "--store", "primes", "--instance", "bob")
    assert result.returncode == 0, result.stderr
    recording = records(result.stdout)
    assert "initialStates" not in recording[0]
    assert [r["patch"][0]["value"] for r in recording[1:]] == [1, 2, 3]


def test_a_virtual_clock_history_replays_at_the_times_its_reducers_saw(tmp_path, data_dir):
    """Each favourite saved is stamped with the virtual time: a batch stored after an advance
    moved the clock would give the replay a later time than the reducer saw."""
    state_dir = tmp_path / "state"
    messages = []
    for _ in range(20):
        messages += [
            primes("counter.countChanged", "v", value=7), primes("primeModal.saveFavoritePrimeTapped", "v"),
            {"cmd": "advance", "ms": 37}, primes("primeModal.removeFavoritePrimeTapped", "v"),
            {"cmd": "advance", "ms": 11}]
    drive(state_dir, data_dir, [{"cmd": "advance", "ms": 100}] + messages, "--clock", "virtual")
    drive(state_dir, data_dir, messages, "--clock", "virtual")
    path = tmp_path / "v.jsonl"
    assert export(state_dir, "--store", "primes", "--instance", "v", "-o", path).returncode == 0
    recording = records(path.read_text())
    for record in recording:
        RECORDING.validate(record)
    # The second process's clock started at 0 again, before the first's first line.
    assert recording[0]["startTime"] == 100 and min(r["t"] for r in recording[1:]) == -100
    result = command("replay", path)
    assert result.returncode == 0, result.stderr
    scenario = tmp_path / "v-scenario.jsonl"
    scenario.write_text(command("replay", path, "--to-scenario").stdout)
    ran = command("test", scenario)
    assert ran.returncode == 0 and "1 passed, 0 failed" in ran.stdout, ran.stdout


def test_what_cannot_be_exported_is_a_clear_error(tmp_path, data_dir):
    state_dir = tmp_path / "state"
    drive(state_dir, data_dir, [primes("counter.incrTapped", "bob")])

    unknown = export(state_dir, "--store", "nope")
    assert unknown.returncode == 64 and ", ".join(store_names()) in unknown.stderr

    nobody = export(state_dir, "--store", "primes", "--instance", "nobody")
    assert nobody.returncode == 66 and 'nothing is stored for primes "nobody"' in nobody.stderr
    missing = export(tmp_path / "missing", "--store", "primes")
    assert missing.returncode == 66 and not (tmp_path / "missing").exists()

    running = Actor("--state-dir", str(state_dir), data_dir=data_dir)
    try:
        busy = export(state_dir, "--store", "primes", "--instance", "bob")
        assert busy.returncode == 74 and f"in use by process {running.process.pid}" in busy.stderr
    finally:
        running.kill()

    # Under --emit ticks the lines are states, which carry no actions to replay.
    ticks = drive(state_dir, data_dir, [primes("counter.incrTapped", "ticked")] * 2, "--emit", "ticks")
    assert ticks == []
    refused = export(state_dir, "--store", "primes", "--instance", "ticked")
    assert refused.returncode == 65 and "--emit actions" in refused.stderr

    (tmp_path / "file").write_text("")
    unwritable = export(state_dir, "--store", "primes", "--instance", "bob", "-o", tmp_path / "file" / "x")
    assert unwritable.returncode == 73 and "cannot write" in unwritable.stderr


def test_initial_states_a_scenario_cannot_start_from_are_refused_by_to_scenario(tmp_path, data_dir):
    state_dir = tmp_path / "state"
    drive(state_dir, data_dir, [primes("counter.incrTapped")])
    recording = records(export(state_dir, "--store", "primes").stdout)
    path = tmp_path / "edited.jsonl"

    def to_scenario(initial_states):
        recording[0]["initialStates"] = initial_states
        path.write_text("".join(json.dumps(r) + "\n" for r in recording))
        result = command("replay", path, "--to-scenario")
        assert result.returncode == 64 and result.stdout == ""
        return result.stderr

    assert "a scenario starts one at most" in to_scenario(
        {"primes": {"count": 5}, "votes": {"isLoading": False}})
    # A scenario's initialState is merged into the store's initial state, which would keep the
    # members this state lacks.
    assert "without members its initial state has" in to_scenario({"primes": {"count": 5}})
