#!/usr/bin/python3
"""test_export_random.py — export.py on a program that draws random numbers
(random_program.py: torch.multinomial after a top-k filter). The eager and
the scripted call are seeded alike (--seed), so they draw the same and the
export succeeds (before, it refused the program: "eager and scripted
outputs differ"); export.py notes on stderr that expected/ holds PyTorch's
draws, which tssa-stream's own generator does not reproduce. The case then
runs on ref and cpu with one --seed: the draws are identical on both, the
deterministic output (the probabilities) matches PyTorch's, and every draw
lands on a token the filter kept.

Exit 0 when every check passes, 1 otherwise, 77 (skipped) without torch.
    /usr/bin/python3 tests/frontend/export/test_export_random.py build/tssa-stream
"""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "..", "..", "..", "frontend", "export.py")
try:
    import numpy as np
    import torch  # noqa: F401  (export.py needs it)
except ImportError:
    sys.exit(77)

TSSA_STREAM = os.path.abspath(sys.argv[1])
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as tmp:
    case = os.path.join(tmp, "case")
    ex = subprocess.run([sys.executable, EXPORT, os.path.join(HERE, "random_program.py:sample_tokens"),
                         "--inputs", "logits=torch.randn(4, 12)", "top_k=5", "-o", case],
                        capture_output=True, text=True, timeout=300)
    check(ex.returncode == 0, f"export exit {ex.returncode}: {ex.stderr.strip()[-300:]}")
    check("may draw random numbers (aten::multinomial)" in ex.stderr,
          f"export's note on the random op: {ex.stderr.strip()[-300:]}")
    if ex.returncode == 0:
        args = open(os.path.join(case, "args.txt")).read().split()
        outs = {}
        for backend in ("ref", "cpu"):
            out = os.path.join(case, "out_" + backend)
            run = subprocess.run([TSSA_STREAM, "model.ir", *args, "--seed", "3", "-o", out,
                                  f"--backend={backend}"], cwd=case, capture_output=True,
                                 text=True, timeout=120)
            check(run.returncode == 0, f"{backend}: exit {run.returncode}: {run.stderr.strip()}")
            if run.returncode == 0:
                outs[backend] = [np.load(os.path.join(out, f"out{k}.npy")) for k in range(2)]
        if len(outs) == 2:
            check(np.array_equal(outs["ref"][0], outs["cpu"][0]),
                  f"draws differ between ref and cpu: {outs['ref'][0].ravel()} {outs['cpu'][0].ravel()}")
            tokens = outs["cpu"][0]
            check(tokens.shape == (4, 1) and tokens.min() >= 0 and tokens.max() < 12,
                  f"drawn tokens out of range: {tokens.ravel()}")
            want = np.load(os.path.join(case, "expected", "out1.npy"))
            check(np.allclose(outs["cpu"][1], want, rtol=1e-5, atol=1e-6),
                  "the probabilities differ from PyTorch's")
            # every draw lands on a token the top-k filter kept
            probs = outs["cpu"][1]
            check(all(probs[r, tokens[r, 0]] > 0 for r in range(4)),
                  "a draw landed on a token of probability 0")

print("test_export_random:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
