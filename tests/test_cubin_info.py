"""Reading a cubin's kernel records (tilec.runtime.ptxinfo.cubin_kernels): the
block size and the parameter table a launcher packs arguments by. ptxas writes
EIATTR_KPARAM_INFO records; NVIDIA's tileiras writes EIATTR_KPARAM_INFO_V2 for
kernels with tensor maps (found on an H100: its cuTile matmul cubin read as
having no parameters). Needs ptxas (skips without it)."""
import os
import shutil
import struct
import subprocess

import pytest

from tilec.runtime.ptxinfo import cubin_kernels

PTX = """.version 8.5
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p0, .param .u32 p1, .param .u16 p2, .param .u64 p3)
.reqntid 96, 1, 1
{
\t.reg .b64 %rd<4>;
\t.reg .b32 %r<2>;
\tld.param.u64 %rd1, [p0];
\tld.param.u32 %r1, [p1];
\tld.param.u64 %rd2, [p3];
\tcvta.to.global.u64 %rd3, %rd1;
\tst.global.u32 [%rd3], %r1;
\tcvta.to.global.u64 %rd3, %rd2;
\tst.global.u32 [%rd3], %r1;
\tret;
}
"""
WANT = [(8, 0), (4, 8), (2, 12), (8, 16)]    # (size, offset) of p0..p3


@pytest.fixture(scope="module")
def cubin(tmp_path_factory):
    if shutil.which("ptxas") is None:
        pytest.skip("ptxas is not on PATH")
    d = tmp_path_factory.mktemp("cubin")
    (d / "k.ptx").write_text(PTX)
    subprocess.run(["ptxas", "-arch=sm_90a", str(d / "k.ptx"), "-o", str(d / "k.cubin")], check=True)
    return (d / "k.cubin").read_bytes()


def _params(data):
    k = cubin_kernels(data)["k"]
    return k.block, [(p.size, p.offset) for p in k.params]


def _as_v2(data):
    """The cubin with each KPARAM_INFO record (0x17) rewritten as a KPARAM_INFO_V2
    record (0x45): the same index, ordinal and offset, the size in the low 16 bits."""
    out = bytearray(data)
    found = 0
    i = out.find(b"\x04\x17\x0c\x00")
    while i >= 0:
        index, ordinal, offset, word = struct.unpack_from("<IHHI", out, i + 4)
        out[i + 1] = 0x45
        struct.pack_into("<IHHI", out, i + 4, index, ordinal, offset, (word >> 18) & 0x3FFF)
        found += 1
        i = out.find(b"\x04\x17\x0c\x00", i + 16)
    assert found == 4, f"expected 4 KPARAM_INFO records, found {found}"
    return bytes(out)


def test_ptxas_cubin_parameters_and_block(cubin):
    assert _params(cubin) == ((96, 1, 1), WANT)


def test_kparam_info_v2_records_read_the_same(cubin):
    assert _params(_as_v2(cubin)) == ((96, 1, 1), WANT)


def test_tileiras_tensor_map_kernel_has_its_parameters():
    """NVIDIA's cubin of a TMA matmul (benchmarks/export_cutile_matmul.py), when present."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, ".gpu-artifacts", "cutile_matmul_128x128x64.sm_90.cubin")
    if not os.path.exists(path):
        pytest.skip("no tileiras cubin in .gpu-artifacts (benchmarks/export_cutile_matmul.py makes one)")
    with open(path, "rb") as fh:
        k = cubin_kernels(fh.read())["matmul_f16"]
    assert [p.size for p in k.params] == [8, 4, 4, 4, 4] * 3
    assert k.block == (256, 1, 1)
