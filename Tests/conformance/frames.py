"""RFC 6455 frames by hand: the server side writes any frame, valid or not, and reads the
client's frames without a library in between that would answer or refuse them for us."""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass

from websockets.utils import accept_key, apply_mask

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def frame(opcode: int, payload: bytes = b"", *, fin: bool = True, rsv: int = 0) -> bytes:
    """An unmasked frame, as a server writes it; `rsv` is the three reserved bits (0-7)."""
    first = (0x80 if fin else 0) | (rsv & 7) << 4 | opcode
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", first, length)
    elif length < 1 << 16:
        header = struct.pack("!BBH", first, 126, length)
    else:
        header = struct.pack("!BBQ", first, 127, length)
    return header + payload


def close_payload(code: int | None, reason: bytes = b"") -> bytes:
    return b"" if code is None else struct.pack("!H", code) + reason


def fragments(opcode: int, payload: bytes, size: int) -> bytes:
    """One message in frames of `size` payload bytes (the last may be shorter)."""
    pieces = [payload[start : start + size] for start in range(0, len(payload), size)] or [b""]
    return b"".join(
        frame(opcode if index == 0 else CONTINUATION, piece, fin=index == len(pieces) - 1)
        for index, piece in enumerate(pieces)
    )


@dataclass
class ClientFrame:
    fin: bool
    rsv: int
    opcode: int
    masked: bool
    payload: bytes


async def read_frame(reader: asyncio.StreamReader) -> ClientFrame:
    """The client's next frame, unmasked; raises IncompleteReadError at the end of the stream."""
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    masked = bool(second & 0x80)
    mask = await reader.readexactly(4) if masked else b""
    payload = await reader.readexactly(length)
    if masked:
        payload = apply_mask(payload, mask)
    return ClientFrame(bool(first & 0x80), first >> 4 & 7, first & 0xF, masked, payload)


async def accept_handshake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> str:
    """Reads the client's opening handshake, answers 101, and returns the request path."""
    request = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    request_line, *header_lines = request.split("\r\n")
    headers = {}
    for line in header_lines:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    accept = accept_key(headers["sec-websocket-key"])
    writer.write(
        (
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept}\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    return request_line.split(" ")[1]
