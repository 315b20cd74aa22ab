#!/usr/bin/python3
"""check_cases.py — check that every committed case directory keeps the
layout the test runners rely on, without PyTorch (Python and NumPy only).

For each case under tests/models and tests/ops it checks: model.ir exists,
names no absolute path and has a graph header; args.txt is one line whose
NAME=VALUE bindings are exactly the graph's inputs (debug names without
their `.N` suffix), whose .npy paths exist, and which passes --weights exactly
when the graph has a %self; the case has expected/out0.npy .. outN-1.npy with
no gaps, or else an expect_error.txt of two lines (an exit status and a
message substring), never both; every .npy file is a dtype tssa-stream
reads; weights.safetensors has a well-formed header. It also prints the total
size of both trees (the budget is about 10 MB).

    /usr/bin/python3 tests/models/check_cases.py
"""

import json
import os
import re
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TREES = [HERE, os.path.join(os.path.dirname(HERE), "ops")]
ALLOWED_DTYPES = {np.dtype("<f4"), np.dtype("<f8"), np.dtype("<i4"), np.dtype("<i8"), np.dtype("<i2"),
                  np.dtype("i1"), np.dtype("u1"), np.dtype("?")}
# About 10 MB: the corpus's 160 programs (whole nn.Transformer graphs are
# 0.5 MB of text each) and the per-op table's 1,400 cases.
SIZE_BUDGET = 10 * 1024 * 1024


def is_json(text):
    """A JSON array or literal, as args.txt writes lists and tuples of
    ints, floats and bools."""
    try:
        json.loads(text)
        return True
    except ValueError:
        return False


def graph_inputs(text):
    """[(name, type)] from the `graph(%a.1 : Tensor, %n.1 : int):` header."""
    match = re.match(r"graph\((.*?)\):\n", text, re.S)
    if not match:
        return None
    inputs = []
    for part in re.findall(r"%([\w.]+) : ([^,\n]+)", match.group(1)):
        inputs.append((re.sub(r"\.\d+$", "", part[0]), part[1].strip()))
    return inputs


def check_npy(path, problems):
    try:
        array = np.load(path, allow_pickle=False)
    except Exception as err:  # a broken file is a finding, whatever the error
        problems.append(f"{path}: unreadable .npy ({err})")
        return
    if array.dtype not in ALLOWED_DTYPES:
        problems.append(f"{path}: dtype {array.dtype} is not one tssa-stream reads")


def check_safetensors(path, problems):
    with open(path, "rb") as f:
        blob = f.read()
    if len(blob) < 8:
        problems.append(f"{path}: too short")
        return
    (length,) = struct.unpack("<Q", blob[:8])
    try:
        header = json.loads(blob[8:8 + length])
    except ValueError as err:
        problems.append(f"{path}: header is not JSON ({err})")
        return
    metadata = header.pop("__metadata__", {})
    if not all(isinstance(v, str) for v in metadata.values()):
        problems.append(f"{path}: __metadata__ values must be strings")
    end = 0
    for name, entry in header.items():
        begin, stop = entry["data_offsets"]
        end = max(end, stop)
    if 8 + length + end != len(blob):
        problems.append(f"{path}: data size does not match the header")


def check_case(case, problems):
    model = os.path.join(case, "model.ir")
    with open(model) as f:
        text = f.read()
    if re.search(r"# /", text):
        problems.append(f"{model}: a source comment names an absolute path")
    inputs = graph_inputs(text)
    if inputs is None:
        problems.append(f"{model}: no graph header")
        return
    with open(os.path.join(case, "args.txt")) as f:
        lines = f.read().split("\n")
    if len(lines) != 2 or lines[1] != "":
        problems.append(f"{case}/args.txt: must be exactly one line")
    tokens = lines[0].split()
    has_self = bool(inputs) and inputs[0][0] == "self"
    wanted = [name for name, _ in inputs if name != "self"]
    str_inputs = {name for name, ty in inputs if ty in ("str", "str?")}
    bound = []
    weights = False
    i = 0
    while i < len(tokens):
        if tokens[i] == "--weights":
            weights = True
            if i + 1 >= len(tokens) or not os.path.isfile(os.path.join(case, tokens[i + 1])):
                problems.append(f"{case}/args.txt: --weights names no file")
            else:
                check_safetensors(os.path.join(case, tokens[i + 1]), problems)
            i += 2
            continue
        name, _, value = tokens[i].partition("=")
        bound.append(name)
        if name in str_inputs:          # a str binds as its text
            i += 1
            continue
        # a tensor list's [a.npy,None,...] (frontend/bindings.c) is checked item by item
        # and a tensor dict's {key:a.npy,...}
        if re.fullmatch(r"\[.*\.npy.*\]", value):
            items = value[1:-1].split(",")
        elif re.fullmatch(r"\{.*\}", value):
            items = [item.partition(":")[2] for item in value[1:-1].split(",") if item]
        else:
            items = [value]
        for item in items:
            if item.endswith(".npy"):
                path = os.path.join(case, item)
                if not os.path.isfile(path):
                    problems.append(f"{case}/args.txt: {item} does not exist")
                else:
                    check_npy(path, problems)
            elif not re.fullmatch(r"true|false|None|-?\d+|-?[\d.]+(e[-+]?\d+)?", item) and not is_json(item):
                problems.append(f"{case}/args.txt: '{tokens[i]}' is neither a .npy path nor a literal")
        i += 1
    if bound != wanted:
        problems.append(f"{case}/args.txt binds {bound}, the graph takes {wanted}")
    if weights != has_self:
        problems.append(f"{case}/args.txt: --weights given {weights}, graph has %self {has_self}")

    expected = os.path.join(case, "expected")
    error_file = os.path.join(case, "expect_error.txt")
    if os.path.isdir(expected) == os.path.isfile(error_file):
        problems.append(f"{case}: needs exactly one of expected/ and expect_error.txt")
    if os.path.isdir(expected):
        names = sorted(os.listdir(expected))
        want = [f"out{k}.npy" for k in range(len(names))]
        if sorted(want) != names:
            problems.append(f"{expected}: outputs must be out0.npy .. out{len(names) - 1}.npy")
        for name in names:
            check_npy(os.path.join(expected, name), problems)
    if os.path.isfile(error_file):
        with open(error_file) as f:
            error_lines = f.read().split("\n")
        if len(error_lines) != 3 or not error_lines[0].isdigit() or not error_lines[1]:
            problems.append(f"{error_file}: must be two lines, an exit status and a substring")


def tree_size(path):
    return sum(os.path.getsize(os.path.join(root, f))
               for root, _, files in os.walk(path) for f in files)


def main():
    problems = []
    count = 0
    for tree in TREES:
        for entry in sorted(os.listdir(tree)):
            case = os.path.join(tree, entry)
            if os.path.isfile(os.path.join(case, "model.ir")):
                check_case(case, problems)
                count += 1
    size = sum(tree_size(t) for t in TREES)
    print(f"{count} cases checked, {size} bytes in tests/models + tests/ops")
    if size > SIZE_BUDGET:
        problems.append(f"the trees hold {size} bytes, over the {SIZE_BUDGET}-byte budget")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
