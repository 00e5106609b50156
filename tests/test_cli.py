"""The tilec command: options, diagnostics, exit codes, verify-diagnostics."""
import os
import subprocess
import sys
import time

from conftest import ROOT

GOOD = """cuda_tile.module @m {
  testing$func @e(%a: tile<4xf32>) {
    %b = addf %a, %a : tile<4xf32>
  }
}
"""


def test_opt_prints_canonical_form(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD.replace("tile<4xf32>)", "!cuda_tile.tile<4xf32>)"))
    rc, out, err = run_cli("opt", str(f))
    assert rc == 0, err
    assert "testing$func @e(%arg0: tile<4xf32>) {" in out
    assert "%0 = addf %arg0, %arg0 : tile<4xf32>" in out


def test_stdin_and_output_file(run_cli, tmp_path):
    out_path = tmp_path / "o.mlir"
    rc, out, err = run_cli("opt", "-", "-o", str(out_path), stdin=GOOD)
    assert rc == 0 and out == ""
    assert "addf %arg0, %arg0" in out_path.read_text()


def test_syntax_error_is_a_located_diagnostic(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text(GOOD.replace("addf %a, %a", "addf %a %a"))
    rc, out, err = run_cli("verify", str(f))
    assert rc == 1
    assert err.startswith(f"{f}:3:")
    assert ": error: " in err and "Traceback" not in err


def test_undefined_value(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text(GOOD.replace("addf %a, %a", "addf %a, %zz"))
    rc, _, err = run_cli("verify", str(f))
    assert rc == 1 and f"{f}:3:19: error: use of undeclared SSA value name" in err


def test_failed_output_is_not_written(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text(GOOD.replace("addf %a, %a", "addf %a, %zz"))
    out_path = tmp_path / "o.mlir"
    rc, _, _ = run_cli("opt", str(f), "-o", str(out_path))
    assert rc == 1 and not out_path.exists()


def test_single_dash_flags_like_mlir_opt(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD + "// -----\n" + GOOD)
    rc, out, err = run_cli("opt", "-split-input-file", "-mlir-print-op-generic", str(f))
    assert rc == 0, err
    assert out.count('"cuda_tile.addf"') == 2 and "// -----" in out


def test_verify_diagnostics_matches_and_rejects(run_cli, tmp_path):
    ok = tmp_path / "ok.mlir"
    ok.write_text("// expected-error @below {{use of undeclared SSA value name}}\n"
                  "%0 = \"cuda_tile.addf\"(%x, %x) : (tile<f32>, tile<f32>) -> tile<f32>\n")
    assert run_cli("opt", "--verify-diagnostics", str(ok))[0] == 0
    missing = tmp_path / "missing.mlir"
    missing.write_text("// expected-error @below {{never emitted}}\n" + GOOD)
    rc, _, err = run_cli("opt", "--verify-diagnostics", str(missing))
    assert rc == 1 and 'expected error "never emitted" was not produced' in err
    unexpected = tmp_path / "unexpected.mlir"
    unexpected.write_text("%0 = \"cuda_tile.addf\"(%x, %x) : (tile<f32>, tile<f32>) -> tile<f32>\n")
    rc, _, err = run_cli("opt", "--verify-diagnostics", str(unexpected))
    assert rc == 1 and "unexpected error: use of undeclared SSA value name" in err



def test_verify_diagnostics_reports_an_invalid_regex(run_cli, tmp_path):
    """As MLIR: a -re expectation whose regex does not compile is an error at
    its text, not a silent literal match."""
    f = tmp_path / "re.mlir"
    f.write_text("// expected-error-re @below {{undeclared SSA value {{(}}}}\n"
                 "%0 = \"cuda_tile.addf\"(%x, %x) : (tile<f32>, tile<f32>) -> tile<f32>\n")
    rc, _, err = run_cli("opt", "--verify-diagnostics", str(f))
    assert rc == 1
    assert f"{f}:1:31: error: invalid regex: missing )" in err
    good = tmp_path / "re_ok.mlir"
    good.write_text("// expected-error-re @below {{undeclared SSA value {{name|label}}}}\n"
                    "%0 = \"cuda_tile.addf\"(%x, %x) : (tile<f32>, tile<f32>) -> tile<f32>\n")
    assert run_cli("opt", "--verify-diagnostics", str(good))[0] == 0

def test_split_keeps_original_line_numbers(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD + "// -----\n" + GOOD.replace("addf %a, %a", "addf %a, %q"))
    rc, _, err = run_cli("verify", "--split-input-file", str(f))
    assert rc == 1 and f"{f}:9:" in err


def test_help_starts_fast():
    start = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "tilec.cli", "--help"], capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    assert p.returncode == 0 and "opt" in p.stdout
    assert elapsed < 1.0  # generous for CI noise; typically ~0.1 s


def test_version(run_cli):
    import pytest
    with pytest.raises(SystemExit) as e:
        run_cli("--version")
    assert e.value.code == 0


def _dir_listing(path):
    return sorted(p.name for p in path.iterdir())


def test_input_that_is_not_utf8_is_refused_not_altered(run_cli, tmp_path):
    # a replaced byte used to reach the output as U+FFFD inside the string
    f = tmp_path / "k.mlir"
    f.write_bytes(b'// caf\xc3\xa9\n"x.foo"() {s = "\xc3\xa9\xff"} : () -> ()\n')   # columns count characters
    out_path = tmp_path / "o.mlir"
    rc, out, err = run_cli("opt", "--allow-unregistered-dialect", str(f), "-o", str(out_path))
    assert rc == 1 and out == "" and not out_path.exists()
    assert err == f"tilec: error: could not open input file '{f}': not UTF-8 text (byte 0xff at line 2, column 18)\n"


def test_unprintable_character_is_escaped(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text("cuda_tile.module @m {\x14}\n")
    rc, _, err = run_cli("verify", str(f))
    assert rc == 1 and err == f"{f}:1:22: error: unexpected character '\\x14'\n"


def test_output_path_that_cannot_be_written(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD)
    ptx = tmp_path / "v.mlir"
    ptx.write_text(open(os.path.join(ROOT, "examples", "vector_add.mlir")).read())
    (tmp_path / "d").mkdir()
    before = _dir_listing(tmp_path)
    for prefix, cmd in (("tilec", ["opt", str(f)]),
                        ("tilec", ["opt", str(ptx), "--emit-bytecode"]),
                        ("tilec compile", ["compile", str(ptx)])):
        for target, reason in ((tmp_path / "nodir" / "o", "No such file or directory"),
                               (tmp_path / "d", "Is a directory")):
            rc, out, err = run_cli(*cmd, "-o", str(target))
            assert (rc, out) == (1, ""), err
            assert err == f"{prefix}: error: could not write output file '{target}': {reason}\n"
    assert _dir_listing(tmp_path) == before and _dir_listing(tmp_path / "d") == []   # no temporaries left


def test_write_output_cleans_up_when_the_rename_fails(tmp_path, capsys):
    from tilec.driver import write_output
    (tmp_path / "d").mkdir()
    assert write_output(str(tmp_path / "d"), b"x") is False
    assert capsys.readouterr().err == f"tilec: error: could not write output file '{tmp_path / 'd'}': Is a directory\n"
    assert _dir_listing(tmp_path) == ["d"]


def test_output_to_a_pipe_is_written_in_place(run_cli, tmp_path):
    # renaming a temporary over `-o /dev/null` (as root) replaced the device with a file
    import stat
    import threading
    f = tmp_path / "k.mlir"
    f.write_text(GOOD)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    rc, out, err = run_cli("opt", str(f), "-o", str(fifo))
    reader.join(10)
    assert rc == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and "addf %arg0, %arg0" in got[0]
    # compile writes through the same path: the pipe gets the PTX and stays a pipe
    got.clear()
    reader = threading.Thread(target=lambda: got.append(open(fifo).read()))
    reader.start()
    rc, out, err = run_cli("compile", os.path.join(ROOT, "examples", "vector_add.mlir"), "-o", str(fifo))
    reader.join(10)
    assert rc == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and ".visible .entry" in got[0]


def test_a_second_input_file_is_an_error(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD)
    rc, out, err = run_cli("opt", str(f), "extra.mlir", "-o", str(tmp_path / "o.mlir"))
    assert (rc, out) == (2, "") and not (tmp_path / "o.mlir").exists()
    assert err == "tilec opt: error: unexpected argument 'extra.mlir' (one input file per command)\n"


def test_bad_pass_flags_are_reported_once_before_the_input_is_read(run_cli, tmp_path):
    f = tmp_path / "k.mlir"
    f.write_text(GOOD + "// -----\n" + GOOD + "// -----\n" + GOOD.replace("addf %a, %a", "addf %a %a"))
    out_path = tmp_path / "o.mlir"
    pipeline = "invalid pass pipeline: "
    for flags, msg in [
            (["--pass-pipeline=builtin.module(canonicalize"], pipeline + "expected ')' in pipeline "
                                                              "'builtin.module(canonicalize'"),
            (["--pass-pipeline=builtin.module(nope)"], pipeline + "'nope' does not refer to a registered pass "
                                                                  "or pass pipeline"),
            (["--schedule=num-stages=x"], pipeline + "invalid value 'x' for option 'num-stages' of pass "
                                                     "'schedule': expected an integer"),
            (["--canonicalize=max-iterations"], pipeline + "option 'max-iterations' of pass 'canonicalize' "
                                                           "needs a value (max-iterations=...)"),
            (["--test-debuginfo-update-symbol-name=new-name=x"],
             pipeline + "test-debuginfo-update-symbol-name needs 'symbol-to-rename' and 'new-name'"),
            (["--arch", "sm_99"], "unknown target 'sm_99' for --arch (known: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a, sm_103a, sm_120a, sm_121a)"),
            (["--bytecode-version", "13.9"], "unsupported bytecode version '13.9', expected one of [13.1 - 13.5]")]:
        for extra in ([], ["--verify-diagnostics"]):
            rc, out, err = run_cli("opt", "--split-input-file", str(f), *flags, *extra, "-o", str(out_path))
            assert (rc, out) == (1, "") and not out_path.exists()
            assert err == f"tilec opt: error: {msg}\n"


def test_pass_pipeline_may_be_given_once(run_cli, tmp_path):
    import pytest
    f = tmp_path / "k.mlir"
    f.write_text(GOOD)
    with pytest.raises(SystemExit) as e:
        run_cli("opt", str(f), "--pass-pipeline=cse", "--pass-pipeline=canonicalize", "-o", str(tmp_path / "o"))
    assert e.value.code == 2 and not (tmp_path / "o").exists()


def test_console_entry_flushes_everything_and_keeps_the_exit_code(tmp_path):
    """`tilec` (cli.entry) leaves with os._exit, skipping IR teardown: whatever
    main wrote must still arrive whole, and the exit code must be main's."""
    big = "cuda_tile.module @m {\n" + "".join(
        f"  testing$func @e{i}(%a: tile<4xf32>) {{\n    %b = addf %a, %a : tile<4xf32>\n  }}\n"
        for i in range(300)) + "}\n"
    f = tmp_path / "k.mlir"
    f.write_text(big)
    entry = [sys.executable, "-c", "import sys; from tilec.cli import entry; sys.argv[0] = 'tilec'; entry()"]
    ok = subprocess.run(entry + ["opt", str(f)], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.count("addf %arg0, %arg0") == 300 and ok.stdout.rstrip().endswith("}")
    bad = subprocess.run(entry + ["verify", str(tmp_path / "absent.mlir")], capture_output=True, text=True,
                         cwd=ROOT)
    assert bad.returncode == 1 and "absent.mlir" in bad.stderr
