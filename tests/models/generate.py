#!/usr/bin/python3
"""generate.py — (re)build the model corpus tests/models/<name>/ from
tests/models/programs/<name>.py.

How it works: every program file defines `example()`, returning
(program, inputs) or (program, inputs, (exit_status, message_substring)) for a
case that must fail. For each file, in name order, the generator seeds torch
(seed 0, so module weights and random inputs are the same on every run),
calls example(), and hands the result to frontend/export.py's export(), which
writes model.ir, inputs/, args.txt, weights.safetensors and expected/ (or
expect_error.txt). Source comments in model.ir name the program file relative
to programs/ (`# yolo_decode.py:12:8`).

Every op kind in every generated graph must be listed in include/tssa/ops.h,
the table the reference interpreter implements; a graph with an unlisted kind
fails the run, naming the kinds, so the program can be rewritten around them.

    /usr/bin/python3 tests/models/generate.py            # all programs
    /usr/bin/python3 tests/models/generate.py yolo_decode ssd_decode
"""

import argparse
import importlib.util
import os
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ beside the programs
HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "frontend"))

import export  # noqa: E402  (frontend/export.py)
import op_table  # noqa: E402

SEED = 0


def load_program_file(name):
    path = os.path.join(PROGRAMS, name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # TorchScript looks a program's source up through sys.modules.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def generate_case(name, known_kinds):
    """Export programs/<name>.py to <name>/; returns the list of unknown op kinds."""
    module = load_program_file(name)
    torch.manual_seed(SEED)
    example = module.example()
    program, inputs = example[0], example[1]
    expect_error = example[2] if len(example) > 2 else None
    kinds = export.export(program, inputs, os.path.join(HERE, name),
                          source_root=PROGRAMS, expect_error=expect_error)
    # ops only a branch the case never takes reaches (tssa-stream refuses
    # them only where they run), which the program file lists with why
    unreached = set(getattr(module, "UNREACHED_OPS", ()))
    return [k for k in op_table.unknown_kinds(kinds, known_kinds) if k not in unreached]


def directory_size(path):
    return sum(os.path.getsize(os.path.join(root, f))
               for root, _, files in os.walk(path) for f in files)


def main():
    parser = argparse.ArgumentParser(description="Regenerate the tssa-stream model corpus.")
    parser.add_argument("names", nargs="*", help="program names (default: all in programs/)")
    args = parser.parse_args()
    available = sorted(f[:-3] for f in os.listdir(PROGRAMS) if f.endswith(".py"))
    names = args.names or available
    missing = [n for n in names if n not in available]
    if missing:
        sys.exit("generate.py: no program " + ", ".join(missing) + " in " + PROGRAMS)

    known = op_table.known_op_kinds()
    failures = []
    for name in names:
        try:
            unknown = generate_case(name, known)
        except export.ExportError as err:
            failures.append(f"{name}: {err}")
            continue
        if unknown:
            failures.append(f"{name}: op kinds not in include/tssa/ops.h: " + ", ".join(unknown))
        print(f"{name}: {directory_size(os.path.join(HERE, name))} bytes")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)
    print(f"{len(names)} programs exported")


if __name__ == "__main__":
    main()
