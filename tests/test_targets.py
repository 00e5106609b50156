"""The code generator's targets (issue 23): what codegen/ptx/target.py says
each architecture has is what ptxas takes, and every example kernel compiles
for the Blackwell targets (and sm_90, Hopper without its arch-specific
instructions) to PTX that ptxas assembles."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess

import pytest

from tilec.codegen.ptx.target import ARCHES, Target
from tilec.compiler import compile_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.mlir"), recursive=True))
PTXAS = shutil.which("ptxas")
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")

# capability -> an instruction only targets with it have
PROBES = {
    "setmaxnreg": "setmaxnreg.inc.sync.aligned.u32 240;",
    "wgmma": "wgmma.fence.sync.aligned;",
    "tensormap_replace": "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd1;",
    "tcgen05": "tcgen05.fence::before_thread_sync;",
    "hopper": "fence.proxy.async.shared::cta;",
}


def _ptxas_takes(arch, body, tmp_path, shared=""):
    ptx = (f".version {Target.parse(arch).ptx_version}\n.target {arch}\n.address_size 64\n{shared}\n"
           ".visible .entry k(.param .u64 p) {\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
           f"ld.param.u64 %rd1, [p];\nmov.u32 %r1, 0;\n{body}\nret;\n}}\n")
    f = tmp_path / f"{arch}.ptx"
    f.write_text(ptx)
    return subprocess.run([PTXAS, f"-arch={arch}", str(f), "-o", os.devnull], capture_output=True).returncode == 0


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHES)
def test_capabilities_are_what_ptxas_takes(arch, tmp_path):
    t = Target.parse(arch)
    assert _ptxas_takes(arch, "", tmp_path)          # the target's .version names it
    for cap, probe in PROBES.items():
        assert _ptxas_takes(arch, probe, tmp_path) == getattr(t, cap), (arch, cap)


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHES)
def test_static_shared_beyond_48k_only_where_the_emitter_allows_it(arch, tmp_path):
    from tilec.codegen.ptx.module import big_static_shared
    shared = ".shared .align 16 .b8 buf[65536];"
    body = "mov.u32 %r2, buf;\nst.shared.u32 [%r2+65532], %r1;"
    assert _ptxas_takes(arch, body, tmp_path, shared) == big_static_shared(Target.parse(arch))


def test_arch_numbers():
    assert [Target.parse(a).sm for a in ARCHES] == [80, 86, 89, 90, 90, 100, 103, 120, 121]
    with pytest.raises(ValueError):
        Target.parse("sm_110a")


def _assembles(ptx, arch, tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(f), "-o", os.devnull], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[:2000]


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_100a", "sm_120a"])
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: os.path.relpath(p, os.path.join(ROOT, "examples")))
def test_every_example_compiles_for_blackwell(path, arch, tmp_path):
    ptx = compile_text(open(path).read(), arch=arch, filename=path)
    assert f".target {arch}" in ptx and "wgmma" not in ptx
    _assembles(ptx, arch, tmp_path)


@needs_ptxas
@pytest.mark.parametrize("arch", ["sm_90", "sm_103a", "sm_121a"])
@pytest.mark.parametrize("name", ["cutile/matmul_f16_aligned.mlir", "cutile/attention_m128_f16_aligned.mlir",
                                  "layernorm_f32.mlir"])
def test_other_targets_compile(name, arch, tmp_path):
    ptx = compile_text(open(os.path.join(ROOT, "examples", name)).read(), arch=arch)
    if arch == "sm_90":      # no tensormap.replace, so no TMA and no setmaxnreg
        assert "tensormap" not in ptx and "setmaxnreg" not in ptx
    _assembles(ptx, arch, tmp_path)


def test_sm120_budget_is_sm86s():
    from tilec.conversion.target import target_for
    assert target_for("sm_120a").smem_bytes == target_for("sm_86").smem_bytes == 99 * 1024
    assert target_for("sm_100a").smem_bytes == target_for("sm_90a").smem_bytes


def _launch_registers(ptx):
    """(.maxnreg or None, threads per CTA) of a one-entry PTX module."""
    import re
    n = re.search(r"^\.maxnreg (\d+)", ptx, re.M)
    t = re.search(r"\.reqntid (\d+), (\d+), (\d+)", ptx)
    threads = int(t.group(1)) * int(t.group(2)) * int(t.group(3)) if t else 0
    return (int(n.group(1)) if n else None), threads


def _widened_matmul():
    """The aligned matmul with a 128 x 256 tile: on eight warps its mma.sync
    consumers hold 128 accumulator registers a thread."""
    text = open(os.path.join(ROOT, "examples", "cutile", "matmul_f16_aligned.mlir")).read()
    for a, b in (("tile<128x128xf16>", "tile<128x256xf16>"), ("tile<128x128xf32>", "tile<128x256xf32>"),
                 ("tile<64x128xf16>", "tile<64x256xf16>"), ("tile=(128x128)", "tile=(128x256)"),
                 ("tile=(64x128)", "tile=(64x256)")):
        text = text.replace(a, b)
    return text


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a", "sm_120a"])
def test_every_kernel_launches_within_the_register_file(arch):
    """`.maxnreg` times the CTA's threads fits the SM's 65,536 registers, at
    every warp count: the setmaxnreg entry count (a mean of the agents',
    rounded up, or a wgmma's floor) never asks more than a launch can get
    (640 threads at 104 would take 66,560), and the agents' counts then fit
    the pool the CTA starts with (else a setmaxnreg.inc waits forever)."""
    import re
    cases = [(p, w) for p in EXAMPLES for w in (None, 16)] + [("widened", 8), ("widened", 16)]
    for path, warps in cases:
        text = _widened_matmul() if path == "widened" else open(path).read()
        try:
            ptx = compile_text(text, arch, num_warps=warps)
        except Exception:          # a kernel the target refuses cleanly (fp8 where there is none)
            continue
        n, threads = _launch_registers(ptx)
        if n is None:
            continue
        assert n * threads <= 65536, (path, warps, n, threads)
        if "setmaxnreg" in ptx and threads % 128 == 0:
            # one producer warpgroup's first count, the consumers' largest
            counts = [int(x) for x in re.findall(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32\s+(\d+);", ptx)]
            assert 128 * counts[0] + (threads - 128) * max(counts) <= n * threads, (path, warps, counts)
        if path == "widened" and arch == "sm_120a" and warps == 16:
            assert n * threads == 96 * 640


def _wide_softmax(cols, hints="sm_90 = {}"):
    """cuTile's row softmax with one row of `cols` f32 per tile block."""
    text = open(os.path.join(ROOT, "examples", "cutile", "row_softmax_f32.mlir")).read()
    text = text.replace("4x128", f"1x{cols}").replace("tile<4xf32>", "tile<1xf32>").replace("4x1xf32", "1x1xf32")
    return text.replace("optimization_hints=<sm_90 = {}>", f"optimization_hints=<{hints}>")


@pytest.mark.parametrize("arch,threads,per_sm", [("sm_80", 256, 256 // 8 * 8), ("sm_100a", 384, 168)])
def test_register_limit_is_stated_where_shared_memory_allows_one_cta(arch, threads, per_sm):
    """A kernel whose shared memory leaves no room for a second CTA on an SM
    states the one CTA's share of the register file: ptxas aims at occupancy
    it cannot have otherwise (the sm_100a chunked recurrence: 56 registers, as
    for three CTAs, and 6 KB of spills). With room for two, ptxas chooses."""
    from tilec.codegen.ptx.module import register_cap
    from tilec.codegen.ptx.target import Target
    from tilec.conversion.target import target_for
    t, half = Target.parse(arch), target_for(arch).smem_per_sm // 2
    assert register_cap(t, threads, 8, half + 1024) == min(255, per_sm)
    assert register_cap(t, threads, 8, half - 1024) is None


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_120a"])
def test_register_limit_is_stated_where_ptxas_would_starve_the_kernel(arch, tmp_path):
    """A kernel with one register tile of half the file or more (here a
    32,768-column softmax row: 256 f32 registers a thread) states the file as
    `.maxnreg`: left alone, ptxas gave TileGym's softmax, RMS-norm and chunked
    recurrence kernels of that kind 32 registers and spilled the rest. A
    small kernel states nothing and keeps ptxas's own choice."""
    import re
    small = compile_text(_wide_softmax(128), arch)
    assert ".maxnreg" not in small
    wide = compile_text(_wide_softmax(32768), arch)
    assert re.search(r"^\.maxnreg 255$", wide, re.M)
    # an occupancy hint does not lower it (tilec's CTAs are not tileiras's), nor state one alone
    hinted = compile_text(_wide_softmax(32768, f"{arch.rstrip('a')} = {{occupancy = 4}}"), arch)
    assert re.search(r"^\.maxnreg 255$", hinted, re.M)
    assert ".maxnreg" not in compile_text(_wide_softmax(128, f"{arch.rstrip('a')} = {{occupancy = 4}}"), arch)
    if PTXAS is None:
        return
    f = tmp_path / "k.ptx"
    f.write_text(wide)
    r = subprocess.run([PTXAS, f"-arch={arch}", "-v", str(f), "-o", os.devnull], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert int(re.search(r"Used (\d+) registers", r.stderr)[1]) >= 200, r.stderr
