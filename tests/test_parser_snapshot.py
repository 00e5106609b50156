"""The parser snapshot (tilec/syntax/snapshot.py): a parser loaded from it
parses exactly as the parser it was saved from, a damaged or stale snapshot is
rebuilt, and regexes restored from their stored programs match as compiled."""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest

from tilec.ir.diagnostics import DiagnosticEngine
from tilec.syntax import parser as P
from tilec.syntax import snapshot
from tilec.syntax.printer import print_ops

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "cutile", "*.mlir")))


def _parse_with(lark_builder, text):
    """Parse `text` with an explicit (Lark, builder) pair (and not with
    tilec's own runtime over the snapshot)."""
    saved, saved_fast = dict(P._PARSERS), dict(P._FAST)
    try:
        P._PARSERS[True] = P._PARSERS[False] = lark_builder
        P._FAST[True] = P._FAST[False] = None
        engine = DiagnosticEngine()
        ops = P.parse_text(text, engine, "k.mlir")
        return print_ops(ops) if ops is not None else engine.render()
    finally:
        P._PARSERS.clear()
        P._PARSERS.update(saved)
        P._FAST.clear()
        P._FAST.update(saved_fast)


def test_loaded_parser_parses_as_the_saved_one(tmp_path):
    built, builder = P.get_parser(lean=True)
    path = str(tmp_path / "p.pickle")
    snapshot.save(built, path)
    fresh_builder = P._Builder()
    loaded = snapshot.load(path, fresh_builder)
    assert loaded is not None and loaded is not built
    # every scanner was stored compiled: loading built none lazily
    lexers = snapshot.state_lexers(loaded)
    assert all(x._scanner is not None for x in lexers)
    # ... with the keyword tables _index_keywords put in (no UnlessCallback left)
    kinds = {type(cb).__name__ for x in lexers for cb in x.callback.values()}
    assert kinds == {"KeywordTypes"}, kinds
    for path_ in EXAMPLES:
        text = open(path_).read()
        assert _parse_with((loaded, fresh_builder), text) == _parse_with((built, builder), text), path_
    # errors too: the same diagnostic, from the same expected-token sets
    bad = "cuda_tile.module @m {\n  entry @k() {\n    %0 = addf %x : tile<f32>\n  }\n}\n"
    assert _parse_with((loaded, fresh_builder), bad) == _parse_with((built, builder), bad)


def test_damaged_snapshots_are_not_used(tmp_path):
    path = tmp_path / "p.pickle"
    assert snapshot.load(str(path), P._Builder()) is None  # none there
    path.write_bytes(b"\x80\x05not a pickle")
    assert snapshot.load(str(path), P._Builder()) is None
    built, _ = P.get_parser(lean=True)
    snapshot.save(built, str(path))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # truncated
    assert snapshot.load(str(path), P._Builder()) is None


