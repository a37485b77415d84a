"""Drive composable-actor from Python: a blocking `Client` and an asyncio `AsyncClient`.

    with Client() as actor:
        actor.send("primes", "counter.countChanged", value=7)
        actor.send("primes", "counter.nthPrimeButtonTapped", until="counter.nthPrimeResponse")
        print(actor.state("primes")["alertNthPrime"])  # {'n': 7, 'prime': 17}

Every output line is kept in order in a bounded backlog; `wait_for` matches lines whatever their
id, because the lines of a long-running effect (a timer, a WebSocket, an HTTP request) carry the
id of the action that started it; a send's `until` matches the lines its action caused, or with
`any_id=True` any line. clients/python/README.md is the reference.
"""

from ._async import AsyncClient
from ._patch import JsonPatchError, apply_patch, json_equal
from ._session import (
    DEFAULT_BACKLOG, ENV_BINARY, ComposableActorError, Line, MissedLinesError, ProcessExitedError, UnknownActionError,
    UnknownInstanceError, UnknownStoreError, Until, find_binary,
)
from ._sync import Client

__all__ = [
    "AsyncClient", "Client", "ComposableActorError", "DEFAULT_BACKLOG", "ENV_BINARY", "JsonPatchError",
    "Line", "MissedLinesError", "ProcessExitedError", "UnknownActionError", "UnknownInstanceError", "UnknownStoreError", "Until",
    "apply_patch",
    "find_binary", "json_equal",
]
