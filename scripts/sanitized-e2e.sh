#!/usr/bin/env bash
# Runs end-to-end tests through a sanitized binary and fails on any report.
#
#   scripts/sanitized-e2e.sh address|thread BINARY [TEST_PATH...]   (default: Tests/e2e)
#
# Every process the tests start writes its reports to a file of its own (log_path), so none is
# lost in a test's captured stderr; the run fails if any file exists, and prints them. Tests
# that bound memory or speed skip themselves (COMPOSABLE_ACTOR_SANITIZED=1). The caller sets the
# sanitizer's other options (ASAN_OPTIONS or TSAN_OPTIONS) and LSAN_OPTIONS; E2E_DEADLINE, if
# set, prefixes the pytest command (a timeout).
set -euo pipefail
cd "$(dirname "$0")/.."
kind="$1" binary="$2"
shift 2
[[ $# -gt 0 ]] || set -- Tests/e2e

reports="$(mktemp -d)"
trap 'rm -rf "$reports"' EXIT
case "$kind" in
  address) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$reports/report" ;;
  thread) export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$reports/report" ;;
  *) echo "usage: $0 address|thread BINARY [TEST_PATH...]" >&2; exit 64 ;;
esac
# The sanitizer reports crashes itself; Swift's backtracer attaching to it can hang.
export SWIFT_BACKTRACE=enable=no COMPOSABLE_ACTOR_SANITIZED=1 COMPOSABLE_ACTOR_BIN="$PWD/$binary"

status=0
${E2E_DEADLINE:-} python3 -m pytest -q --durations=15 "$@" -p no:cacheprovider || status=$?
if compgen -G "$reports/report*" >/dev/null; then
  echo "$kind sanitizer reports:"
  cat "$reports"/report*
  exit 1
fi
echo "no $kind sanitizer report"
exit "$status"
