"""The votes store end to end: three parallel requests and one loading flag."""

import jsonpatch

from actor import run_lines
from test_random_todo import wait_for_outcome


def votes(action, id=None):
    message = {"store": "votes", "action": action}
    if id is not None:
        message["id"] = id
    return message


def is_loading_off(line):
    return line["type"] == "action" and line["action"] == {"type": "isLoading", "value": False}


def replay(state, lines):
    for line in lines:
        if line["type"] == "action" and line["store"] == "votes":
            state = jsonpatch.apply_patch(state, line["patch"])
    return state


def test_appearing_loads_three_lists_and_loading_ends_once(process, fixture_server):
    actor = process("--votes-url", fixture_server.url)
    start = actor.snapshot("votes")["state"]
    actor.send(votes("onAppear"))
    lines = actor.read_until(is_loading_off)
    state = replay(start, lines)
    assert state == actor.snapshot("votes")["state"]
    assert state["categories"] == fixture_server.control("GET", "/votes/categories")["categories"]
    assert state["popularItems"] == fixture_server.control("GET", "/votes/popular")["items"]
    first_page = fixture_server.control("GET", "/votes?page=1&size=20")
    assert state["voteItems"] == first_page["items"] and state["hasNext"] == first_page["hasNext"]
    assert state["runningTasks"] == 0 and not state["isLoading"]
    types = [line["action"]["type"] for line in lines if line["type"] == "action"]
    assert types.count("task.willRun") == 3 and types.count("task.didFinish") == 3
    assert types.count("isLoading") == 2  # on once, off once
    # Loading went off only after the last list arrived.
    assert types.index("isLoading", types.index("isLoading") + 1) > max(
        index for index, type in enumerate(types) if type.startswith("inner.")
    )


def test_one_failing_request_still_ends_loading_and_keeps_the_others(process, fixture_server):
    fixture_server.set_rules([{"path": "/votes/popular", "mode": "status=500"}])
    actor = process("--votes-url", fixture_server.url)
    actor.send(votes("onAppear"))
    actor.read_until(is_loading_off)
    state = actor.snapshot("votes")["state"]
    assert state["errors"]["popular"]["kind"] == "status"
    assert state["errors"]["popular"]["url"] == fixture_server.url + "/votes/popular"
    assert state["errors"]["categories"] is None and state["errors"]["votes"] is None
    assert state["popularItems"] == [] and len(state["categories"]) == 4
    assert len(state["voteItems"]) == 20 and not state["isLoading"]


def test_pages_load_once_each(process, fixture_server):
    actor = process("--votes-url", fixture_server.url)
    actor.send(votes("onAppear"))
    actor.read_until(is_loading_off)
    fixture_server.control("DELETE", "/_control/requests")
    actor.send(votes("loadNextPage"), votes("loadNextPage"), votes("loadNextPage"))
    actor.read_until(is_page_update)
    state = actor.snapshot("votes")["state"]
    assert state["page"] == 2 and len(state["voteItems"]) == 40
    requested = [r["query"] for r in fixture_server.requests() if r["path"] == "/votes"]
    assert len(requested) == 1 and "page=2" in requested[0]


def is_page_update(line):
    return line["type"] == "action" and line["action"]["type"].startswith("inner.updateVoteItems")


def test_every_page_then_no_more(process, fixture_server):
    actor = process("--votes-url", fixture_server.url)
    actor.send(votes("onAppear"))
    actor.read_until(is_loading_off)
    for _ in range(10):
        if not actor.snapshot("votes")["state"]["hasNext"]:
            break
        actor.send(votes("loadNextPage"))
        actor.read_until(is_page_update)
    state = actor.snapshot("votes")["state"]
    assert state["page"] == 5 and not state["hasNext"] and len(state["voteItems"]) == 95
    assert len({vote["id"] for vote in state["voteItems"]}) == 95
    assert actor.request(votes("loadNextPage"))["patch"] == []


def test_refresh_cancels_loads_in_flight(process, fixture_server):
    fixture_server.set_rules([{"path": "/votes/popular", "mode": "hang"}])
    actor = process("--votes-url", fixture_server.url)
    actor.send(votes("onAppear"))
    wait_for_outcome(fixture_server, "pending")
    fixture_server.set_rules([])
    actor.send(votes("refresh"))
    actor.read_until(is_loading_off)
    assert wait_for_outcome(fixture_server, "client-gone")
    state = actor.snapshot("votes")["state"]
    assert state["runningTasks"] == 0 and len(state["popularItems"]) == 5


def test_ticks_mode_shows_loading_off_with_the_last_list(process, fixture_server):
    """With --emit ticks, the last result and isLoading=false (the throttle's 0.2 s having
    passed during the 0.3 s requests) reach the host as one state line."""
    actor = process("--votes-url", fixture_server.failing("delay=300"), "--emit", "ticks")
    actor.send(votes("onAppear"))
    lines = actor.read_until(
        lambda line: line["type"] == "state"
        and {"op": "replace", "path": "/isLoading", "value": False} in line["patch"]
    )
    last = lines[-1]
    assert {"op": "replace", "path": "/runningTasks", "value": 0} in last["patch"]
    assert any(op["path"].startswith(("/voteItems", "/popularItems", "/categories")) for op in last["patch"])


def test_the_fixture_serves_the_documented_votes_api(fixture_server):
    from conftest import REGISTRY
    from jsonschema import Draft202012Validator

    for definition, path in [
        ("categories", "/votes/categories"),
        ("popular", "/votes/popular"),
        ("page", "/votes?page=2&size=7&category=tech"),
    ]:
        schema = {"$ref": f"urn:composable-actor:votes-api#/$defs/{definition}"}
        Draft202012Validator(schema, registry=REGISTRY).validate(fixture_server.control("GET", path))


def test_a_page_number_at_the_largest_integer_does_not_crash_the_next_page():
    """A server (here the host, injecting the effect's answer) may claim any page number; asking
    for the page after the largest integer used to trap on the overflow and kill the process."""
    page = {"items": [], "page": 2**63 - 1, "size": 20, "hasNext": True}
    lines, code, _ = run_lines(
        [votes({"type": "inner.updateVoteItems.success", "value": page}, id="page"),
         votes("loadNextPage", id="next")],
        "--allow-effect-actions")
    assert code == 0
    by_id = {line.get("id"): line for line in lines if line["type"] == "action"}
    assert {"op": "replace", "path": "/page", "value": 2**63 - 1} in by_id["page"]["patch"]
    assert by_id["next"]["patch"] == []
    assert lines[-1]["type"] == "exit"
