#!/usr/bin/python3
"""gen_loop_cases.py — (re)build tests/streamit/cases/<name>/ from
programs/loop_cases.py with frontend/export.py (model.ir, args.txt, inputs/,
expected/ from PyTorch eager) plus expect_parallel.txt (1: the lowering must
make the loop one data-parallel body filter, 0: it must not) and
expect_feedback.txt (1: it must make the loop a feedback loop, 0: it must
not). Names on the command line rebuild only those cases.

    /usr/bin/python3 tests/streamit/gen_loop_cases.py [NAME ...]
"""
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "programs"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "frontend"))

import export  # noqa: E402
import loop_cases  # noqa: E402

wanted = set(sys.argv[1:])
for name, (program, inputs) in sorted(loop_cases.examples().items()):
    if wanted and name not in wanted:
        continue
    outdir = os.path.join(HERE, "cases", name)
    export.export(program, inputs, outdir, source_root=os.path.join(HERE, "programs"))
    with open(os.path.join(outdir, "expect_parallel.txt"), "w") as f:
        f.write("1\n" if loop_cases.PARALLEL[name] else "0\n")
    with open(os.path.join(outdir, "expect_feedback.txt"), "w") as f:
        f.write("1\n" if loop_cases.FEEDBACK[name] else "0\n")
    print(name)
