"""Property: for any sequence of actions, applying every patch (with Python's jsonpatch, an
independent RFC 6902 implementation) to the first snapshot reproduces every later snapshot."""

import jsonpatch
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from actor import run_lines

ACTIONS = st.one_of(
    st.sampled_from(
        [
            "counter.incrTapped",
            "counter.decrTapped",
            "primeModal.saveFavoritePrimeTapped",
            "primeModal.removeFavoritePrimeTapped",
            "counter.alertDismissButtonTapped",
        ]
    ),
    st.builds(lambda n: {"type": "counter.countChanged", "value": n}, st.integers(-50, 200)),
    st.builds(
        lambda indices: {"type": "favoritePrimes.deleteFavoritePrimes", "indices": indices},
        st.lists(st.integers(-2, 12), max_size=4),
    ),
    st.builds(lambda n: {"type": "counter.nthPrimeResponse", "value": n}, st.one_of(st.none(), st.integers(2, 10**6))),
    st.builds(lambda primes: {"type": "favoritePrimes.loadedFavoritePrimes", "value": primes},
              st.lists(st.sampled_from([2, 3, 5, 7, 11, 13, 97]), max_size=6)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ACTIONS, min_size=1, max_size=40))
def test_patches_replay_to_every_snapshot(actions):
    lines = [{"cmd": "snapshot", "store": "primes"}]
    for action in actions:
        lines.append({"store": "primes", "action": action})
        lines.append({"cmd": "snapshot", "store": "primes"})
    output, code, stderr = run_lines(lines, "--allow-effect-actions")
    assert code == 0, stderr
    assert_patches_replay_to_snapshots(output)


def assert_patches_replay_to_snapshots(output, check_state=lambda state: None):
    """Applies every action line's patch to the first snapshot: each later snapshot is the state
    the patches made."""
    state = None
    for line in output:
        if line["type"] == "snapshot":
            if state is None:
                state = line["state"]
            assert line["state"] == state
            check_state(state)
        elif line["type"] == "action":
            state = jsonpatch.apply_patch(state, line["patch"])
        else:
            assert line["type"] in ("ready", "exit"), line


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ACTIONS, min_size=1, max_size=60))
def test_tick_patches_replay_to_the_final_snapshot(actions):
    lines = [{"cmd": "snapshot", "store": "primes"}]
    lines += [{"store": "primes", "action": action} for action in actions]
    lines.append({"cmd": "snapshot", "store": "primes"})
    output, code, stderr = run_lines(lines, "--emit", "ticks", "--allow-effect-actions")
    assert code == 0, stderr
    snapshots = [line for line in output if line["type"] == "snapshot"]
    state = snapshots[0]["state"]
    for line in output:
        if line["type"] == "state":
            state = jsonpatch.apply_patch(state, line["patch"])
    assert state == snapshots[-1]["state"]
    assert sum(line["actions"] for line in output if line["type"] == "state") == len(actions)


# The websocket store's bounded message list: appending to a full list drops its first
# message, so its patches cover array inserts, deletes and shifts at random.
SOCKET_ACTIONS = st.one_of(
    st.builds(
        lambda text: {"type": "receivedSocketMessage.success", "value": {"text": text}},
        st.sampled_from(["a", "b", "c", "hello", ""]),
    ),
    st.builds(lambda text: {"type": "messageToSendChanged", "value": text}, st.text(max_size=3)),
    st.just({"type": "webSocket.didOpen", "protocol": None}),
    st.builds(
        lambda code: {"type": "webSocket.didClose", "code": code, "reason": "bye"},
        st.sampled_from([1000, 1006]),
    ),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SOCKET_ACTIONS, min_size=1, max_size=40), st.integers(1, 6))
# U+0085 is written unescaped, as JSON allows: a reader must split lines at "\n" only.
@example([{"type": "messageToSendChanged", "value": "\x85"}], 1)
def test_bounded_list_patches_replay_to_every_snapshot(actions, cap):
    lines = [{"cmd": "snapshot", "store": "websocket"}]
    for action in actions:
        lines.append({"store": "websocket", "action": action})
        lines.append({"cmd": "snapshot", "store": "websocket"})
    output, code, stderr = run_lines(lines, "--allow-effect-actions", "--max-received", str(cap))
    assert code == 0, stderr

    def holds_at_most_cap(state):
        assert len(state["receivedMessages"]) <= cap

    assert_patches_replay_to_snapshots(output, holds_at_most_cap)
