#!/usr/bin/env bash
# NVIDIA's cubin of examples/cutile/matmul_f16.mlir, for `benchmarks/matmul_gpu.py
# --tileiras-cubin`. Runs on a machine without a GPU: tilec writes Tile IR bytecode
# (`tilec opt K.mlir --emit-bytecode`), NVIDIA's tileiras (from the reference
# toolchain, shared/tools/reference-toolchain.sh) compiles it:
#     tileiras --gpu-name=sm_90 K.tilebc -o K.sm_90.cubin
#     bash benchmarks/make_tileiras_cubin.sh [OUT.cubin] [KERNEL.mlir] [GPU_NAME]
# Defaults: .gpu-artifacts/matmul_f16.sm_90.cubin (kept out of git by
# .git/info/exclude; carry `.gpu-artifacts` to the GPU machine), the matmul
# example, sm_90 (tileiras's names: sm_80, sm_90, sm_100, ...; no "a" suffix).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/.gpu-artifacts/matmul_f16.sm_90.cubin}
SRC=${2:-$ROOT/examples/cutile/matmul_f16.mlir}
GPU=${3:-sm_90}
TOOLCHAIN=${REFERENCE_TOOLCHAIN:-}
for t in "$TOOLCHAIN" "$ROOT/../shared/tools/reference-toolchain.sh" /work/shared/tools/reference-toolchain.sh; do
  if [ -n "$t" ] && [ -f "$t" ]; then TOOLCHAIN=$t; break; fi
done
[ -f "$TOOLCHAIN" ] || { echo "make_tileiras_cubin: reference-toolchain.sh not found (set REFERENCE_TOOLCHAIN)" >&2; exit 1; }

case "$OUT" in
  "$ROOT"/.gpu-artifacts/*)
    EXCLUDE=$(git -C "$ROOT" rev-parse --git-path info/exclude)
    case "$EXCLUDE" in /*) ;; *) EXCLUDE=$ROOT/$EXCLUDE ;; esac
    grep -qxF '/.gpu-artifacts/' "$EXCLUDE" 2>/dev/null || echo '/.gpu-artifacts/' >> "$EXCLUDE" ;;
esac
mkdir -p "$(dirname "$OUT")"
BC=${OUT%.cubin}.tilebc

# tilec first: the toolchain puts its own python3 (without tilec) first on PATH
PY=$(command -v python3)
"$PY" -c 'import sys; from tilec.cli import main; sys.exit(main(sys.argv[1:]))' opt "$SRC" --emit-bytecode -o "$BC"

# shellcheck disable=SC1090
source "$TOOLCHAIN" >/dev/null
echo "+ tileiras --gpu-name=$GPU $BC -o $OUT   ($(tileiras --version | grep -m1 release))"
tileiras --gpu-name="$GPU" "$BC" -o "$OUT"
if command -v cuobjdump >/dev/null; then
  echo "kernels: $(cuobjdump --dump-elf "$OUT" | grep -A2 'EIATTR_REQNTID' | grep -m1 Value || true) (REQNTID: x y z)"
fi
ls -l "$OUT"
