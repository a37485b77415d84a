"""`timeline --format text`: a real recording drawn as swimlanes in plain text (issue 17 §2),
checked against the recording's own lines."""

import json
import re
import subprocess

from actor import BINARY, run_lines


def record(tmp_path, lines, *args):
    path = tmp_path / "run.jsonl"
    _, code, _ = run_lines(lines, "--trace", "effects", "--record", str(path), *args)
    assert code == 0
    return path, [json.loads(line) for line in path.read_text().splitlines()[1:]]


def timeline(*args):
    return subprocess.run([str(BINARY), "timeline", *map(str, args)], capture_output=True, text=True, timeout=30)


# Under the virtual clock: the refresh timer of randomTodo runs while primes saves a file, the
# stop cancels the timer, and the end of input cancels the one started last.
ACTIONS = [
    {"store": "randomTodo", "action": "viewDidAppear", "id": "appear"},
    {"store": "primes", "action": "counter.incrTapped"},
    {"store": "primes", "action": "primeModal.saveFavoritePrimeTapped"},
    {"store": "primes", "action": "favoritePrimes.saveButtonTapped", "id": "save"},
    {"cmd": "advance", "ms": 2500},
    {"store": "randomTodo", "action": "stopRandomText"},
    {"store": "randomTodo", "action": "viewDidAppear"},
    {"cmd": "advance", "ms": 100},
]


def test_each_store_is_a_lane_and_each_effect_a_line_from_its_start_to_its_end(tmp_path):
    path, recorded = record(tmp_path, ACTIONS, "--clock", "virtual", "--data-dir", tmp_path)
    result = timeline(path, "--format", "text", "--width", 300)
    assert result.returncode == 0, result.stderr
    summary, heading, *rows = result.stdout.splitlines()
    actions = [line for line in recorded if line["type"] == "action"]
    effects = [line for line in recorded if line["type"] == "effect"]
    numbers = sorted({line["effect"] for line in effects})
    ends = {line["effect"]: line["event"] for line in effects if line["event"] in ("finished", "cancelled", "failed")}
    assert summary == (
        f"run.jsonl: {len(actions)} actions in 2 stores (virtual clock); {len(numbers)} effects: "
        f"{list(ends.values()).count('finished')} finished, {list(ends.values()).count('cancelled')} cancelled, "
        f"0 failed, {len(numbers) - len(ends)} still running"
    )
    assert heading.split() == ["t", "ms", "seq", "primes", "randomTodo"]
    # A row per line of the recording, in its order, and one per effect with no end.
    assert len(rows) == len(recorded) + len(numbers) - len(ends)
    for row, line in zip(rows, recorded):
        if line["type"] == "action":
            assert row.split()[:2] == [str(line["t"]), str(line["seq"])]
            assert line["action"]["type"] in row
            mark = "◆" if line["source"] == "effect" else "●"
            assert f"{mark} {line['action']['type']}" in row
            if "effect" in line:
                assert "├" in row and f"(effect {line['effect']})" in row
        else:
            assert row.split()[0] == str(line["t"])
            assert f"effect {line['effect']} {line['event']}" in row
            glyph = {"started": "┌", "finished": "└", "cancelled": "└", "failed": "└"}.get(line["event"], "│")
            assert glyph in row
    assert len(ends) == len(numbers)
    stop = next(line for line in actions if line["action"]["type"] == "stopRandomText")
    assert f"effect 1 cancelled: cancel at seq {stop['seq']}" in result.stdout
    assert rows[-1].endswith(f"effect {numbers[-1]} cancelled: eof")


def test_one_store_alone_and_the_output_file(tmp_path):
    path, recorded = record(tmp_path, ACTIONS, "--clock", "virtual", "--data-dir", tmp_path)
    out = tmp_path / "timeline.txt"
    result = timeline(path, "--format", "text", "--store", "randomTodo", "-o", out)
    assert result.returncode == 0 and result.stdout == ""
    lines = out.read_text().splitlines()
    assert lines[1].split() == ["t", "ms", "seq", "randomTodo"]
    assert len(lines) - 2 == sum(1 for line in recorded if line["store"] == "randomTodo")
    assert not any("counter." in line or "favoritePrimes" in line for line in lines)


