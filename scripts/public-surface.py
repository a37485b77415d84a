#!/usr/bin/env python3
"""The public API each module shows a package that depends on this one: the symbols
`swift package dump-symbol-graph` emits at public access (synthesized members skipped),
counted per module, with the types among them. Declarations marked `@_spi(Hosting)`, the
process's parts that only this package's own modules import, are not counted: without
`--include-spi-symbols` the symbol graph leaves them out, as the compiler hides them from a
package that imports the module plainly. Run from the package's root after a debug build;
`--types` lists the public types too."""
import json
import pathlib
import subprocess
import sys

TYPE_KINDS = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias"}
OURS = ["Locks", "StateCollections", "ComposableCore", "ComposableTestSupport", "JSON",
        "EventLoop", "Networking", "Protocol", "Storage", "ComposableDependencies",
        "ComposableRuntime", "ComposableHarness", "ComposableActor"]

# It exits non-zero for the C targets, which have no symbol graph; ours are written all the same.
run = subprocess.run(
    ["swift", "package", "dump-symbol-graph", "--skip-synthesized-members",
     "--minimum-access-level", "public"],
    capture_output=True, text=True)
written = [line for line in run.stdout.splitlines() if line.startswith("Files written to ")]
if not written:
    sys.exit(run.stdout + run.stderr)
folder = pathlib.Path(written[-1].removeprefix("Files written to "))
symbols: dict[str, int] = {}
types: dict[str, list[str]] = {}
for path in sorted(folder.glob("*.symbols.json")):
    module = path.name.split(".")[0].split("@")[0]
    if module not in OURS:
        continue
    graph = json.loads(path.read_text())
    for symbol in graph["symbols"]:
        symbols[module] = symbols.get(module, 0) + 1
        if symbol["kind"]["identifier"] in TYPE_KINDS:
            types.setdefault(module, []).append(".".join(symbol["pathComponents"]))
print(f"{'module':24}{'symbols':>8}{'types':>7}")
for module in OURS:
    print(f"{module:24}{symbols.get(module, 0):>8}{len(types.get(module, [])):>7}")
print(f"{'total':24}{sum(symbols.values()):>8}{sum(len(t) for t in types.values()):>7}")
if "--types" in sys.argv:
    for module in OURS:
        print(f"{module}: {', '.join(sorted(types.get(module, [])))}")
