"""`composable-actor mcp` end to end, driven by the official MCP Python SDK (PyPI `mcp`), and by
raw JSON-RPC lines for what the SDK never sends."""

import json
import re
import subprocess
import sys
import time
from contextlib import asynccontextmanager

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import actor
from conftest import validator

TOOL_RESULT = validator("urn:composable-actor:mcp-tool-result")
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# Generous: the suite also runs a sanitized debug binary.
WAIT = 30


@asynccontextmanager
async def mcp_session(data_dir, *args, **handlers):
    """A session of the SDK's client with `composable-actor mcp ARGS`, initialized."""
    params = StdioServerParameters(
        command=str(actor.BINARY), args=["mcp", "--data-dir", str(data_dir), *args]
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=WAIT, **handlers) as session:
            await session.initialize()
            yield session


def run(body):
    anyio.run(body)


def structured(result):
    """The call's structured content, checked against its schema and against its text block."""
    assert result.structured_content is not None, result
    TOOL_RESULT.validate(result.structured_content)
    (text,) = result.content
    assert json.loads(text.text) == result.structured_content
    return result.structured_content


def host_actions():
    described = json.loads(subprocess.run([str(actor.BINARY), "describe"], capture_output=True, check=True).stdout)
    return {
        (store["name"], action["type"]): action
        for store in described["stores"]
        for action in store["actions"]
        if action["sentBy"] == "host"
    }


def test_there_is_one_tool_per_host_action_named_as_clients_require(data_dir):
    async def body():
        async with mcp_session(data_dir) as session:
            assert session.initialize_result.protocol_version in ("2024-11-05", "2025-03-26", "2025-06-18")
            tools = (await session.list_tools()).tools
            names = [tool.name for tool in tools]
            assert all(NAME.match(name) for name in names) and len(set(names)) == len(names)
            actions = host_actions()
            assert len(tools) == len(actions)
            by_name = {tool.name: tool for tool in tools}
            for (store, type), action in actions.items():
                tool = by_name[f"{store}__{type.replace('.', '_')}"]
                assert tool.description == action["summary"]
                schema = tool.input_schema
                assert schema["type"] == "object"
                for field, field_schema in action["payload"]["properties"].items():
                    assert schema["properties"][field] == field_schema
                assert schema.get("required", []) == action["payload"]["required"]
                assert schema["properties"]["instance"]["type"] == "string"
            # Effect-only actions are never tools.
            assert "primes__counter_nthPrimeResponse" not in by_name

    run(body)


def test_resources_are_the_states_and_the_description(data_dir):
    async def body():
        async with mcp_session(data_dir) as session:
            uris = [str(resource.uri) for resource in (await session.list_resources()).resources]
            stores = actor.store_names()
            assert uris == ["composable-actor://describe"] + [f"composable-actor://{s}/state" for s in stores]
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == [
                f"composable-actor://{s}/instances/{{instance}}/state" for s in stores
            ]
            described = await session.read_resource("composable-actor://describe")
            (content,) = described.contents
            assert content.mime_type == "application/json"
            assert [s["name"] for s in json.loads(content.text)["stores"]] == stores
            state = await session.read_resource("composable-actor://primes/state")
            assert json.loads(state.contents[0].text)["count"] == 0

    run(body)


def test_a_call_returns_its_action_lines_and_the_state_and_tells_subscribers(data_dir):
    updates = []

    async def on_message(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(str(root.params.uri))

    async def body():
        async with mcp_session(data_dir, message_handler=on_message) as session:
            await session.subscribe_resource("composable-actor://primes/state")
            result = structured(await session.call_tool("primes__counter_countChanged", {"value": 7}))
            assert result["settled"] is True and result["state"]["count"] == 7 and result["state"]["isPrime"] is True
            (line,) = result["lines"]
            assert line["action"] == {"type": "counter.countChanged", "value": 7}
            assert {"op": "replace", "path": "/count", "value": 7} in line["patch"]
            result = structured(await session.call_tool("primes__counter_incrTapped", {}))
            assert result["state"]["count"] == 8
            with anyio.fail_after(WAIT):
                while len(updates) < 2:
                    await anyio.sleep(0.01)
            assert updates == ["composable-actor://primes/state"] * 2
            # A change nobody is subscribed to is not announced.
            await session.unsubscribe_resource("composable-actor://primes/state")
            await session.call_tool("primes__counter_incrTapped", {})
            await session.send_ping()
            assert len(updates) == 2
            state = await session.read_resource("composable-actor://primes/state")
            assert json.loads(state.contents[0].text)["count"] == 9

    run(body)


def test_an_http_call_waits_for_its_answer_and_reports_progress(data_dir, fixture_server):
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, message))

    async def body():
        async with mcp_session(data_dir, "--wolfram-app-id", "test-app", "--wolfram-url", fixture_server.url) as session:
            await session.call_tool("primes__counter_countChanged", {"value": 10})
            result = structured(
                await session.call_tool("primes__counter_nthPrimeButtonTapped", {}, progress_callback=on_progress)
            )
            assert result["settled"] is True and result["effectsInFlight"] == 0
            types = [line["action"]["type"] for line in result["lines"]]
            assert types == ["counter.nthPrimeButtonTapped", "counter.nthPrimeResponse"]
            assert [line["source"] for line in result["lines"]] == ["host", "effect"]
            assert result["state"]["alertNthPrime"] == {"n": 10, "prime": 29}
            assert len(fixture_server.requests()) == 1
            with anyio.fail_after(WAIT):
                while len(progress) < 2:
                    await anyio.sleep(0.01)
            assert progress == [(1, "counter.nthPrimeButtonTapped"), (2, "counter.nthPrimeResponse")]

    run(body)


