"""`tilec run`: arguments from .npy files and numbers, outputs to .npy files,
diagnostics (never a traceback) and exit codes."""
import os

import numpy as np

from conftest import ROOT

VECTOR_ADD = os.path.join(ROOT, "examples", "vector_add.mlir")
TICKETS = os.path.join(ROOT, "examples", "ticket_lock_i32.mlir")


def _files(tmp_path, n=1000):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    return a, b


def test_run_vector_add(run_cli, tmp_path):
    a, b = _files(tmp_path)
    out = tmp_path / "c.npy"
    rc, stdout, err = run_cli("run", VECTOR_ADD, "--kernel", "vector_add", "--grid", "4,1,1",
                              "--arg", f"a={tmp_path / 'a.npy'}", "--arg", f"b={tmp_path / 'b.npy'}",
                              "--arg", "c=zeros:1000", "--arg", "n=1000", "--out", f"c={out}")
    assert rc == 0, err
    assert np.array_equal(np.load(out), a + b)


def test_run_with_pointer_offset_and_positional_names(run_cli, tmp_path):
    a, b = _files(tmp_path)
    out = tmp_path / "c.npy"
    rc, _, err = run_cli("run", VECTOR_ADD, "--grid", "2",
                         "--arg", f"arg0={tmp_path / 'a.npy'}@488", "--arg", f"1={tmp_path / 'b.npy'}",
                         "--arg", "c=zeros:512", "--arg", "n=512", "--out", f"c={out}")
    assert rc == 0, err
    assert np.array_equal(np.load(out), a[488:] + b[:512])


def test_undefined_behaviour_is_a_located_diagnostic(run_cli, tmp_path):
    _files(tmp_path)
    rc, _, err = run_cli("run", VECTOR_ADD, "--grid", "5",
                         "--arg", f"a={tmp_path / 'a.npy'}", "--arg", f"b={tmp_path / 'b.npy'}",
                         "--arg", "c=zeros:1000", "--arg", "n=1000")
    assert rc == 1
    assert err.startswith(f"{VECTOR_ADD}:13:5: error: 'cuda_tile.load_view_tko' op tile index 4")
    assert "tile block (4, 0, 0)" in err and "Traceback" not in err


def test_bad_arguments(run_cli, tmp_path):
    rc, _, err = run_cli("run", VECTOR_ADD, "--grid", "0")
    assert rc == 1 and "invalid --grid" in err
    rc, _, err = run_cli("run", VECTOR_ADD, "--arg", "zz=1")
    assert rc == 1 and "has no parameter 'zz'" in err
    rc, _, err = run_cli("run", VECTOR_ADD, "--arg", "n=5")
    assert rc == 1 and "missing kernel argument 'a'" in err
    rc, _, err = run_cli("run", VECTOR_ADD, "--kernel", "nope")
    assert rc == 1 and "no kernel @nope" in err
    rc, _, err = run_cli("run", VECTOR_ADD, "--arg", f"a={tmp_path / 'missing.npy'}")
    assert rc == 1 and "--arg a:" in err and "Traceback" not in err


def test_parse_errors_are_reported(run_cli, tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text("cuda_tile.module @m {\n  entry @k() {\n    %a = addf %x, %x : tile<f32>\n  }\n}\n")
    rc, _, err = run_cli("run", str(f))
    assert rc == 1 and f"{f}:3:" in err and "error" in err


def test_global_output(run_cli, tmp_path):
    out = tmp_path / "counter.npy"
    rc, _, err = run_cli("run", TICKETS, "--grid", "6", "--arg", "owner=zeros:4", "--arg", "tickets=zeros:6",
                         "--arg", "seen=zeros:6", "--out", f"@counter={out}")
    assert rc == 0, err
    assert np.load(out).tolist() == [6]


def test_print_goes_to_stdout(run_cli, tmp_path):
    f = tmp_path / "p.mlir"
    f.write_text('cuda_tile.module @m {\n  entry @k(%n: tile<i32>) {\n'
                 '    %x, %y, %z = get_tile_block_id : tile<i32>\n'
                 '    print "block %d of n=%d\\n", %x, %n : tile<i32>, tile<i32>\n    return\n  }\n}\n')
    rc, out, err = run_cli("run", str(f), "--grid", "3", "--arg", "n=-7")
    assert rc == 0, err
    assert out == "block 0 of n=-7\nblock 1 of n=-7\nblock 2 of n=-7\n"
