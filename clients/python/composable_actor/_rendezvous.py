"""Rendezvous (highest random weight) hashing: which process owns a store's instance.

Every process name is weighed against the instance with a stable hash (BLAKE2b, not Python's
`hash()`, which changes from one interpreter run to the next), and the heaviest name wins. Every
caller that knows the same live names picks the same owner, with no table to share; adding a
name moves to it only the instances it now wins, and removing one moves only the instances it
owned, each to its own next-heaviest name. No dependency: the plain client can use it too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable


def _field(text: str | None) -> bytes:
    # Length-prefixed, so that ("ab", "c") and ("a", "bc") weigh differently; None (a store's
    # default instance) is its own value, distinct from every key (a key is never empty).
    if text is None:
        return b"\xff\xff\xff\xff"
    data = text.encode()
    return len(data).to_bytes(4, "big") + data


def weight(process: str, store: str, instance: str | None) -> int:
    """The process's weight for the store's instance (None: its default instance): 64 bits."""
    digest = hashlib.blake2b(_field(process) + _field(store) + _field(instance), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def owner(processes: Iterable[str], store: str, instance: str | None) -> str:
    """The process that owns the store's instance among `processes` (names): the heaviest, ties
    (a 2^-64 chance) broken by the name. ValueError when there is none."""
    best: tuple[int, str] | None = None
    for name in processes:
        candidate = (weight(name, store, instance), name)
        if best is None or candidate > best:
            best = candidate
    if best is None:
        raise ValueError("no process to own the instance: the cluster has no live process")
    return best[1]
