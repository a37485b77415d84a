"""The order-book row: seed 002's stream (15-level books in binary frames, decoded, sorted and
patched) through the binary's websocket store, against a plain Python program doing the same
job, in the same run.

Both programs are the shared peers (`../shared/peers/orderbook_peer.py` and
`orderbook_actor.py`, beside the repository), run alternately against the project's order-book
server (Tests/servers/ws_servers.py, `/orderbook`), several times each; each prints its CPU per
book (user + system over the stream). The row gives the medians and their ratio: the goal is
the binary at half the Python program's CPU per book or less.

Standalone: python3 bench/orderbook.py [--actor .build/release/composable-actor] [--books N]
"""

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests/servers"))
from peers import WebSocketServers  # noqa: E402

PEERS = ROOT.parent / "shared" / "peers"
BOOKS = 20_000
UNITS = 15
RUNS = 3
CPU = re.compile(r"([\d.]+) us CPU per book")


def cpu_per_book(command: list[str]) -> float:
    output = subprocess.run(command, check=True, capture_output=True, text=True, timeout=600).stdout
    match = CPU.search(output)
    if not match:
        raise RuntimeError(f"{command[1]} printed no CPU per book: {output!r}")
    return float(match.group(1))


def rows(actor: Path, books: int = BOOKS, runs: int = RUNS, peers: Path = PEERS):
    if not (peers / "orderbook_peer.py").exists():
        return [("order-book stream", f"no peers in {peers}", "")]
    server = WebSocketServers()
    port = str(server.port)
    python, ours = [], []
    try:
        for _ in range(runs):
            python.append(cpu_per_book(
                [sys.executable, str(peers / "orderbook_peer.py"), port, str(books), str(UNITS)]))
            ours.append(cpu_per_book([sys.executable, str(peers / "orderbook_actor.py"), str(actor),
                                      port, str(books), str(UNITS)]))
    finally:
        server.stop()
    ratio = statistics.median(ours) / statistics.median(python)
    label = f"order-book stream, {books:,} books of {UNITS} levels, CPU per book"
    return [
        (f"{label}: composable-actor", f"{statistics.median(ours):.1f} µs", ""),
        (f"{label}: Python peer", f"{statistics.median(python):.1f} µs", ""),
        ("  ratio (ours / Python), medians of "
         f"{runs} alternate runs", f"{ratio:.2f}×", "<= 0.5×"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actor", type=Path, default=ROOT / ".build/release/composable-actor")
    parser.add_argument("--books", type=int, default=BOOKS)
    parser.add_argument("--runs", type=int, default=RUNS)
    arguments = parser.parse_args()
    table = rows(arguments.actor.resolve(), arguments.books, arguments.runs)
    width = max(len(name) for name, _, _ in table)
    for name, value, target in table:
        print(f"{name.ljust(width)}  {value:>12}  {target}")


if __name__ == "__main__":
    main()
