"""Property: for any sequence of actions, applying every patch (with Python's jsonpatch, an
independent RFC 6902 implementation) to the first snapshot reproduces every later snapshot."""

import jsonpatch
from hypothesis import HealthCheck, given, settings
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
    state = None
    for line in output:
        if line["type"] == "snapshot":
            if state is None:
                state = line["state"]
            assert line["state"] == state
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
