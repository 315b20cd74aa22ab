#!/usr/bin/python3
"""Inputs and PyTorch's outputs for the two FuncTs README examples.

readme_loop.ir and readme_branch.ir are the README's "before
functionalization" graphs of these two functions, copied verbatim; their
.tssa files are the README's "after functionalization" graphs in this
compiler's spelling (see README.md here). This script runs the Python
functions themselves with fixed random inputs and saves what they return,
so the functionalized graphs can be run on the ref backend and compared.
Run with Debian's python3-torch: /usr/bin/python3 gen_readme.py
"""
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(7)


def readme_loop(a: torch.Tensor, b: torch.Tensor, n: int):
    a = a.clone()
    b = b.clone()
    for i in range(n):
        b[i] = b[i] + 1
    return b


def readme_branch(a: torch.Tensor, b: torch.Tensor, idx: int):
    a = a.clone()
    b = b.clone()
    if idx >= 0:
        a = a + 1
        b[idx] = a[idx]
    else:
        a = a - 1
        b[-idx] = a[-idx]
    return a + b


def save(case, inputs, out, args):
    d = os.path.join(HERE, case)
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    os.makedirs(os.path.join(d, "expected"), exist_ok=True)
    for name, t in inputs.items():
        np.save(os.path.join(d, "inputs", name + ".npy"), t.numpy())
    np.save(os.path.join(d, "expected", "out0.npy"), out.numpy())
    with open(os.path.join(d, "args.txt"), "w") as f:
        f.write(" ".join(args) + "\n")


a, b = torch.randn(6, 5), torch.randn(6, 5)
save("loop_n3", {"a": a, "b": b}, readme_loop(a, b, 3), ["a=inputs/a.npy", "b=inputs/b.npy", "n=3"])
a, b = torch.randn(4, 3), torch.randn(4, 3)
save("branch_pos", {"a": a, "b": b}, readme_branch(a, b, 2),
     ["a=inputs/a.npy", "b=inputs/b.npy", "idx=2"])
save("branch_neg", {"a": a, "b": b}, readme_branch(a, b, -1),
     ["a=inputs/a.npy", "b=inputs/b.npy", "idx=-1"])
