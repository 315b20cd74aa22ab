#!/usr/bin/python3
"""gen_op_dynamic_shape.py — writes ir/op_dynamic_shape.inc: the ops of the op
table (include/tssa/ops.h) whose result shapes depend on the VALUES of their
tensor arguments (nonzero, unique, masked_select...), so that shape inference
never works out their shapes by running them on stand-in tensors
(kernels/shape_eval.c): a stand-in holds zeros, not the program's data.

An op is in the list when either source says so:

  tag       one of its overloads in PyTorch's registry carries
            torch.Tag.dynamic_output_shape (the tag FakeTensor refuses to
            run: torch/_subclasses/fake_tensor.py, dyn_shape). PyTorch
            1.13's registry tags few ops (index, repeat_interleave), so:
  observed  one of its rows in the per-op corpus (tests/ops/<op>__<case>/,
            program.py with its inputs) gives results of different shapes
            when run in PyTorch on other inputs of the same shapes and
            dtypes (random values; integer inputs drawn between the row's
            own smallest and largest value so that indices stay in range).

aten::index is data dependent only with a boolean (or uint8) index, which
FakeTensor checks per call (check_no_bool_index_tensors); the query in
ir/op_dynamic_shape.c says so for every aten::index and index_put, and shape
inference decides per node from the index's dtype.

    /usr/bin/python3 ir/gen_op_dynamic_shape.py      # rewrites ir/op_dynamic_shape.inc
"""

import ast
import importlib.util
import os
import sys
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OPS_DIR = os.path.join(REPO, "tests", "ops")
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
import op_table  # noqa: E402  (tests/models/op_table.py: the names in ops.h)

TRIALS = 6


def tagged(known):
    """Ops of the table with an overload tagged dynamic_output_shape."""
    found = {}
    for name in known:
        ns, _, base = name.partition("::")
        if ns != "aten":
            continue
        packet = getattr(torch.ops.aten, base, None)
        if packet is None or not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            if torch.Tag.dynamic_output_shape in getattr(getattr(packet, overload), "tags", []):
                found[name] = f"tag dynamic_output_shape ({name}.{overload})"
    return found


def load_case(case_dir):
    spec = importlib.util.spec_from_file_location("case_program", os.path.join(case_dir, "program.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kwargs = {}
    with open(os.path.join(case_dir, "args.txt")) as f:
        words = f.read().split()
    for word in words:
        if "=" not in word or word.startswith("--"):
            return None, None
        name, _, value = word.partition("=")
        if value.endswith(".npy"):
            kwargs[name] = torch.from_numpy(np.load(os.path.join(case_dir, value)))
        else:
            try:
                kwargs[name] = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                kwargs[name] = value
    return module.case, kwargs


def perturbed(value, rng):
    if not isinstance(value, torch.Tensor) or value.numel() == 0:
        return value
    if value.dtype == torch.bool:
        return torch.from_numpy(rng.random(tuple(value.shape)) < 0.5)
    if value.dtype.is_floating_point or value.dtype.is_complex:
        return torch.from_numpy(rng.standard_normal(tuple(value.shape))).to(value.dtype)
    lo, hi = int(value.min()), int(value.max())
    return torch.from_numpy(rng.integers(lo, hi + 1, size=tuple(value.shape))).to(value.dtype)


def shapes(result):
    if isinstance(result, torch.Tensor):
        return [("T", tuple(result.shape))]
    if isinstance(result, (list, tuple)):
        out = [("L", len(result))]
        for item in result:
            out += shapes(item)
        return out
    return [("S",)]


def observed(known):
    """Ops whose corpus rows change result shapes with their inputs' values."""
    found = {}
    rng = np.random.default_rng(28)
    for case in sorted(os.listdir(OPS_DIR)):
        case_dir = os.path.join(OPS_DIR, case)
        op = "aten::" + case.split("__")[0]
        if op not in known or op in found or not os.path.exists(os.path.join(case_dir, "program.py")):
            continue
        try:
            fn, kwargs = load_case(case_dir)
            if fn is None:
                continue
            want = shapes(fn(**kwargs))
        except Exception:  # noqa: BLE001  (rows that expect an error)
            continue
        for _ in range(TRIALS):
            try:
                got = shapes(fn(**{k: perturbed(v, rng) for k, v in kwargs.items()}))
            except Exception:  # noqa: BLE001  (values the op refuses)
                continue
            if got != want:
                found[op] = f"observed ({case}: {want} then {got})"
                break
    return found


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    warnings.filterwarnings("ignore")
    known = op_table.known_op_kinds()
    rows = tagged(known)
    for op, why in observed(known).items():
        rows.setdefault(op, why)
    out = os.path.join(HERE, "op_dynamic_shape.inc")
    with open(out, "w") as f:
        f.write(f"/* op_dynamic_shape.inc — generated by ir/gen_op_dynamic_shape.py from PyTorch "
                f"{torch.__version__}'s\n * tags and the per-op corpus; do not edit. Sorted by name "
                "(op_dynamic_shape.c searches it). */\n")
        for op in sorted(rows):
            f.write(f"{{{c_string(op)}, {c_string(rows[op][:200])}}},\n")
    print(f"{out}: {len(rows)} ops", file=sys.stderr)
    for op in sorted(rows):
        print(f"  {op}: {rows[op][:160]}", file=sys.stderr)


if __name__ == "__main__":
    main()
