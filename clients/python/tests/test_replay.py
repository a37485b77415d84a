"""A recording replayed through the client: its host actions, sent again, reduce to the recorded
actions, and the mirror ends in the states `composable-actor replay --until` reports."""

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RECORDING = ROOT / "Examples" / "recordings" / "primes-virtual.jsonl"
BINARY = os.environ.get("COMPOSABLE_ACTOR_BIN", str(ROOT / ".build" / "release" / "composable-actor"))


def key(line):
    return line["store"], line["source"], json.dumps(line["action"], sort_keys=True)


def test_the_host_actions_of_a_recording_reproduce_it(start):
    header, *records = [json.loads(text) for text in RECORDING.read_text().splitlines()]
    assert header["clock"] == "virtual"
    actor = start("--clock", "virtual", "--seed", header["seed"])
    produced = []
    for record in records:
        if record["source"] == "host":
            produced += actor.send(record["store"], record["action"], settle=True)
    # Effects answer right after their action here, and whenever they arrived when recorded.
    assert sorted(map(key, produced)) == sorted(map(key, records))

    replayed = subprocess.run(
        [BINARY, "replay", str(RECORDING), "--until", str(records[-1]["seq"])],
        capture_output=True, text=True, timeout=30, check=True,
    )
    snapshots = [json.loads(text) for text in replayed.stdout.splitlines()]
    assert [snapshot["store"] for snapshot in snapshots] == header["stores"]
    for snapshot in snapshots:
        assert actor.state(snapshot["store"]) == snapshot["state"]
