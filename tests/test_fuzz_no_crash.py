"""Mutation fuzzing of the parser and verifier: whatever the input, tilec
reports diagnostics with a file:line:col location and never lets a Python
exception escape.

Every example (examples/**/*.mlir) is truncated and mutated with a fixed seed:
tokens deleted, duplicated, swapped, replaced; characters flipped; lines
dropped or repeated; types, shapes, SSA names and numbers edited. Each mutant
goes through parse_text + verify in-process (the CLI's own path, minus
process start-up); a sample also goes through `tilec.cli.main(["verify", ...])`
to check the exit status and the rendered diagnostics."""
from __future__ import annotations

import glob
import os
import random
import re
import time

import pytest

from tilec.cli import main as cli_main
from tilec.ir.diagnostics import DiagnosticEngine
from tilec.ir.verifier import verify
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.mlir"), recursive=True))
TOTAL_MUTANTS = 2400
SEED = 20250101

_TOKEN = re.compile(r'%[\w.$#:-]+|@[\w.$-]+|\^[\w]+|"(?:[^"\\\n]|\\.)*"|0x[0-9A-Fa-f]+|'
                    r'\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[A-Za-z_][\w.]*|->|\S')
_ELTS = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "index", "i0",
         "i7", "x", "ptr<f32>", "token", "tile<f32>"]
_DIMS = ["0", "1", "3", "?", "-1", "256", "65536", "4294967297", "2x2", ""]
_NUMBERS = ["0", "-1", "1", "2147483648", "-9223372036854775809", "340282366920938463463374607431768211456",
            "1.5", "1e309", "0x7FC00000", "0xFFFFFFFFFFFFFFFFFF", "nan", "-0"]
_CHARS = list("{}()<>[]%@:,=-\"#^!?x019 \n\t\\/*.;'") + ["\x00", "\u00e9", "//", "// -----"]
_WORDS = ["cuda_tile.module", "entry", "return", "yield", "continue", "break", "for", "if", "else", "loop",
          "constant", "addf", "tile", "token", "iter_values", "in", "to", "step", "attributes", "loc", "dense",
          "weak", "relaxed", "signed", "unsigned", "dim", "identities", "#cuda_tile.rounding<zero>",
          "\"cuda_tile.addf\"", "^bb1", "{-#", "#loc", "!cuda_tile.tile<f32>", "@x", "%9999"]


def _tokens(text):
    return [(m.start(), m.end()) for m in _TOKEN.finditer(text)]


def mutate(text: str, rng: random.Random) -> str:
    toks = _tokens(text)
    kind = rng.randrange(14)
    if not toks or kind == 0:  # cut at a random offset
        return text[:rng.randrange(len(text) + 1)]
    s, e = toks[rng.randrange(len(toks))]
    if kind == 1:  # delete a token
        return text[:s] + text[e:]
    if kind == 2:  # duplicate a token
        return text[:e] + " " + text[s:e] + text[e:]
    if kind == 3:  # swap two tokens (neighbours, or anywhere)
        i = rng.randrange(len(toks))
        j = min(i + 1, len(toks) - 1) if rng.random() < 0.7 else rng.randrange(len(toks))
        (a0, a1), (b0, b1) = sorted([toks[i], toks[j]])
        if a1 > b0:
            return text
        return text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]
    if kind == 4:  # flip / insert a character
        pos = rng.randrange(len(text) + 1)
        ch = rng.choice(_CHARS)
        return text[:pos] + ch + text[pos + (rng.random() < 0.5):]
    if kind == 5:  # replace a token with another token from the file
        o0, o1 = toks[rng.randrange(len(toks))]
        return text[:s] + text[o0:o1] + text[e:]
    if kind == 6:  # edit an element type
        spots = [m for m in re.finditer(r"\b(?:i1|i8|i16|i32|i64|f16|bf16|f32|f64)\b", text)]
        if not spots:
            return text[:s] + text[e:]
        m = rng.choice(spots)
        return text[:m.start()] + rng.choice(_ELTS) + text[m.end():]
    if kind == 7:  # edit a shape extent
        spots = [m for m in re.finditer(r"(?<=[<x(])\d+(?=x)|(?<=x)\d+(?=x|[a-z]|\))", text)]
        if not spots:
            return text[:s] + text[e:]
        m = rng.choice(spots)
        return text[:m.start()] + rng.choice(_DIMS) + text[m.end():]
    if kind == 8:  # rename an SSA use to another name in the file
        names = [m for m in re.finditer(r"%[\w.$#-]+", text)]
        if len(names) < 2:
            return text[:s] + text[e:]
        a, b = rng.sample(names, 2)
        return text[:a.start()] + b.group(0) + text[a.end():]
    if kind == 9:  # replace a number
        nums = [m for m in re.finditer(r"(?<![\w%#])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?\b", text)]
        if not nums:
            return text[:s] + text[e:]
        m = rng.choice(nums)
        return text[:m.start()] + rng.choice(_NUMBERS) + text[m.end():]
    lines = text.split("\n")
    if kind == 10:  # drop a line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 11:  # repeat a line elsewhere
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines.insert(j, lines[i])
        return "\n".join(lines)
    if kind == 12:  # insert a keyword / structural word
        return text[:s] + rng.choice(_WORDS) + " " + text[s:]
    # several mutations at once
    for _ in range(rng.randrange(2, 5)):
        text = mutate(text, rng)
    return text


