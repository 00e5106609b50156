#!/usr/bin/env bash
# Everything that needs a GPU, in one command (device time is scarce; one machine
# start instead of several). Run from the repository root on a machine with an
# NVIDIA GPU, torch and cuda-python; missing pure-Python wheels (lark) may be
# carried in .whl/, the tileiras cubin in .gpu-artifacts/ (make_tileiras_cubin.sh).
#     bash benchmarks/gpu_session.sh [STEP[,STEP...]|all]   (default all: every step but tiles)
#       steps: tests attention bmm bench (= cutile) overhead ab firstfills tmap profile tiles tilegym tilegym-time
#              tilegym-tests
#     bash benchmarks/gpu_session.sh prep    (here, no GPU: tileiras cubins per tile size)
# VARIANTS (default "sm_90a sm_80") are the targets `attention` and `bmm` time.
# BUDGET=S (default 540) bounds the whole run: each step gets at most what is left, so
# the logs of the steps that ran come back even when the device's time runs out.
# `tilegym` replays the TileGym corpus (TILEGYM_CORPUS, default .gpu-artifacts/tilegym;
# tilegym_gpu_diff.py --prepare makes it) with tilec's cubins against tileiras's, then
# times them; `tilegym-time` only times (device times from CUDA graphs);
# `tilegym-tests` runs TileGym's own ops tests under both compilers (tilegym_gpu.sh);
# TILEGYM_BMM=0 leaves out its test_bmm.py part, TILEGYM_BMM=only runs that part alone.
# `tiles` times the matmul example at the tile sizes in $TILES (BMxBNxBK ...) for
# tilec (mma.sync, wgmma, sm_80 PTX) next to tileiras's cubin of the same text.
# Logs go to $OUT (or ./gpu-out): gpu-tests.log, attention.log, bmm.log, matmul.log,
# tilegym.log/json, tilegym.txt (at most 8 files come back from a device call).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUTDIR=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUTDIR"
WHAT=${1:-all}
BUDGET=${BUDGET:-540}
START=$SECONDS
left() {   # seconds a step may take: its own cap, or what is left of BUDGET
  local rest=$((BUDGET - (SECONDS - START)))
  [ "$rest" -lt "$1" ] && echo $((rest > 5 ? rest : 5)) || echo "$1"
}
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
  # the same at 256x128x64 with num_ctas=2 (the cluster example), for `cutile`
  bash benchmarks/make_tileiras_cubin.sh .gpu-artifacts/cutile_matmul_256x128x64_cga2.sm_90.cubin \
    examples/cutile/matmul_cluster_f16_aligned.mlir | grep kernels || exit 1
  # cuTile's own 16-aligned matmul (TMA, setmaxnreg, wgmma in flight), for `cutile`
  # the reference toolchain puts its own (newer) ptxas first on PATH: tilec's cubins keep this one
  TILEC_PTXAS=${TILEC_PTXAS:-$(command -v ptxas)}
  export TILEC_PTXAS
  for t in /work/shared/tools/reference-toolchain.sh "$ROOT/../shared/tools/reference-toolchain.sh"; do
    [ -f "$t" ] || continue
    # shellcheck disable=SC1090
    source "$t" >/dev/null && "${TILEIR_REF:-/tmp/tileir-ref}/bin/python" benchmarks/export_cutile_matmul.py \
      .gpu-artifacts 128x128x64 128x256x64 bf16:128x128x64 fp8:128x128x128 bmm:64x128x64 || exit 1
    break
  done
  # TileGym's own tests (`tilegym-tests`): its sources, cuTile's wheel for the device's
  # Python, and tileiras's binary xz-compressed (its wheels exceed what a call may carry)
  TG_SRC=${TILEGYM_DIR:-/tmp/TileGym}
  if [ -d "$TG_SRC/tests/ops" ]; then
    tar cJf .gpu-artifacts/tilegym-src.tar.xz -C "$TG_SRC" --exclude=__pycache__ src tests pytest.ini || exit 1
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      -d .whl "cuda-tile==${CUDA_TILE_VERSION:-1.7.0}" || exit 1
    # tileiras runs `ptxas` from its own folder (it passes flags CUDA 13.0's ptxas lacks)
    # and loads ../lib/libnvvm.so.4: the three travel as one tree, solid-compressed with a
    # dictionary large enough to share the LLVM both binaries hold (190 MB of tree -> 56)
    TREE=.gpu-artifacts/tileiras-tree.tar.xz
    if [ ! -f $TREE ] && command -v tileiras >/dev/null; then
      BIN=$(dirname "$(readlink -f "$(command -v tileiras)")")
      tar cf - -C "$BIN/.." --transform 's,^,tileiras/,' bin/tileiras bin/ptxas lib/libnvvm.so.4 \
        | xz -T1 --lzma2=preset=9e,dict=256MiB > $TREE || { rm -f $TREE; exit 1; }
    fi
  fi
  # the TileGym corpus, when benchmarks/tilegym_export.py has written it (TILEGYM_BC)
  if [ -f "${TILEGYM_BC:-/tmp/tilegym_bc}/manifest.json" ]; then
    python3 benchmarks/tilegym_gpu_diff.py "${TILEGYM_BC:-/tmp/tilegym_bc}" .gpu-artifacts/tilegym --prepare >/dev/null || exit 1
    cp "${TILEGYM_BC:-/tmp/tilegym_bc}/manifest.json" .gpu-artifacts/tilegym/
    tar cJf .gpu-artifacts/tilegym.tar.xz -C .gpu-artifacts tilegym && rm -r .gpu-artifacts/tilegym   # 45 MB -> 5
  fi
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