def test_key_follows_the_grammar_and_the_cache_dir_is_private(monkeypatch, tmp_path):
    assert snapshot.key("a: B") != snapshot.key("a: C")
    built, _ = P.get_parser(lean=True)
    path = str(tmp_path / "p.pickle")
    snapshot.save(built, path, "a: B")
    assert snapshot.load(path, P._Builder(), "a: B") is not None
    assert snapshot.load(path, P._Builder(), "a: C") is None  # saved under another grammar: not used
    assert snapshot.load_fast(path, P._Builder(), "a: C") is None
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    assert snapshot.path_for("a: B").startswith(str(tmp_path))
    monkeypatch.delenv("TILEC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert snapshot.cache_dir() == str(tmp_path / "xdg" / "tilec")


@pytest.mark.parametrize("pattern,flags", [
    (r"(?P<A>[a-z_][a-z0-9_]*)|(?P<B>%[0-9]+)|(?P<C>\s+)", 0),
    (r"(?P<X>0x[0-9A-F]+)|(?P<Y>-?\d+(\.\d+)?([eE][+-]?\d+)?)", re.IGNORECASE),
    (rb"(?P<Z>[\x00-\x7f]+)", 0),
])
def test_restored_regexes_match_as_compiled(pattern, flags):
    compiled = re.compile(pattern, flags)
    parts = snapshot._program(compiled)
    assert parts is not None
    again = snapshot.restore_pattern(*parts)
    assert again.pattern == compiled.pattern and again.groupindex == compiled.groupindex
    probes = ["abc_9 %12", "0XfF", "-3.5e+7x", "  \t", "%", "Q"]
    for s in probes:
        s = s.encode() if isinstance(pattern, bytes) else s
        for pos in range(len(s)):
            a, b = compiled.match(s, pos), again.match(s, pos)
            assert (a and (a.group(0), a.lastgroup)) == (b and (b.group(0), b.lastgroup))


def test_a_fresh_process_loads_the_snapshot(tmp_path):
    """The second process finds the snapshot the first wrote, and compiles the
    same PTX from it."""
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path / "cache"))
    kernel = os.path.join(ROOT, "examples", "cutile", "vector_add_f32.mlir")
    outs = []
    for i in range(2):
        out = tmp_path / f"k{i}.ptx"
        r = subprocess.run([sys.executable, "-m", "tilec.cli", "compile", kernel, "-o", str(out)],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        outs.append(out.read_text())
        if i == 0:
            assert len(list((tmp_path / "cache").glob("parser-*.pickle"))) == 1
    assert outs[0] == outs[1]


def _fast_and_lark(text, start="start"):
    """`text` parsed by tilec's own runtime over a fresh snapshot and by the
    Lark parser it was saved from: (printed ops or diagnostics) of each."""
    results = []
    for fast in (True, False):
        saved = dict(P._FAST)
        if not fast:
            P._FAST[True] = P._FAST[False] = None
        try:
            engine = DiagnosticEngine()
            ops = P.parse_text(text, engine, "k.mlir")
            results.append(print_ops(ops, debuginfo=True) if ops is not None else engine.render())
        finally:
            P._FAST.clear()
            P._FAST.update(saved)
    return results


def test_own_runtime_parses_as_lark(tmp_path, monkeypatch):
    """lalr.FastParser over the snapshot builds the same IR as Lark's parser
    for every example, and text it cannot parse goes to Lark, which reports
    the error as before."""
    from tilec.syntax import lalr
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(P, "_FAST", {})
    monkeypatch.setattr(P, "_PARSERS", {})
    monkeypatch.setattr(P, "_BUILDERS", {})
    P.get_parser(lean=True)  # builds and saves the snapshot
    P.get_parser(lean=False)
    assert P._fast_parser(True) is not None and P._fast_parser(False) is not None
    runs = {"ok": 0, "refused": 0}
    parse = lalr.FastParser.parse

    def counted(self, text, start):
        try:
            value = parse(self, text, start)
        except lalr.NoParse:
            runs["refused"] += 1
            raise
        runs["ok"] += 1
        return value
    monkeypatch.setattr(lalr.FastParser, "parse", counted)
    texts = [open(p).read() for p in sorted(glob.glob(os.path.join(ROOT, "examples", "**", "*.mlir"),
                                                     recursive=True))]
    texts += ["cuda_tile.module @m {\n  entry @k() {\n    %0 = addf %x : tile<f32>\n  }\n}\n",   # unknown value
              "cuda_tile.module @m {\n  entry @k() {\n    %0 = constant <f32: 1.0> : tile<f32\n  }\n}\n",  # no `>`
              "cuda_tile.module @m {\n  entry @k() {\n    return ?\n  }\n}\n"]  # no such token
    for text in texts:
        fast, lark = _fast_and_lark(text)
        assert fast == lark, text[:200]
    assert runs["ok"] >= len(texts) - 3 and runs["refused"] >= 2, runs


def test_a_process_parsing_valid_text_imports_no_lark(tmp_path):
    """With a snapshot, text that parses needs no Lark (~20 ms of a start-up)."""
    env = dict(os.environ, TILEC_CACHE_DIR=str(tmp_path / "cache"))
    kernel = os.path.join(ROOT, "examples", "cutile", "vector_add_f32.mlir")
    code = ("import sys\nfrom tilec.cli import main\n"
            f"rc = main(['compile', {kernel!r}, '-o', {str(tmp_path / 'k.ptx')!r}])\n"
            "print(rc, 'lark' in sys.modules)\n")
    got = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True).stdout.split() for _ in range(2)]
    assert got == [["0", "True"], ["0", "False"]]  # the first builds the snapshot with Lark