def _mutants():
    """[(example path, mutant index, text)], deterministic."""
    if not EXAMPLES:
        return []
    rng = random.Random(SEED)
    per_file = -(-TOTAL_MUTANTS // len(EXAMPLES))
    out = []
    for path in EXAMPLES:
        src = open(path).read()
        seen = {src}
        tries = 0
        while sum(1 for p, _, _ in out if p == path) < per_file and tries < per_file * 5:
            tries += 1
            m = mutate(src, rng)
            if m in seen:
                continue
            seen.add(m)
            out.append((path, len(seen) - 1, m))
    return out


def _check_one(text, filename):
    """Parse + verify one input; return whether it was accepted. Asserts the
    diagnostic contract (raises AssertionError); any other exception escaping
    is a tilec bug that the caller reports."""
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, filename)
    ok = ops is not None and all(verify(op, engine) for op in ops)
    errors = [d for d in engine.diagnostics if d.severity == "error"]
    if not ok:
        assert errors, "rejected without an error diagnostic"
    else:
        assert not errors, "accepted but reported errors: " + engine.render()
    n_lines = text.count("\n") + 1
    for d in errors:
        flc = d.location.file_line_col()
        assert flc is not None, f"diagnostic without a file:line:col location: {d.render()}"
        f, line, col = flc
        assert f == filename, d.render()
        assert 1 <= line <= n_lines and col >= 1, f"location out of range: {d.render()}"
        assert d.render().startswith(f"{filename}:{line}:{col}: error: "), d.render()
        for note in d.notes:
            assert note.location.file_line_col() is not None, f"note without a location: {d.render()}"
    if ok:
        # accepted mutants (e.g. two same-typed operands swapped) must print and read back
        printed = print_ops(ops)
        engine2 = DiagnosticEngine()
        again = parse_text(printed, engine2, "<printed>")
        assert again is not None and all(verify(op, engine2) for op in again), \
            "accepted input prints to text that does not read back:\n" + engine2.render() + "\n" + printed
        assert print_ops(again) == printed
    return ok


MUTANTS = _mutants()


def test_enough_mutants():
    assert len(EXAMPLES) >= 8
    assert len(MUTANTS) >= 2000


def test_mutants_never_crash():
    failures, rejected = [], 0
    start = time.perf_counter()
    for path, idx, text in MUTANTS:
        name = f"{os.path.basename(path)}.mut{idx}.mlir"
        try:
            rejected += not _check_one(text, name)
        except Exception as e:  # collect them all: one report beats 2,000 reruns
            failures.append((name, f"{type(e).__name__}: {str(e)[:300]}", text))
    elapsed = time.perf_counter() - start
    if failures:
        kinds = {}
        for name, err, _ in failures:
            kinds.setdefault(err.split("\n")[0][:160], []).append(name)
        report = "\n".join(f"  {len(v)}x {k}  (e.g. {v[0]})" for k, v in sorted(kinds.items(), key=lambda kv: -len(kv[1])))
        first = failures[0]
        pytest.fail(f"{len(failures)} of {len(MUTANTS)} mutants broke the diagnostic contract "
                    f"({elapsed:.1f} s):\n{report}\n--- first failing input ({first[0]}):\n{first[2][:3000]}")
    # most mutants are invalid; the fuzzer must actually exercise the error paths
    assert rejected > len(MUTANTS) // 2


_CLI_SAMPLE = MUTANTS[::40]


@pytest.mark.parametrize("i", range(len(_CLI_SAMPLE)))
def test_cli_verify_on_mutants(i, tmp_path, capsys):
    path, idx, text = _CLI_SAMPLE[i]
    f = tmp_path / f"{os.path.basename(path)}.mut{idx}.mlir"
    f.write_text(text)
    rc = cli_main(["verify", str(f)])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    assert rc in (0, 1)
    if rc == 1:
        first = err.splitlines()[0] if err else ""
        assert re.match(re.escape(str(f)) + r":\d+:\d+: error: ", first), err
    else:
        assert "error:" not in err


@pytest.mark.parametrize("text, line, col", [
    # an op without results is located at its keyword
    ("cuda_tile.module @m {\n  return\n  entry @k() {\n    return\n  }\n}\n", 2, 3),
    # a terminator the custom form leaves out takes its parent op's location
    ("cuda_tile.module @m {\n  entry @k() {\n    %c = constant <i32: 0> : tile<i32>\n"
     "    %r = for %i in (%c to %c, step %c) : tile<i32> iter_values(%x = %c) -> (tile<i32>) {\n    }\n"
     "  }\n}\n", 4, 5),
])
def test_verifier_errors_point_into_the_text(text, line, col):
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "k.mlir")
    assert ops is not None, engine.render()
    assert not all(verify(op, engine) for op in ops)
    assert engine.diagnostics[0].location.file_line_col() == ("k.mlir", line, col), engine.render()


def test_truncations_of_one_example(tmp_path):
    """Every cut of one example at a line end is handled (prefixes hit every
    unexpected-end-of-file path)."""
    src = open(EXAMPLES[0]).read()
    first = re.search(r"^[ \t]*[^\s/]", src, re.M).start()  # the first op, after leading comments
    last = src.rstrip().rfind("}")
    cuts = [i for i, ch in enumerate(src) if ch == "\n" and first < i < last]
    assert cuts
    for cut in cuts:
        ok = _check_one(src[:cut], "cut.mlir")
        assert not ok, f"a prefix cut at offset {cut} was accepted"