want() { [[ ",$WHAT," == *",$1,"* ]] || { [ "$WHAT" = all ] && [ "$1" != tiles ] && [ "$1" != tilegym-time ]; }; }   # tiles, tilegym-time: only when named
KEY='^(tilec|tileiras|torch|!!!|ratio|matmul_gpu|attention_gpu|device|matmul|attention)'

if want tests; then
  XDIST=(); python3 -c "import xdist" 2>/dev/null && XDIST=(-n 8)
  timeout "$(left 200)" python3 -m pytest tests/gpu -q -rs "${XDIST[@]}" -p no:cacheprovider \
    2>&1 | tee "$OUTDIR/gpu-tests.log" | grep -E "FAILED|ERROR|passed|failed" | tail -40
fi

# TileGym's kernels (the exported corpus): tilec's cubin against tileiras's on the same inputs
if want tilegym; then
  TG=${TILEGYM_CORPUS:-.gpu-artifacts/tilegym}
  [ -d "$TG" ] || [ ! -f .gpu-artifacts/tilegym.tar.xz ] || tar xJf .gpu-artifacts/tilegym.tar.xz -C .gpu-artifacts
  if [ -f "$TG/manifest.json" ]; then
    timeout "$(left 240)" python3 benchmarks/tilegym_gpu_diff.py "$TG" "$TG" --workers 6 --max-elements 1e7 --json "$OUTDIR/tilegym.json" \
      2>&1 | tee "$OUTDIR/tilegym.log" | grep -vE " ok +$" | tail -80
  else
    echo "tilegym: no corpus at $TG (tilegym_gpu_diff.py --prepare)"
  fi
fi

# the same corpus timed alone (no replay; CUDA-graph device times, runtime.time_graph_ms):
# TILEGYM_TIME_PER_KERNEL files of each kernel (default 1)
if want tilegym-time; then
  TG=${TILEGYM_CORPUS:-.gpu-artifacts/tilegym}
  [ -d "$TG" ] || [ ! -f .gpu-artifacts/tilegym.tar.xz ] || tar xJf .gpu-artifacts/tilegym.tar.xz -C .gpu-artifacts
  timeout "$(left 200)" python3 benchmarks/tilegym_gpu_diff.py "$TG" "$TG" --time-only \
    --time-per-kernel "${TILEGYM_TIME_PER_KERNEL:-1}" --json "$OUTDIR/tilegym-time.json" 2>&1 \
    | grep -E "^time|timing|graph" | tee "$OUTDIR/tilegym-time.log"
fi

# cuTile's flash attention as cuTile specializes it for any tensors, then for
# 16-aligned ones (TMA); tileiras's cubin of the same text beside it
if want attention; then
  for k in attention_m128_f16_aligned attention_m128_f16; do
    CUBIN=.gpu-artifacts/$k.sm_90.cubin
    PEER=(); [ -f "$CUBIN" ] && PEER=(--tileiras-cubin "$CUBIN")
    for arch in ${VARIANTS:-sm_90a sm_80}; do
      variant="--arch $arch"
      echo "=== attention_gpu.py $k $variant"
      # shellcheck disable=SC2086
      timeout "$(left 90)" python3 benchmarks/attention_gpu.py --require-gpu --kernel "examples/cutile/$k.mlir" \
        $variant "${PEER[@]}" 2>&1 | grep -E "$KEY"
    done
  done 2>&1 | tee "$OUTDIR/attention.log"
