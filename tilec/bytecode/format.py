"""Constants of the Tile IR bytecode format: magic, versions, section ids and
the tag numbers of types, attributes and debug-info records.

The numbers are facts of NVIDIA's format (cuda-tile's BytecodeEnums.h and
Bytecode*Opcodes.td, and the 13.4/13.5 additions visible in cuTile Python's
encoder); the code around them is tilec's own."""
from __future__ import annotations

MAGIC = b"\x7fTileIR\x00"

# Versions tileiras --list-versions prints; tilec reads and writes all of them.
SUPPORTED_VERSIONS = ((13, 1), (13, 2), (13, 3), (13, 4), (13, 5))
DEFAULT_VERSION = (13, 1)  # the widest-compatibility version, NVIDIA's default
V13_2, V13_3, V13_4, V13_5 = (13, 2), (13, 3), (13, 4), (13, 5)


def version_text(v) -> str:
    return f"{v[0]}.{v[1]}" + (f".{v[2]}" if len(v) > 2 and v[2] else "")


def parse_version(text: str):
    """`13.1` -> (13, 1); None when it is not a supported version."""
    parts = text.strip().split(".")
    try:
        nums = tuple(int(p) for p in parts)
    except ValueError:
        return None
    if len(nums) == 3 and nums[2] == 0:
        nums = nums[:2]
    return nums if nums in SUPPORTED_VERSIONS else None


def supported_range() -> str:
    return f"[{version_text(SUPPORTED_VERSIONS[0])} - {version_text(SUPPORTED_VERSIONS[-1])}]"


# ---- sections -------------------------------------------------------------
SEC_END, SEC_STRING, SEC_FUNC, SEC_DEBUG, SEC_CONSTANT, SEC_TYPE, SEC_GLOBAL, SEC_PRODUCER = range(8)
NUM_SECTIONS = 8
SECTION_NAMES = {SEC_END: "EndOfBytecode", SEC_STRING: "String", SEC_FUNC: "Func", SEC_DEBUG: "Debug",
                 SEC_CONSTANT: "Constant", SEC_TYPE: "Type", SEC_GLOBAL: "Global", SEC_PRODUCER: "Producer"}
# alignment each section must declare (a multiple of), as NVIDIA's reader checks
SECTION_ALIGNMENT = {SEC_STRING: 4, SEC_TYPE: 4, SEC_CONSTANT: 8, SEC_DEBUG: 8, SEC_FUNC: 8}

# function-table entry flags
FN_PRIVATE, FN_KERNEL, FN_HAS_HINTS = 0x01, 0x02, 0x04

# ---- type tags ------------------------------------------------------------
T_I1, T_I8, T_I16, T_I32, T_I64 = 0, 1, 2, 3, 4
T_F16, T_BF16, T_F32, T_TF32, T_F64, T_F8E4M3FN, T_F8E5M2 = 5, 6, 7, 8, 9, 10, 11
T_PTR, T_TILE, T_TENSOR_VIEW, T_PARTITION_VIEW, T_FUNCTION, T_TOKEN = 12, 13, 14, 15, 16, 17
T_F8E8M0FNU, T_F4E2M1FN, T_GATHER_SCATTER_VIEW, T_STRIDED_VIEW, T_I4 = 18, 19, 20, 21, 22
T_FNV8E5M3FNU = 130

INT_TAGS = {T_I1: 1, T_I4: 4, T_I8: 8, T_I16: 16, T_I32: 32, T_I64: 64}
FLOAT_TAGS = {T_F16: "f16", T_BF16: "bf16", T_F32: "f32", T_TF32: "tf32", T_F64: "f64",
              T_F8E4M3FN: "f8E4M3FN", T_F8E5M2: "f8E5M2", T_F8E8M0FNU: "f8E8M0FNU", T_F4E2M1FN: "f4E2M1FN",
              T_FNV8E5M3FNU: "fnv8E5M3FNU"}
# type tags introduced after 13.1, with their NVIDIA names (for diagnostics)
TYPE_SINCE = {T_F8E8M0FNU: ((13, 2), "Float8E8M0FNU"), T_F4E2M1FN: ((13, 3), "Float4E2M1FN"),
              T_GATHER_SCATTER_VIEW: ((13, 3), "GatherScatterViewType"),
              T_STRIDED_VIEW: ((13, 3), "StridedViewType"), T_I4: ((13, 3), "Int4"),
              T_FNV8E5M3FNU: ((13, 4), "FloatNV8E5M3FNU")}

# ---- self-contained attribute tags -----------------------------------------
A_INTEGER, A_FLOAT, A_BOOL, A_TYPE, A_STRING, A_ARRAY, A_DENSE = 1, 2, 3, 4, 5, 6, 7
A_DIV_BY, A_SAME_ELEMENTS, A_DICTIONARY, A_OPT_HINTS, A_BOUNDED = 8, 9, 10, 11, 12

# ---- debug info -----------------------------------------------------------
D_UNKNOWN, D_COMPILE_UNIT, D_FILE, D_LEXICAL_BLOCK, D_LOC, D_SUBPROGRAM, D_CALL_SITE = range(7)
DI_UNKNOWN_INDEX = 0   # reserved index meaning loc(unknown)
DI_RESERVED = 1        # indices below this are reserved
