#!/usr/bin/env bash
# Installs the Debian packages the build needs, and any named as arguments, only those missing.
set -euo pipefail
# libwebsockets loads its libuv event-loop plugin at run time: libwebsockets-evlib-uv is not a
# dependency of the library package, so it is named here.
packages=(
  pkg-config libuv1-dev libprimesieve-dev libcurl4-openssl-dev ca-certificates
  libwebsockets-dev libwebsockets-evlib-uv libsqlite3-dev libpq-dev "$@"
)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} > 0)); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
