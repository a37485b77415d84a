"""The WebSocket conformance run: every case of cases.py through the binary's websocket store.

    python3 Tests/conformance/run.py [--binary .build/release/composable-actor] [--jobs 4]
                                     [--only 2.10,6.4] [--json results.json]

Prints one line per case (id, verdict, what the client did wrong) and the totals. The exit
status is 1 when a case FAILED, else 0. Cases run a few at a time, each with a fresh process
of the binary whose host echoes every message; the server is in this process, on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import CASES, Case  # noqa: E402
from host import run_echo_host  # noqa: E402
from peer import FAILED, ConformanceServer, Verdict  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class CaseResult:
    case: Case
    verdict: Verdict
    seconds: float
    exit_code: int | None


def run_cases(binary: str, cases: list[Case], jobs: int = 4) -> list[CaseResult]:
    server = ConformanceServer()
    try:
        with tempfile.TemporaryDirectory() as data_dir, ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(lambda case: run_case(server, binary, case, data_dir), cases))
    finally:
        server.stop()


def run_case(server: ConformanceServer, binary: str, case: Case, data_dir: str) -> CaseResult:
    started = time.monotonic()
    host = run_echo_host(binary, server.url(case), data_dir, timeout=case.timeout * 3 + 20)
    verdict = server.verdict(case, timeout=case.timeout * 2 + 10)
    if host.exit_code != 0:
        verdict.lower(FAILED, f"the process exited with {host.exit_code}: {host.stderr[-300:]}")
    elif host.closed is None:
        verdict.lower(FAILED, "the store never saw the socket close")
    return CaseResult(case, verdict, time.monotonic() - started, host.exit_code)


def select(only: str | None) -> list[Case]:
    if not only:
        return CASES
    prefixes = [prefix.strip() for prefix in only.split(",")]
    return [case for case in CASES if any(case.id == p or case.id.startswith(p + ".") for p in prefixes)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/composable-actor"))
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--only", help="case ids or groups, comma-separated (e.g. 2.10,6.4)")
    parser.add_argument("--json", help="also write the results to this file")
    arguments = parser.parse_args()
    if not Path(arguments.binary).is_file():
        parser.error(f"no binary at {arguments.binary}: build it with `make build`, or pass --binary")

    cases = select(arguments.only)
    if not cases:
        parser.error(f"no case is or belongs to {arguments.only}")
    started = time.monotonic()
    results = run_cases(arguments.binary, cases, arguments.jobs)
    for result in results:
        reasons = "; ".join(result.verdict.reasons)
        print(f"{result.case.id:<8} {result.verdict.verdict:<10} {result.case.description}"
              + (f"\n         {reasons}" if reasons else ""))
    totals = Counter(result.verdict.verdict for result in results)
    print(f"{len(results)} cases in {time.monotonic() - started:.0f} s: "
          + ", ".join(f"{totals[name]} {name}" for name in ("OK", "NON-STRICT", "FAILED")))
    if arguments.json:
        Path(arguments.json).write_text(json.dumps([
            {"id": r.case.id, "description": r.case.description, "verdict": r.verdict.verdict,
             "reasons": r.verdict.reasons, "seconds": round(r.seconds, 3)}
            for r in results
        ], indent=1))
    return 1 if totals[FAILED] else 0


if __name__ == "__main__":
    sys.exit(main())