def test_the_other_http_stores_answer_through_their_tools(data_dir, fixture_server):
    async def body():
        async with mcp_session(
            data_dir, "--todos-url", fixture_server.url, "--votes-url", fixture_server.url, "--seed", "1"
        ) as session:
            todo = structured(await session.call_tool("randomTodo__clickButton", {}))
            assert todo["settled"] is True
            assert [line["source"] for line in todo["lines"]][-1] == "effect"
            votes = structured(await session.call_tool("votes__onAppear", {}))
            assert votes["settled"] is True
            assert votes["state"]["categories"] == fixture_server.control("GET", "/votes/categories")["categories"]

    run(body)


def test_the_websocket_store_connects_echoes_and_shows_it_in_its_state(data_dir, ws_servers):
    logged = []

    async def on_log(params):
        logged.append(params)

    async def body():
        async with mcp_session(
            data_dir, "--websocket-url", ws_servers.url + "/echo", "--call-wait", "5", logging_callback=on_log
        ) as session:
            # Actions that come after their call answered are logged at debug.
            await session.set_logging_level("debug")
            # The socket is an effect that runs until disconnected: the call answers after
            # --call-wait with what happened by then.
            connected = structured(await session.call_tool("websocket__connectButtonTapped", {}))
            assert connected["settled"] is False and connected["effectsInFlight"] >= 1
            types = [line["action"]["type"] for line in connected["lines"]]
            assert types[:2] == ["connectButtonTapped", "webSocket.didOpen"]
            assert connected["state"]["connectivityState"] == "connected"
            await session.call_tool("websocket__messageToSendChanged", {"value": "Hello"})
            sent = structured(await session.call_tool("websocket__sendButtonTapped", {}))
            assert sent["settled"] is True
            with anyio.fail_after(WAIT):
                while True:
                    state = json.loads((await session.read_resource("composable-actor://websocket/state")).contents[0].text)
                    if "Hello" in state["receivedMessages"]:
                        break
                    await anyio.sleep(0.05)
            with anyio.fail_after(WAIT):
                while not any(
                    entry.level == "debug" and entry.data.get("action", {}).get("value") == {"type": "text", "text": "Hello"}
                    for entry in logged
                ):
                    await anyio.sleep(0.05)

    run(body)


def test_bad_arguments_are_tool_errors_with_the_json_lines_message(data_dir):
    lines, _, _ = actor.run_lines(
        [
            {"store": "primes", "action": {"type": "counter.countChanged", "value": "seven"}},
            {"store": "primes", "action": {"type": "counter.incrTapped", "extra": 1}},
            {"store": "primes", "instance": "", "action": {"type": "counter.incrTapped"}},
        ],
        data_dir=data_dir,
    )
    expected = [line["message"] for line in lines if line["type"] == "error"]
    assert len(expected) == 3

    async def body():
        async with mcp_session(data_dir) as session:
            messages = []
            for name, arguments in [
                ("primes__counter_countChanged", {"value": "seven"}),
                ("primes__counter_incrTapped", {"extra": 1}),
                ("primes__counter_incrTapped", {"instance": ""}),
            ]:
                result = await session.call_tool(name, arguments)
                assert result.is_error
                messages.append(result.content[0].text)
                assert result.structured_content["error"]["message"] == result.content[0].text
                TOOL_RESULT.validate(result.structured_content)
            assert messages == expected
            # Nothing changed, and the server goes on.
            state = await session.read_resource("composable-actor://primes/state")
            assert json.loads(state.contents[0].text)["count"] == 0

    run(body)


