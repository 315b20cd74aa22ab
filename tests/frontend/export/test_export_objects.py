#!/usr/bin/python3
"""test_export_objects.py — export.py writes objects of TorchScript classes
held by modules by the weights.safetensors contract (tests/models/README.md):
each attribute under the object's dotted path (holder.coder.weights), a
tensor attribute as a tensor of that name, an object inside a list as
{"__object__": "PATH"} with its attributes under PATH; and it refuses, with
a message naming the attribute and its declared type, an attribute the
graph reads whose declared type tssa-stream cannot read (complex, a tuple holding one),
while one that is never read does not stop the export.

Exit 0 when every check passes, 1 otherwise, 77 (skipped) without torch.
    /usr/bin/python3 tests/frontend/export/test_export_objects.py
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "frontend"))
sys.path.insert(0, HERE)
try:
    import torch
except ImportError:
    sys.exit(77)
import export  # noqa: E402  (frontend/export.py)
import objects_program as programs  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def export_to_temp(program, inputs):
    """(metadata, tensor names) of the exported case, or the ExportError."""
    with tempfile.TemporaryDirectory() as outdir:
        case = os.path.join(outdir, "case")
        try:
            export.export(program, inputs, case)
        except export.ExportError as err:
            return err
        arrays, metadata = export.read_safetensors(os.path.join(case, "weights.safetensors"))
        return metadata, arrays


def test_nested_objects():
    got = export_to_temp(programs.Nested(), {"x": torch.randn(2)})
    check(not isinstance(got, Exception), f"Nested exports: {got}")
    if isinstance(got, Exception):
        return
    metadata, arrays = got
    check(json.loads(metadata.get("holder.coder.weights", "null")) == [1.0, 2.0],
          f"holder.coder.weights: {metadata.get('holder.coder.weights')}")
    check(metadata.get("holder.coder.clip") == "4.0", "holder.coder.clip")
    check(metadata.get("holder.coder.label") == "coder", "holder.coder.label")
    check(json.loads(metadata.get("holder.coder.steps", "null")) == [1, 2], "holder.coder.steps")
    check(metadata.get("holder.maybe") == "None", "holder.maybe is None")
    check("holder.coder.scale" in arrays and list(arrays["holder.coder.scale"]) == [2.0, 3.0],
          f"holder.coder.scale is a tensor: {sorted(arrays)}")
    check(json.loads(metadata.get("holder.coders", "null")) ==
          [{"__object__": "holder.coders.0"}, {"__object__": "holder.coders.1"}],
          f"holder.coders: {metadata.get('holder.coders')}")
    check(metadata.get("holder.coders.1.clip") == "2.0", "holder.coders.1.clip")
    check("holder.coders.1.scale" in arrays, "holder.coders.1.scale is a tensor")
    check(not any(k.endswith("__overloads__") for k in metadata),
          "TorchScript's __overloads__ is no attribute")
    check("holder" not in metadata and "holder.coder" not in metadata,
          "an object has no entry of its own")


def test_refused(program, attribute, type_text):
    got = export_to_temp(program, {"x": torch.randn(2)})
    what = f"{type(program).__name__}: refuses '{attribute}' declared {type_text}"
    check(isinstance(got, export.ExportError), what + " (it exported)")
    if isinstance(got, export.ExportError):
        message = str(got)
        check(f"'{attribute}'" in message and type_text in message
              and "a type tssa-stream cannot read" in message, what + f": the message is {message!r}")


def main():
    test_nested_objects()
    test_refused(programs.ReadsComplex(), "odd.z", "complex")
    test_refused(programs.ReadsTupleOfComplex(), "odd.pair", "Tuple[int, complex] (holding complex)")
    test_refused(programs.ReadsComplexInList(), "odds.0.z", "complex")
    test_refused(programs.OptionalObject(), "odd.z", "complex")
    got = export_to_temp(programs.NoneObject(), {"x": torch.randn(2)})
    check(not isinstance(got, Exception), f"NoneObject exports: {got}")
    if not isinstance(got, Exception):
        check(got[0].get("none") == "None", f"none: {got[0]}")
    print("test_export_objects:", f"{len(failures)} checks failed" if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
