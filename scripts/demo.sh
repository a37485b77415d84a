#!/usr/bin/env bash
# Pipes every example through the binary, with the fixture server (Tests/servers) standing in
# for the todos, votes and Wolfram|Alpha APIs and ws_servers.py for the echo server, so the demo
# needs no internet.
set -euo pipefail
binary=${1:-.build/release/composable-actor}
root=$(cd "$(dirname "$0")/.." && pwd)

# The server lives as long as its stdin, which this shell holds open on fd 3.
coproc server { exec python3 "$root/Tests/servers/fixture_server.py" --port 0; }
exec 3>&"${server[1]}"
read -r ready <&"${server[0]}"
url=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["url"])' "$ready")
coproc websockets { exec python3 "$root/Tests/servers/ws_servers.py" --port 0; }
exec 4>&"${websockets[1]}"
read -r ready <&"${websockets[0]}"
ws_url=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["url"])' "$ready")
trap 'exec 3>&- 4>&-' EXIT

run() {
  echo "\$ composable-actor $* < $example" >&2
  "$binary" "$@" < "$root/$example"
  echo >&2
}

example=Examples/primes.jsonl run --data-dir "$(mktemp -d)"
# The auto refresh ticks every 3 s: --linger 3.5 shows one tick, then cancels the timer.
example=Examples/randomTodo.jsonl run --todos-url "$url" --seed 1 --linger 3.5
example=Examples/votes.jsonl run --votes-url "$url"
# The send comes before the socket opened: it shows the case study's alert. The connection then
# opens and receives the welcome; --linger 1 ends the demo, cancelling the connection.
example=Examples/websocket.jsonl run --websocket-url "$ws_url/echo" --linger 1

# The scenario files: TCA-style tests of every store, on a virtual clock with scripted
# dependencies (docs/SCENARIOS.md).
echo "\$ composable-actor test Examples/scenarios/*.jsonl" >&2
"$binary" test "$root"/Examples/scenarios/*.jsonl