def test_named_instances_are_their_own_state_and_resources(data_dir):
    async def body():
        async with mcp_session(data_dir) as session:
            result = structured(await session.call_tool("primes__counter_incrTapped", {"instance": "user 42"}))
            assert result["instance"] == "user 42" and result["state"]["count"] == 1
            assert result["lines"][0]["instance"] == "user 42"
            uri = "composable-actor://primes/instances/user%2042/state"
            uris = [str(resource.uri) for resource in (await session.list_resources()).resources]
            assert uri in uris
            assert json.loads((await session.read_resource(uri)).contents[0].text)["count"] == 1
            assert json.loads((await session.read_resource("composable-actor://primes/state")).contents[0].text)["count"] == 0

    run(body)


class Raw:
    """The server over pipes, with lines written by hand."""

    def __init__(self, data_dir, *args):
        self.process = subprocess.Popen(
            [str(actor.BINARY), "mcp", "--data-dir", str(data_dir), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, data: bytes):
        self.process.stdin.write(data if data.endswith(b"\n") else data + b"\n")
        self.process.stdin.flush()

    def read(self):
        line = self.process.stdout.readline()
        assert line, self.process.stderr.read()
        return json.loads(line)

    def request(self, data: bytes):
        self.send(data)
        return self.read()


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
).encode()


def test_broken_json_rpc_gets_the_spec_s_error_codes_and_the_server_goes_on(data_dir):
    raw = Raw(data_dir, "--max-line-bytes", "4096")
    before = raw.request(b'{"jsonrpc":"2.0","id":"early","method":"tools/list"}')
    assert before["id"] == "early" and before["error"]["code"] == -32600
    # A ping is answered before initialize, as the spec allows.
    assert raw.request(b'{"jsonrpc":"2.0","id":0,"method":"ping"}') == {"jsonrpc": "2.0", "id": 0, "result": {}}
    initialized = raw.request(INITIALIZE)
    assert initialized["result"]["protocolVersion"] == "2024-11-05"
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    cases = [
        (b"{not json", None, -32700),
        (b'{"jsonrpc":"2.0","id":2,"method":"tools/list"', None, -32700),
        (b"[]", None, -32600),
        (b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]', None, -32600),
        (b'"hello"', None, -32600),
        (b'{"jsonrpc":"1.0","id":4,"method":"ping"}', 4, -32600),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', None, -32600),
        (b'{"jsonrpc":"2.0","id":5}', 5, -32600),
        (b'{"jsonrpc":"2.0","id":6,"method":7}', 6, -32600),
        (b'{"jsonrpc":"2.0","id":7,"method":"no/such"}', 7, -32601),
        (b'{"jsonrpc":"2.0","id":8,"method":"tools/call","params":[1]}', 8, -32602),
        (b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope"}}', 9, -32602),
        (b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"primes__counter_incrTapped","arguments":3}}', 10, -32602),
        (b'{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"composable-actor://nope/state"}}', 11, -32002),
        (b'{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{}}', 12, -32602),
        (b'{"jsonrpc":"2.0","id":13,"method":"logging/setLevel","params":{"level":"loud"}}', 13, -32602),
        (b'{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"primes__counter_incrTapped","arguments":{"x":"'
         + b"a" * 8000 + b'"}}}', None, -32600),
        (b'{"jsonrpc":"2.0","id":15,"method":"ping","params":{"deep":' + b"[" * 200 + b"]" * 200 + b"}}", None, -32700),
    ]
    for line, id, code in cases:
        answer = raw.request(line)
        assert answer["jsonrpc"] == "2.0" and answer["id"] == id and answer["error"]["code"] == code, (line[:80], answer)
        assert answer["error"]["message"]
    # A notification is never answered, even an unknown one: the next answer is the ping's.
    raw.send(b'{"jsonrpc":"2.0","method":"notifications/whatever"}')
    assert raw.request(b'{"jsonrpc":"2.0","id":"p","method":"ping"}')["id"] == "p"
    answer = raw.request(
        b'{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"primes__counter_incrTapped"}}'
    )
    assert answer["result"]["structuredContent"]["state"]["count"] == 1
    raw.process.stdin.close()
    assert raw.process.wait(WAIT) == 0
    assert raw.process.stdout.read() == b""


