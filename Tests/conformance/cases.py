"""The conformance cases: what the server writes and what RFC 6455 asks of the client.

The groups and numbers follow the Autobahn|Testsuite's cases 1-7, 9 and 10 (framing, pings and
pongs, reserved bits, opcodes, fragmentation, UTF-8, closing, limits, auto-fragmentation), so a
figure here reads like one of its reports; the frames and the checks are written for this suite.
The client echoes every message it receives, text as text and binary as binary.
"""

from __future__ import annotations

from dataclasses import dataclass

from frames import BINARY, CLOSE, CONTINUATION, PING, PONG, TEXT, close_payload, fragments, frame


@dataclass(frozen=True)
class Write:
    """Bytes on the wire, in writes of `chop` bytes `pause` seconds apart (all at once by
    default), so the client reads a frame in pieces or several frames in one read."""

    data: bytes
    chop: int | None = None
    pause: float = 0.0


@dataclass(frozen=True)
class Wait:
    seconds: float


@dataclass(frozen=True)
class AwaitEchoes:
    """Waits until this many messages came back (or the case's timeout passes)."""

    count: int


@dataclass(frozen=True)
class Case:
    id: str
    description: str
    steps: tuple
    # The messages the client must echo, (opcode, payload), in order.
    echoes: tuple[tuple[int, bytes], ...] = ()
    # The payloads of the pongs it must send, in order.
    pongs: tuple[bytes, ...] = ()
    # close: after the steps and the echoes the server closes with 1000, and the client answers
    #   with a close frame of a code in `codes`;
    # answer: the steps end with the server's own close frame, answered the same way;
    # fail: the client must fail the connection with a close frame of a code in `codes`.
    outcome: str = "close"
    codes: frozenset[int | None] = frozenset({1000})
    # fail: failing before the step of this index is sent is OK, later is only non-strict
    # (RFC 6455 asks to fail fast on invalid UTF-8; Autobahn's 6.4 cases check it).
    fail_before_step: int | None = None
    # RFC 6455 5.5.3 allows answering only the most recent of several pings: all pongs are OK,
    # the last one alone is non-strict.
    latest_pong_enough: bool = False
    # The echo races the server's close (7.1.6): any prefix of `echoes` is fine.
    echoes_optional: bool = False
    timeout: float = 5.0


FAIL = frozenset({1002})
INVALID_UTF8 = frozenset({1007})


def text(payload: bytes | str, **options) -> bytes:
    return frame(TEXT, payload.encode() if isinstance(payload, str) else payload, **options)


def echoed_text(payload: bytes | str) -> tuple[int, bytes]:
    return (TEXT, payload.encode() if isinstance(payload, str) else payload)


def framing() -> list[Case]:
    sizes = [0, 125, 126, 127, 128, 65535, 65536]
    cases = []
    for group, opcode, byte in ((1, TEXT, b"*"), (2, BINARY, b"\xfe")):
        kind = "text" if opcode == TEXT else "binary"
        for number, size in enumerate(sizes, 1):
            cases.append(Case(
                f"1.{group}.{number}", f"a {kind} message of {size} bytes",
                (Write(frame(opcode, byte * size)),), echoes=((opcode, byte * size),),
            ))
        cases.append(Case(
            f"1.{group}.8", f"a {kind} message of 65536 bytes, written 997 bytes at a time",
            (Write(frame(opcode, byte * 65536), chop=997),), echoes=((opcode, byte * 65536),),
        ))
    return cases


def pings() -> list[Case]:
    burst = [f"payload-{index}".encode() for index in range(10)]
    return [
        Case("2.1", "a ping without payload", (Write(frame(PING)),), pongs=(b"",)),
        Case("2.2", "a ping with a text payload", (Write(frame(PING, b"Hello, world!")),),
             pongs=(b"Hello, world!",)),
        Case("2.3", "a ping with a binary payload", (Write(frame(PING, bytes([0, 255, 254, 253, 252, 251, 0, 255]))),),
             pongs=(bytes([0, 255, 254, 253, 252, 251, 0, 255]),)),
        Case("2.4", "a ping with 125 bytes of payload", (Write(frame(PING, b"\xfe" * 125)),),
             pongs=(b"\xfe" * 125,)),
        Case("2.5", "a ping with 126 bytes of payload", (Write(frame(PING, b"\xfe" * 126)),),
             outcome="fail", codes=FAIL),
        Case("2.6", "a ping with 125 bytes of payload, written a byte at a time",
             (Write(frame(PING, b"\xfe" * 125), chop=1, pause=0.001),), pongs=(b"\xfe" * 125,)),
        Case("2.7", "an unsolicited pong without payload", (Write(frame(PONG)),)),
        Case("2.8", "an unsolicited pong with payload", (Write(frame(PONG, b"unsolicited")),)),
        Case("2.9", "an unsolicited pong, then a ping",
             (Write(frame(PONG, b"unsolicited") + frame(PING, b"solicited")),), pongs=(b"solicited",)),
        Case("2.10", "ten pings in one write", (Write(b"".join(frame(PING, p) for p in burst)),),
             pongs=tuple(burst), latest_pong_enough=True),
        Case("2.11", "ten pings, each written a byte at a time",
             tuple(Write(frame(PING, p), chop=1, pause=0.001) for p in burst),
             pongs=tuple(burst), latest_pong_enough=True),
    ]


