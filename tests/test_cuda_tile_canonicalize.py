"""cuda_tile canonicalizations (if / select / assume), run in process on
small programs, with CHECK-style assertions on the printed result."""
from __future__ import annotations

import re

import tilec.dialects  # noqa: F401
from tilec.ir.diagnostics import DiagnosticEngine, using_engine
from tilec.ir.verifier import verify
from tilec.passes.base import TopLevel
from tilec.passes.canonicalize import Canonicalize
from tilec.syntax.parser import parse_text
from tilec.syntax.printer import print_ops


def canon(body, args="", results="tile<i32>"):
    text = (f"cuda_tile.module @m {{\n  testing$func @f({args}) -> ({results}) {{\n{body}\n  }}\n}}\n")
    engine = DiagnosticEngine()
    ops = parse_text(text, engine, "t.mlir")
    assert ops is not None, engine.render()
    with using_engine(engine):
        assert Canonicalize().run(TopLevel(ops[0].parent))
        for op in ops:
            assert verify(op, engine), engine.render()
    assert not engine.render().strip(), engine.render()
    return print_ops(ops)


def check(out, *patterns):
    """The regexes must match in this order (CHECK semantics); a later one may
    refer back to an earlier one's groups (a [[VAR]] capture)."""
    assert re.search(r"[\s\S]*?".join(f"(?:{p})" for p in patterns), out, re.M), \
        f"{patterns!r} do not match in order in:\n{out}"


def test_false_condition_inlines_else_and_drops_return_tail():
    out = canon("""
    %f = constant <i1: 0> : tile<i1>
    %a = constant <i32: 1> : tile<i32>
    %r = if %f -> (tile<i32>) {
      yield %x : tile<i32>
    } else {
      return %a : tile<i32>
    }
    %s = addi %r, %r : tile<i32>
    return %s : tile<i32>""", "%x: tile<i32>")
    assert " if " not in out and "addi" not in out
    check(out, r"%(\w+) = constant <i32: 1>", r"return %\1 : tile<i32>\n  }")


def test_yield_true_false_is_the_condition():
    out = canon("""
    %t = constant <i1: 1> : tile<i1>
    %f = constant <i1: 0> : tile<i1>
    %r = if %c -> (tile<i1>) {
      yield %t : tile<i1>
    } else {
      yield %f : tile<i1>
    }
    return %r : tile<i1>""", "%c: tile<i1>", "tile<i1>")
    assert " if " not in out
    check(out, r"return %arg0 : tile<i1>")


def test_unused_results_dropped_but_side_effects_kept():
    out = canon("""
    %r:2 = if %c -> (tile<i32>, tile<i32>) {
      %p = print_tko "then" -> token
      %s = addi %x, %x : tile<i32>
      yield %s, %x : tile<i32>, tile<i32>
    } else {
      yield %x, %x : tile<i32>, tile<i32>
    }
    return %r#0 : tile<i32>""", "%c: tile<i1>, %x: tile<i32>")
    check(out, r"%(\w+) = if %arg0 -> \(tile<i32>\) \{", r"print_tko \"then\"", r"yield %\w+ : tile<i32>\n",
          r"\} else \{\n\s*yield %arg1 : tile<i32>", r"return %\1")


def test_nested_if_with_else_yield_becomes_select():
    out = canon("""
    %r = if %a -> (tile<i32>) {
      if %b {
        %p = print_tko "inner" -> token
      }
      yield %x : tile<i32>
    } else {
      yield %y : tile<i32>
    }
    return %r : tile<i32>""", "%a: tile<i1>, %b: tile<i1>, %x: tile<i32>, %y: tile<i32>")
    check(out, r"%(\w+) = select %arg0, %arg2, %arg3", r"%(\w+) = andi %arg0, %arg1", r"if %\2 \{",
          r"print_tko \"inner\"", r"return %\1 :")
    assert "else" not in out


def test_both_branches_exit_with_loop_continue():
    out = canon("""
    %lo = constant <i64: 0> : tile<i64>
    %hi = constant <i64: 4> : tile<i64>
    %one = constant <i64: 1> : tile<i64>
    %r = for %i in (%lo to %hi, step %one) : tile<i64> iter_values(%acc = %x) -> (tile<i32>) {
      %c = cmpi equal %acc, %x, signed : tile<i32> -> tile<i1>
      if %c {
        %s = addi %acc, %x : tile<i32>
        continue %s : tile<i32>
      } else {
        %m = muli %acc, %x : tile<i32>
        continue %m : tile<i32>
      }
      %p = print_tko "dead" -> token
      continue %acc : tile<i32>
    }
    return %r : tile<i32>""", "%x: tile<i32>")
    assert "dead" not in out and "else" not in out
    check(out, r"if %\w+ \{", r"addi", r"continue %\w+ : tile<i32>\n\s*\}", r"muli", r"continue %\w+ : tile<i32>\n\s*\}")


def test_select_folds():
    out = canon("""
    %t = constant <i1: 1> : tile<i1>
    %f = constant <i1: 0> : tile<i1>
    %s0 = select %t, %x, %y : tile<i1>, tile<i32>
    %s1 = select %f, %x, %y : tile<i1>, tile<i32>
    %s2 = select %c, %x, %x : tile<i1>, tile<i32>
    %e = cmpi not_equal %x, %y, signed : tile<i32> -> tile<i1>
    %s3 = select %e, %x, %y : tile<i1>, tile<i32>
    %n = select %c, %f, %t : tile<i1>, tile<i1>
    %s4 = select %n, %x, %y : tile<i1>, tile<i32>
    %z = constant <i32: 0> : tile<i32>
    %o = constant <i32: 1> : tile<i32>
    %s5 = select %c, %z, %o : tile<i1>, tile<i32>
    return %s0, %s1, %s2, %s3, %s4, %s5 : tile<i32>, tile<i32>, tile<i32>, tile<i32>, tile<i32>, tile<i32>""",
                "%c: tile<i1>, %x: tile<i32>, %y: tile<i32>", ", ".join(["tile<i32>"] * 6))
    check(out, r"%(\w+) = select %arg0, %arg2, %arg1", r"%(\w+) = xori %arg0, %\w+ : tile<i1>",
          r"%(\w+) = exti %\w+ unsigned : tile<i1> -> tile<i32>",
          r"return %arg1, %arg2, %arg1, %arg1, %\w+, %\w+ :")


def test_non_tile_and_inner_values_block_select():
    out = canon("""
    %t0 = make_token : token
    %r:2 = if %c -> (token, tile<i32>) {
      yield %t0, %x : token, tile<i32>
    } else {
      %u = make_token : token
      yield %u, %x : token, tile<i32>
    }
    return %r#1 : tile<i32>""", "%c: tile<i1>, %x: tile<i32>")
    # the tile result is the same on both sides and folds; the token if is dead
    assert "select" not in out
    check(out, r"return %arg1")
