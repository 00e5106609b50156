#!/usr/bin/env bash
# On the GPU machine, from the repository root: install the carried wheels
# (.whl/, made by tools/gpu_wheels.sh), run the GPU test suite, then the f16
# matmul benchmark (against NVIDIA's cubin too when .gpu-artifacts/ holds the
# one benchmarks/make_tileiras_cubin.sh makes). Logs go to $OUT when it is set
# (the device tool brings that folder back), else to /tmp/tilec-gpu-logs.
#     bash tools/gpu_check.sh            # exit 0 only if the tests and the benchmark passed
# Budget: tests at most 400 s, benchmark at most 150 s (one device command may run 600 s).
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=${OUT:-/tmp/tilec-gpu-logs}
mkdir -p "$LOG"

if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    || { echo "gpu_check: could not install .whl/*.whl" | tee "$LOG/summary.txt"; exit 3; }
else
  echo "gpu_check: no .whl/*.whl (run tools/gpu_wheels.sh here and carry .whl)"
fi
export PYTHONPATH=/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
python3 -c "import lark, tilec.runtime" || { echo "gpu_check: tilec does not import" | tee "$LOG/summary.txt"; exit 3; }
{ nvidia-smi -L; python3 -c "import sys, torch; print(sys.version.split()[0], 'torch', torch.__version__)"; } \
  > "$LOG/device.txt" 2>&1

extra=()
# a hung kernel fails its test (the runtime's own timeout); this one catches anything else
python3 -c "import pytest_timeout" 2>/dev/null && extra+=(--timeout=300 --timeout-method=thread)
# the compile is pure Python: spread the tests over the CPU cores when pytest-xdist is there
python3 -c "import xdist" 2>/dev/null && extra+=(-n 8)
timeout 400 python3 -m pytest -q -rfEs tests/gpu "${extra[@]}" --junitxml="$LOG/gpu-tests.xml" 2>&1 \
  | tee "$LOG/gpu-tests.log"
rc_tests=${PIPESTATUS[0]}

cubin=.gpu-artifacts/matmul_f16.sm_90.cubin
bench=(--require-gpu)
[ -f "$cubin" ] && bench+=(--tileiras-cubin "$cubin")
timeout 150 python3 benchmarks/matmul_gpu.py "${bench[@]}" 2>&1 | tee "$LOG/matmul-bench.log"
rc_bench=${PIPESTATUS[0]}

echo "gpu_check: tests exit $rc_tests, benchmark exit $rc_bench (logs in $LOG)" | tee "$LOG/summary.txt"
[ "$rc_tests" -eq 0 ] && [ "$rc_bench" -eq 0 ]
