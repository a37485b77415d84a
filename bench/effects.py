"""The figures for effects: what one effect costs as a burst of them grows, with tracing
off and on.

The workload is the one that once grew with the burst: nth-prime requests read in one batch of
input, each `cancellable(id:cancelInFlight: true)`, so each cancels the one before while none of
their tasks has run yet. Instructions are callgrind's (on a copy made with `strip --strip-debug`,
the count of an empty input subtracted), which repeat exactly on this noisy machine.
"""

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from scaling import stripped_copy

SIZES = (1_000, 4_000)


def burst(count: int) -> bytes:
    lines = []
    for n in range(count):
        lines.append({"store": "primes", "action": {"type": "counter.countChanged", "value": n % 50}})
        lines.append({"store": "primes", "action": "counter.nthPrimeButtonTapped"})
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def instructions(binary: Path, data: bytes, *args: str) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary), "run", *args],
            input=data, capture_output=True, check=True, timeout=600,
        )
    for line in result.stderr.decode().splitlines():
        if "Collected :" in line:
            return int(line.split()[-1])
    raise RuntimeError("callgrind printed no total")


def rows(binary: Path, out: Path) -> list[tuple[str, str, str]]:
    if shutil.which("valgrind") is None:
        return [("effects: burst of nth-prime requests", "skipped", "needs valgrind")]
    stripped = stripped_copy(binary, out)
    result = []
    for label, args in (("tracing off", ()), ("--trace effects", ("--trace", "effects"))):
        empty = instructions(stripped, b"", *args)
        per_request = [(instructions(stripped, burst(size), *args) - empty) / size for size in SIZES]
        result.append((
            f"effects: a burst of {SIZES[0]:,} / {SIZES[-1]:,} nth-prime requests, each replacing "
            f"the last, {label}: instructions per request",
            " / ".join(f"{count / 1000:,.1f}k" for count in per_request),
            f"{per_request[-1] / per_request[0]:.2f}× (flat: <= 1.2×)",
        ))
    return result
