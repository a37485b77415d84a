"""Property: the todos store's patches, applied in order with Python's jsonpatch (an independent
RFC 6902 implementation) to the first snapshot, give every later snapshot. Random adds, toggles,
renames, deletes and moves exercise the patches written from IdentifiedArray's and TrackedArray's
journals: inserts, removals, updates and moves anywhere in the list. A todo's action for an id
that is not there gets an unknown_element error line and changes nothing.

Run by run-checks.sh: `TODO_ACTOR=<binary> python3 -m pytest -q test_patch_properties.py`."""

import json
import os
import subprocess

import jsonpatch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BINARY = os.environ["TODO_ACTOR"]

ACTIONS = st.one_of(
    st.builds(lambda title: {"type": "add", "title": title}, st.sampled_from(["a", "b", "milk", " "])),
    st.builds(
        lambda id, action: {"type": "todos.element", "id": id, "action": action},
        st.integers(0, 12),
        st.one_of(
            st.just({"type": "toggled"}),
            st.builds(lambda title: {"type": "renamed", "title": title}, st.sampled_from(["a", "milk", " "])),
        ),
    ),
    st.builds(lambda id: {"type": "delete", "id": id}, st.integers(0, 12)),
    st.builds(lambda a, b: {"type": "move", "from": a, "to": b}, st.integers(0, 8), st.integers(0, 8)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ACTIONS, min_size=1, max_size=40))
def test_patches_replay_to_every_snapshot(actions):
    lines = [{"cmd": "snapshot", "store": "todos"}]
    for action in actions:
        lines.append({"store": "todos", "action": action})
        lines.append({"cmd": "snapshot", "store": "todos"})
    result = subprocess.run(
        [BINARY, "run"], input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 0, result.stderr
    state = None
    for line in map(json.loads, result.stdout.splitlines()):
        if line["type"] == "snapshot":
            if state is None:
                state = line["state"]
            assert line["state"] == state
        elif line["type"] == "action":
            state = jsonpatch.apply_patch(state, line["patch"])
        elif line["type"] == "error":
            assert line["code"] == "unknown_element", line
            assert line["action"]["id"] not in [t["id"] for t in state["todos"]], line
        else:
            assert line["type"] in ("ready", "exit"), line
