#!/usr/bin/env python3
"""The primes store driven as an agent would drive it: through the official MCP Python SDK
(`pip install mcp`), with `composable-actor mcp` as its server on stdio.

    python3 Examples/mcp/agent.py [--binary PATH]

The binary is --binary, else $COMPOSABLE_ACTOR_BIN, else composable-actor on PATH, else
.build/release/composable-actor. Favourites are kept in a temporary folder.
"""

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[2]


def binary(given: str | None) -> str:
    return (
        given
        or os.environ.get("COMPOSABLE_ACTOR_BIN")
        or shutil.which("composable-actor")
        or str(ROOT / ".build/release/composable-actor")
    )


async def tour(server: StdioServerParameters) -> None:
    updates: list[str] = []

    async def on_message(message) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/resources/updated":
            updates.append(str(root.params.uri))

    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            print(f"{len(tools)} tools, e.g. {tools[0].name}: {tools[0].description}")

            await session.subscribe_resource("composable-actor://primes/state")
            await session.call_tool("primes__counter_countChanged", {"value": 7})
            # The call answers once the prime's computation (an effect) finished.
            result = await session.call_tool("primes__counter_nthPrimeButtonTapped", {})
            answer = result.structured_content
            print("actions:", [line["action"]["type"] for line in answer["lines"]])
            print("the 7th prime:", answer["state"]["alertNthPrime"]["prime"])

            refused = await session.call_tool("primes__counter_countChanged", {"value": "seven"})
            print("refused:", refused.is_error, refused.content[0].text)

            # A named instance is its own state, under its own resource.
            await session.call_tool("primes__counter_incrTapped", {"instance": "alice"})
            alice = await session.read_resource("composable-actor://primes/instances/alice/state")
            print("alice's count:", json.loads(alice.contents[0].text)["count"])

            state = await session.read_resource("composable-actor://primes/state")
            print("count:", json.loads(state.contents[0].text)["count"])
            print("updates heard:", len(updates) > 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = StdioServerParameters(command=binary(arguments.binary), args=["mcp", "--data-dir", data])
        anyio.run(tour, server)


if __name__ == "__main__":
    main()
