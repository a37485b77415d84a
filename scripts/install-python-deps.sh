#!/usr/bin/env bash
# Installs the named PyPI packages that the running python3 cannot import, with pip.
# Arguments are "module" or "module=package" (when the two names differ).
set -euo pipefail
missing=()
for spec in "$@"; do
  module=${spec%%=*}
  package=${spec#*=}
  if ! python3 -c "import $module" 2>/dev/null; then missing+=("$package"); fi
done
if ((${#missing[@]} > 0)); then
  echo "installing: ${missing[*]}" >&2
  python3 -m pip install --quiet --disable-pip-version-check "${missing[@]}"
fi
