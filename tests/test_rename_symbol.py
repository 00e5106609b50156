"""test-debuginfo-update-symbol-name: the function is renamed, its uses are
rewritten when asked, its subprogram's linkage name follows (the entry verifier
requires them to agree), and bad options or scopes are diagnostics."""
import re

SRC = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    return
  } loc("/src/k.py":10:1)
  entry @other() {
    %g = get_global @g : tile<ptr<f32>>
    return
  } loc("/src/k.py":20:1)
  global @g <f32: [1.0]> : tile<1xf32>
} loc("/src/main.py":1:1)
"""


def _with_scopes(tmp_path, run_cli):
    src = tmp_path / "k.mlir"
    src.write_text(SRC)
    rc, out, err = run_cli("opt", str(src), "--synthesize-debug-info-scopes", "--mlir-print-debuginfo")
    assert rc == 0, err
    scoped = tmp_path / "scoped.mlir"
    scoped.write_text(out)
    return scoped


def _rename(run_cli, path, options):
    return run_cli("opt", str(path), f"--test-debuginfo-update-symbol-name={options}", "--mlir-print-debuginfo")


def test_rename_updates_uses_and_linkage_name(tmp_path, run_cli):
    scoped = _with_scopes(tmp_path, run_cli)
    rc, out, err = _rename(run_cli, scoped, "symbol-to-rename=m::k new-name=k_f32 update-uses=true")
    assert rc == 0, err
    assert "entry @k_f32(" in out and "@k(" not in out
    linkage = dict(re.findall(r'name = "(\w+)", linkageName = "(\w+)"', out))
    assert linkage == {"k": "k_f32", "other": "other"}
    # the output is valid input again (the entry verifier checks name and linkage name)
    again = tmp_path / "again.mlir"
    again.write_text(out)
    assert run_cli("verify", str(again))[0] == 0


def test_uses_follow_only_when_asked(tmp_path, run_cli):
    scoped = _with_scopes(tmp_path, run_cli)
    rc, out, err = _rename(run_cli, scoped, "symbol-to-rename=m::g new-name=g2 update-uses=true")
    assert rc == 0, err
    assert "global  @g2 " in out and "get_global @g2 :" in out
    # without update-uses the old use dangles, and the verifier after the pass says so
    rc, out, err = _rename(run_cli, scoped, "symbol-to-rename=m::g new-name=g2")
    assert rc == 1 and out == ""
    assert "error: 'cuda_tile.get_global' op 'g' does not reference a valid global" in err
    assert "pass 'test-debuginfo-update-symbol-name' produced IR that fails to verify" in err


def test_missing_symbol_and_options_are_diagnostics(tmp_path, run_cli):
    scoped = _with_scopes(tmp_path, run_cli)
    rc, out, err = _rename(run_cli, scoped, "symbol-to-rename=m::nope new-name=x")
    assert rc == 1 and "error: symbol 'm::nope' not found" in err and out == ""
    rc, out, err = _rename(run_cli, scoped, "new-name=x")
    assert rc == 1 and "needs 'symbol-to-rename' and 'new-name'" in err


def test_scope_must_enclose_the_symbol(tmp_path, run_cli):
    src = tmp_path / "k.mlir"
    src.write_text(SRC)
    rc, out, err = _rename(run_cli, src, "symbol-to-rename=m::k scope=m::other new-name=x update-uses=true")
    assert rc == 1
    assert "/src/k.py:10:1: error: attempted to update symbol names in a scope that did not enclose the symbol" in err
    assert "/src/k.py:20:1: note: scope defined here" in err