fi

# batched matmul (16 x 2048^3, 64x128x64 tiles, cuTile's 16-aligned specialization) against torch.bmm
if want bmm; then
  k=.gpu-artifacts/cutile_matmul_bmm_64x128x64
  for arch in ${VARIANTS:-sm_90a sm_80}; do
    variant="--arch $arch"
    echo "=== bmm $variant"
    # shellcheck disable=SC2086
    timeout "$(left 90)" python3 benchmarks/matmul_gpu.py --require-gpu --kernel "$k.mlir" --batch 16 --size 2048 \
      $variant --tileiras-cubin "$k.sm_90.cubin" 2>&1 | grep -E "$KEY"
  done 2>&1 | tee "$OUTDIR/bmm.log"
fi

# cuTile's own matmul (export_cutile_matmul.py): 16-aligned f16 at two sizes and two
# tiles, bf16, fp8 against torch._scaled_mm, and the unaligned example at 128x128x64
if want bench || want cutile; then
  run_mm() {   # label, matmul_gpu.py arguments
    echo "=== $1"; shift
    timeout "$(left 90)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 3 "$@" 2>&1 | grep -E "$KEY"
  }
  A=.gpu-artifacts
  {
    run_mm "f16 aligned 128x128x64 4096" --kernel $A/cutile_matmul_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin
    run_mm "f16 aligned 128x128x64 8192" --kernel $A/cutile_matmul_128x128x64.mlir --size 8192 --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin
    run_mm "f16 aligned 128x256x64 4096" --kernel $A/cutile_matmul_128x256x64.mlir --tileiras-cubin $A/cutile_matmul_128x256x64.sm_90.cubin
    run_mm "bf16 aligned 128x128x64 4096" --kernel $A/cutile_matmul_bf16_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_bf16_128x128x64.sm_90.cubin
    # num_ctas=2: each 256x128 tile block on a cluster of two CTAs, B multicast (both compilers)
    run_mm "f16 aligned 256x128x64 on 2 CTAs 4096" --kernel examples/cutile/matmul_cluster_f16_aligned.mlir --tileiras-cubin $A/cutile_matmul_256x128x64_cga2.sm_90.cubin
    run_mm "fp8 aligned 128x128x128 4096" --kernel $A/cutile_matmul_fp8_128x128x128.mlir --tileiras-cubin $A/cutile_matmul_fp8_128x128x128.sm_90.cubin
    run_mm "f16 unaligned 128x128x64 4096" --kernel $A/matmul_128x128x64.mlir --tileiras-cubin $A/matmul_128x128x64.sm_90.cubin
    run_mm "f16 unaligned 128x128x64 4096 sm_80" --arch sm_80 --kernel $A/matmul_128x128x64.mlir --tileiras-cubin $A/matmul_128x128x64.sm_90.cubin
  } 2>&1 | tee "$OUTDIR/matmul.log"
fi

# where the time of cuTile's aligned 128x128x64 matmul goes: M = N = 4096 at several K,
# both compilers, then overhead_fit.py parts each into a CTA's fixed cost (start-up,
# pipeline fill, epilogue) and its cost per K step
if want overhead; then
  A=.gpu-artifacts
  for k in ${OVERHEAD_K:-64 256 1024 4096}; do
    echo "=== overhead K=$k"
    timeout "$(left 60)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 3 --k "$k" \
      --kernel $A/cutile_matmul_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin 2>&1 | grep -E "$KEY"
  done 2>&1 | tee "$OUTDIR/overhead.log"
  python3 benchmarks/overhead_fit.py "$OUTDIR/overhead.log" | tee -a "$OUTDIR/overhead.log"
fi

# the tensor map's words that the driver fills and tensormap.replace cannot (tmap_probe.py),
# then the aligned matmul and the batched matmul with tilec's maps carrying them
# (TILEC_TMAP_RAW: the probe's RAW_EXTRA, when it found a rule for every such word; TMAP_RAW overrides)
if want tmap; then
  A=.gpu-artifacts
  timeout "$(left 60)" python3 benchmarks/tmap_probe.py 2>&1 | tee "$OUTDIR/tmap.log"
  EXTRA=${TMAP_RAW:-$(sed -n 's/^RAW_EXTRA=//p' "$OUTDIR/tmap.log")}
  [ -n "$EXTRA" ] || echo "tmap: no rule for the driver's extra words; the A/B is left out"
  for raw in "" ${EXTRA:+"$EXTRA"}; do
    echo "=== tmap aligned 128x128x64 4096 [TILEC_TMAP_RAW=$raw]"
    TILEC_TMAP_RAW=$raw timeout "$(left 60)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 3 \
      --kernel $A/cutile_matmul_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin 2>&1 | grep -E "$KEY"
    echo "=== tmap bmm 16x2048 64x128x64 [TILEC_TMAP_RAW=$raw]"
    TILEC_TMAP_RAW=$raw timeout "$(left 60)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 3 --batch 16 \
      --size 2048 --kernel $A/cutile_matmul_bmm_64x128x64.mlir --tileiras-cubin $A/cutile_matmul_bmm_64x128x64.sm_90.cubin \
      2>&1 | grep -E "$KEY"
  done 2>&1 | tee -a "$OUTDIR/tmap.log"
