"""Where the fields of a tensor map lie that `tensormap.replace` cannot set (needs a GPU).

    python3 benchmarks/tmap_probe.py

The CUDA driver encodes the same 2-D f16 map (4096 x 4096, box 64 x 128, 128-byte
swizzle) once per L2 promotion (none, 64B, 128B, 256B). A kernel builds it the way
tilec does (a zeroed 128-byte stage, then `tensormap.replace` of each field) and
copies its bytes out. Prints the 32-bit words of each and where they differ; the
words 16-19 the driver fills for other boxes, swizzles and element sizes (lines
`extra ...`: tensormap.replace leaves them zero); then one line per promotion,
`RAW_<NAME>=BYTE:BITS,...`: the words to preset in a tilec map (TILEC_TMAP_RAW) so
that it carries that promotion.
"""
import sys

import numpy as np

from tilec.codegen.ptx.tensormap import SWIZZLE_CODE, _ELEMTYPE
from tilec.runtime import cuda as rt

ROWS, COLS, BOX = 4096, 4096, (64, 128)      # dims innermost first, as the driver takes them


def driver_map(drv, addr, promotion, dtype, esize=2, box=BOX, swizzle="128B"):
    E = drv.CUtensorMapDataType
    enc = rt._check(drv.cuTensorMapEncodeTiled(
        getattr(E, dtype), drv.cuuint32_t(2), addr, [drv.cuuint64_t(COLS), drv.cuuint64_t(ROWS)],
        [drv.cuuint64_t(COLS * esize)], [drv.cuuint32_t(b) for b in box], [drv.cuuint32_t(1)] * 2,
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(drv.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swizzle}"),
        getattr(drv.CUtensorMapL2promotion, "CU_TENSOR_MAP_L2_PROMOTION_" + (promotion if promotion == "NONE" else f"L2_{promotion}")),
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), f"cuTensorMapEncodeTiled({promotion})")
    raw = enc.opaque if hasattr(enc, "opaque") else enc
    return np.array([int(w) for w in raw], np.uint64).view(np.uint32)


PTX = """.version 8.5
.target sm_90a
.address_size 64
.visible .entry probe(.param .u64 out, .param .u64 gaddr)
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 128 .b8 stage[128];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, stage;
  mad.lo.u32 %r3, %r1, 4, %r2;
  st.shared.u32 [%r3], 0;
  bar.warp.sync -1;
  setp.eq.u32 %p1, %r1, 0;
  ld.param.u64 %rd1, [gaddr];
  @%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r2], %rd1;
  @%p1 tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r2], 1;
  @%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r2], 0, {b0};
  @%p1 tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r2], 1, {b1};
  @%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 0, {cols};
  @%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 1, {rows};
  @%p1 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%r2], 0, {stride};
  @%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r2], 0, 1;
  @%p1 tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%r2], 1, 1;
  @%p1 tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r2], {etype};
  @%p1 tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%r2], 0;
  @%p1 tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%r2], {swz};
  @%p1 tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r2], 0;
  bar.warp.sync -1;
  ld.shared.u32 %r4, [%r3];
  ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}}
"""


def tilec_map(addr):
    ptx = PTX.format(b0=BOX[0], b1=BOX[1], cols=COLS, rows=ROWS, stride=COLS * 2,
                     etype=_ELEMTYPE[2], swz=SWIZZLE_CODE["128B"])
    kernel = rt.load_ptx(ptx).kernel("probe")
    out = rt.DeviceBuffer(128)
    out.fill(0xAB)
    kernel.block = (32, 1, 1)
    kernel.prepare((1, 1, 1), [int(out), addr], arg_dtypes=["ptr", "ptr"]).run()
    rt.synchronize()
    words = np.zeros(32, np.uint32)
    out.download(words)
    return words


def explain(extras):
    """TILEC_TMAP_RAW for words 16-19 when each is, in every encoding, one of the
    box's quantities or one constant; empty when some word is neither."""
    spec = []
    for i in range(4):
        seen = [w[i] for _q, w in extras]
        if not any(seen):
            continue
        names = [n for n in ("box_bytes", "panel_bytes", "box_rows") if all(q[n] == w[i] for q, w in extras)]
        if names:
            spec.append(f"{64 + 4 * i}:{names[0]}")
        elif len(set(seen)) == 1:
            spec.append(f"{64 + 4 * i}:{seen[0]:#x}")
        else:
            return ""
    return ",".join(spec)


def show(name, w):
    print(f"{name:>14}: " + " ".join(f"{int(x):08x}" for x in w))


def main():
    if not rt.cuda_available():
        print(f"tmap_probe: no GPU ({rt.unavailable_reason()})")
        return 1
    drv = rt._driver()
    buf = rt.DeviceBuffer(ROWS * COLS * 2)
    addr = int(buf)
    maps = {p: driver_map(drv, addr, p, "CU_TENSOR_MAP_DATA_TYPE_UINT16") for p in ("NONE", "64B", "128B", "256B")}
    maps["f16 NONE"] = driver_map(drv, addr, "NONE", "CU_TENSOR_MAP_DATA_TYPE_FLOAT16")
    for k, w in maps.items():
        show(k, w)
    try:
        mine = tilec_map(addr)
        show("tensormap.rep", mine)
        diff = [(i * 4, int(a), int(b)) for i, (a, b) in enumerate(zip(mine, maps["NONE"])) if a != b]
        print("tilec vs driver NONE:", ", ".join(f"byte {o}: {a:#010x} vs {b:#010x}" for o, a, b in diff) or "same")
    except Exception as e:   # noqa: BLE001 - the driver's maps above still answer the question
        print(f"tmap_probe: tilec-style map failed: {type(e).__name__}: {e}")
    # the words the driver fills that tensormap.replace leaves zero (bytes 64-79), by box and swizzle
    extras = []
    for dtype, es, box, swz in [("UINT16", 2, (64, 128), "128B"), ("UINT16", 2, (64, 64), "128B"),
                                ("UINT16", 2, (64, 32), "128B"), ("UINT16", 2, (32, 128), "64B"),
                                ("UINT16", 2, (16, 128), "32B"), ("UINT16", 2, (64, 8), "NONE"),
                                ("UINT32", 4, (32, 128), "128B"), ("UINT8", 1, (128, 128), "128B"),
                                ("UINT16", 2, (128, 16), "NONE")]:
        try:
            w = driver_map(drv, addr, "NONE", f"CU_TENSOR_MAP_DATA_TYPE_{dtype}", es, box, swz)
            print(f"extra {dtype} box {box} swizzle {swz}: " + " ".join(f"{int(x):08x}" for x in w[16:20]))
            extras.append(({"box_bytes": box[0] * box[1] * es, "panel_bytes": box[0] * es, "box_rows": box[1]},
                           [int(x) for x in w[16:20]]))
        except Exception as e:   # noqa: BLE001 - an encoding the driver refuses says something too
            print(f"extra {dtype} box {box} swizzle {swz}: refused ({e})")
    print("RAW_EXTRA=" + explain(extras))
    base = maps["NONE"]
    for p in ("64B", "128B", "256B"):
        words = [(i * 4, int(b) & ~int(a) & 0xFFFFFFFF, int(a) & ~int(b) & 0xFFFFFFFF)
                 for i, (a, b) in enumerate(zip(base, maps[p])) if a != b]
        if any(cleared for _o, _s, cleared in words):
            print(f"# {p}: clears bits as well: {words}")
        print(f"RAW_{p}=" + ",".join(f"{o}:{s:#x}" for o, s, _c in words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
