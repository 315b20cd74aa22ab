#!/usr/bin/python3
"""bench_corpus.py — every program of the model corpus (tests/models), eager
PyTorch against tssa-stream's cpu backend, side by side.

    /usr/bin/python3 experiments/bench_corpus.py [--tssa build/tssa-stream]
        [--rounds 30] [--threads 1] [--only tv_nms,centertrack_greedy]
        [--out experiments/results] [--no-csv]

For each case of tests/models that has its program in
tests/models/programs/<name>.py (the cases that must fail, expect_error.txt,
are listed and skipped), in name order:
  - eager: the program and inputs that tests/models/generate.py exported
    (the program file's example(), torch seeded as generate.py seeds it, so
    the inputs and module weights are the case's), called in this process
    with torch.set_num_threads(THREADS): warm-up calls, then the median of
    --rounds calls, each on fresh clones of the inputs made outside the
    timed region (bench_common.time_torch; slow programs get fewer calls
    within a budget, at least 3);
  - tssa-stream: `tssa-stream model.ir ARGS --repeat ROUNDS --stats` on a
    copy of the case with OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = THREADS,
    the median per run it reports (compile and first run excluded), its
    outputs checked against the case's expected/ (PyTorch's; rtol and atol
    1e-4), and its reference-kernel fallbacks and generated kernels per run
    from --stats;
  - opaque: `tssa-stream model.ir ARGS --emit=stream` and the comments the
    lowering leaves on a loop or a program it could only make one filter
    ("the loop is one filter", "the whole program is one filter").
The ratio is eager's time over tssa-stream's (above 1: tssa-stream is
faster); the geometric mean is over the programs that matched. Both sides
use the same thread count (default 1: on a shared machine one thread each is
the steadier comparison); importing bench_common sets OMP_WAIT_POLICY=PASSIVE
for torch before it loads.

Progress goes to stderr, the table (Markdown) to stdout, and unless --no-csv
the rows to <out>/corpus/<date>-<host>.csv with the machine beside them in
.meta.json. Exit status 0 when the table was written (failures are rows), 2
for bad usage, 1 when tssa-stream is missing.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import bench_common as bc

bc.require("bench_corpus.py")
torch = bc.torch

MODELS = os.path.join(bc.ROOT, "tests", "models")
PROGRAMS = os.path.join(MODELS, "programs")
sys.path.insert(0, MODELS)
import generate  # noqa: E402  (tests/models/generate.py: load_program_file, SEED)

OPAQUE_MARKS = ("the loop is one filter", "the whole program is one filter")
COLUMNS = ["name", "eager_ms", "tssa_ms", "ratio", "match", "opaque", "fallbacks_per_run",
           "kernels_per_run", "note"]
HEADERS = ["program", "eager ms", "tssa ms", "eager/tssa", "match", "opaque", "fallbacks/run",
           "kernels/run", "note"]


def corpus_cases(only):
    """The names of the corpus cases with a program file, in name order."""
    names = sorted(d for d in os.listdir(MODELS)
                   if os.path.isfile(os.path.join(MODELS, d, "model.ir"))
                   and os.path.isfile(os.path.join(PROGRAMS, d + ".py")))
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            sys.exit(f"bench_corpus.py: no corpus case {', '.join(unknown)} in {MODELS}")
        names = [n for n in names if n in only]
    return names


def opaque_filters(tssa, case, threads):
    """(how many loops or programs the stream graph keeps as one filter, why
    not known)."""
    e = bc.tssa_environ(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [tssa, "model.ir", *bc.case_args(case), "--emit=stream"]
    try:
        p = subprocess.run(cmd, cwd=case, env=e, capture_output=True, text=True,
                           timeout=bc.TSSA_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, "--emit=stream timed out"
    if p.returncode != 0:
        return None, "--emit=stream: " + bc._last_error(p.stderr, p.returncode)
    return sum(p.stdout.count(m) for m in OPAQUE_MARKS), None


def time_eager(name, rounds, budget_s):
    """PyTorch eager's median seconds per call of the case's program."""
    module = generate.load_program_file(name)
    torch.manual_seed(generate.SEED)
    example = module.example()
    program, inputs = example[0], example[1]
    return bc.time_torch(program, inputs, rounds, "eager", warmup=3, budget_s=budget_s,
                         count=False)["s"]


def measure(tssa, name, workdir, rounds, threads, budget_s, say):
    row = dict(name=name)
    src = os.path.join(MODELS, name)
    if os.path.exists(os.path.join(src, "expect_error.txt")):
        row["note"] = "skipped: the case must fail (expect_error.txt)"
        return row
    case = os.path.join(workdir, name)
    shutil.copytree(src, case)
    notes = []
    say(f"{name}: eager")
    try:
        row["eager_ms"] = time_eager(name, rounds, budget_s) * 1e3
    except Exception as e:      # noqa: BLE001 (a row, not a crash)
        notes.append(f"eager: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    say(f"{name}: tssa-stream --repeat {rounds}")
    t, stats, err = bc.run_tssa(tssa, case, rounds, threads=threads)
    row["fallbacks_per_run"] = bc.as_count(stats.get("fallbacks_per_run"))
    row["kernels_per_run"] = bc.as_count(stats.get("kernels_per_run"))
    if err:
        notes.append(f"tssa-stream: {err}")
        row["match"] = "no run"
    else:
        row["tssa_ms"] = t * 1e3
        check = bc.check_outputs(case)
        row["match"] = "yes" if check.startswith("ok") else "NO"
        if not check.startswith("ok"):
            notes.append(check)
    say(f"{name}: --emit=stream")
    opaque, why = opaque_filters(tssa, case, threads)
    row["opaque"] = opaque
    if why:
        notes.append(why)
    if row.get("eager_ms") and row.get("tssa_ms"):
        row["ratio"] = row["eager_ms"] / row["tssa_ms"]
    row["note"] = "; ".join(notes)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tssa", default=bc.DEFAULT_TSSA)
    ap.add_argument("--rounds", type=int, default=30,
                    help="timed calls per program on each side (default 30)")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for torch and for tssa-stream alike (default 1)")
    ap.add_argument("--budget", type=float, default=3.0,
                    help="seconds of eager timing per program before the calls shrink (default 3)")
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--out", default=os.path.join(bc.HERE, "results"))
    ap.add_argument("--no-csv", action="store_true", help="print the table only")
    opts = ap.parse_args()
    if opts.rounds < 1 or opts.threads < 1:
        ap.error("--rounds and --threads must be at least 1")
    if not os.path.exists(opts.tssa):
        print(f"bench_corpus.py: {opts.tssa} not found: build first (scripts/build.sh build)",
              file=sys.stderr)
        sys.exit(1)
    opts.tssa = os.path.abspath(opts.tssa)
    torch.set_num_threads(opts.threads)
    names = corpus_cases([n for n in opts.only.split(",") if n])
    progress = bc.Progress("bench_corpus.py", total=len(names))
    workdir = tempfile.mkdtemp(prefix="bench_corpus.")
    rows = []
    try:
        for name in names:
            progress.step(name)
            rows.append(measure(opts.tssa, name, workdir, opts.rounds, opts.threads, opts.budget,
                                progress.note))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        progress.finish()
    bc.print_table(COLUMNS, rows, headers=HEADERS)
    matched = [r for r in rows if r.get("match") == "yes" and r.get("ratio")]
    geo = bc.geomean([r["ratio"] for r in matched])
    ran = [r for r in rows if "skipped" not in (r.get("note") or "")]
    print(f"\n{len(ran)} programs run ({len(rows) - len(ran)} skipped); "
          f"{len(matched)} match PyTorch; "
          f"{sum(1 for r in ran if (r.get('opaque') or 0) > 0)} with an opaque loop or program "
          f"filter; {opts.threads} thread(s) each, {opts.rounds} rounds")
    if geo:
        slower = [r["name"] for r in matched if r["ratio"] < 1]
        print(f"geometric mean of eager / tssa-stream over the {len(matched)} that match: "
              f"{geo:.2f}x; slower than eager: {len(slower)}"
              + (f" ({', '.join(slower)})" if slower else ""))
    if not opts.no_csv:
        info = bc.machine_info(opts.tssa)
        info.update(threads=opts.threads, rounds=opts.rounds, geomean=geo)
        stem = bc.result_stem(opts.out, "corpus", info)
        bc.write_csv(stem + ".csv", COLUMNS, rows)
        bc.write_json(stem + ".meta.json", info)
        print(f"wrote {os.path.relpath(stem, bc.ROOT)}.csv and .meta.json", file=sys.stderr)


if __name__ == "__main__":
    main()
