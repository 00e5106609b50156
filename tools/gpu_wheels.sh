#!/usr/bin/env bash
# Download the pure-Python wheels tilec needs that the GPU machine lacks (lark,
# filecheck) into .whl/, at the versions installed here, for tools/gpu_check.sh
# to install there (that machine cannot reach a package index). .whl/ is kept
# out of git through .git/info/exclude and travels to the GPU machine as a
# carried path. Run here, from anywhere in the checkout:
#     bash tools/gpu_wheels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
EXCLUDE=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$EXCLUDE")" .whl
grep -qxF '/.whl/' "$EXCLUDE" 2>/dev/null || echo '/.whl/' >> "$EXCLUDE"

for pkg in lark filecheck; do
  ver=$(python3 -c "import importlib.metadata as m; print(m.version('$pkg'))")
  rm -f .whl/"${pkg}"-*.whl
  # pure-Python wheels (py3-none-any); --python-version: the GPU machine's python3 is 3.12
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d .whl "$pkg==$ver"
done
# what else they would need (none expected: both have no required dependencies)
for w in .whl/*.whl; do
  deps=$(python3 - "$w" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
print(" ".join(l.split(":", 1)[1].strip() for l in z.read(meta).decode().splitlines()
               if l.startswith("Requires-Dist:") and "extra ==" not in l))
PY
)
  echo "$(basename "$w")${deps:+  (requires: $deps)}"
done
