"""WebSocket test peers for the WebSocket client, built on the `websockets` package (asyncio API).

Usage: python3 ws_servers.py [--port N] [--tls-cert FILE --tls-key FILE] [--host 127.0.0.1] [--no-stdin]

Once listening it prints one JSON line on stdout and flushes it:
    {"port": N, "url": "ws://127.0.0.1:N"}      ("wss://..." when --tls-cert/--tls-key are given)
It exits on SIGTERM/SIGINT (exit status 0) or, when its stdin is a pipe (as test harnesses start
it), when that pipe reaches EOF. In the background of a shell (`ws_servers.py --port 9001 &`,
stdin /dev/null or a terminal) it serves until signalled; --no-stdin ignores stdin always.
Compression is off, the server never
pings on its own, and messages up to 256 MiB are accepted.

Subprotocols: if the client offers "chat" or "superchat", the first of them it offers is
selected; anything else is ignored and the connection goes on without a subprotocol.

Paths (the query string tunes some of them):
  /echo          Sends the text "Welcome to the echo server", then echoes every message, text as
                 text and binary as binary (large messages included).
  /orderbook     Waits for a text subscription shaped like Upbit's,
                     [{"ticket":"..."},{"type":"orderbook","codes":["KRW-BTC"]}]
                 then streams binary frames, each one order book as JSON:
                     {"type":"orderbook","code":"KRW-BTC","timestamp":<ms>,
                      "total_ask_size":f,"total_bid_size":f,
                      "orderbook_units":[{"ask_price":f,"bid_price":f,"ask_size":f,
                                          "bid_size":f}, ...]}
                 The units are deliberately NOT sorted by price. Codes are served round-robin.
                 A subscription that is not shaped like that is answered with an Upbit-style
                 error frame {"error":{"name":"INVALID_REQUEST","message":"..."}} and the server
                 keeps waiting for a valid one.
                 Query: count=N (order books to send, then stay open silently; default 0 =
                 unlimited), interval_ms=M (between frames; default 250), units=K (units per
                 book; default 15), seed=S (prices are deterministic for a seed; default 1),
                 junk=1 (right after the first order book, send one binary frame that is not an
                 order book: {"error":{"name":"JUNK","message":"not an order book"}}).
  /refuse        Rejects the opening handshake with HTTP 403.
  /close         After the handshake, closes with code and reason from the query
                 (default code=4001, reason=bye); delay_ms=M waits first (default 0).
  /drop          Sends the welcome text, then drops the TCP connection without a close frame.
  /fragmented    Sends one text message in several fragments: the fragments of the query's
                 parts=N (default 5) join to "fragment-0 fragment-1 ... fragment-{N-1}"; then
                 echoes like /echo.
  /badutf8       Sends one text frame whose payload is not UTF-8 (bytes ff fe fd), then waits.
  /lastclose     Sends one text message describing the close frame the server most recently
                 received from a client, on any path: {"code": N, "reason": "..."}, or
                 {"code": null, "reason": null} before any; then echoes like /echo (without the
                 welcome). Lets a test check the code and reason its client sent.
  /pings         Replies to every ping it receives with a text message
                     {"pingReceived": N, "payload": "<ping payload, hex>", "elapsedMs": T}
                 where N counts this connection's pings from 1 and T is milliseconds since the
                 connection opened, so a test sees that and when the client pinged. Also echoes
                 messages like /echo (without the welcome).
Any other path is rejected with HTTP 404.
"""

import argparse
import asyncio
import json
import random
import signal
import ssl
import sys
import time
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

from stdin_end import add_no_stdin_argument, call_at_stdin_end
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Close, Frame, Opcode

WELCOME = "Welcome to the echo server"
SUBPROTOCOLS = ("chat", "superchat")
MAX_SIZE = 256 * 1024 * 1024
# The close frame most recently received from a client: (code, reason).
last_close: tuple[int | None, str | None] = (None, None)


