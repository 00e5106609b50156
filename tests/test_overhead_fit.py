"""benchmarks/overhead_fit.py: a matmul's time parted into a CTA's fixed cost and
its cost per K step, from a log of runs at several K."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _log(tmp_path, fixed, step):
    """A gpu_session.sh overhead log whose times follow fixed + steps * step (us)
    per wave, for tilec and for tileiras, on a 132-SM device: 8 waves of 128x128 tiles."""
    lines = ["device: NVIDIA H100 80GB HBM3 (sm_90, 132 SMs), torch 2.11"]
    for k in (64, 1024, 4096):
        lines.append(f"matmul f16 4096x4096x{k}, f32 accumulation; kernel: 128x128 output tiles")
        for peer in ("tilec", "tileiras"):
            ms = 8 * (fixed[peer] + k / 64 * step[peer]) / 1000.0
            lines.append(f"{peer:10s} {ms:10.6f} {123.4:9.1f}")
        lines.append(f"torch      {0.5:10.3f} {700.0:9.1f}")
    path = tmp_path / "overhead.log"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_fit_recovers_fixed_and_per_step_costs(tmp_path):
    log = _log(tmp_path, {"tilec": 6.0, "tileiras": 2.0}, {"tilec": 0.45, "tileiras": 0.40})
    out = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "overhead_fit.py"), log],
                         capture_output=True, text=True, check=True).stdout
    assert "tilec     fixed    6.00 us per CTA,   450.0 ns per K step" in out
    assert "tileiras  fixed    2.00 us per CTA,   400.0 ns per K step" in out
    assert "ratio tilec/tileiras: fixed 3.00x, per K step 1.125x" in out


def test_a_log_without_runs_fails(tmp_path):
    path = tmp_path / "empty.log"
    path.write_text("=== overhead K=64\n")
    got = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "overhead_fit.py"), str(path)],
                         capture_output=True, text=True)
    assert got.returncode == 1 and "no matmul runs" in got.stdout
