"""`tilec translate`: cuda-tile-translate's flags and messages."""
from __future__ import annotations

KERNEL = ("cuda_tile.module @kernels {\n  entry @k(%a: tile<i32>) {\n"
          "    %c = constant <i32: 1> : tile<i32>\n    %r = addi %a, %c : tile<i32>\n    return\n  }\n}\n")


def test_write_read_and_round_trip(run_cli, tmp_path):
    src, bc = tmp_path / "k.mlir", tmp_path / "k.tilebc"
    src.write_text(KERNEL)
    rc, _, err = run_cli("translate", "-mlir-to-cudatilebc", "-no-implicit-module", "-bytecode-version=13.2",
                         str(src), "-o", str(bc))
    assert rc == 0, err
    assert bc.read_bytes().startswith(b"\x7fTileIR\x00")
    rc, text, err = run_cli("translate", "-cudatilebc-to-mlir", str(bc))
    assert rc == 0 and "addi" in text, err
    rc, reference, _ = run_cli("opt", str(src))
    rc, round_tripped, err = run_cli("translate", "-test-cudatile-roundtrip", str(src))
    assert rc == 0 and round_tripped == reference, err


def test_bad_version_is_llvm_options_error(run_cli, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(KERNEL)
    rc, out, err = run_cli("translate", "-mlir-to-cudatilebc", "-bytecode-version=12.0", str(src))
    assert rc == 1 and out == ""
    assert ("for the --bytecode-version option: Invalid argument '12.0': the supported versions are "
            "[13.1 - 13.5]") in err


def test_list_versions(run_cli):
    rc, out, _ = run_cli("translate", "--list-versions")
    assert rc == 0 and out.split() == ["13.1", "13.2", "13.3", "13.4", "13.5"]


def test_name_and_fused_locations_are_refused_as_nvidia_does(run_cli, tmp_path):
    """cuda-tile-translate refuses locations bytecode cannot hold; `tilec opt
    --emit-bytecode` writes them as loc(unknown) (docs/decisions.md)."""
    src = tmp_path / "k.mlir"
    src.write_text('#l = loc("f.py":1:1)\n#n = loc("name"(#l))\ncuda_tile.module @m {\n  entry @k() {\n'
                   '    %a = constant <i32: 1> : tile<i32> loc(#n)\n    return\n  }\n}\n')
    rc, _, err = run_cli("translate", "-mlir-to-cudatilebc", str(src), "-o", str(tmp_path / "o.bc"))
    assert rc == 1 and "unsupported location, got NameLoc, expected DILocAttr or CallSiteLoc" in err
    assert not (tmp_path / "o.bc").exists()
    rc, _, err = run_cli("opt", str(src), "--emit-bytecode", "-o", str(tmp_path / "o.bc"))
    assert rc == 0, err


def test_type_too_new_is_reported_at_no_location(run_cli, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text("cuda_tile.module @m {\n  entry @k(%p: tile<f8E8M0FNU>) {\n    return\n  }\n}\n")
    rc, _, err = run_cli("translate", "-mlir-to-cudatilebc", "-bytecode-version=13.1", str(src))
    assert rc == 1
    assert err.startswith("loc(unknown): error: type 'Float8E8M0FNU' requires bytecode version 13.2+, targeting 13.1")


def test_reading_text_as_bytecode_and_no_mode_are_errors(run_cli, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text(KERNEL)
    rc, _, err = run_cli("translate", "-cudatilebc-to-mlir", str(src))
    assert rc == 1 and "is not Tile IR bytecode" in err
    rc, _, err = run_cli("translate", str(src))
    assert rc == 1 and "no translation chosen" in err


def test_split_input_verify_diagnostics_checks_the_writer(run_cli, tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text("// expected-error @below {{only function and global ops are allowed in the body}}\n"
                   "cuda_tile.module @m {\n  // expected-remark @below {{invalid op}}\n"
                   "  cuda_tile.constant <f32: 5.0> : !cuda_tile.tile<f32>\n}\n// -----\n" + KERNEL)
    rc, _, err = run_cli("translate", "-mlir-to-cudatilebc", "-split-input-file", "-verify-diagnostics", str(src),
                         "-o", str(tmp_path / "o.bc"))
    assert rc == 0, err