fi

# Nsight Compute on the first launch of tilec's and of tileiras's aligned 128x128x64
# matmul (matmul_gpu.py launches tilec's 21 times, then tileiras's): per-instruction
# stall samples (SASS) and the L1/L2 request tables, for where tilec's extra cycles go
if want profile; then
  A=.gpu-artifacts
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  MM=(python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 0
      --kernel $A/cutile_matmul_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin)
  for who in tilec:0 tileiras:21; do
    W=(-k regex:matmul_f16 --launch-skip "${who#*:}" --launch-count 1)
    P=/tmp/profile/${who%%:*}; mkdir -p /tmp/profile
    timeout "$(left 60)" "$NCU" --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
      --print-details all "${W[@]}" "${MM[@]}" > "$P.txt" 2>&1
    timeout "$(left 60)" "$NCU" --section SourceCounters --section WarpStateStats --page source --print-source sass --csv \
      "${W[@]}" "${MM[@]}" > "$P-sass.csv" 2>&1
    echo "profile ${who%%:*}: $(wc -l < "$P.txt") + $(wc -l < "$P-sass.csv") lines"
  done
  tar czf "$OUTDIR/profile.tgz" -C /tmp/profile .     # one file: few come back from a device call
fi

# A/B: this tree's tilec against PTX an earlier commit wrote for the same kernels
# (.gpu-artifacts/ab/KERNEL.COMMIT.ptx, made here without a GPU), in the same call
if want ab; then
  A=.gpu-artifacts
  for ptx in $A/ab/*.ptx; do
    [ -f "$ptx" ] || continue
    k=$(basename "$ptx"); k=${k%%.*}
    SHAPE=(); case $k in *bmm*) SHAPE=(--batch 16 --size 2048) ;; esac
    for run in "$ptx" now; do
      echo "=== ab $k: ${run##*/}"
      PTX=(); [ "$run" != now ] && PTX=(--ptx "$run")
      timeout "$(left 60)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 3 "${SHAPE[@]}" "${PTX[@]}" \
        --kernel $A/$k.mlir --tileiras-cubin $A/$k.sm_90.cubin 2>&1 | grep -E "$KEY"
    done
  done 2>&1 | tee "$OUTDIR/ab.log"
fi