def test_closing_stdin_cancels_a_running_socket_and_exits_at_once(data_dir, ws_servers):
    raw = Raw(data_dir, "--websocket-url", ws_servers.url + "/echo", "--call-wait", "0.5")
    raw.request(INITIALIZE)
    answer = raw.request(
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"websocket__connectButtonTapped"}}'
    )
    assert answer["result"]["structuredContent"]["effectsInFlight"] >= 1
    started = time.monotonic()
    raw.process.stdin.close()
    assert raw.process.wait(WAIT) == 0
    # Far below run's --linger of 10 s, which would wait for the socket.
    assert time.monotonic() - started < 8


def test_the_example_agent_runs_and_its_configuration_starts_this_server(data_dir):
    example = actor.ROOT / "Examples/mcp"
    output = subprocess.run(
        [sys.executable, str(example / "agent.py"), "--binary", str(actor.BINARY)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout.splitlines()
    assert output[1:] == [
        "actions: ['counter.nthPrimeButtonTapped', 'counter.nthPrimeResponse']",
        "the 7th prime: 17",
        'refused: True primes: counter.countChanged: field "value": expected an integer, got "seven"',
        "alice's count: 1",
        "count: 7",
        "updates heard: True",
    ]
    (server,) = json.loads((example / "client-config.json").read_text())["mcpServers"].values()
    assert server["command"] == "composable-actor" and server["args"][0] == "mcp"
    # The configuration's arguments are ones the binary takes.
    raw = Raw(data_dir, *server["args"][1:])
    assert raw.request(INITIALIZE)["result"]["serverInfo"]["name"] == "composable-actor"
    raw.process.stdin.close()
    assert raw.process.wait(WAIT) == 0


def test_a_tap_beside_a_request_does_not_wait_for_it_and_closing_stdin_answers_the_request(
    data_dir, fixture_server
):
    raw = Raw(data_dir, "--wolfram-app-id", "a", "--wolfram-url", fixture_server.failing("delay=60000"))
    raw.request(INITIALIZE)
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    lines = [
        {**call, "id": 2, "params": {"name": "primes__counter_countChanged", "arguments": {"value": 10}}},
        {**call, "id": 3, "params": {"name": "primes__counter_incrTapped"}},
        {**call, "id": 4, "params": {"name": "primes__counter_nthPrimeButtonTapped"}},
    ]
    # One write: the three calls are read in one batch, and the request's effect is running
    # when the tap's call is looked at.
    raw.send(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    changed, tap = raw.read(), raw.read()
    assert [changed["id"], tap["id"]] == [2, 3]
    tap = tap["result"]["structuredContent"]
    assert tap["settled"] is True and tap["state"]["count"] == 11 and tap["effectsInFlight"] == 1
    raw.process.stdin.close()
    request = raw.read()
    assert request["id"] == 4
    # The end of input cancelled the request's effect: its call ends with what happened.
    assert [line["action"]["type"] for line in request["result"]["structuredContent"]["lines"]] == [
        "counter.nthPrimeButtonTapped"
    ]
    assert raw.process.wait(WAIT) == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-line-bytes", "10"], "--max-line-bytes must be at least 64"),
        (["--call-wait=-1"], "--call-wait must be between 0 and 86400 seconds"),
        (["--no-such-option", "1"], "unknown option '--no-such-option'"),
    ],
)
def test_run_s_options_are_checked_as_run_checks_them(args, message):
    result = subprocess.run([str(actor.BINARY), "mcp", *args], capture_output=True, text=True, timeout=WAIT, stdin=subprocess.DEVNULL)
    assert result.returncode == 64 and message in result.stderr, result.stderr


def test_a_recording_made_under_mcp_replays(data_dir, tmp_path):
    recording = tmp_path / "calls.jsonl"
    raw = Raw(data_dir, "--record", str(recording), "--call-wait", "2")
    raw.request(INITIALIZE)
    call = {"jsonrpc": "2.0", "method": "tools/call"}
    for id, name, arguments in [
        (2, "primes__counter_countChanged", {"value": 7}),
        (3, "primes__counter_nthPrimeButtonTapped", {}),
        (4, "primes__counter_incrTapped", {"instance": "k"}),
    ]:
        answer = raw.request(json.dumps({**call, "id": id, "params": {"name": name, "arguments": arguments}}).encode())
        assert answer["result"]["isError"] is False
    raw.process.stdin.close()
    assert raw.process.wait(WAIT) == 0
    header = json.loads(recording.read_text().splitlines()[0])
    # Replayed as `run` would be: without mcp's own command and option.
    assert "mcp" not in header["arguments"] and "--call-wait" not in header["arguments"]
    replayed = subprocess.run([str(actor.BINARY), "replay", str(recording)], capture_output=True, text=True, timeout=WAIT)
    assert replayed.returncode == 0 and "4 actions replayed, every state matched" in replayed.stdout, replayed
