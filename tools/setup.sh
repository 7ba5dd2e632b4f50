#!/usr/bin/env bash
# Installs what the host build and tests need (the Python package's tests: NumPy, pytest), from
# Debian packages; `tools/setup.sh fuzz` adds clang-19 and its sanitizer runtimes for the fuzz
# preset (libFuzzer). Idempotent: a package already installed is not asked for again, so re-running
# costs nothing.
set -euo pipefail

packages=(cmake ninja-build g++ libgtest-dev libgmock-dev libbenchmark-dev ccache python3-numpy python3-pytest)
[[ ${1:-} == fuzz ]] && packages+=(clang-19 libclang-rt-19-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: host build dependencies present"
fi
