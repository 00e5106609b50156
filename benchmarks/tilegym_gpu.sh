#!/usr/bin/env bash
# NVIDIA TileGym's cuTile ops tests under tileiras and under tilec, side by side.
#
#     bash benchmarks/tilegym_gpu.sh TILEGYM_DIR [PATTERN [EXCLUDE]]   (on a machine with an NVIDIA GPU)
#
# Each tests/ops/test_*.py file of TILEGYM_DIR (activation/ and experimental/ left out;
# PATTERN, a grep -E regex, picks files and EXCLUDE drops some) runs its `test_op` tests
# (KEXPR, a pytest -k expression, narrows them) in one pytest process per file and
# compiler (an illegal address poisons a process's CUDA context; XDIST=N spreads one
# file over N pytest-xdist workers instead), with NVIDIA's tileiras and, at the same
# time, with tilec-tileiras answering as `tileiras`. Prints, per file, passed/failed/skipped and
# the seconds taken for both, and the totals, into $OUT/$TABLE (default tilegym.txt);
# logs go to $OUT (or ./gpu-out).
#
# Needs torch, cuda.tile (pip cuda-tile) and TileGym's own dependencies importable.
# tileiras comes from pip's nvidia-cuda-tileiras with the wheels it needs beside it
# (nvidia-cuda-nvcc, nvidia-nvvm, nvidia-cuda-crt, nvidia-cuda-runtime,
# nvidia-nvjitlink); put those wheels in .whl-tileiras/ (or set TILEIRAS_SITE to a
# folder they are installed in), or set TILEIRAS_BIN to a folder holding the `tileiras`
# binary alone (gpu_session.sh carries it xz-compressed: the wheels exceed what a device
# call may carry). cuTile takes the pip tileiras when all of
# nvidia-cuda-tileiras, -nvcc and nvvm are importable, else `tileiras` on PATH: the
# tilec run leaves TILEIRAS_SITE off PYTHONPATH and puts a `tileiras` script that runs
# `python -m tilec.tileiras_cli` first on PATH. Other wheels (lark, cuda-tile, TileGym's
# needs) may be carried in .whl/. Each compiler gets its own cuTile disk cache. JOBS
# (default 1) test files run at once; TIMEOUT (default 1800) bounds each file's run.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TILEGYM=${1:?usage: tilegym_gpu.sh TILEGYM_DIR [PATTERN]}
TILEGYM=$(cd "$TILEGYM" && pwd)
PATTERN=${2:-.}
EXCLUDE=${3:-^$}
KEXPR=${KEXPR:-test_op}
TABLE=${TABLE:-tilegym.txt}
XDIST_ARGS=${XDIST:+-n $XDIST}
OUTDIR=${OUT:-$ROOT/gpu-out}
TIMEOUT=${TIMEOUT:-1800}
JOBS=${JOBS:-1}
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1

