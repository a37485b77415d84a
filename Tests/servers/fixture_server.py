"""HTTP fixture server for the tests: fake JSONPlaceholder, votes and Wolfram|Alpha APIs, with
failure switches and a request log. Python standard library only.

Usage: python3 fixture_server.py [--port 0] [--tls-cert FILE --tls-key FILE] [--no-stdin]

Once listening on 127.0.0.1 it prints one line, {"port": N, "url": "http://127.0.0.1:N"}
("https" with TLS), and serves until it receives SIGTERM or SIGINT (exit status 0) or, when its
stdin is a pipe (as test harnesses start it), until that pipe reaches EOF: a test run that dies
leaves no server behind. In the background of a shell (`fixture_server.py --port 8765 &`, stdin
/dev/null or a terminal) it serves until signalled; --no-stdin ignores stdin always. Every answer
has a Content-Length (unless a failure switch says otherwise) and connections stay open
(HTTP/1.1 keep-alive).

APIs
  GET /todos/{id}             {"userId","id","title","completed"} for id 1...100, else 404 {}
  POST /todos/sync            body: the client's todos, a JSON array of {"id", "title",
                              "done"} (400 {"error"} otherwise). Answers the server's list,
                              [{"id": 2, "title": "Walk the dog", "done": true},
                              {"id": 101, "title": "Book flights", "done": false}], whatever was
                              sent: the sync endpoint of Examples/custom-store's todos store.
                              GET answers the same list.
  GET /votes/categories       {"categories": [{"id": "food", "name": "Food"}, ...]}
  GET /votes/popular          {"items": [the 5 votes with the most votes, descending]}
  GET /votes?page=P&size=S[&category=C]
                              {"items", "page", "size", "hasNext"}; P from 1 (default 1),
                              S 1...100 (default 20); 400 {"error"} for bad parameters.
                              A vote is {"id", "title", "category", "votes"}; 95 of them, in
                              4 categories, in id order.
  GET /v2/query?input=prime%20N&appid=A[&format=plaintext&output=JSON]
                              Wolfram|Alpha's answer for the Nth prime, N in 1...1,000,000;
                              with appid=answer=X, X instead (a server that is wrong).

Test helpers
  ANY /_echo                  {"method", "contentType", "body"}: the request's method, its
                              Content-Type (or null) and its body as text
  GET /_redirect/N            302 to /_redirect/N-1; /_redirect/0 answers 200 {"redirects": 0}.
  GET /_bytes/N[?chunked=1]   200 with N bytes of "x" (N <= 64 MiB), with Content-Length or,
                              with chunked=1, in chunks of at most 64 KiB and no length.

Failure switches
  /_fail/<mode>/<rest>        serves /<rest> (query string kept) with the failure <mode>:
    delay=MS    wait MS milliseconds, then answer normally
    status=CODE answer CODE with {"error": "injected status CODE"}
    malformed   200 with a body that is not valid JSON
    truncated   a Content-Length larger than the body sent, then close the connection
    reset       close the connection with a TCP RST, without answering
    nothttp     a line that is not HTTP at all, then close the connection
    cutheaders  a status line and half a header line, then close the connection
    tofile      302 to file:///etc/passwd (a client must not follow it)
    togopher    302 to gopher://127.0.0.1:<this port>/ (a client must not follow it)
    hang        never answer, until the client goes away
  POST /_control/rules        body [{"path": "/votes/popular", "mode": "status=500"}, ...]
                              replaces every rule (an empty list clears them); a request whose
                              path (without query) equals a rule's path gets its mode, unless
                              its URL carries a /_fail/ prefix. Answers {"rules": count}.

Request log
  GET /_control/requests      {"requests": [{"method", "path", "query", "body", "outcome",
                              "connection"}, ...]} in arrival order; "body" is the request's
                              body as text ("" for none). "path" is the path as
                              requested (with any /_fail/ prefix), "query" the raw query string.
                              "outcome" is "pending" while the request is being served, then
                              "answered", "failed" when a switch fired (a completed delay
                              included) or "client-gone" when the client disconnected while a
                              delay or hang waited. "connection" numbers the TCP connections in
                              accept order, so tests can see keep-alive at work.
  DELETE /_control/requests   clears the log.
  Control requests are not logged.
"""