class TestConnection(ServerConnection):
    """A connection that also reports the pings it receives (the protocol still answers them)
    and records the close frames clients send, for /pings and /lastclose."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.pings: asyncio.Queue[bytes] = asyncio.Queue()

    def process_event(self, event):
        global last_close
        if isinstance(event, Frame) and event.opcode is Opcode.PING:
            self.pings.put_nowait(bytes(event.data))
        if isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
            close = Close.parse(event.data)
            last_close = (close.code, close.reason)
        super().process_event(event)


def query(connection: ServerConnection) -> dict[str, str]:
    parsed = parse_qs(urlsplit(connection.request.path).query)
    return {key: values[-1] for key, values in parsed.items()}


def route(connection: ServerConnection) -> str:
    return urlsplit(connection.request.path).path


def select_subprotocol(connection, offered):
    return next((protocol for protocol in offered if protocol in SUBPROTOCOLS), None)


def process_request(connection, request):
    path = urlsplit(request.path).path
    if path == "/refuse":
        return connection.respond(HTTPStatus.FORBIDDEN, "Forbidden\n")
    if path not in HANDLERS:
        return connection.respond(HTTPStatus.NOT_FOUND, "Not Found\n")
    return None


async def echo(connection: ServerConnection) -> None:
    async for message in connection:
        await connection.send(message)


async def handle_echo(connection: ServerConnection) -> None:
    await connection.send(WELCOME)
    await echo(connection)


def order_book(code: str, rng: random.Random, units: int) -> dict:
    mid = {"KRW-BTC": 95_000_000.0, "KRW-ETH": 4_500_000.0}.get(code, 1_000.0)
    tick = mid / 10_000
    rows = []
    for level in range(units):
        rows.append({
            "ask_price": round(mid + tick * (level + 1), 2),
            "bid_price": round(mid - tick * (level + 1), 2),
            "ask_size": round(rng.uniform(0.001, 3.0), 8),
            "bid_size": round(rng.uniform(0.001, 3.0), 8),
        })
    rng.shuffle(rows)
    return {
        "type": "orderbook",
        "code": code,
        "timestamp": int(time.time() * 1000),
        "total_ask_size": round(sum(row["ask_size"] for row in rows), 8),
        "total_bid_size": round(sum(row["bid_size"] for row in rows), 8),
        "orderbook_units": rows,
    }


def subscription_codes(text: str) -> list[str] | None:
    try:
        request = json.loads(text)
    except ValueError:
        return None
    if not isinstance(request, list) or not any(
        isinstance(item, dict) and isinstance(item.get("ticket"), str) for item in request
    ):
        return None
    for item in request:
        if isinstance(item, dict) and item.get("type") == "orderbook":
            codes = item.get("codes")
            if isinstance(codes, list) and codes and all(isinstance(c, str) for c in codes):
                return codes
    return None


def error_frame(name: str, message: str) -> bytes:
    return json.dumps({"error": {"name": name, "message": message}}).encode()


async def handle_orderbook(connection: ServerConnection) -> None:
    options = query(connection)
    count = int(options.get("count", "0"))
    interval = int(options.get("interval_ms", "250")) / 1000
    units = int(options.get("units", "15"))
    junk = options.get("junk") == "1"
    rng = random.Random(int(options.get("seed", "1")))
    while True:
        message = await connection.recv()
        codes = subscription_codes(message) if isinstance(message, str) else None
        if codes:
            break
        await connection.send(error_frame("INVALID_REQUEST", "expected an orderbook subscription"))
    sent = 0
    while count == 0 or sent < count:
        await connection.send(json.dumps(order_book(codes[sent % len(codes)], rng, units)).encode())
        sent += 1
        if junk and sent == 1:
            await connection.send(error_frame("JUNK", "not an order book"))
        await asyncio.sleep(interval)
    await connection.wait_closed()


async def handle_close(connection: ServerConnection) -> None:
    options = query(connection)
    await asyncio.sleep(int(options.get("delay_ms", "0")) / 1000)
    await connection.close(int(options.get("code", "4001")), options.get("reason", "bye"))


async def handle_drop(connection: ServerConnection) -> None:
    await connection.send(WELCOME)
    # close(), unlike abort(), flushes the welcome first; either way no close frame is sent.
    connection.transport.close()
    await connection.wait_closed()


async def handle_fragmented(connection: ServerConnection) -> None:
    parts = int(query(connection).get("parts", "5"))

    async def fragments():
        for index in range(parts):
            yield f"fragment-{index}" + (" " if index < parts - 1 else "")

    await connection.send(fragments())
    await echo(connection)


async def handle_badutf8(connection: ServerConnection) -> None:
    # The library refuses to send invalid text, so write the raw frame: FIN + text opcode, an
    # unmasked 3-byte payload that is not UTF-8.
    connection.transport.write(bytes([0x81, 0x03, 0xFF, 0xFE, 0xFD]))
    await connection.wait_closed()


async def handle_raw(connection: ServerConnection) -> None:
    """Writes the bytes `hex` spells as they are, behind the library's back: frames that break
    RFC 6455 on purpose. The client's answering close frame is recorded as usual (/lastclose)."""
    connection.transport.write(bytes.fromhex(query(connection)["hex"]))
    await connection.wait_closed()


