"""Byte-level fuzzing of the bytecode reader: thousands of mutants of real
bytecode (every example written at several versions, with and without debug
info; plus any cuTile-exported files in $TILEC_BYTECODE_CACHE) must each
either read as IR that then verifies or fails verification with a
diagnostic, or be rejected with a diagnostic naming a byte offset -- never
an exception, never a hang. Deterministic (fixed seed), well under 60 s."""
from __future__ import annotations

import glob
import os
import random
import signal
import time

import pytest

from tilec.bytecode import read_bytecode, write_bytecode
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTANTS = 2500


def seeds():
    out = []
    paths = sorted(glob.glob(os.path.join(ROOT, "examples", "cutile", "*.mlir"))) + [
        os.path.join(ROOT, "examples", "vector_add.mlir")]
    for i, path in enumerate(paths):
        engine = DiagnosticEngine()
        ops = parse_text(open(path).read(), engine, path)
        for version in ((13, 1), (13, 3) if i % 2 else (13, 2), (13, 5)):
            data = write_bytecode(ops, engine, version)
            assert data is not None, engine.render()
            out.append(data)
    from test_bytecode import DEBUG_MODULE
    engine = DiagnosticEngine()
    for version in ((13, 1), (13, 5)):
        out.append(write_bytecode(parse_text(DEBUG_MODULE, engine, "dbg"), engine, version))
    cache = os.environ.get("TILEC_BYTECODE_CACHE")
    if cache:
        out.extend(open(p, "rb").read() for p in sorted(glob.glob(os.path.join(cache, "**", "*.tilebc"),
                                                                   recursive=True))
                   if os.path.getsize(p) < 1 << 16)
    return out


def mutate(rng: random.Random, data: bytes) -> bytes:
    d = bytearray(data)
    kind = rng.randrange(7)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 6))):
        i = rng.randrange(len(d))
        if kind == 0:
            d[i] ^= 1 << rng.randrange(8)          # bit flip
        elif kind == 1:
            d[i] = rng.randrange(256)               # random byte
        elif kind == 2:
            del d[i:i + rng.randrange(1, 9)]        # deletion
        elif kind == 3:
            d[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))  # insertion
        elif kind == 4:
            del d[i:]                               # truncation
            break
        elif kind == 5:
            d[i] = rng.choice((0x00, 0x01, 0x7F, 0x80, 0xFF))  # varint/flag boundary values
        else:
            j = rng.randrange(len(d))               # duplicate a run elsewhere
            d[j:j] = d[i:i + rng.randrange(1, 16)]
        if not d:
            break
    return bytes(d)


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def test_mutants_give_diagnostics_only():
    corpus = seeds()
    assert len(corpus) >= 40
    rng = random.Random(20260609)
    outcomes = {"read": 0, "verify-error": 0, "rejected": 0}
    old = signal.signal(signal.SIGALRM, _alarm)
    start = time.perf_counter()
    try:
        for n in range(MUTANTS):
            data = mutate(rng, rng.choice(corpus))
            engine = DiagnosticEngine()
            signal.alarm(10)  # any one mutant taking this long is a hang
            try:
                ops = read_bytecode(data, "mutant.tilebc", engine)
                if ops is None:
                    assert len(engine.diagnostics) == 1, engine.render()
                    msg = engine.diagnostics[0].render()
                    assert msg.startswith("mutant.tilebc: error: at byte 0x"), msg
                    outcomes["rejected"] += 1
                elif all(verify(op, engine) for op in ops):
                    print_ops(ops)
                    print_ops(ops, generic=True)
                    outcomes["read"] += 1
                else:
                    assert engine.has_errors
                    outcomes["verify-error"] += 1
            except _Hang:
                pytest.fail(f"mutant {n} hangs: {data.hex()}")
            except AssertionError:
                raise
            except Exception as e:  # a traceback is the bug this test exists to find
                pytest.fail(f"mutant {n} raised {type(e).__name__}: {e}\n{data.hex()}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    elapsed = time.perf_counter() - start
    assert sum(outcomes.values()) == MUTANTS
    assert outcomes["rejected"] > MUTANTS // 2 and outcomes["read"] > 0, outcomes
    assert elapsed < 60, f"{MUTANTS} mutants took {elapsed:.1f} s"
    print(f"{MUTANTS} mutants in {elapsed:.1f} s: {outcomes}")