def test_the_page_embeds_the_recording_and_the_initial_states(tmp_path):
    path, recorded = record(tmp_path, ACTIONS, "--clock", "virtual", "--data-dir", tmp_path)
    result = timeline(path)
    assert result.returncode == 0, result.stderr
    page = result.stdout
    assert page.startswith("<!doctype html>") or page.lower().startswith("<!doctype html>")
    start = page.index('<script type="application/json" id="recording-data">')
    start = page.index(">", start) + 1
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["lines"] == recorded
    assert [store["name"] for store in data["stores"]] == ["primes", "randomTodo", "votes", "websocket"]
    described = json.loads(subprocess.run([str(BINARY), "describe"], capture_output=True, text=True).stdout)
    assert all(store["initialState"] is not None for store in data["stores"])
    assert "src=" not in page and "href=\"http" not in page, "the page fetches nothing"
    assert described  # the binary describes the stores the page draws


def test_bad_arguments_and_bad_recordings_get_a_clear_error(tmp_path):
    missing = timeline(tmp_path / "nope.jsonl", "--format", "text")
    assert missing.returncode == 65
    assert "nope.jsonl: cannot read" in missing.stderr
    cut = tmp_path / "cut.jsonl"
    path, _ = record(tmp_path, ACTIONS[:2], "--clock", "virtual")
    cut.write_text(path.read_text()[:-10])
    result = timeline(cut, "--format", "text")
    assert result.returncode == 65 and "cut short" in result.stderr
    unknown = timeline(path, "--format", "text", "--store", "nope")
    assert unknown.returncode == 64
    assert "--store nope: the recording's stores are primes, randomTodo, votes, websocket" in unknown.stderr
    html_store = timeline(path, "--store", "primes")
    assert html_store.returncode == 64 and "--store is for --format text" in html_store.stderr
    unwritable = timeline(path, "-o", cut / "page.html")
    assert unwritable.returncode == 73 and "cannot write" in unwritable.stderr
    for width in ["39", "10001", "9223372036854775807"]:
        wide = timeline(path, "--format", "text", "--width", width)
        assert wide.returncode == 64 and "--width must be between 40 and 10000" in wide.stderr


def test_every_recording_the_fuzzer_found_is_drawn_or_refused_never_a_crash(tmp_path):
    """Inputs scripts/fuzz.sh's recording target crashed on, through the binary's three readers."""
    from actor import ROOT

    found = sorted((ROOT / "Tests/FuzzFiles/recording").iterdir())
    assert found
    for path in found:
        runs = [
            timeline(path, "--format", "text"),
            timeline(path, "-o", tmp_path / "page.html"),
            subprocess.run([str(BINARY), "replay", str(path)], capture_output=True, text=True, timeout=30),
        ]
        for run in runs:
            assert run.returncode in (0, 1, 65), (path.name, run.args, run.returncode, run.stderr[-2000:])


# Under the virtual clock, over instances: randomTodo's refresh timer started in its default
# instance, alice's and bob's, alice's stop cancelling hers only (the end of input cancels the
# others), and primes counting in its default instance and alice's.
INSTANCE_ACTIONS = [
    {"store": "randomTodo", "action": "viewDidAppear"},
    {"store": "randomTodo", "instance": "alice", "action": "viewDidAppear", "id": "appear"},
    {"store": "primes", "action": "counter.incrTapped"},
    {"store": "primes", "instance": "alice", "action": "counter.incrTapped"},
    {"store": "randomTodo", "instance": "bob", "action": "viewDidAppear"},
    {"cmd": "advance", "ms": 2500},
    {"store": "randomTodo", "instance": "alice", "action": "stopRandomText", "id": "stop"},
    {"store": "primes", "instance": "alice", "action": "counter.incrTapped"},
    {"cmd": "advance", "ms": 100},
]


