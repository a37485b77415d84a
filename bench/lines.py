"""Input lines the benchmarks write: one compact JSON message a line, as a host sends it."""

import json


def action_line(store: str, action, id=None) -> bytes:
    """`{"store":…,"action":…}` (and `"id"` when given), newline-terminated. `action` is a bare
    type string or an object with `type` and its payload fields."""
    message = {"store": store, "action": action}
    if id is not None:
        message["id"] = id
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"
