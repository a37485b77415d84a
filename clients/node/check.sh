#!/usr/bin/env bash
# Every check of the Node client, against the binary in $COMPOSABLE_ACTOR_BIN (an absolute path):
# the tests, the checked-in .d.ts files against fresh ones, tsc --strict over the sources, the
# example and TypeScript consumers (one of the typed view, with the generated stores.d.ts), then
# the packed module installed into a fresh project and driving the binary found on PATH.
# TEST_STEP_SECONDS (600) bounds each step, as in the Makefile.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
: "${COMPOSABLE_ACTOR_BIN:?set COMPOSABLE_ACTOR_BIN to the binary (an absolute path)}"
binary=$(realpath "$COMPOSABLE_ACTOR_BIN")
deadline=(stdbuf -oL -eL timeout --kill-after=10 "${TEST_STEP_SECONDS:-600}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
step() { echo "== node client: $*"; }

step "tests"
"${deadline[@]}" node --test test/

step "the checked-in .d.ts files are the ones generate-types.sh makes"
"${deadline[@]}" ./generate-types.sh "$tmp/types"
for name in index patch; do
  diff -u "$name.d.ts" "$tmp/types/$name.d.ts" ||
    { echo "$name.d.ts is stale: run clients/node/generate-types.sh" >&2; exit 1; }
done

# Debian has no @types/node: test/types/node.d.ts stands in for it (the part of Node used here),
# as the `node` types of a types root.
types_node() {
  mkdir -p "$1/node"
  echo '{"name": "@types/node", "version": "0.0.0", "types": "index.d.ts"}' >"$1/node/package.json"
  cp test/types/node.d.ts "$1/node/index.d.ts"
}
types_node "$tmp/types-root"
check_js=(tsc --strict --noEmit --allowJs --checkJs --target es2022 --module es2022 --moduleResolution node
  --lib es2022 --typeRoots "$tmp/types-root" --types node)
step "tsc --strict over index.js, patch.js and typed.js"
"${deadline[@]}" "${check_js[@]}" index.js patch.js typed.js
# The example imports index.js, so it is checked against index.d.ts, as a program using it is.
step "tsc --strict over Examples/clients/tour.mjs"
"${deadline[@]}" "${check_js[@]}" ../../Examples/clients/tour.mjs

step "Examples/clients/tour.mjs runs"
"${deadline[@]}" node ../../Examples/clients/tour.mjs --binary "$binary" >"$tmp/tour.out"
grep -q "^websocket: echo of 'Hello' with the id of the connect: true$" "$tmp/tour.out" ||
  { cat "$tmp/tour.out"; echo "tour.mjs: no echo of Hello" >&2; exit 1; }

step "npm pack, installed offline into a fresh project"
"${deadline[@]}" npm pack --silent --pack-destination "$tmp" . >/dev/null
project="$tmp/project"
mkdir -p "$project/bin"
echo '{"name": "consumer", "private": true, "type": "module"}' >"$project/package.json"
(cd "$project" && "${deadline[@]}" npm install --offline --no-audit --no-fund --silent "$tmp"/composable-actor-*.tgz)
types_node "$project/node_modules/@types"
cp test/types/consumer.ts test/types/misuse.ts "$project/"

check_ts=(tsc --strict --noEmit --target es2022 --lib es2022 --module node16 --moduleResolution node16)
step "tsc --strict over a TypeScript consumer of the packed module"
(cd "$project" && "${deadline[@]}" "${check_ts[@]}" consumer.ts)
step "tsc --strict over a consumer of the typed view, with the generated stores.d.ts"
cp test/types/typed.ts "$project/"
cp ../../Examples/clients/types/stores.d.ts "$project/"
(cd "$project" && "${deadline[@]}" "${check_ts[@]}" typed.ts)
step "tsc rejects a number as the store"
if (cd "$project" && "${deadline[@]}" "${check_ts[@]}" misuse.ts >"$tmp/misuse.out" 2>&1); then
  echo "tsc accepted misuse.ts" >&2
  exit 1
fi
grep -q "misuse.ts(5,[0-9]*): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'" "$tmp/misuse.out" ||
  { cat "$tmp/misuse.out"; echo "tsc rejected misuse.ts, but not for the number as store" >&2; exit 1; }

step "the packed module drives the binary found on PATH, then in the build folder"
cat >"$project/drive.mjs" <<'EOF'
import { Client, findBinary } from 'composable-actor';
const [expected] = process.argv.slice(2);
if (process.env.COMPOSABLE_ACTOR_BIN !== undefined) throw new Error('COMPOSABLE_ACTOR_BIN is set');
if (findBinary() !== expected) throw new Error(`found ${findBinary()}, not ${expected}`);
const actor = await Client.start({ args: ['--data-dir', process.env.DATA_DIR ?? ''] });
try {
  await actor.send('primes', 'counter.countChanged', { value: 7 });
  const lines = await actor.send('primes', 'counter.nthPrimeButtonTapped', {}, { until: 'counter.nthPrimeResponse' });
  if (lines.at(-1)?.action.value !== 17) throw new Error(`the 7th prime: ${JSON.stringify(lines)}`);
} finally {
  console.log('closed', await actor.close());
}
EOF
ln -s "$binary" "$project/bin/composable-actor"
node=$(command -v node)
(cd "$project" && env -u COMPOSABLE_ACTOR_BIN PATH="$project/bin:/usr/bin:/bin" DATA_DIR="$tmp" \
  "${deadline[@]}" "$node" drive.mjs "$project/bin/composable-actor")
# Relative to the installed module, ../../.build/release is the project's own build folder.
mkdir -p "$project/.build/release"
ln -s "$binary" "$project/.build/release/composable-actor"
(cd "$project" && env -u COMPOSABLE_ACTOR_BIN PATH="/usr/bin:/bin" DATA_DIR="$tmp" \
  "${deadline[@]}" "$node" drive.mjs "$project/.build/release/composable-actor")