async def handle_pings(connection: TestConnection) -> None:
    opened = time.monotonic()

    async def report_pings():
        received = 0
        while True:
            payload = await connection.pings.get()
            received += 1
            await connection.send(json.dumps({
                "pingReceived": received,
                "payload": payload.hex(),
                "elapsedMs": round((time.monotonic() - opened) * 1000),
            }))

    reporter = asyncio.create_task(report_pings())
    try:
        await echo(connection)
    finally:
        reporter.cancel()


async def handle_flood(connection: ServerConnection) -> None:
    """Sends `count` numbered text messages of `bytes` bytes as fast as the client reads them;
    `send` waits while the socket's buffers are full, which is how a stalled client slows it."""
    options = query(connection)
    count, size = int(options.get("count", "1000")), int(options.get("bytes", "65536"))
    for index in range(count):
        header = f"flood {index:08d} "
        await connection.send(header + "x" * (size - len(header)))
    await echo(connection)


async def handle_lastclose(connection: ServerConnection) -> None:
    code, reason = last_close
    await connection.send(json.dumps({"code": code, "reason": reason}))
    await echo(connection)


HANDLERS = {
    "/echo": handle_echo,
    "/orderbook": handle_orderbook,
    "/close": handle_close,
    "/drop": handle_drop,
    "/fragmented": handle_fragmented,
    "/badutf8": handle_badutf8,
    "/pings": handle_pings,
    "/lastclose": handle_lastclose,
    "/flood": handle_flood,
    "/raw": handle_raw,
}


async def handler(connection: ServerConnection) -> None:
    try:
        await HANDLERS[route(connection)](connection)
    except Exception as error:  # a peer that vanished is a normal end for a test server
        if type(error).__name__.startswith("ConnectionClosed"):
            return
        raise


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    add_no_stdin_argument(parser)
    arguments = parser.parse_args()

    tls = None
    if arguments.tls_cert or arguments.tls_key:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(arguments.tls_cert, arguments.tls_key)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if not arguments.no_stdin:
        call_at_stdin_end(lambda: loop.call_soon_threadsafe(stop.set))

    async with serve(
        handler,
        arguments.host,
        arguments.port,
        ssl=tls,
        process_request=process_request,
        select_subprotocol=select_subprotocol,
        create_connection=TestConnection,
        compression=None,
        ping_interval=None,
        max_size=MAX_SIZE,
        close_timeout=2,
        backlog=1024,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        scheme = "wss" if tls else "ws"
        print(json.dumps({"port": port, "url": f"{scheme}://{arguments.host}:{port}"}), flush=True)
        await stop.wait()
        # A test harness often closes stdin and then sends SIGTERM: one reason to stop is
        # enough, and a signal arriving while the loop closes would only print a warning.
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
            signal.signal(signum, signal.SIG_IGN)


if __name__ == "__main__":
    asyncio.run(main())
