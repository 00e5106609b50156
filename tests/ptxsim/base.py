"""Errors and the simulated address map."""
from __future__ import annotations


GLOBAL_BASE = 0x7F00_0000_0000
GLOBAL_LEAD = 0x1_0000          # first allocation at GLOBAL_BASE + GLOBAL_LEAD
GLOBAL_GAP = 256                # unmapped bytes between global allocations
SHARED_BASE = 0x10_0000         # first shared byte (fits a 32-bit register)
LOCAL_BASE = 0x100_0000         # .local window address of a thread's first local byte
LOCAL_GENERIC_BASE = 0x7E00_0000_0000   # generic address of thread t's local byte 0: + t * LOCAL_STRIDE
LOCAL_STRIDE = 1 << 20
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
