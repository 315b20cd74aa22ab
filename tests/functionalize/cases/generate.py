#!/usr/bin/python3
"""generate.py — (re)build the TensorSSA stress cases tests/functionalize/cases/<name>/
from programs.py (tensor writes) and list_programs.py (list writes), with
frontend/export.py (model.ir, inputs/, args.txt, expected/ from PyTorch
eager, or expect_error.txt for an entry that gives the failure it expects).
Seeded, so a rerun writes the same files.

    /usr/bin/python3 tests/functionalize/cases/generate.py
"""
import os
import sys

import torch

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "frontend"))

import export  # noqa: E402
import list_programs  # noqa: E402
import programs  # noqa: E402

CASES = {**programs.CASES, **list_programs.CASES}


def main():
    names = sys.argv[1:] or sorted(CASES)
    for name in names:
        torch.manual_seed(0)
        program, inputs = CASES[name][:2]
        expect_error = CASES[name][2] if len(CASES[name]) > 2 else None
        export.export(program, inputs, os.path.join(HERE, name), source_root=HERE,
                      expect_error=expect_error)
        print("wrote", name)


if __name__ == "__main__":
    main()