import argparse
import json
import math
import os
import select
import signal
import socket
import ssl
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from stdin_end import add_no_stdin_argument, call_at_stdin_end

# --- Data -----------------------------------------------------------------------------------

TODO_WORDS = [
    "delectus", "aut", "autem", "quis", "ut", "nam", "facilis", "et", "officia", "qui",
    "fugiat", "veniam", "minus", "laboriosam", "mollitia", "illo", "expedita", "consequatur",
    "quia", "in", "qui", "ullam", "ratione", "accusamus", "voluptatem", "distinctio",
]


def todo(todo_id):
    words = [TODO_WORDS[(todo_id * 7 + k * 3) % len(TODO_WORDS)] for k in range(3 + todo_id % 3)]
    return {
        "userId": (todo_id - 1) // 10 + 1,
        "id": todo_id,
        "title": " ".join(words),
        "completed": todo_id % 3 == 0,
    }


CATEGORIES = [("food", "Food"), ("travel", "Travel"), ("tech", "Tech"), ("music", "Music")]
VOTE_SUBJECTS = {
    "food": ["Pizza", "Ramen", "Tacos", "Curry", "Sushi", "Falafel"],
    "travel": ["Lisbon", "Kyoto", "Oaxaca", "Tromso", "Hanoi", "Cusco"],
    "tech": ["Swift", "Rust", "libuv", "SQLite", "Vim", "Zig"],
    "music": ["Jazz", "Techno", "Baroque", "Bossa nova", "Punk", "Gamelan"],
}


