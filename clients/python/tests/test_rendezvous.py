"""Rendezvous hashing, which routes a store's instance to one process of a cluster: stable
across interpreters, spread evenly, and moving only the share of a process added or removed.
No Ray and no binary: composable_actor._rendezvous is plain Python."""

import subprocess
import sys
from collections import Counter

import pytest

from composable_actor._rendezvous import owner, weight

KEYS = [f"user-{n}" for n in range(10_000)]
PROCESSES = [f"composable-actor-{n}" for n in range(4)]


def owners(processes, keys=KEYS, store="primes"):
    return {key: owner(processes, store, key) for key in keys}


def test_adding_a_process_moves_only_what_it_now_owns():
    before = owners(PROCESSES)
    after = owners([*PROCESSES, "composable-actor-4"])
    moved = [key for key in KEYS if before[key] != after[key]]
    assert all(after[key] == "composable-actor-4" for key in moved)
    # About a fifth moves (1/5 of 10,000 is 2,000; the binomial's deviation is 40).
    assert 1_800 < len(moved) < 2_200


def test_removing_a_process_moves_only_what_it_owned():
    before = owners(PROCESSES)
    after = owners([name for name in PROCESSES if name != "composable-actor-2"])
    for key in KEYS:
        if before[key] == "composable-actor-2":
            assert after[key] != "composable-actor-2"
        else:
            assert after[key] == before[key], key


def test_the_share_is_even():
    counts = Counter(owners(PROCESSES).values())
    assert set(counts) == set(PROCESSES)
    assert all(2_300 < count < 2_700 for count in counts.values()), counts


def test_the_order_of_the_names_does_not_matter():
    assert owners(PROCESSES, KEYS[:500]) == owners(list(reversed(PROCESSES)), KEYS[:500])


def test_the_default_instance_and_the_store_are_part_of_the_key():
    assert weight("p", "primes", None) != weight("p", "primes", "")
    # Length-prefixed fields: moving a character across a boundary changes the weight.
    assert weight("ab", "c", "k") != weight("a", "bc", "k")
    assert weight("p", "primes", "k") != weight("p", "votes", "k")
    assert owner(PROCESSES, "primes", None) in PROCESSES


def test_the_weights_are_the_same_in_another_interpreter():
    """Python's hash() of a str changes from one run to the next; BLAKE2b does not."""
    script = "from composable_actor._rendezvous import weight; print(weight('composable-actor-1', 'primes', 'user-7'))"
    other = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True,
        env={"PYTHONHASHSEED": "12345", "PYTHONPATH": ":".join(sys.path)},
    )
    assert int(other.stdout) == weight("composable-actor-1", "primes", "user-7")


def test_the_weights_are_pinned():
    """Drivers of different versions must route alike: changing the hash moves every instance."""
    assert weight("composable-actor-1", "primes", "user-7") == 0x0A20302B0E246189
    assert weight("composable-actor-1", "primes", None) == 0x4A800FA4BA816F05


def test_no_process_is_an_error():
    with pytest.raises(ValueError, match="no live process"):
        owner([], "primes", "k")


def test_the_plain_client_does_not_import_ray():
    script = "import sys, composable_actor; print('ray' in sys.modules)"
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={"PYTHONPATH": ":".join(sys.path)})
    assert other.stdout.strip() == "False"