SITE=/tmp/tilegym-site
if ls "$ROOT"/.whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
    "$ROOT"/.whl/*.whl || exit 1
fi
TILEIRAS_SITE=${TILEIRAS_SITE:-/tmp/tileiras-site}
if ls "$ROOT"/.whl-tileiras/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$TILEIRAS_SITE" \
    "$ROOT"/.whl-tileiras/*.whl || exit 1
fi
BASE_PATH="$SITE:$ROOT:$TILEGYM/src"

# `tileiras` for the tilec run: this checkout's tilec-tileiras
SHIM=$(mktemp -d)
cat > "$SHIM/tileiras" <<EOF
#!/usr/bin/env bash
PYTHONPATH="$BASE_PATH\${PYTHONPATH:+:\$PYTHONPATH}" exec python3 -m tilec.tileiras_cli "\$@"
EOF
chmod +x "$SHIM/tileiras"

run_file() {   # compiler file -> "passed/failed/skipped Ns" (errors count as failed), "timeout" or "error(rc=N)"
  local compiler=$1 file=$2 log start=$SECONDS
  log="$OUTDIR/$compiler.$(basename "$file" .py).log"
  if [ "$compiler" = tileiras ]; then
    # cuTile hands CUDA_HOME to a tileiras found on PATH, and tileiras then takes ptxas and
    # libnvvm from there: an older toolkit's (CUDA 13.0's) fail every compile with code 5
    env -u CUDA_PATH PYTHONPATH="$TILEIRAS_SITE:$BASE_PATH" PATH="${TILEIRAS_BIN:+$TILEIRAS_BIN:}$PATH" \
      ${TILEIRAS_BIN:+CUDA_HOME=$(dirname "$TILEIRAS_BIN")} XDG_CACHE_HOME=/tmp/cache-tileiras \
      timeout "$TIMEOUT" python3 -m pytest "$file" -k "$KEXPR" $XDIST_ARGS -q -p no:cacheprovider -rN >"$log" 2>&1
  else
    env PYTHONPATH="$BASE_PATH" PATH="$SHIM:$PATH" XDG_CACHE_HOME=/tmp/cache-tilec \
      timeout "$TIMEOUT" python3 -m pytest "$file" -k "$KEXPR" $XDIST_ARGS -q -p no:cacheprovider -rN >"$log" 2>&1
  fi
  local rc=$? line took=$((SECONDS - start))s
  line=$(grep -E "(passed|failed|skipped|error|deselected|no tests ran)" "$log" | tail -1)
  if [ $rc = 124 ]; then echo "timeout $took"; return; fi
  case $rc in 0|1|5) ;; *) [ -n "$line" ] && grep -qE "[0-9]+ (passed|failed)" <<<"$line" \
    || { echo "error(rc=$rc) $took"; return; } ;; esac   # pytest stopped before its summary (usage, crash)
  local p f s e
  p=$(grep -oE "[0-9]+ passed" <<<"$line" | grep -oE "[0-9]+" || true)
  f=$(grep -oE "[0-9]+ failed" <<<"$line" | grep -oE "[0-9]+" || true)
  s=$(grep -oE "[0-9]+ skipped" <<<"$line" | grep -oE "[0-9]+" || true)
  e=$(grep -oE "[0-9]+ errors?" <<<"$line" | grep -oE "[0-9]+" || true)
  echo "${p:-0}/$(( ${f:-0} + ${e:-0} ))/${s:-0} $took"
}

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
row() {   # one test file under both compilers at once -> its table row
  local t c tmp
  tmp=$(mktemp)
  (cd "$TILEGYM" && run_file tileiras "$1" > "$tmp") &
  c=$(cd "$TILEGYM" && run_file tilec "$1")
  wait
  t=$(cat "$tmp"); rm -f "$tmp"
  printf "%-34s %-26s %-26s\n" "$(basename "$1")" "$t" "$c"
}
export -f row run_file
export TILEGYM OUTDIR TIMEOUT TILEIRAS_SITE TILEIRAS_BIN BASE_PATH SHIM KEXPR XDIST_ARGS
{
  printf "%-34s %-26s %-26s\n" "file" "tileiras pass/fail/skip" "tilec pass/fail/skip"
  (cd "$TILEGYM" && ls tests/ops/test_*.py | grep -E "$PATTERN" | grep -vE "$EXCLUDE") | xargs -P "$JOBS" -I{} bash -c 'row {}'
} | tee "$OUTDIR/$TABLE"
awk 'NR > 1 { split($2, a, "/"); split($4, b, "/"); for (i = 1; i <= 3; i++) { t[i] += a[i]; c[i] += b[i] } }
     END { printf "%-34s %-26s %-26s\n", "total", t[1] "/" t[2] "/" t[3], c[1] "/" c[2] "/" c[3] }' "$OUTDIR/$TABLE" \
  | tee -a "$OUTDIR/$TABLE"
echo "logs: $OUTDIR/{tileiras,tilec}.<test file>.log"
