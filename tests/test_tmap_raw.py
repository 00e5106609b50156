"""TILEC_TMAP_RAW, the experiment hook that presets words of every device-built
tensor map (fields tensormap.replace cannot set; benchmarks/tmap_probe.py):
the words land in the zeroed stage before any field is replaced, per map's box,
and ptxas takes the result."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ptxas_stderr

from tilec.compiler import compile_text

KERNEL = Path(__file__).resolve().parents[1] / "examples" / "cutile" / "matmul_f16_aligned.mlir"


def _maps(ptx):
    """Per map build: the raw stores between the stage's zeroing and its first replace."""
    out = []
    for m in re.finditer(r"st\.shared\.u32 \t\[%r\d+\], 0;\n\tbar\.warp\.sync \t-1;\n((?:.*\n)*?)"
                         r"\t@%p\d+ tensormap\.replace\.tile\.global_address", ptx):
        out.append(re.findall(r"st\.shared\.u32 \t\[%r\d+\+(\d+)\], (0x[0-9a-f]+);", m.group(1)))
    return out


def test_without_the_hook_nothing_is_preset(monkeypatch):
    monkeypatch.delenv("TILEC_TMAP_RAW", raising=False)
    maps = _maps(compile_text(KERNEL.read_text(), arch="sm_90a"))
    assert maps and all(m == [] for m in maps)


def test_words_are_preset_per_box(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC_TMAP_RAW", "8:0x60000,64:box_bytes,72:0x400")
    ptx = compile_text(KERNEL.read_text(), arch="sm_90a")
    boxes = [(int(a), int(b)) for a, b in re.findall(
        r"box_dim\.shared::cta\.b1024\.b32 \t\[%r\d+\], 0, (\d+);\n\t@%p\d+ tensormap\.replace\.tile\.box_dim"
        r"\.shared::cta\.b1024\.b32 \t\[%r\d+\], 1, (\d+);", ptx)]
    maps = _maps(ptx)
    assert len(maps) == len(boxes) >= 2
    for words, (inner, rows) in zip(maps, boxes):
        assert words == [("8", "0x60000"), ("64", hex(inner * rows * 2)), ("72", "0x400")]
    assert "error" not in ptxas_stderr(ptx, tmp_path).lower()


def test_a_bad_spec_fails_loudly(monkeypatch):
    monkeypatch.setenv("TILEC_TMAP_RAW", "64:no_such_quantity")
    with pytest.raises(ValueError, match="TILEC_TMAP_RAW: '64:no_such_quantity' is not BYTE:BITS"):
        compile_text(KERNEL.read_text(), arch="sm_90a")