def reserved_bits() -> list[Case]:
    hello = "Hello, world!"
    return [
        Case("3.1", "a text message with RSV = 1", (Write(text(hello, rsv=1)),), outcome="fail", codes=FAIL),
        Case("3.2", "a text message, then one with RSV = 2, then a ping",
             (Write(text(hello) + text(hello, rsv=2) + frame(PING)),),
             echoes=(echoed_text(hello),), outcome="fail", codes=FAIL),
        Case("3.3", "the same, frame by frame",
             (Write(text(hello)), AwaitEchoes(1), Write(text(hello, rsv=3)), Write(frame(PING))),
             echoes=(echoed_text(hello),), outcome="fail", codes=FAIL),
        Case("3.4", "a text message, then one with RSV = 4, then a ping, a byte at a time",
             (Write(text(hello) + text(hello, rsv=4) + frame(PING), chop=1, pause=0.001),),
             echoes=(echoed_text(hello),), outcome="fail", codes=FAIL),
        Case("3.5", "a binary message with RSV = 5", (Write(frame(BINARY, b"\xfe" * 8, rsv=5)),),
             outcome="fail", codes=FAIL),
        Case("3.6", "a ping with RSV = 6", (Write(frame(PING, b"ping", rsv=6)),), outcome="fail", codes=FAIL),
        Case("3.7", "a close with RSV = 7", (Write(frame(CLOSE, close_payload(1000), rsv=7)),),
             outcome="fail", codes=FAIL),
    ]


def opcodes() -> list[Case]:
    hello = "Hello, world!"
    cases = []
    for group, reserved in ((1, [3, 4, 5, 6, 7]), (2, [11, 12, 13, 14, 15])):
        for number, opcode in enumerate(reserved, 1):
            payload = b"" if number % 2 else b"reserved"
            bad = frame(opcode, payload)
            if number <= 2:
                steps, echoes = (Write(bad),), ()
            elif number <= 4:
                steps, echoes = (Write(text(hello) + bad + frame(PING)),), (echoed_text(hello),)
            else:
                steps = (Write(text(hello) + bad + frame(PING), chop=1, pause=0.001),)
                echoes = (echoed_text(hello),)
            shape = "alone" if number <= 2 else "after a text message, then a ping"
            chopped = ", a byte at a time" if number == 5 else ""
            cases.append(Case(
                f"4.{group}.{number}", f"reserved opcode {opcode} with {len(payload)} bytes, {shape}{chopped}",
                steps, echoes=echoes, outcome="fail", codes=FAIL,
            ))
    return cases