# first fills (codegen/ptx/first_fills.py) against the maps-first start with its common-start
# wait (TILEC_FIRST_FILLS=0) and against first fills whose maps' batch ends at a CTA barrier
# (TILEC_FIRST_FILLS=barrier), the three builds in each matmul_gpu.py run (tilec / tilec_b /
# tilec_c), then each build's per-CTA stamps of the f16 GEMM (first_data against entry)
if want firstfills; then
  A=.gpu-artifacts
  ff() {   # label, kernel, matmul_gpu.py arguments: tilec_b without first fills, tilec_c without their gate
    local label=$1 k=$2; shift 2
    echo "=== first fills: $label"
    for b in 0:b barrier:c; do
      TILEC_FIRST_FILLS=${b%%:*} python3 -c "import sys; from tilec.codegen.ptx import compile_text
open(sys.argv[2], 'w').write(compile_text(open(sys.argv[1]).read(), arch='sm_90a'))" "$k" "/tmp/ff_${b##*:}.ptx" \
        || return
    done
    timeout "$(left 90)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 20 --warmup 3 --kernel "$k" \
      --ab-ptx /tmp/ff_b.ptx --ab-ptx /tmp/ff_c.ptx "$@" 2>&1 | grep -E "$KEY"
  }
  {
    ff "f16 128x128x64 4096" $A/cutile_matmul_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin
    ff "f16 128x128x64 8192" $A/cutile_matmul_128x128x64.mlir --size 8192 --tileiras-cubin $A/cutile_matmul_128x128x64.sm_90.cubin
    ff "bf16 128x128x64 4096" $A/cutile_matmul_bf16_128x128x64.mlir --tileiras-cubin $A/cutile_matmul_bf16_128x128x64.sm_90.cubin
    ff "fp8 128x128x128 4096" $A/cutile_matmul_fp8_128x128x128.mlir --tileiras-cubin $A/cutile_matmul_fp8_128x128x128.sm_90.cubin
    ff "f16 128x256x64 4096" $A/cutile_matmul_128x256x64.mlir --tileiras-cubin $A/cutile_matmul_128x256x64.sm_90.cubin
    ff "bmm 16x2048 64x128x64" $A/cutile_matmul_bmm_64x128x64.mlir --batch 16 --size 2048 \
      --tileiras-cubin $A/cutile_matmul_bmm_64x128x64.sm_90.cubin
    for build in 1 barrier 0; do
      TILEC_FIRST_FILLS=$build timeout "$(left 60)" python3 benchmarks/matmul_gpu.py --require-gpu --reps 3 --warmup 1 \
        --kernel $A/cutile_matmul_128x128x64.mlir --stamps "$OUTDIR/ff_stamps_$build.npz" 2>&1 | grep -E "$KEY"
    done
  } 2>&1 | tee "$OUTDIR/firstfills.log"
fi

if want tiles; then
  for t in $TILES; do
    CUBIN=.gpu-artifacts/matmul_$t.sm_90.cubin
    PEER=(); [ -f "$CUBIN" ] && PEER=(--tileiras-cubin "$CUBIN")
    for variant in "--arch sm_90a" "--arch sm_90a --no-wgmma" "--arch sm_80"; do
      echo "=== tile $t $variant"
      # shellcheck disable=SC2086
      timeout "$(left 90)" python3 benchmarks/matmul_gpu.py --require-gpu --tile "$t" $variant "${PEER[@]}" \
        --reps 20 --warmup 3 2>&1 | grep -E "$KEY" | grep -v "result ok"
    done
  done 2>&1 | tee "$OUTDIR/tiles.log"
fi

# TileGym's ops tests under tileiras and under tilec (benchmarks/tilegym_gpu.sh), from
# what `prep` carried: its sources, cuTile's wheel (in .whl) and tileiras's binary
if want tilegym-tests; then
  if [ -f .gpu-artifacts/tilegym-src.tar.xz ] && [ -f .gpu-artifacts/tileiras-tree.tar.xz ]; then
    mkdir -p /tmp/TileGym /tmp/tileiras-tree
    tar xJf .gpu-artifacts/tilegym-src.tar.xz -C /tmp/TileGym
    tar xJf .gpu-artifacts/tileiras-tree.tar.xz -C /tmp/tileiras-tree
    T=$(left 420)
    # test_bmm autotunes 18 configurations for each of its 128 shapes (TileGym's switch
    # does not reach it): it runs apart, on the shapes BMM_K picks, four workers at a time
    BMM_K=${TILEGYM_BMM_K:-test_op and (4-1024-512-511 or 4-1024-512-1024)}
    export OUT=/tmp/tilegym-logs TILEIRAS_BIN=/tmp/tileiras-tree/tileiras/bin CUTILE_MAX_LAUNCH_TIMEOUT_SEC=60
    [ "${TILEGYM_BMM:-1}" = only ] || JOBS=${TILEGYM_JOBS:-6} TIMEOUT=$((T * 3 / 5)) timeout "$((T * 4 / 5))" \
      bash benchmarks/tilegym_gpu.sh /tmp/TileGym "${TILEGYM_PATTERN:-.}" test_bmm.py
    T=$(left 420)
    [ "${TILEGYM_BMM:-1}" = 0 ] || KEXPR=$BMM_K XDIST=4 TIMEOUT=$((T / 2)) TABLE=tilegym-bmm.txt timeout "$T" \
      bash benchmarks/tilegym_gpu.sh /tmp/TileGym test_bmm.py
    # one file per compiler and test file: packed, since few files come back from a device call
    cat /tmp/tilegym-logs/tilegym.txt /tmp/tilegym-logs/tilegym-bmm.txt > "$OUTDIR/tilegym.txt" 2>/dev/null
    tar czf "$OUTDIR/tilegym-logs.tgz" -C /tmp/tilegym-logs .
  else
    echo "tilegym-tests: run 'gpu_session.sh prep' where TileGym and the reference toolchain are"
  fi
fi

