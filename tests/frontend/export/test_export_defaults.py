#!/usr/bin/python3
"""test_export_defaults.py — export.py binds every graph input, including
those a real forward's signature leaves at a default (issue 30's public
code: `incremental_state: Optional[...] = None`, `timestep: Optional[Tensor]
= None`, `kernel: Tuple[int, int] = (2, 2)`): the graph text carries no
defaults, so args.txt names each one — None for an Optional left at None,
JSON arrays for lists and tuples, literals for scalars — and an example
input may override any default. An input with no default and no example
is refused, naming it; so is a default whose type the command line cannot
carry (a Dict).

With a tssa-stream path as argument, each exported case is also run
(`tssa-stream model.ir $(cat args.txt) -o out`) and its outputs compared
with the expected ones export.py wrote from eager PyTorch.

Exit 0 when every check passes, 1 otherwise, 77 (skipped) without torch.
    /usr/bin/python3 tests/frontend/export/test_export_defaults.py [build/tssa-stream]
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "frontend"))
sys.path.insert(0, HERE)
try:
    import numpy as np
    import torch
except ImportError:
    sys.exit(77)
import export  # noqa: E402  (frontend/export.py)
import defaults_program as programs  # noqa: E402

TSSA_STREAM = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run_case(case, what):
    """Runs tssa-stream on the exported case; checks its outputs match."""
    if TSSA_STREAM is None:
        return
    with open(os.path.join(case, "args.txt")) as f:
        args = f.read().split()
    out = os.path.join(case, "out")
    run = subprocess.run([TSSA_STREAM, "model.ir", *args, "-o", out], cwd=case,
                         capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, f"{what}: tssa-stream exit {run.returncode}: {run.stderr.strip()}")
    if run.returncode != 0:
        return
    expected = sorted(os.listdir(os.path.join(case, "expected")))
    for name in expected:
        want = np.load(os.path.join(case, "expected", name))
        got = np.load(os.path.join(out, name))
        check(want.dtype == got.dtype and want.shape == got.shape
              and np.allclose(want, got, rtol=1e-5, atol=1e-6),
              f"{what}: {name} differs from eager PyTorch")


def export_case(program, inputs, what):
    """args.txt's bindings (name -> text) of the exported case, after running
    it; or the ExportError."""
    with tempfile.TemporaryDirectory() as outdir:
        case = os.path.join(outdir, "case")
        try:
            export.export(program, inputs, case)
        except export.ExportError as err:
            return err
        with open(os.path.join(case, "args.txt")) as f:
            words = f.read().split()
        run_case(case, what)
    return dict(w.split("=", 1) for w in words if "=" in w)


def test_optional_state_left_at_none():
    x = torch.randn(3, 2)
    got = export_case(programs.IncrementalDecoder(), {"x": x}, "defaults")
    check(isinstance(got, dict), f"IncrementalDecoder with defaults exports: {got}")
    if not isinstance(got, dict):
        return
    check(got == {"x": "inputs/x.npy", "incremental_state": "None", "timestep": "None",
                  "scale": "0.5", "shift": "1", "center": "true", "cache": "None"},
          f"IncrementalDecoder bindings: {got}")


def test_defaults_overridden():
    inputs = {"x": torch.randn(3, 2), "incremental_state": {"k": torch.zeros(1)},
              "timestep": torch.tensor(2.0), "shift": 2, "center": False, "cache": 7}
    got = export_case(programs.IncrementalDecoder(), inputs, "overridden with a dict")
    # A Dict[str, Tensor] binds as {key:path,...}, one file per key.
    check(isinstance(got, dict) and got.get("incremental_state") == "{k:inputs/incremental_state.k.npy}",
          f"a Dict[str, Tensor] value binds key by key: {got}")
    inputs["incremental_state"] = {"k v": torch.zeros(1)}
    got = export_case(programs.IncrementalDecoder(), inputs, "a key with a blank")
    check(isinstance(got, export.ExportError) and "'k v'" in str(got),
          f"a key args.txt cannot carry is refused, naming it: {got}")
    del inputs["incremental_state"]
    got = export_case(programs.IncrementalDecoder(), inputs, "overridden")
    check(isinstance(got, dict), f"IncrementalDecoder with values exports: {got}")
    if isinstance(got, dict):
        check(got == {"x": "inputs/x.npy", "incremental_state": "None",
                      "timestep": "inputs/timestep.npy", "scale": "0.5", "shift": "2",
                      "center": "false", "cache": "7"},
              f"IncrementalDecoder overridden bindings: {got}")


def test_tuple_and_list_defaults():
    x = torch.randn(1, 2, 4, 4)
    got = export_case(programs.pooled, {"x": x}, "pooled defaults")
    check(got == {"x": "inputs/x.npy", "kernel": "[2,2]", "weights": "None",
                  "flags": "[true,false]", "eps": "0.001"},
          f"pooled bindings: {got}")
    got = export_case(programs.pooled, {"x": x, "kernel": (1, 2), "weights": [2.0, -1],
                                        "flags": (True, True)}, "pooled values")
    check(got == {"x": "inputs/x.npy", "kernel": "[1,2]", "weights": "[2.0,-1.0]",
                  "flags": "[true,true]", "eps": "0.001"},
          f"pooled bindings with values: {got}")
    got = export_case(programs.sizes, {"x": torch.randn(2, 6), "shape": [3, 4],
                                       "steps": [1, 2, 3]}, "sizes")
    check(got == {"x": "inputs/x.npy", "shape": "[3,4]", "steps": "[1,2,3]"},
          f"sizes bindings: {got}")


def test_refusals():
    got = export_case(programs.required, {"x": torch.randn(2)}, "required")
    check(isinstance(got, export.ExportError) and "missing k" in str(got),
          f"an input with no default and no example is refused: {got}")
    got = export_case(programs.takes_dict, {"x": torch.randn(2), "table": {"a": 1}}, "dict")
    check(isinstance(got, export.ExportError) and "'table'" in str(got)
          and "Dict[str, int]" in str(got),
          f"a Dict input is refused with its type: {got}")
    got = export_case(programs.takes_dict, {"x": torch.randn(2)}, "dict left at None")
    check(got == {"x": "inputs/x.npy", "table": "None"},
          f"an Optional Dict left at None binds None: {got}")
    got = export_case(programs.sizes, {"x": torch.randn(2, 6), "shape": [3, 2**60]}, "huge")
    check(isinstance(got, export.ExportError) and "2**53" in str(got),
          f"a list int past 2**53 is refused: {got}")


def test_overloaded_forward():
    """nn.GRU / nn.LSTM script with two @overload'ed forwards (Tensor and
    PackedSequence input): the Tensor one is taken, hx left at None."""
    torch.manual_seed(0)
    gru = torch.nn.GRU(4, 3, 2, bidirectional=True, batch_first=True)
    got = export_case(gru, {"input": torch.randn(2, 5, 4)}, "nn.GRU")
    check(got == {"input": "inputs/input.npy", "hx": "None"}, f"nn.GRU bindings: {got}")
    lstm = torch.nn.LSTM(4, 3, proj_size=2)
    got = export_case(lstm, {"input": torch.randn(5, 2, 4)}, "nn.LSTM")
    check(isinstance(got, dict), f"nn.LSTM exports: {got}")
    got = export_case(gru, {"x": torch.randn(2, 5, 4)}, "nn.GRU misnamed")
    check(isinstance(got, export.ExportError) and "forward__0(" in str(got) and "Tensor input" in str(got),
          f"inputs no overload takes are refused, listing the overloads: {got}")


def test_tensor_lists():
    """Lists and tuples of tensors: one file each, bound as [a.npy,b.npy]."""
    torch.manual_seed(0)
    features = [torch.randn(2, 4), torch.randn(3, 4)]
    inputs = {"features": features, "weight": torch.randn(4), "pair": (torch.randn(3), torch.randn(3)),
              "masks": [torch.ones(2), None]}
    got = export_case(programs.pyramid_heads, inputs, "pyramid_heads")
    check(got == {"features": "[inputs/features.0.npy,inputs/features.1.npy]", "weight": "inputs/weight.npy",
                  "pair": "[inputs/pair.0.npy,inputs/pair.1.npy]", "extra": "None",
                  "masks": "[inputs/masks.0.npy,None]"},
          f"pyramid_heads bindings: {got}")
    inputs.update(extra=[], features=[features[0]])
    got = export_case(programs.pyramid_heads, inputs, "pyramid_heads, an empty list")
    check(isinstance(got, dict) and got.get("extra") == "[]", f"an empty Tensor[] binds []: {got}")


test_optional_state_left_at_none()
test_tensor_lists()
test_overloaded_forward()
test_defaults_overridden()
test_tuple_and_list_defaults()
test_refusals()
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("ok: export.py binds defaults, Optional None, lists and tuples"
      + (" (and tssa-stream runs them)" if TSSA_STREAM else ""))