def fragmentation() -> list[Case]:
    one, two = "fragment1", "fragment2"
    first, second = text(one, fin=False), frame(CONTINUATION, two.encode())
    ping = frame(PING, b"ping")
    cont_fin, cont_more = frame(CONTINUATION, b"nothing", fin=True), frame(CONTINUATION, b"nothing", fin=False)
    whole = echoed_text(one + two)

    def three_ways(number: int, description: str, data: bytes, **expect) -> list[Case]:
        frames_ = split_frames(data)
        return [
            Case(f"5.{number}", f"{description}, in one write", (Write(data),), **expect),
            Case(f"5.{number + 1}", f"{description}, frame by frame",
                 tuple(step for piece in frames_ for step in (Write(piece), Wait(0.05))), **expect),
            Case(f"5.{number + 2}", f"{description}, a byte at a time", (Write(data, chop=1, pause=0.001),), **expect),
        ]

    cases = [
        Case("5.1", "a ping in two fragments", (Write(frame(PING, b"fragment1", fin=False) + frame(CONTINUATION, b"fragment2")),),
             outcome="fail", codes=FAIL),
        Case("5.2", "a pong in two fragments", (Write(frame(PONG, b"fragment1", fin=False) + frame(CONTINUATION, b"fragment2")),),
             outcome="fail", codes=FAIL),
    ]
    cases += three_ways(3, "a text message in two fragments", first + second, echoes=(whole,))
    cases += three_ways(6, "a text message in two fragments with a ping between", first + ping + second,
                        echoes=(whole,), pongs=(b"ping",))
    cases += three_ways(9, "a continuation with FIN and nothing to continue, then a text message",
                        cont_fin + text("hello"), outcome="fail", codes=FAIL)
    cases += three_ways(12, "a continuation without FIN and nothing to continue, then a text message",
                        cont_more + text("hello"), outcome="fail", codes=FAIL)
    cases += [
        Case("5.15", "a text message in two fragments, then a continuation with nothing to continue, then a text message",
             (Write(first + second + cont_more + text("hello")),), echoes=(whole,), outcome="fail", codes=FAIL),
        Case("5.16", "twice: a continuation with nothing to continue, then a fragmented text message",
             (Write((cont_more + first + second) * 2),), outcome="fail", codes=FAIL),
        Case("5.17", "twice: a final continuation with nothing to continue, then a fragmented text message",
             (Write((cont_fin + first + second) * 2),), outcome="fail", codes=FAIL),
        Case("5.18", "a text message in two fragments that both say text",
             (Write(first + text(two)),), outcome="fail", codes=FAIL),
    ]
    parts = [f"fragment{index}" for index in range(1, 6)]
    pieces = [text(parts[0], fin=False)] + [
        frame(CONTINUATION, part.encode(), fin=index == 4) for index, part in enumerate(parts[1:], 1)
    ]
    for number, by_frame in ((19, False), (20, True)):
        writes = [pieces[0] + pieces[1], frame(PING, b"pongme 1!"), None, pieces[2] + pieces[3],
                  frame(PING, b"pongme 2!"), pieces[4]]
        steps = []
        for data in writes:
            if data is None:
                steps.append(Wait(1.0))
            elif by_frame:
                steps += [Write(piece) for piece in split_frames(data)]
            else:
                steps.append(Write(data))
        cases.append(Case(
            f"5.{number}", "a text message in five fragments, with a ping after the second and the "
            f"fourth and a second's wait{', frame by frame' if by_frame else ''}",
            tuple(steps), echoes=(echoed_text("".join(parts)),), pongs=(b"pongme 1!", b"pongme 2!"),
        ))
    return cases


def split_frames(data: bytes) -> list[bytes]:
    """The frames of a byte string of unmasked frames (this suite's own), each whole."""
    frames_, start = [], 0
    while start < len(data):
        length = data[start + 1] & 0x7F
        header = 2 + {126: 2, 127: 8}.get(length, 0)
        if length == 126:
            length = int.from_bytes(data[start + 2 : start + 4], "big")
        elif length == 127:
            length = int.from_bytes(data[start + 2 : start + 10], "big")
        frames_.append(data[start : start + header + length])
        start += header + length
    return frames_


KOSME = "κόσμε".encode()


