#!/usr/bin/env python3
"""One composable-actor process serving many concurrent callers from asyncio.

    python3 Examples/clients/many_callers.py [--binary PATH] [--callers 50]

A small TCP service on 127.0.0.1 answers "the nth prime" for each connection: a caller writes a
number, the service gives the connection an instance of the primes store of its own, asks it
for the prime and writes the answer back. Every connection's calls go through one
`AsyncClient` at once, and each one gets its own answer: a send's `until` matches only the lines
its own action caused (the `nthPrimeResponse` its tap started), however many other callers wait
for the same action type, and each instance's mirror follows its own lines. One reader follows
every line with `events()` beside them, as a log would; it holds no line of its own, and had it
fallen more than the backlog behind, it would get `MissedLinesError` and go on.

The binary is --binary, else $COMPOSABLE_ACTOR_BIN, else composable-actor on PATH, else
.build/release/composable-actor.
"""

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "clients/python"))
from composable_actor import AsyncClient, MissedLinesError  # noqa: E402


async def serve(actor: AsyncClient, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One connection: numbers in, primes out, on an instance of its own."""
    key = f"connection-{id(writer)}"
    try:
        while line := await reader.readline():
            n = int(line)
            await actor.send("primes", "counter.countChanged", instance=key, value=n)
            # Many connections wait for an nthPrimeResponse at once: this one gets its own.
            await actor.send("primes", "counter.nthPrimeButtonTapped", instance=key, until="counter.nthPrimeResponse")
            prime = actor.state("primes", instance=key)["alertNthPrime"]["prime"]
            writer.write(f"{prime}\n".encode())
            await writer.drain()
    finally:
        await actor.stop("primes", key)  # the instance goes with its connection
        writer.close()


async def caller(port: int, numbers: list[int]) -> list[int]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answers = []
    for n in numbers:
        writer.write(f"{n}\n".encode())
        await writer.drain()
        answers.append(int(await reader.readline()))
    writer.close()
    await writer.wait_closed()
    return answers


async def log(actor: AsyncClient, seen: list[int]) -> None:
    """Counts every line, as a log would; a reader that falls behind is told, and goes on."""
    lines = actor.events()
    while True:
        try:
            async for _ in lines:
                seen[0] += 1
            return
        except MissedLinesError as error:
            print(f"log: fell behind, {error.missed} lines missed")


async def main(binary: str | None, callers: int) -> None:
    with tempfile.TemporaryDirectory() as data:
        async with AsyncClient(binary, ["--data-dir", data]) as actor:
            seen = [0]
            logging = asyncio.create_task(log(actor, seen))
            server = await asyncio.start_server(lambda r, w: serve(actor, r, w), "127.0.0.1", 0)
            port = server.sockets[0].getsockname()[1]
            asks = [[1 + (caller_number + k) % 30 for k in range(5)] for caller_number in range(callers)]
            async with server:
                answers = await asyncio.gather(*(caller(port, numbers) for numbers in asks))
            primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97,
                      101, 103, 107, 109, 113]
            for numbers, got in zip(asks, answers):
                assert got == [primes[n - 1] for n in numbers], (numbers, got)
            print(f"{callers} callers, {callers * 5} questions over one process: every answer its own")
        await logging
        print(f"the log read {seen[0]} lines, the exit line last")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary")
    parser.add_argument("--callers", type=int, default=50)
    arguments = parser.parse_args()
    asyncio.run(main(arguments.binary, arguments.callers))
