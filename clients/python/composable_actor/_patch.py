"""RFC 6902 JSON Patch, applied to documents decoded by the `json` module."""

from __future__ import annotations

import copy
import re
from typing import Any

JSON = Any
_INDEX = re.compile(r"0|[1-9][0-9]*")


class JsonPatchError(ValueError):
    """A patch that cannot apply: a bad pointer, a missing target, or a failed `test`."""


def apply_patch(document: JSON, patch: list[dict[str, Any]]) -> JSON:
    """Applies `patch` to `document` in place and returns the result.

    The result is a new object only when an operation replaces the root (`"path": ""`). On error
    the document may be partly patched: callers that need the old one must copy it first (the
    mirror treats a failed patch as fatal, so it does not pay for a copy per line).
    """
    for operation in patch:
        # The most common operation, a member of objects replaced, is done here without parsing
        # the pointer each time (and without a call: this runs for every line a client reads);
        # anything else, or a target not there, takes the general path, which says why.
        if operation.get("op") == "replace":
            pointer = operation.get("path")
            members = _MEMBERS.get(pointer) if type(pointer) is str else None
            if members is None:
                members = _members(pointer)
            if members is not None:
                parents, key = members
                parent = document
                for token in parents:
                    if type(parent) is not dict or token not in parent:
                        break
                    parent = parent[token]
                else:
                    if type(parent) is dict and key in parent and "value" in operation:
                        value = operation["value"]
                        # The mirror must not share objects with the lines handed to the caller.
                        parent[key] = copy.deepcopy(value) if type(value) in (dict, list) else value
                        continue
        document = _apply(document, operation)
    return document


def json_equal(a: JSON, b: JSON) -> bool:
    """Equality as RFC 6902's `test` means it: `true` is not `1`, but `1` is `1.0`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _apply(document: JSON, operation: dict[str, Any]) -> JSON:
    op = operation.get("op")
    path = _parse(_member(operation, "path"))
    if op == "add":
        return _add(document, path, _clone(_member(operation, "value")))
    if op == "remove":
        _remove(document, path)
        return document
    if op == "replace":
        if not path:
            return _clone(_member(operation, "value"))
        parent, key = _locate(document, path)
        parent[key] = _clone(_member(operation, "value"))
        return document
    if op == "test":
        if not json_equal(_resolve(document, path), _member(operation, "value")):
            raise JsonPatchError(f"test failed at {operation['path']!r}")
        return document
    if op in ("move", "copy"):
        source = _parse(_member(operation, "from"))
        if op == "move":
            if path[: len(source)] == source and len(path) > len(source):
                raise JsonPatchError(f"cannot move {operation['from']!r} into its own child")
            value = _remove(document, source)
        else:
            value = copy.deepcopy(_resolve(document, source))
        return _add(document, path, value)
    raise JsonPatchError(f"unknown op {op!r}")


# The members a pointer without escapes names, by pointer: a store's patches replace the same
# few members again and again. Bounded: cleared when full.
_MEMBERS: dict[str, tuple[tuple[str, ...], str]] = {}
_MEMBERS_KEPT = 4096


def _members(pointer: object) -> tuple[tuple[str, ...], str] | None:
    """The parents and the last member a pointer without escapes names (kept), else None."""
    if not isinstance(pointer, str) or pointer[:1] != "/" or "~" in pointer:
        return None
    if len(_MEMBERS) >= _MEMBERS_KEPT:
        _MEMBERS.clear()
    *names, last = pointer[1:].split("/")
    members = _MEMBERS[pointer] = (tuple(names), last)
    return members


def _member(operation: dict[str, Any], name: str) -> Any:
    if name not in operation:
        raise JsonPatchError(f"{operation.get('op')!r} needs {name!r}")
    return operation[name]


def _clone(value: JSON) -> JSON:
    # The mirror must not share objects with the lines handed to the caller.
    return copy.deepcopy(value) if isinstance(value, (dict, list)) else value


def _parse(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        raise JsonPatchError(f"bad JSON pointer {pointer!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _index(array: list[Any], token: str, *, end_ok: bool) -> int:
    if token == "-" and end_ok:
        return len(array)
    if not _INDEX.fullmatch(token):
        raise JsonPatchError(f"bad array index {token!r}")
    index = int(token)
    if index > len(array) or (index == len(array) and not end_ok):
        raise JsonPatchError(f"array index {index} out of range")
    return index


def _get(container: JSON, token: str) -> JSON:
    if isinstance(container, dict):
        if token not in container:
            raise JsonPatchError(f"no member {token!r}")
        return container[token]
    if isinstance(container, list):
        return container[_index(container, token, end_ok=False)]
    raise JsonPatchError(f"cannot look up {token!r} in a {type(container).__name__}")


def _resolve(document: JSON, path: list[str]) -> JSON:
    for token in path:
        document = _get(document, token)
    return document


def _locate(document: JSON, path: list[str]) -> tuple[Any, Any]:
    """The container of an existing target and the target's key in it (an int for arrays)."""
    parent = _resolve(document, path[:-1])
    token = path[-1]
    _get(parent, token)
    return parent, _index(parent, token, end_ok=False) if isinstance(parent, list) else token


def _add(document: JSON, path: list[str], value: JSON) -> JSON:
    if not path:
        return value
    parent = _resolve(document, path[:-1])
    if isinstance(parent, list):
        parent.insert(_index(parent, path[-1], end_ok=True), value)
    elif isinstance(parent, dict):
        parent[path[-1]] = value
    else:
        raise JsonPatchError(f"cannot add into a {type(parent).__name__}")
    return document


def _remove(document: JSON, path: list[str]) -> JSON:
    if not path:
        raise JsonPatchError("cannot remove the whole document")
    parent, key = _locate(document, path)
    return parent.pop(key)
