"""The figures for `simulate`: generated steps per second per store, and the time to find and
shrink each bug planted in the test-only stores (Tests/ComposableHarnessTests/SimulationTests,
and the crash in Tests/planted-stores).

Steps per second: `simulate --store S --seed K --steps N` over three seeds, wall time of the
whole process (start-up included), the median; and per CPU second (user + system of the
process), which other load on the machine changes far less than the wall time. A store that breaks is reported as such: its
time then includes shrinking. The planted bugs run in the unit-test bundle, which times each
test (find + shrink + the shrunk scenario run once more through `test`).
"""

import argparse
import json
import re
import resource
import statistics
import subprocess
import time
from pathlib import Path

PLANTED = {
    "off-by-one breaking --check": "testFindsAndShrinksAnOffByOneThatBreaksACheck",
    "effect that ignores cancellation": "testFindsAndShrinksAnEffectThatCancellingCannotEnd",
    "equal long list assigned": "testFindsAndShrinksAnEqualAssignmentThatPatches",
    "effect failing uncaught": "testFindsAnEffectThatFailsUncaught",
    "invariant the store declares": "testFindsAndShrinksABrokenInvariantTheStoreDeclares",
    "reducer reading a global (its recording replays otherwise)":
        "testFindsAndShrinksAReducerThatAReplayOfItsRecordingDoesNotReproduce",
    "effect failure not declared possible (and a run of declared ones)":
        "testAnEffectFailureTheStoreDeclaresPossibleIsNoBugAndAnotherIs",
}


def stores(binary: Path) -> list[str]:
    out = subprocess.run([str(binary), "describe"], capture_output=True, text=True, check=True)
    return [store["name"] for store in json.loads(out.stdout)["stores"]]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def steps_per_second(binary: Path, store: str, steps: int, seeds: int) -> tuple[float, float, int]:
    rates, cpu_rates, broke = [], [], 0
    for seed in range(1, seeds + 1):
        cpu = children_cpu()
        start = time.perf_counter()
        result = subprocess.run(
            [str(binary), "simulate", "--store", store, "--seed", str(seed), "--steps", str(steps),
             "--format", "json"],
            capture_output=True, text=True, timeout=1200,
        )
        elapsed = time.perf_counter() - start
        cpu = children_cpu() - cpu
        line = json.loads(result.stdout.splitlines()[0])
        broke += not line["ok"]
        rates.append(line["steps"] / elapsed)
        cpu_rates.append(line["steps"] / cpu)
    return statistics.median(rates), statistics.median(cpu_rates), broke


def planted(tests: Path) -> dict[str, float]:
    seconds = {}
    for name, test in PLANTED.items():
        out = subprocess.run(
            [str(tests), f"ComposableHarnessTests.SimulationTests/{test}"],
            capture_output=True, text=True, timeout=600,
        )
        match = re.search(rf"'SimulationTests.{test}' passed \(([0-9.]+) seconds\)", out.stdout + out.stderr)
        seconds[name] = float(match.group(1)) if match else float("nan")
    return seconds


def crash(planted: Path) -> tuple[float, dict]:
    """Finding and shrinking the crash planted in Tests/planted-stores: wall seconds and the
    store's result line."""
    start = time.perf_counter()
    result = subprocess.run(
        [str(planted), "simulate", "--store", "cursor", "--seed", "1", "--steps", "200",
         "--format", "json"],
        capture_output=True, text=True, timeout=600,
    )
    return time.perf_counter() - start, json.loads(result.stdout.splitlines()[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--actor", type=Path, required=True, help="a composable-actor binary")
    parser.add_argument("--todo-actor", type=Path, help="Examples/custom-store's binary")
    parser.add_argument("--tests", type=Path, help="ComposableActorPackageTests.xctest")
    parser.add_argument("--planted", type=Path, help="Tests/planted-stores' binary")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    print(f"simulate: steps per second ({args.steps} steps, median of {args.seeds} seeds)")
    print("| store | steps/s | steps per CPU s | seeds that broke |")
    print("|---|---|---|---|")
    binaries = [args.actor] + ([args.todo_actor] if args.todo_actor else [])
    for binary in binaries:
        for store in stores(binary):
            rate, cpu_rate, broke = steps_per_second(binary, store, args.steps, args.seeds)
            print(f"| {store} | {rate:,.0f} | {cpu_rate:,.0f} | {broke} |")
    if args.tests:
        print()
        print("planted bugs: find + shrink + rerun the shrunk scenario (debug test bundle)")
        print("| bug | seconds |")
        print("|---|---|")
        for name, seconds in planted(args.tests).items():
            print(f"| {name} | {seconds:.3f} |")
    if args.planted:
        seconds, line = crash(args.planted)
        failure = line["failure"]
        print()
        print("planted crash (a cursor past its list, read): find + shrink, each try a process")
        print(f"found after {failure['step']} steps, shrunk to {failure['shrunkSteps']} steps in "
              f"{failure['shrinkRuns']} runs, {seconds:.3f} s")


if __name__ == "__main__":
    main()
