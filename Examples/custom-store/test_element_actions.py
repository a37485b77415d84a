"""Element actions through the binary: the todos store runs each todo with forEach, so a todo's
action travels as {"type":"todos.element","id":…,"action":{…}}, the todo's action in its own wire
form. An id no todo has is reduced, changes nothing and is answered with an unknown_element error
line; describe, the schemas and the generated types say what the action field holds.

Run by run-checks.sh: `TODO_ACTOR=<binary> python3 -m pytest -q test_element_actions.py`."""

import json
import os
import subprocess

import jsonschema

BINARY = os.environ["TODO_ACTOR"]


def run(lines, tmp_path):
    """The output lines of a run fed `lines`, which must end normally."""
    result = subprocess.run(
        [BINARY, "run", "--data-dir", str(tmp_path)],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()][1:-1]


def element(id, action):
    return {"type": "todos.element", "id": id, "action": action}


def send(action, id=None):
    return {"store": "todos", "action": action, **({"id": id} if id else {})}


def test_a_todos_action_reaches_it_by_id_and_is_echoed_in_its_wire_form(tmp_path):
    lines = run([
        send({"type": "add", "title": "Buy milk"}),
        send({"type": "add", "title": "Walk the dog"}),
        send(element(2, {"type": "toggled"}), id="t"),
        send(element(1, {"type": "renamed", "title": " Buy oat milk "})),
        # A payload-free action may be its bare type, as at the top.
        send(element(1, "toggled")),
    ], tmp_path)
    assert [line["action"] for line in lines[2:]] == [
        element(2, {"type": "toggled"}),
        element(1, {"type": "renamed", "title": " Buy oat milk "}),
        element(1, {"type": "toggled"}),
    ]
    assert lines[2]["id"] == "t"
    assert [line["patch"] for line in lines[2:]] == [
        [{"op": "replace", "path": "/todos/1/done", "value": True}],
        [{"op": "replace", "path": "/todos/0/title", "value": "Buy oat milk"}],
        [{"op": "replace", "path": "/todos/0/done", "value": True}],
    ]


def test_an_action_for_a_todo_that_is_not_there_changes_nothing_and_is_reported(tmp_path):
    lines = run([
        send({"type": "add", "title": "Buy milk"}),
        {"cmd": "snapshot", "store": "todos"},
        send({"type": "delete", "id": 1}),
        send(element(1, {"type": "toggled"}), id="late"),
        send(element(7, {"type": "renamed", "title": "Ghost"})),
        {"cmd": "snapshot", "store": "todos"},
        # The process goes on.
        send({"type": "add", "title": "Walk the dog"}),
    ], tmp_path)
    types = [(line["type"], line.get("code")) for line in lines]
    assert types == [
        ("action", None), ("snapshot", None), ("action", None),
        ("action", None), ("error", "unknown_element"),
        ("action", None), ("error", "unknown_element"),
        ("snapshot", None), ("action", None),
    ]
    # Each is reduced (its line comes first, with its seq and an empty patch), then reported.
    assert [lines[3]["seq"], lines[3]["patch"], lines[5]["patch"]] == [3, [], []]
    assert lines[4] == {
        "type": "error", "code": "unknown_element", "store": "todos",
        "action": element(1, {"type": "toggled"}), "id": "late",
        "message": "todos: todos.element: no element has id 1; the action changed nothing",
    }
    assert lines[6]["message"] == "todos: todos.element: no element has id 7; the action changed nothing"
    assert "id" not in lines[6]
    assert lines[7]["state"]["todos"] == [] and lines[7]["state"]["nextID"] == 2
    assert lines[8]["action"] == {"type": "add", "title": "Walk the dog"}


def test_a_bad_todo_action_is_refused_naming_the_field(tmp_path):
    bad = [
        (element(1, {"type": "nope"}),
         'todos: todos.element: field "action": unknown action "nope": TodoAction has no case "nope"'),
        (element(1, {"type": "renamed"}),
         'todos: todos.element: field "action": renamed: missing field "title"'),
        (element(1, {"type": "toggled", "title": "x"}),
         'todos: todos.element: field "action": toggled: unknown field "title"'),
        (element(1, 3), 'todos: todos.element: field "action": an action must be an object or a type string, got 3'),
        ({"type": "todos.element", "id": 1}, 'todos: todos.element: missing field "action"'),
        (element("1", {"type": "toggled"}), 'todos: todos.element: field "id": expected an integer, got "1"'),
    ]
    lines = run([send({"type": "add", "title": "Buy milk"})] + [send(action) for action, _ in bad], tmp_path)
    errors = lines[1:]
    assert [(line["code"], line["message"]) for line in errors] == [
        ("invalid_action", message) for _, message in bad
    ]


def test_describe_and_the_schemas_say_the_action_field_holds_a_todos_actions(tmp_path):
    described = json.loads(subprocess.run(
        [BINARY, "describe"], capture_output=True, text=True, check=True).stdout)
    store = next(store for store in described["stores"] if store["name"] == "todos")
    action = next(action for action in store["actions"] if action["type"] == "todos.element")
    payload = action["payload"]
    assert payload["required"] == ["id", "action"]
    assert payload["properties"]["id"] == {"type": "integer"}
    cases = payload["properties"]["action"]["oneOf"]
    assert cases[0] == {"enum": ["toggled"]}
    assert [case["properties"]["type"]["const"] for case in cases[1:]] == ["toggled", "renamed"]

    subprocess.run([BINARY, "schemas", "--output", str(tmp_path)], check=True)
    schema = json.loads((tmp_path / "todos.actions.schema.json").read_text())
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid(element(3, {"type": "toggled"}))
    assert valid.is_valid(element(3, {"type": "renamed", "title": "Buy oat milk"}))
    assert valid.is_valid(element(3, "toggled"))
    assert not valid.is_valid(element(3, {"type": "nope"}))
    assert not valid.is_valid(element(3, {"type": "renamed"}))
    assert not valid.is_valid(element("3", {"type": "toggled"}))


def test_the_generated_types_name_a_todos_actions(tmp_path):
    python = subprocess.run(
        [BINARY, "types", "--language", "python"], capture_output=True, text=True, check=True).stdout
    assert "class TodosTodosElementActionActionRenamed(TypedDict):" in python
    assert ('action: Literal["toggled"] | TodosTodosElementActionActionToggled'
            ' | TodosTodosElementActionActionRenamed') in python
    typescript = subprocess.run(
        [BINARY, "types", "--language", "typescript"], capture_output=True, text=True, check=True).stdout
    assert "export interface TodosTodosElementActionActionRenamed {" in typescript
