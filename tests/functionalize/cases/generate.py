#!/usr/bin/python3
"""generate.py — (re)build the TensorSSA stress cases tests/functionalize/cases/<name>/
from programs.py, with frontend/export.py (model.ir, inputs/, args.txt,
expected/ from PyTorch eager). Seeded, so a rerun writes the same files.

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
import programs  # noqa: E402


def main():
    names = sys.argv[1:] or sorted(programs.CASES)
    for name in names:
        torch.manual_seed(0)
        program, inputs = programs.CASES[name]
        export.export(program, inputs, os.path.join(HERE, name), source_root=HERE)
        print("wrote", name)


if __name__ == "__main__":
    main()
