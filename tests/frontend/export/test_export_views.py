#!/usr/bin/python3
"""test_export_views.py — module tensor attributes that overlap in memory as
different views (gpleiss/temperature_scaling's _ECELoss keeps
`bin_boundaries[:-1]` and `bin_boundaries[1:]`): export.py writes each as
a tensor of its own when the program cannot write the module's tensors
(may_write_module_tensors: no SetAttr, no in-place op on a value that may
alias one of them), and still refuses them, naming both, when it may (an
in-place write through one name would show through the other in PyTorch
and not in two tensors of a weights file). An in-place write to a fresh
tensor computed from them (`acc += lo * 2`) is no write to the module.

With a tssa-stream path as argument, the exported case is also run and its
outputs compared with eager PyTorch's.

Exit 0 when every check passes, 1 otherwise, 77 (skipped) without torch.
    /usr/bin/python3 tests/frontend/export/test_export_views.py [build/tssa-stream]
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "frontend"))
try:
    import numpy as np
    import torch
except ImportError:
    sys.exit(77)
import export  # noqa: E402  (frontend/export.py)

TSSA_STREAM = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else None
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


class Bins(torch.nn.Module):
    """Reads two overlapping views of one tensor; writes only a fresh one."""

    def __init__(self):
        super().__init__()
        bounds = torch.linspace(0, 1, 6)
        self.lo = bounds[:-1]
        self.hi = bounds[1:]

    def forward(self, x):
        acc = torch.zeros(5)
        for i in range(self.lo.size(0)):
            inside = (x > self.lo[i].item()) & (x <= self.hi[i].item())
            acc[i] += inside.float().sum()
        acc += self.lo * 2
        return acc, self.hi - self.lo


class BinsWritten(Bins):
    """The same attributes, one of them written in place through a view."""

    def forward(self, x):
        lo = self.lo[1:]
        lo.add_(x.sum())
        return self.hi * 1


def run_case(case):
    if TSSA_STREAM is None:
        return
    with open(os.path.join(case, "args.txt")) as f:
        args = f.read().split()
    out = os.path.join(case, "out")
    run = subprocess.run([TSSA_STREAM, "model.ir", *args, "-o", out], cwd=case,
                         capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, f"read-only views: tssa-stream exit {run.returncode}: {run.stderr.strip()}")
    if run.returncode != 0:
        return
    for name in sorted(os.listdir(os.path.join(case, "expected"))):
        want = np.load(os.path.join(case, "expected", name))
        got = np.load(os.path.join(out, name))
        check(want.shape == got.shape and np.allclose(want, got, rtol=1e-5, atol=1e-6),
              f"read-only views: {name} differs from eager PyTorch")


x = torch.rand(40)
with tempfile.TemporaryDirectory() as outdir:
    case = os.path.join(outdir, "views")
    try:
        export.export(Bins(), {"x": x}, case)
        run_case(case)
    except export.ExportError as err:
        check(False, f"read-only overlapping views refused: {err}")

with tempfile.TemporaryDirectory() as outdir:
    try:
        export.export(BinsWritten(), {"x": x}, os.path.join(outdir, "written"))
        check(False, "overlapping views written in place were exported")
    except export.ExportError as err:
        check("shares memory with" in str(err) and "as a different view" in str(err),
              f"written overlapping views: unexpected refusal: {err}")

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