def make_votes():
    votes = []
    for vote_id in range(1, 96):
        category = CATEGORIES[(vote_id - 1) % 4][0]
        subjects = VOTE_SUBJECTS[category]
        subject = subjects[(vote_id // 4) % len(subjects)]
        votes.append({
            "id": vote_id,
            "title": f"{subject} #{vote_id}",
            "category": category,
            # 919 is coprime with 1000, so the 95 counts are distinct: a strict popularity order.
            "votes": (vote_id * 919) % 1000,
        })
    return votes


VOTES = make_votes()
POPULAR = sorted(VOTES, key=lambda vote: -vote["votes"])[:5]


class Primes:
    """The Nth prime, by a sieve grown on demand and kept."""

    def __init__(self):
        self.lock = threading.Lock()
        self.primes = [2, 3, 5, 7, 11, 13]

    def nth(self, n):
        with self.lock:
            if n > len(self.primes):
                # p_n < n (ln n + ln ln n) for n >= 6.
                limit = int(n * (math.log(n) + math.log(math.log(n)))) + 1
                sieve = bytearray([1]) * (limit + 1)
                sieve[0:2] = b"\x00\x00"
                for p in range(2, math.isqrt(limit) + 1):
                    if sieve[p]:
                        sieve[p * p::p] = bytes(len(range(p * p, limit + 1, p)))
                self.primes = [i for i, flag in enumerate(sieve) if flag]
            return self.primes[n - 1]


PRIMES = Primes()


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# --- Shared state ---------------------------------------------------------------------------


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.log = []
        self.rules = {}
        self.connections = 0

    def next_connection(self):
        with self.lock:
            self.connections += 1
            return self.connections

    def record(self, method, path, query, body, connection):
        entry = {"method": method, "path": path, "query": query, "body": body,
                 "outcome": "pending", "connection": connection}
        with self.lock:
            self.log.append(entry)
        return entry

    def settle(self, entry, outcome):
        with self.lock:
            entry["outcome"] = outcome


STATE = State()


def valid_todos(body):
    """Whether `body` is a JSON array of {"id": int, "title": str, "done": bool}."""
    try:
        todos = json.loads(body)
    except ValueError:
        return False
    return isinstance(todos, list) and all(
        isinstance(item, dict) and set(item) == {"id", "title", "done"}
        and type(item["id"]) is int and isinstance(item["title"], str) and isinstance(item["done"], bool)
        for item in todos)

FAILURE_MODES = (
    "malformed", "truncated", "reset", "hang", "nothttp", "cutheaders", "tofile", "togopher"
)


def valid_mode(mode):
    if mode in FAILURE_MODES:
        return True
    name, _, value = mode.partition("=")
    if name == "delay":
        return value.isdigit()
    if name == "status":
        return value.isdigit() and 100 <= int(value) <= 599
    return False


class ClientGone(Exception):
    pass


# --- Handler --------------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def version_string(self):
        return "fixture-server"

    def setup(self):
        # Without TCP_NODELAY, Nagle's algorithm holds small answers back for up to 40 ms.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if isinstance(self.request, ssl.SSLSocket):
            self.request.do_handshake()
        super().setup()
        self.connection_id = STATE.next_connection()

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def dispatch(self):
        parts = urlsplit(self.path)
        path, query = parts.path, parts.query
        self.log_entry = None
        if path.startswith("/_control/"):
            self.control(path)
            return
        # Read whatever the method, so that a keep-alive connection's next request starts
        # where this one's body ends.
        self.body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        text = self.body.decode("utf-8", "replace")
        self.log_entry = STATE.record(self.command, path, query, text, self.connection_id)
        mode = None
        served_path = path
        if path.startswith("/_fail/"):
            mode, _, rest = path[len("/_fail/"):].partition("/")
            served_path = "/" + rest
            if not valid_mode(mode):
                self.outcome = "answered"
                self.send_json(400, {"error": f"unknown failure mode {mode!r}"})
                return
        else:
            with STATE.lock:
                mode = STATE.rules.get(path)
        self.outcome = "answered" if mode is None else "failed"
        try:
            self.serve(served_path, query, mode)
        except ClientGone:
            self.settle("client-gone")
        except (ConnectionError, ssl.SSLError, OSError):
            self.settle("client-gone")
            self.close_connection = True

    def settle(self, outcome=None):
        """Logs the request's outcome (`self.outcome` by default) once.

        Called right before the answer's last write, so that a client that has its answer
        always finds the outcome in the log.
        """
        if self.log_entry is not None:
            STATE.settle(self.log_entry, outcome or self.outcome)
            self.log_entry = None

    # --- Failure switches -------------------------------------------------------------------

    def serve(self, path, query, mode):
        if mode is None:
            self.answer(path, query)
            return
        name, _, value = mode.partition("=")
        if name == "delay":
            self.wait(int(value) / 1000)
            self.answer(path, query)
        elif name == "status":
            self.send_json(int(value), {"error": f"injected status {value}"})
        elif name == "malformed":
            self.send_body(200, b'{"id": 1, "title": ', "application/json")
        elif name == "truncated":
            status, body = self.route(path, query)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.settle()
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
        elif name == "reset":
            self.settle()
            self.reset()
        elif name in ("nothttp", "cutheaders"):
            self.settle()
            self.wfile.write(b"SSH-2.0-OpenSSH_9.2\r\n" if name == "nothttp" else b"HTTP/1.1 200 OK\r\nContent-Ty")
            self.wfile.flush()
            self.close_connection = True
        elif name in ("tofile", "togopher"):
            port = self.server.server_address[1]
            target = "file:///etc/passwd" if name == "tofile" else f"gopher://127.0.0.1:{port}/"
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif name == "hang":
            self.wait(None)

    def wait(self, seconds):
        """Sleeps (forever if `seconds` is None), raising ClientGone once the peer closes."""
        deadline = None if seconds is None else time.monotonic() + seconds
        sock = self.connection
        while True:
            timeout = 0.01 if deadline is None else min(0.01, deadline - time.monotonic())
            if timeout <= 0:
                return
            readable, _, _ = select.select([sock], [], [], timeout)
            if not readable:
                continue
            if self.peer_closed(sock):
                self.close_connection = True
                raise ClientGone()
            # Data this handler does not read (a pipelined request): do not spin on it.
            time.sleep(timeout)

    @staticmethod
    def peer_closed(sock):
        """Readable while a request is pending: end of stream, a reset, or (TLS) an alert.

        Clients send nothing else before the answer (no pipelining), so any data on a TLS
        connection is the close_notify that precedes the end of the stream.
        """
        try:
            data = socket.socket.recv(sock, 1, socket.MSG_PEEK)
        except (ConnectionError, OSError):
            return True
        return not data or isinstance(sock, ssl.SSLSocket)

    def reset(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    # --- Responses --------------------------------------------------------------------------

    def send_body(self, status, body, content_type, headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        # Head and body in one write (end_headers would send the head alone).
        self._headers_buffer.append(b"\r\n" + body)
        self.settle()
        self.flush_headers()

    def send_json(self, status, value):
        self.send_body(status, json.dumps(value).encode(), "application/json")

    def answer(self, path, query):
        if path == "/_bytes" or path.startswith("/_bytes/"):
            self.send_bytes(path, query)
            return
        if path.startswith("/_redirect/") and path[len("/_redirect/"):].isdigit():
            remaining = int(path[len("/_redirect/"):])
            if remaining > 0:
                location = ("Location", f"/_redirect/{remaining - 1}")
                self.send_body(302, b"", "application/json", [location])
                return
        status, body = self.route(path, query)
        self.send_body(status, body, "application/json")

    def send_bytes(self, path, query):
        count = path[len("/_bytes/"):]
        if not count.isdigit() or int(count) > 64 << 20:
            self.send_json(400, {"error": "expected /_bytes/N with N <= 64 MiB"})
            return
        remaining = int(count)
        if parse_qs(query).get("chunked") != ["1"]:
            self.send_body(200, b"x" * remaining, "application/octet-stream")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.settle()
        while remaining > 0:
            size = min(remaining, 64 << 10)
            self.wfile.write(b"%x\r\n" % size + b"x" * size + b"\r\n")
            remaining -= size
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def route(self, path, query):
        """The status and JSON body of a normal answer."""
        if path == "/todos/sync":
            if self.command == "POST" and not valid_todos(self.body):
                return 400, dumps({"error": 'expected a JSON array of {"id", "title", "done"}'})
            return 200, dumps([{"id": 2, "title": "Walk the dog", "done": True},
                               {"id": 101, "title": "Book flights", "done": False}])
        if path == "/_echo":
            return 200, dumps({"method": self.command, "contentType": self.headers.get("Content-Type"),
                               "body": self.body.decode("utf-8", "replace")})
        if path.startswith("/todos/"):
            key = path[len("/todos/"):]
            if key.isdigit() and 1 <= int(key) <= 100:
                return 200, dumps(todo(int(key)))
            return 404, b"{}"
        if path == "/votes/categories":
            categories = [{"id": key, "name": name} for key, name in CATEGORIES]
            return 200, dumps({"categories": categories})
        if path == "/votes/popular":
            return 200, dumps({"items": POPULAR})
        if path == "/votes":
            return self.votes_page(parse_qs(query, keep_blank_values=True))
        if path == "/v2/query":
            return 200, dumps(wolfram(parse_qs(query, keep_blank_values=True)))
        if path == "/_redirect/0":
            return 200, dumps({"redirects": 0})
        return 404, b"{}"

    @staticmethod
    def votes_page(params):
        def integer(name, default):
            values = params.get(name)
            if values is None:
                return default
            value = values[-1]
            return int(value) if value.isdigit() else None

        page = integer("page", 1)
        size = integer("size", 20)
        category = params.get("category", [None])[-1]
        if page is None or page < 1:
            return 400, dumps({"error": "page must be an integer >= 1"})
        if size is None or not 1 <= size <= 100:
            return 400, dumps({"error": "size must be an integer from 1 to 100"})
        if category is not None and category not in dict(CATEGORIES):
            return 400, dumps({"error": f"unknown category {category!r}"})
        matching = [v for v in VOTES if category is None or v["category"] == category]
        start = (page - 1) * size
        items = matching[start:start + size]
        return 200, dumps({"items": items, "page": page, "size": size,
                           "hasNext": start + size < len(matching)})

    # --- Control ----------------------------------------------------------------------------

    def control(self, path):
        if path == "/_control/requests" and self.command == "GET":
            with STATE.lock:
                log = [dict(entry) for entry in STATE.log]
            self.send_json(200, {"requests": log})
        elif path == "/_control/requests" and self.command == "DELETE":
            with STATE.lock:
                STATE.log.clear()
            self.send_json(200, {})
        elif path == "/_control/rules" and self.command == "POST":
            self.set_rules()
        else:
            self.send_json(404, {})

    def set_rules(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            rules = json.loads(self.rfile.read(length) or b"null")
            parsed = {rule["path"]: rule["mode"] for rule in rules}
            if not all(isinstance(p, str) and isinstance(m, str) and valid_mode(m)
                       for p, m in parsed.items()):
                raise ValueError("bad rule")
        except (ValueError, TypeError, KeyError):
            self.send_json(400, {"error": 'expected [{"path": "/...", "mode": "status=500"}]'})
            return
        with STATE.lock:
            STATE.rules = parsed
        self.send_json(200, {"rules": len(parsed)})


def dumps(value):
    return json.dumps(value, separators=(",", ":")).encode()


def wolfram(params):
    appid = params.get("appid", [""])[-1]
    if not appid:
        return {"queryresult": {"success": False, "error": {"code": "1", "msg": "Invalid appid"}}}
    words = params.get("input", [""])[-1].split()
    not_understood = {"queryresult": {"success": False, "error": False, "numpods": 0}}
    if len(words) != 2 or words[0].lower() != "prime" or not words[1].isdigit():
        return not_understood
    n = int(words[1])
    if not 1 <= n <= 1_000_000:
        return not_understood
    # A test's app id "answer=X" makes the server claim X is the prime: a server that is wrong.
    claimed = appid.removeprefix("answer=") if appid.startswith("answer=") else str(PRIMES.nth(n))
    return {"queryresult": {
        "success": True, "error": False, "numpods": 2,
        "pods": [
            {"title": "Input interpretation", "id": "Input",
             "subpods": [{"plaintext": f"p_{n} ({ordinal(n)} prime)"}]},
            {"title": "Result", "id": "Result", "primary": True,
             "subpods": [{"plaintext": claimed}]},
        ],
    }}


# --- Server ---------------------------------------------------------------------------------


class Server(ThreadingHTTPServer):
    # A short backlog makes bursts of connections wait for SYN retries (1 s), which looks like
    # a slow client.
    request_queue_size = 1024
    daemon_threads = True

    def handle_error(self, request, client_address):
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (ConnectionError, ssl.SSLError, OSError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    add_no_stdin_argument(parser)
    args = parser.parse_args()

    server = Server(("127.0.0.1", args.port), Handler)
    scheme = "http"
    if args.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        # The handshake then happens in the connection's thread (Handler.setup), so a client
        # that stalls or fails it cannot block the accept loop.
        server.socket = context.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False)
        scheme = "https"
    port = server.server_address[1]

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())

    if not args.no_stdin:
        call_at_stdin_end(stop.set)
    # Short polls so that tests, which wait for the server to exit, are not held up.
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    print(json.dumps({"port": port, "url": f"{scheme}://127.0.0.1:{port}"}), flush=True)
    while not stop.wait(0.05):
        pass
    server.shutdown()
    server.server_close()
    # Connection threads may be blocked (a hang, an idle keep-alive connection); ending the
    # interpreter normally would wait for or trip over them.
    os._exit(0)


if __name__ == "__main__":
    main()
