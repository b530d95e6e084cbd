#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: installs what is missing,
# builds, and runs every test (lit suite). Exits non-zero on any failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
bash "$root/scripts/build.sh" check-amp
