"""The figures for the timeline: what `timeline` costs to write a page, and what the page
costs to open in headless Chromium, as the recording grows from 10,000 to 100,000 actions.

The recording is the counter with a save of the favourites every 50 taps and an nth-prime request
every 100 (so effects are traced), under the virtual clock. The page's own figure is
`window.timeline.loadMs`: from the start of the page's script to its first full render. The
browser rows need Chromium, its driver and Python's selenium (`make test` installs them); they
are skipped without.
"""

import json
import subprocess
import sys
import time
from pathlib import Path

# The tests' headless Chromium (Tests/e2e/browser.py), when selenium is installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "e2e"))
try:
    import browser
except ImportError:
    browser = None

SIZES = (10_000, 100_000)


def recording(binary: Path, out: Path, actions: int) -> Path:
    path = out / f"timeline-{actions}.jsonl"
    lines = []
    for n in range(actions):
        if n % 100 == 99:
            lines.append({"store": "primes", "action": "counter.nthPrimeButtonTapped"})
        elif n % 50 == 49:
            lines.append({"store": "primes", "action": "primeModal.saveFavoritePrimeTapped"})
        else:
            lines.append({"store": "primes", "action": "counter.incrTapped"})
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    subprocess.run(
        [str(binary), "run", "--clock", "virtual", "--trace", "effects", "--record", str(path),
         "--data-dir", str(out)],
        input=data, stdout=subprocess.DEVNULL, check=True, timeout=600,
    )
    return path


def write_page(binary: Path, path: Path) -> tuple[float, Path]:
    page = path.with_suffix(".html")
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([str(binary), "timeline", str(path), "-o", str(page)], check=True, timeout=120)
        best = min(best, time.perf_counter() - start)
    return best, page


def open_page(driver, page: Path) -> tuple[float, float, float]:
    """(wall seconds from get to ready, the page's loadMs, ms to show the last step's state)."""
    wall = browser.open_page(driver, page, timeout=120)
    load = driver.execute_script("return window.timeline.loadMs")
    select = driver.execute_script(
        "const t0 = performance.now(); window.timeline.select(window.timeline.steps - 1);"
        " return performance.now() - t0;")
    return wall, load, select


def rows(binary: Path, out: Path) -> list[tuple[str, str, str]]:
    recordings = [recording(binary, out, size) for size in SIZES]
    pages = [write_page(binary, path) for path in recordings]
    result = [(
        f"timeline: writing the page for {SIZES[0]:,} / {SIZES[-1]:,} recorded actions",
        " / ".join(f"{seconds * 1000:,.0f} ms" for seconds, _ in pages),
        f"{pages[-1][0] / pages[0][0]:.1f}× for {SIZES[-1] // SIZES[0]}× the actions; "
        f"{pages[-1][1].stat().st_size / 1e6:.1f} MB",
    )]
    if browser is None or not Path(browser.CHROMEDRIVER).exists():
        return result + [("timeline: opening the page", "skipped", "needs chromium, chromedriver, selenium")]
    driver = browser.chromium()
    try:
        # Each page twice, the faster kept: the first page a browser opens pays its start-up.
        opened = [min(open_page(driver, page), open_page(driver, page)) for _, page in pages]
    finally:
        driver.quit()
    result.append((
        f"timeline: opening it in headless Chromium, {SIZES[0]:,} / {SIZES[-1]:,} actions (wall)",
        " / ".join(f"{wall * 1000:,.0f} ms" for wall, _, _ in opened),
        "< 2 s at 100,000",
    ))
    result.append((
        "timeline: the page's own load time (loadMs)",
        " / ".join(f"{load:,.0f} ms" for _, load, _ in opened), "",
    ))
    result.append((
        "timeline: showing the last step's state and difference",
        " / ".join(f"{select:,.0f} ms" for _, _, select in opened), "",
    ))
    return result


if __name__ == "__main__":
    import tempfile

    binary = Path(sys.argv[1] if len(sys.argv) > 1 else ".build/release/composable-actor").resolve()
    with tempfile.TemporaryDirectory() as folder:
        for name, value, target in rows(binary, Path(folder)):
            print(f"{name}  {value}  {target}")
