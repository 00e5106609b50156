#!/usr/bin/env bash
# Everything that needs a GPU, in one command (device time is scarce; one machine
# start instead of several). Run from the repository root on a machine with an
# NVIDIA GPU, torch and cuda-python; missing pure-Python wheels (lark) may be
# carried in .whl/, the tileiras cubin in .gpu-artifacts/ (make_tileiras_cubin.sh).
#     bash benchmarks/gpu_session.sh [tests|bench|attention|tiles|all]   (default all)
#     bash benchmarks/gpu_session.sh prep    (here, no GPU: tileiras cubins per tile size)
# `tiles` times the matmul example at the tile sizes in $TILES (BMxBNxBK ...) for
# tilec (mma.sync, wgmma, sm_80 PTX) next to tileiras's cubin of the same text.
# Logs go to $OUT (or ./gpu-out) : gpu-tests.log, matmul-*.log, junit.xml.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUTDIR=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUTDIR"
WHAT=${1:-all}
TILES=${TILES:-64x64x32 128x64x64 128x128x32 128x128x64 128x256x64 256x128x64}
if [ "$WHAT" = prep ]; then
  for k in attention_m128_f16 attention_m128_f16_aligned; do
    bash benchmarks/make_tileiras_cubin.sh ".gpu-artifacts/$k.sm_90.cubin" "examples/cutile/$k.mlir" \
      | grep kernels || exit 1
  done
  for t in $TILES; do
    python3 benchmarks/matmul_gpu.py --tile "$t" --write-kernel ".gpu-artifacts/matmul_$t.mlir" || exit 1
    bash benchmarks/make_tileiras_cubin.sh ".gpu-artifacts/matmul_$t.sm_90.cubin" ".gpu-artifacts/matmul_$t.mlir" \
      | grep kernels || exit 1
  done
  # cuTile's own 16-aligned matmul (TMA, setmaxnreg, wgmma in flight), for `cutile`
  for t in /work/shared/tools/reference-toolchain.sh "$ROOT/../shared/tools/reference-toolchain.sh"; do
    [ -f "$t" ] || continue
    # shellcheck disable=SC1090
    source "$t" >/dev/null && "${TILEIR_REF:-/tmp/tileir-ref}/bin/python" benchmarks/export_cutile_matmul.py \
      .gpu-artifacts 128x128x64 128x256x64 bf16:128x128x64 fp8:128x128x128 || exit 1
    break
  done
  exit 0
fi
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$ROOT
else
  export PYTHONPATH=$ROOT
fi
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true

if [ "$WHAT" = all ] || [ "$WHAT" = tests ]; then
  python3 -m pytest tests/gpu -q -rs -n 8 -p no:cacheprovider --junitxml="$OUTDIR/junit.xml" \
    2>&1 | tee "$OUTDIR/gpu-tests.log" | tail -40
fi

if [ "$WHAT" = all ] || [ "$WHAT" = bench ]; then
  CUBIN=.gpu-artifacts/matmul_f16.sm_90.cubin
  PEER=(); [ -f "$CUBIN" ] && PEER=(--tileiras-cubin "$CUBIN")
  for variant in "--arch sm_90a" "--arch sm_90a --no-wgmma" "--arch sm_80"; do
    tag=$(echo "$variant" | tr -c 'a-z0-9\n' '_' | tr -s _)
    echo "=== matmul_gpu.py $variant"
    # shellcheck disable=SC2086
    python3 benchmarks/matmul_gpu.py --require-gpu $variant "${PEER[@]}" --save-ptx "$OUTDIR/matmul$tag.ptx" \
      2>&1 | tee "$OUTDIR/matmul$tag.log" | tail -12
  done
fi

if [ "$WHAT" = all ] || [ "$WHAT" = bench ] || [ "$WHAT" = attention ]; then
  # the example as cuTile specializes it for any tensors, then for 16-aligned ones (TMA)
  for k in attention_m128_f16 attention_m128_f16_aligned; do
    CUBIN=.gpu-artifacts/$k.sm_90.cubin
    PEER=(); [ -f "$CUBIN" ] && PEER=(--tileiras-cubin "$CUBIN")
    for variant in "--arch sm_90a" "--arch sm_90a --no-wgmma" "--arch sm_80"; do
      tag=$(echo "$k $variant" | tr -c 'a-z0-9\n' '_' | tr -s _)
      echo "=== attention_gpu.py $k $variant"
      # shellcheck disable=SC2086
      python3 benchmarks/attention_gpu.py --require-gpu --kernel "examples/cutile/$k.mlir" $variant "${PEER[@]}" \
        --save-ptx "$OUTDIR/attention$tag.ptx" 2>&1 | tee "$OUTDIR/attention$tag.log" | tail -10
    done
  done
fi

if [ "$WHAT" = all ] || [ "$WHAT" = tiles ]; then
  for t in $TILES; do
    CUBIN=.gpu-artifacts/matmul_$t.sm_90.cubin
    PEER=(); [ -f "$CUBIN" ] && PEER=(--tileiras-cubin "$CUBIN")
    for variant in "--arch sm_90a" "--arch sm_90a --no-wgmma" "--arch sm_80"; do
      echo "=== tile $t $variant"
      # shellcheck disable=SC2086
      python3 benchmarks/matmul_gpu.py --require-gpu --tile "$t" $variant "${PEER[@]}" --reps 20 --warmup 3 2>&1 \
        | grep -E "^(tilec|tileiras|torch|!!!|ratio|matmul_gpu)" | grep -v "result ok"
    done
  done 2>&1 | tee "$OUTDIR/tiles.log"
fi

# cuTile's own matmul (benchmarks/export_cutile_matmul.py writes these into
# .gpu-artifacts/ on a machine with the reference toolchain): tilec on NVIDIA's
# front end's text next to tileiras on its bytecode.
if [ "$WHAT" = all ] || [ "$WHAT" = cutile ]; then
  for k in .gpu-artifacts/cutile_matmul_*.mlir; do
    [ -f "$k" ] || continue
    for size in 4096 8192; do
      for variant in "--arch sm_90a" "--arch sm_90a --no-wgmma" "--arch sm_90a --num-warps 8"; do
        echo "=== $k $size $variant"
        # shellcheck disable=SC2086
        python3 benchmarks/matmul_gpu.py --require-gpu --kernel "$k" --size "$size" $variant \
          --tileiras-cubin "${k%.mlir}.sm_90.cubin" --reps 20 --warmup 3 2>&1 \
          | grep -E "^(tilec|tileiras|torch|!!!|ratio|matmul_gpu)" | grep -v "result ok"
      done
    done
  done 2>&1 | tee "$OUTDIR/cutile.log"
fi