def utf8() -> list[Case]:
    cases = [
        Case("6.1.1", "an empty text message", (Write(text(b"")),), echoes=(echoed_text(b""),)),
        Case("6.1.2", "a text message of three empty fragments",
             (Write(text(b"", fin=False) + frame(CONTINUATION, fin=False) + frame(CONTINUATION)),),
             echoes=(echoed_text(b""),)),
        Case("6.1.3", "a text message of an empty, a full and an empty fragment",
             (Write(text(b"", fin=False) + frame(CONTINUATION, b"middle", fin=False) + frame(CONTINUATION)),),
             echoes=(echoed_text("middle"),)),
    ]
    hello = "Hello-µ@ßöäüàá-UTF-8!!".encode()
    cases += [
        Case("6.2.1", "valid UTF-8 in one fragment", (Write(text(hello)),), echoes=(echoed_text(hello),)),
        Case("6.2.2", "valid UTF-8 in two fragments split at a character",
             (Write(text(hello[:13], fin=False) + frame(CONTINUATION, hello[13:])),), echoes=(echoed_text(hello),)),
        Case("6.2.3", "valid UTF-8 in fragments of one byte", (Write(fragments(TEXT, hello, 1)),),
             echoes=(echoed_text(hello),)),
        Case("6.2.4", "κόσμε in fragments of one byte, most ending inside a character",
             (Write(fragments(TEXT, KOSME, 1)),), echoes=(echoed_text(KOSME),)),
    ]
    invalid = KOSME + b"\xed\xa0\x80" + b"edited"
    cases += [
        Case("6.3.1", "invalid UTF-8 in one fragment", (Write(text(invalid)),), outcome="fail", codes=INVALID_UTF8),
        Case("6.3.2", "invalid UTF-8 in fragments of one byte", (Write(fragments(TEXT, invalid, 1)),),
             outcome="fail", codes=INVALID_UTF8),
    ]
    # 0x110000 written the UTF-8 way: out of Unicode's range, invalid from its first byte.
    part1, part2, part3 = KOSME, b"\xf4\x90\x80\x80", b"edited"
    fail_fast = [
        ("6.4.1", "in three fragments, the second invalid",
         [text(part1, fin=False), frame(CONTINUATION, part2, fin=False), frame(CONTINUATION, part3)]),
        ("6.4.2", "in three fragments, the second holding only the invalid byte",
         [text(part1 + part2[:1], fin=False), frame(CONTINUATION, part2[1:2], fin=False),
          frame(CONTINUATION, part2[2:] + part3)]),
        ("6.4.3", "in one frame written in three pieces, the second invalid", None),
        ("6.4.4", "in one frame written in three pieces, the second holding only the invalid byte", None),
    ]
    for number, (case_id, shape, writes) in enumerate(fail_fast):
        if writes is None:
            whole = text(part1 + part2 + part3)
            cut = len(whole) - len(part2 + part3)
            second_end = cut + (len(part2) if number == 2 else 2)
            writes = [whole[:cut], whole[cut:second_end], whole[second_end:]]
        cases.append(Case(
            case_id, f"invalid UTF-8 {shape}, a second apart: the client fails before the third",
            (Write(writes[0]), Wait(1.0), Write(writes[1]), Wait(1.0), Write(writes[2])),
            outcome="fail", codes=INVALID_UTF8, fail_before_step=4,
        ))

    def single(prefix: str, samples: list[bytes], valid: bool, what: str) -> list[Case]:
        return [
            Case(f"{prefix}.{number}", f"{what}: {sample.hex(' ')}", (Write(text(sample)),),
                 echoes=(echoed_text(sample),) if valid else (),
                 **({} if valid else {"outcome": "fail", "codes": INVALID_UTF8}))
            for number, sample in enumerate(samples, 1)
        ]

    cases += single("6.5", [KOSME, "Ελληνικά".encode(), "日本語のテキスト".encode(), "𝄞 clef".encode(),
                            "mixed ASCII, é, ✓ and 😀".encode()], True, "valid text")
    cases += [
        Case(f"6.6.{length}", f"the first {length} bytes of κόσμε: {KOSME[:length].hex(' ')}",
             (Write(text(KOSME[:length])),),
             **({"echoes": (echoed_text(KOSME[:length]),)} if is_utf8(KOSME[:length])
                else {"outcome": "fail", "codes": INVALID_UTF8}))
        for length in range(1, len(KOSME) + 1)
    ]
    cases += single("6.7", [b"\x00", b"\xc2\x80", b"\xe0\xa0\x80", b"\xf0\x90\x80\x80"], True,
                    "the first character of each length")
    cases += single("6.8", [b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80"], False,
                    "five- and six-byte sequences")
    cases += single("6.9", [b"\x7f", b"\xdf\xbf", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf"], True,
                    "the last character of each length")
    cases += single("6.10", [b"\xf7\xbf\xbf\xbf", b"\xfb\xbf\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf\xbf"], False,
                    "past the last character")
    cases += single("6.11", [b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xef\xbf\xbd", b"\xf4\x8f\xbf\xbf"], True,
                    "at a boundary")
    cases.append(Case("6.11.5", "past U+10FFFF: f4 90 80 80", (Write(text(b"\xf4\x90\x80\x80")),),
                      outcome="fail", codes=INVALID_UTF8))
    continuation = [b"\x80", b"\xbf", b"\x80\xbf", b"\x80\xbf\x80", b"\x80\xbf\x80\xbf", b"\x80\xbf\x80\xbf\x80",
                    b"\x80\xbf\x80\xbf\x80\xbf", bytes(range(0x80, 0xC0))]
    cases += single("6.12", continuation, False, "unexpected continuation bytes")
    lonely = [b" ".join(bytes([b]) for b in range(low, high)) + b" "
              for low, high in ((0xC0, 0xE0), (0xE0, 0xF0), (0xF0, 0xF8), (0xF8, 0xFC), (0xFC, 0xFE))]
    cases += single("6.13", lonely, False, "lonely start bytes, each followed by a space")
    truncated = [b"\xc0", b"\xe0\x80", b"\xf0\x80\x80", b"\xf8\x80\x80\x80", b"\xfc\x80\x80\x80\x80",
                 b"\xdf", b"\xef\xbf", b"\xf7\xbf\xbf", b"\xfb\xbf\xbf\xbf", b"\xfd\xbf\xbf\xbf\xbf"]
    cases += single("6.14", truncated, False, "a sequence without its last byte")
    cases += single("6.15", [b"".join(truncated)], False, "all of 6.14 together")
    cases += single("6.16", [b"\xfe", b"\xff", b"\xfe\xfe\xff\xff"], False, "bytes UTF-8 never uses")
    cases += single("6.17", [b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf", b"\xf8\x80\x80\x80\xaf",
                             b"\xfc\x80\x80\x80\x80\xaf"], False, "an overlong '/'")
    cases += single("6.18", [b"\xc1\xbf", b"\xe0\x9f\xbf", b"\xf0\x8f\xbf\xbf", b"\xf8\x87\xbf\xbf\xbf",
                             b"\xfc\x83\xbf\xbf\xbf\xbf"], False, "the longest overlong of each length")
    cases += single("6.19", [b"\xc0\x80", b"\xe0\x80\x80", b"\xf0\x80\x80\x80", b"\xf8\x80\x80\x80\x80",
                             b"\xfc\x80\x80\x80\x80\x80"], False, "an overlong NUL")
    surrogates = [0xD800, 0xDB7F, 0xDB80, 0xDBFF, 0xDC00, 0xDF80, 0xDFFF]
    cases += single("6.20", [surrogate(value) for value in surrogates], False, "a lone UTF-16 surrogate")
    pairs = [(high, low) for high in (0xD800, 0xDB7F, 0xDB80, 0xDBFF) for low in (0xDC00, 0xDFFF)]
    cases += single("6.21", [surrogate(high) + surrogate(low) for high, low in pairs], False,
                    "a UTF-16 surrogate pair written as two characters")
    noncharacters = [chr(plane << 16 | low).encode() for plane in range(17) for low in (0xFFFE, 0xFFFF)]
    cases += single("6.22", noncharacters, True, "a noncharacter (valid UTF-8)")
    special = [chr(value).encode() for value in (0xFFFD, 0xFEFF, 0x200B, 0x2028, 0x2029, 0xFFF9, 0xE000)]
    cases += single("6.23", special, True, "a special character")
    return cases


def surrogate(value: int) -> bytes:
    return bytes([0xE0 | value >> 12, 0x80 | value >> 6 & 0x3F, 0x80 | value & 0x3F])


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def closing() -> list[Case]:
    hello = "Hello, world!"
    close_1000 = frame(CLOSE, close_payload(1000))
    cases = [
        Case("7.1.1", "a text message, its echo, then the server's close",
             (Write(text(hello)), AwaitEchoes(1), Write(close_1000)), echoes=(echoed_text(hello),), outcome="answer"),
        Case("7.1.2", "two close frames", (Write(close_1000 + close_1000),), outcome="answer"),
        Case("7.1.3", "a ping after the close: no pong", (Write(close_1000 + frame(PING, b"late")),), outcome="answer"),
        Case("7.1.4", "a text message after the close: no echo", (Write(close_1000 + text(hello)),), outcome="answer"),
        Case("7.1.5", "a fragment, the close, then the rest: no echo",
             (Write(text("fragment1", fin=False) + close_1000 + frame(CONTINUATION, b"fragment2")),), outcome="answer"),
        Case("7.1.6", "256 KiB of text, the close, then a ping",
             (Write(text(b"BAsd7&jh23" * 26214 + b"BAsd") + close_1000 + frame(PING)),),
             echoes=(echoed_text(b"BAsd7&jh23" * 26214 + b"BAsd"),), echoes_optional=True, outcome="answer"),
        Case("7.3.1", "a close without payload", (Write(frame(CLOSE)),), outcome="answer",
             codes=frozenset({None, 1000})),
        Case("7.3.2", "a close with a one-byte payload", (Write(frame(CLOSE, b"\x03")),), outcome="fail", codes=FAIL),
        Case("7.3.3", "a close with 1000 and no reason", (Write(close_1000),), outcome="answer"),
        Case("7.3.4", "a close with 1000 and a reason", (Write(frame(CLOSE, close_payload(1000, b"Hello World!"))),),
             outcome="answer"),
        Case("7.3.5", "a close with 1000 and a 123-byte reason",
             (Write(frame(CLOSE, close_payload(1000, b"*" * 123))),), outcome="answer"),
        Case("7.3.6", "a close with 1000 and a 124-byte reason (a 126-byte control frame)",
             (Write(frame(CLOSE, close_payload(1000, b"*" * 124))),), outcome="fail", codes=FAIL),
        Case("7.5.1", "a close whose reason is not UTF-8",
             (Write(frame(CLOSE, close_payload(1000, KOSME + b"\xed\xa0\x80" + b"edited"))),),
             outcome="fail", codes=frozenset({1002, 1007})),
    ]
    valid = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]
    cases += [
        Case(f"7.7.{number}", f"a close with code {code}, which the client answers with it or 1000",
             (Write(frame(CLOSE, close_payload(code))),), outcome="answer", codes=frozenset({1000, code}))
        for number, code in enumerate(valid, 1)
    ]
    # 1012-1014 came after RFC 6455 (IANA's registry); libwebsockets and Autobahn hold to the RFC.
    invalid = [0, 999, 1004, 1005, 1006, 1012, 1013, 1014, 1015, 1016, 1100, 2000, 2999]
    cases += [
        Case(f"7.9.{number}", f"a close with code {code}, which RFC 6455 does not allow on the wire",
             (Write(frame(CLOSE, close_payload(code))),), outcome="fail", codes=FAIL)
        for number, code in enumerate(invalid, 1)
    ]
    cases += [
        Case(f"7.13.{number}", f"a close with code {code}, outside the range RFC 6455 defines",
             (Write(frame(CLOSE, close_payload(code))),), outcome="fail", codes=FAIL)
        for number, code in enumerate([5000, 65535], 1)
    ]
    return cases


KIB, MIB = 1 << 10, 1 << 20


def limits() -> list[Case]:
    cases = []
    for group, opcode in ((0, TEXT), (1, BINARY)):
        kind = "text" if opcode == TEXT else "binary"
        byte = b"*" if opcode == TEXT else b"\xfe"
        for number, size in enumerate([64 * KIB, 256 * KIB, MIB, 4 * MIB, 8 * MIB, 16 * MIB], 1):
            cases.append(Case(f"9.{1 + group}.{number}", f"a {kind} message of {size // KIB} KiB",
                              (Write(frame(opcode, byte * size)),), echoes=((opcode, byte * size),), timeout=60))
        for number, size in enumerate([64, 256, KIB, 4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, MIB, 4 * MIB], 1):
            cases.append(Case(f"9.{3 + group}.{number}", f"4 MiB of {kind} in fragments of {size} bytes",
                              (Write(fragments(opcode, byte * 4 * MIB, size)),),
                              echoes=((opcode, byte * 4 * MIB),), timeout=60))
        for number, chop in enumerate([64, 128, 256, 512, 1024, 2048], 1):
            cases.append(Case(f"9.{5 + group}.{number}", f"1 MiB of {kind} in one frame, written {chop} bytes at a time",
                              (Write(frame(opcode, byte * MIB), chop=chop),), echoes=((opcode, byte * MIB),), timeout=60))
        for number, size in enumerate([0, 16, 64, 256, 1024, 4096], 1):
            payload = byte * size
            steps = tuple(step for index in range(1000) for step in (Write(frame(opcode, payload)), AwaitEchoes(index + 1)))
            cases.append(Case(f"9.{7 + group}.{number}", f"1000 {kind} messages of {size} bytes, each after the last one's echo",
                              steps, echoes=((opcode, payload),) * 1000, timeout=60))
    return sorted(cases, key=lambda case: [int(part) for part in case.id.split(".")])


def auto_fragmentation() -> list[Case]:
    payload = b"*" * 65536
    return [Case("10.1.1", "64 KiB of text in fragments of 1300 bytes", (Write(fragments(TEXT, payload, 1300)),),
                 echoes=(echoed_text(payload),))]


CASES: list[Case] = (
    framing() + pings() + reserved_bits() + opcodes() + fragmentation() + utf8() + closing() + limits()
    + auto_fragmentation()
)
BY_ID = {case.id: case for case in CASES}
assert len(BY_ID) == len(CASES), "case ids are unique"