def lane_name(line):
    return line["store"] + (f' "{line["instance"]}"' if "instance" in line else "")


def lanes_of(heading):
    """The lane names of a heading (a name may hold one space, lanes are two or more apart)."""
    return re.split(r" {2,}", heading.strip())[2:]


def test_each_instance_is_a_lane_and_its_effects_are_drawn_in_it(tmp_path):
    path, recorded = record(tmp_path, INSTANCE_ACTIONS, "--clock", "virtual")
    result = timeline(path, "--format", "text", "--width", 400)
    assert result.returncode == 0, result.stderr
    summary, heading, *rows = result.stdout.splitlines()
    names = ["primes", 'primes "alice"', "randomTodo", 'randomTodo "alice"', 'randomTodo "bob"']
    assert lanes_of(heading) == names
    actions = [line for line in recorded if line["type"] == "action"]
    numbers = {line["effect"] for line in recorded if line["type"] == "effect"}
    assert summary.startswith(
        f"run.jsonl: {len(actions)} actions in 5 instances of 2 stores (virtual clock); {len(numbers)} effects: ")
    # Where each lane starts in the row: every row's label and glyph fall in its own lane.
    starts, at = [], 0
    for name in names:
        at = heading.index(name, at)
        starts.append(at)
        at += len(name)
    bounds = dict(zip(names, zip(starts, starts[1:] + [10**6])))
    assert len(rows) == len(recorded), "every effect ends: no row for one still running"
    for row, line in zip(rows, recorded):
        start, end = bounds[lane_name(line)]
        if line["type"] == "action":
            label = row.index(("◆ " if line["source"] == "effect" else "● ") + line["action"]["type"])
        else:
            label = row.index(f"effect {line['effect']} {line['event']}")
            glyph = {"started": "┌", "cancelled": "└"}.get(line["event"], "│")
            assert start <= row.rindex(glyph, 0, label) < label, (row, line)
        assert start <= label < end, (row, line)
    stop = next(line for line in actions if line["action"]["type"] == "stopRandomText")
    alice = next(line["effect"] for line in recorded if line["type"] == "effect" and line.get("instance") == "alice")
    assert f"effect {alice} cancelled: cancel at seq {stop['seq']}" in result.stdout
    assert result.stdout.count("cancelled: eof") == 2, "the default instance's timer and bob's"


def test_instances_are_filtered_by_store_and_by_key(tmp_path):
    path, recorded = record(tmp_path, INSTANCE_ACTIONS, "--clock", "virtual")
    cases = [
        (["--store", "randomTodo"], ["randomTodo", 'randomTodo "alice"', 'randomTodo "bob"']),
        (["--instance", "alice"], ['primes "alice"', 'randomTodo "alice"']),
        (["--store", "randomTodo", "--instance", "bob", "--instance", "alice"], ['randomTodo "alice"', 'randomTodo "bob"']),
        (["--store", "primes", "--instance", "alice"], ['primes "alice"']),
    ]
    for arguments, lanes in cases:
        result = timeline(path, "--format", "text", "--width", 400, *arguments)
        assert result.returncode == 0, result.stderr
        summary, heading, *rows = result.stdout.splitlines()
        assert lanes_of(heading) == lanes, arguments
        kept = [line for line in recorded if lane_name(line) in lanes]
        assert len(rows) == len(kept), arguments
        assert [row.split()[1] for row in rows if row.split()[1].isdigit()] == \
            [str(line["seq"]) for line in kept if line["type"] == "action"], arguments
    unknown = timeline(path, "--format", "text", "--instance", "carol")
    assert unknown.returncode == 64
    assert "--instance \"carol\": the recording's instances are \"alice\", \"bob\"" in unknown.stderr
    elsewhere = timeline(path, "--format", "text", "--store", "primes", "--instance", "bob")
    assert elsewhere.returncode == 64
    assert "--instance \"bob\": the recording's instances of primes are \"alice\"" in elsewhere.stderr
    page = timeline(path, "--instance", "alice")
    assert page.returncode == 64 and "--instance is for --format text" in page.stderr
