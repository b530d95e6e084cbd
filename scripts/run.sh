#!/usr/bin/env bash
# The main job: set up, build, then run the autocast pipeline on an example
# and show the result and the pass statistics.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
opt="${AMP_BUILD_DIR:-$root/build}/bin/amp-opt"
example="$root/examples/mlp_autocast.mlir"
echo "== $example"
cat "$example"
echo "== amp-opt $example -canonicalize"
"$opt" "$example" -canonicalize
