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


def _vector_add(run_cli, *args):
    return run_cli("run", VECTOR_ADD, "--grid", "4", *args)


def test_bad_argument_values_are_named(run_cli, tmp_path):
    a, _ = _files(tmp_path)
    np.save(tmp_path / "a64.npy", a.astype(np.float64))
    np.save(tmp_path / "ai.npy", np.zeros(1000, np.int32))
    np.savez(tmp_path / "z.npz", a=a)
    (tmp_path / "text.npy").write_text("not an array\n")
    ok = {"a": f"a={tmp_path / 'a.npy'}", "b": f"b={tmp_path / 'b.npy'}", "c": "c=zeros:1000", "n": "n=1000"}
    for bad, msg in [
            # the kernel reads the bytes as they are: another dtype was silently garbage
            (f"a={tmp_path / 'a64.npy'}", f"--arg a: '{tmp_path / 'a64.npy'}' holds float64 elements, "
                                          "the parameter points to f32 (float32)"),
            (f"a={tmp_path / 'ai.npy'}", f"--arg a: '{tmp_path / 'ai.npy'}' holds int32 elements, "
                                         "the parameter points to f32 (float32)"),
            (f"a={tmp_path / 'z.npz'}", f"--arg a: '{tmp_path / 'z.npz'}' is not a .npy file of numbers"),
            (f"a={tmp_path / 'text.npy'}", f"--arg a: '{tmp_path / 'text.npy'}' is not a .npy file of numbers"),
            (f"a={tmp_path}", f"--arg a: could not read '{tmp_path}': Is a directory"),
            (f"a={tmp_path / 'a.npy'}@x", "--arg a: element offset 'x' is not an integer"),
            ("c=zeros:abc", "--arg c: invalid shape 'abc' in 'zeros:abc': expected sizes like 64x64"),
            ("c=zeros:", "--arg c: invalid shape '' in 'zeros:': expected sizes like 64x64"),
            ("c=zeros:-3", "--arg c: invalid shape '-3' in 'zeros:-3': expected sizes like 64x64"),
            ("c=zeros:99999999999999", "--arg c: cannot allocate 'zeros:99999999999999' of f32"),
            ("n=abc", "--arg n: 'abc' is not a number"),
            ("n=99999999999", "--arg n: 99999999999 does not fit in i32")]:
        args = dict(ok, **{bad.split("=")[0]: bad})
        out = tmp_path / "c.npy"
        rc, stdout, err = _vector_add(run_cli, *[x for v in args.values() for x in ("--arg", v)],
                                      "--out", f"c={out}")
        assert (rc, stdout) == (1, "") and not out.exists(), err
        assert err == f"tilec run: error: {msg}\n"


def test_an_argument_given_twice_is_an_error(run_cli, tmp_path):
    _files(tmp_path)
    rc, _, err = _vector_add(run_cli, "--arg", f"a={tmp_path / 'a.npy'}", "--arg", f"b={tmp_path / 'b.npy'}",
                             "--arg", "c=zeros:1000", "--arg", "n=1000", "--arg", "arg3=512")
    assert rc == 1 and err == "tilec run: error: --arg arg3: parameter 'n' is given more than once\n"


def test_outputs_are_checked_before_the_run_and_written_as_named(run_cli, tmp_path):
    a, b = _files(tmp_path)
    args = ["--arg", f"a={tmp_path / 'a.npy'}", "--arg", f"b={tmp_path / 'b.npy'}", "--arg", "c=zeros:1000",
            "--arg", "n=1000"]
    (tmp_path / "d").mkdir()
    for out, msg in [("n=n.npy", "--out n: no such pointer argument or global"),
                     ("@nope=g.npy", "--out @nope: no such pointer argument or global"),
                     (f"c={tmp_path / 'no' / 'c.npy'}", f"--out c: could not write '{tmp_path / 'no' / 'c.npy'}': "
                                                         "No such file or directory"),
                     (f"c={tmp_path / 'd'}", f"--out c: could not write '{tmp_path / 'd'}': Is a directory")]:
        before = sorted(os.listdir(tmp_path))
        rc, _, err = _vector_add(run_cli, *args, "--out", f"a={tmp_path / 'first.npy'}", "--out", out)
        assert rc == 1 and err == f"tilec run: error: {msg}\n"
        assert sorted(os.listdir(tmp_path)) == before and os.listdir(tmp_path / "d") == []
    # np.save would have written c.out.npy
    rc, _, err = _vector_add(run_cli, *args, "--out", f"c={tmp_path / 'c.out'}")
    assert rc == 0, err
    assert np.array_equal(np.load(tmp_path / "c.out"), a + b) and not (tmp_path / "c.out.npy").exists()


def test_grid_and_module_without_entries(run_cli, tmp_path):
    # block ids are i32: a bigger grid overflowed inside the interpreter
    rc, _, err = run_cli("run", VECTOR_ADD, "--grid", "4294967296")
    assert rc == 1 and err == ("tilec run: error: invalid --grid '4294967296': expected X[,Y[,Z]] of integers "
                               "from 1 to 2147483647\n")
    f = tmp_path / "empty.mlir"
    f.write_text("")
    rc, _, err = run_cli("run", str(f))
    assert rc == 1 and err == "tilec run: error: the module has no entry to run\n"
