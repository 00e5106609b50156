"""Errors and the simulated address map."""
from __future__ import annotations


GLOBAL_BASE = 0x7F00_0000_0000
GLOBAL_LEAD = 0x1_0000          # first allocation at GLOBAL_BASE + GLOBAL_LEAD
GLOBAL_GAP = 256                # unmapped bytes between global allocations
SHARED_BASE = 0x10_0000         # first shared byte (fits a 32-bit register)
LOCAL_BASE = 0x100_0000         # .local window address of a thread's first local byte
LOCAL_GENERIC_BASE = 0x7E00_0000_0000   # generic address of thread t's local byte 0: + t * LOCAL_STRIDE
LOCAL_STRIDE = 1 << 20
# shared::cluster window (mapa results): the CTA of rank r's shared byte at offset o is at
# SHARED_CLUSTER_BASE + r * SHARED_CLUSTER_STRIDE + o. A CTA's own shared::cta addresses (from
# SHARED_BASE) are valid shared::cluster addresses of its own memory, as on the hardware.
SHARED_CLUSTER_BASE = 0x2000_0000
SHARED_CLUSTER_STRIDE = 1 << 24
MAX_CLUSTER_CTAS = 16           # the hardware's largest (non-portable) cluster
SHARED_FILL = 0xFF              # each CTA's shared memory starts as these bytes
MAX_BLOCK_STEPS = 20_000_000    # basic blocks one thread may run (a loop that never ends)


class PTXSimError(Exception):
    pass


class UnsupportedPTX(PTXSimError):
    pass


class PTXRuntimeError(PTXSimError):
    pass


class MemoryFault(PTXRuntimeError):
    pass


class Deadlock(PTXRuntimeError):
    pass


class DataRace(PTXRuntimeError):
    pass
