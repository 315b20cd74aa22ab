#!/usr/bin/python3
"""bench_stability.py — whether tssa-stream's --repeat timing is the same from one process to the next.

    /usr/bin/python3 experiments/bench_stability.py [--tssa build/tssa-stream]
        [--processes 6] [--runs 20] [--threads 2] [--batch 1] [--label NAME] [--env KEY=VALUE ...]
        [--csv experiments/results/stability/DATE-HOST.csv]

Exports the YOLOv3 decode workload at its benchmark size (bench_common's
yolo_decode, 1x3x40x40x85, as bench_e2e.py runs it) once, then starts
--processes separate `tssa-stream model.ir ARGS --repeat RUNS --stats`
processes one after the other (OMP_NUM_THREADS and OPENBLAS_NUM_THREADS =
--threads, plus each --env), and reads each one's min and median per run.
It prints every process's numbers and the spread: the largest per-process
median over the smallest (1.0: identical; the issue's bad case was ~30x),
and appends one row per process to the CSV (label, environment, the load
average when the process started, min, median, and the --stats
allocations_first_run / allocations_last_run where the build prints them).
Run it once per configuration with its own --label (an older build with
--tssa, TSSA_STORAGE_POOL=0, OMP_WAIT_POLICY=PASSIVE ...) to compare them in
one file. --batch N runs N images (N x 1.6 MB in and out): from about 170
the output is larger than the 256 MiB up to which glibc keeps freed blocks
on its heap (the cpu backend's mallopt), so without the buffer pool every
run maps it afresh and faults its pages in.
Not a test: the machine's load decides much of the result.
"""
import argparse
import csv
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

import bench_common as bc

bc.require("bench_stability.py")

COLUMNS = ("label", "tssa", "env", "sizes", "threads", "runs", "process", "loadavg_1min", "min_ms", "median_ms",
           "allocations_first_run", "allocations_last_run", "error")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tssa", default=bc.DEFAULT_TSSA)
    ap.add_argument("--processes", type=int, default=6)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=None, help="images (default: the benchmark's, 1)")
    ap.add_argument("--label", default="")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--csv", help="append the rows here (default: results/stability/DATE-HOST.csv)")
    ap.add_argument("--keep", help="export the case into this directory (default: a temporary one)")
    opts = ap.parse_args()
    if not os.path.exists(opts.tssa):
        sys.exit(f"bench_stability.py: {opts.tssa} not found: build first (scripts/build.sh build)")
    env = {}
    for kv in opts.env:
        key, sep, value = kv.partition("=")
        if not sep:
            sys.exit(f"bench_stability.py: --env {kv}: expected KEY=VALUE")
        env[key] = value
    tssa = os.path.abspath(opts.tssa)
    case = opts.keep or tempfile.mkdtemp(prefix="bench_stability.")
    program, inputs, sizes = bc.make_workload("yolo_decode", batch=opts.batch)
    bc.export.export(program, inputs, case)
    label = opts.label or os.path.relpath(tssa, bc.ROOT)
    env_text = " ".join(f"{k}={v}" for k, v in env.items())
    print(f"yolo_decode {sizes}, {opts.processes} processes of --repeat {opts.runs}, "
          f"{opts.threads} threads {env_text} [{label}]")
    rows = []
    for p in range(opts.processes):
        load = os.getloadavg()[0]
        s, best, stats, err = run_once(tssa, case, opts.runs, opts.threads, env)
        row = dict(label=label, tssa=os.path.relpath(tssa, bc.ROOT) if tssa.startswith(bc.ROOT) else tssa,
                   env=env_text, sizes=sizes, threads=opts.threads, runs=opts.runs, process=p + 1, loadavg_1min=load,
                   allocations_first_run=stats.get("allocations_first_run"),
                   allocations_last_run=stats.get("allocations_last_run"), error=err)
        if s is not None:
            row["median_ms"] = s * 1e3
            row["min_ms"] = best * 1e3
        rows.append(row)
        print(f"  process {p + 1}: load {load:5.2f}  " +
              (f"median {row['median_ms']:8.4f} ms  min {row['min_ms']:8.4f} ms  allocations "
               f"{row['allocations_first_run']} first run, {row['allocations_last_run']} last run"
               if s is not None else f"FAILED: {err}"))
    medians = [r["median_ms"] for r in rows if r.get("median_ms")]
    if medians:
        print(f"spread (max/min of the medians): {max(medians) / min(medians):.2f}x "
              f"({min(medians):.4f} .. {max(medians):.4f} ms)")
    path = opts.csv or os.path.join(bc.HERE, "results", "stability",
                                    f"{time.strftime('%Y-%m-%d')}-{socket.gethostname()}.csv")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fresh = not os.path.exists(path)
    if fresh:
        bc.write_csv(path, COLUMNS, rows)
    else:
        with open(path, "a", newline="") as f:
            w = csv.writer(f)
            for r in rows:
                w.writerow([bc.fmt(r.get(c)) for c in COLUMNS])
    print(f"rows {'written to' if fresh else 'appended to'} {os.path.relpath(path)}")


def run_once(tssa, case, runs, threads, env):
    """One process of `tssa-stream model.ir ARGS --repeat RUNS --stats`:
    (median s, min s, stats, None) or (None, None, stats, why)."""
    e = bc.tssa_environ(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    e.update(env)
    cmd = [tssa, "model.ir", *bc.case_args(case), "--repeat", str(runs), "--stats"]
    try:
        p = subprocess.run(cmd, cwd=case, env=e, capture_output=True, text=True, timeout=bc.TSSA_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, None, {}, "timed out"
    stats = dict(re.findall(r"stats: (\S+) (\S+)", p.stderr))
    m = re.search(bc.REPEAT_RE, p.stderr)
    if p.returncode != 0 or not m:
        return None, None, stats, f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1:]}"
    return float(m.group(2)) / 1e3, float(m.group(1)) / 1e3, stats, None


if __name__ == "__main__":
    main()
