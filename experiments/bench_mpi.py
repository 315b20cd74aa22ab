#!/usr/bin/python3
"""bench_mpi.py — tssa-stream across MPI ranks, against PyTorch.

    /usr/bin/python3 experiments/bench_mpi.py [--tssa build/tssa-stream]
        [--runs 20] [--rounds 5] [--only scaling,split_linear,stream] [--keep DIR] [--json FILE]

Every program is exported with frontend/export.py (graph text, .npy inputs,
args.txt, PyTorch's eager outputs) and run as

    mpirun --oversubscribe --allow-run-as-root --bind-to none -np N \\
        tssa-stream model.ir ARGS -o OUT --repeat RUNS

whose rank 0 prints the median time per run (the compile and the first run
are not in it). tssa-stream binds each rank to its share of the cores itself
and gives it that many threads: on a 2-core machine 1 rank runs 2 threads,
2 ranks 1 thread each, so the rank counts compare at the same hardware, and
4 or 8 ranks are oversubscribed (several ranks per core: marked `*`).
PyTorch runs in this process, eager, 2 threads, OMP_WAIT_POLICY=PASSIVE,
under torch.no_grad(): 3 warm-up calls, then the median of RUNS calls.

Study `scaling` (strong scaling on data-parallel loops): three loops whose
iterations are independent, written as imperative PyTorch in bench_common.py —
  batch_map   1024 items: out[i] = tanh(x[i] @ W + b) * sigmoid(rowsum) + 0.5
  attention   12 heads, sequence 512, width 768 (tests/models/programs/
              attention_heads.py: per-head slices of q/k/v, softmax(q k^T /
              sqrt(d)) v into a preallocated output)
  mask_crop   400 masks of 138x138, a loop cropping each mask by its box
              (YOLACT's crop, one mask per iteration)
It prints tssa-stream's ms per run at 1 and 2 ranks, the speedup of 2 ranks
over 1 (above 1: 2 ranks faster) and the parallel efficiency (speedup / 2),
eager's ms and eager / tssa at each rank count (above 1: tssa-stream faster),
and whether tssa-stream's outputs match eager's (rtol 1e-4, atol 1e-4) at both
rank counts. A second table gives the placement the partitioner chose for 2
ranks (`--emit=schedule --ranks 2 --repeat RUNS`: the placement is planned
for the RUNS + 1 runs, so it is asked with the same --repeat as the timed
run): the filters it put on rank 1 (xN: firings per run) and its
`placement:` line.

Study `split_linear` (the MIT thesis's Tables 5.1/5.2): a linear layer
(batch 1024, in -> out features: 512 -> 256 and 4096 -> 1024) whose batch is
split into P parts (P = 2, 64, 128) and computed by a data-parallel loop
`for i in range(P): out[i] = F.linear(xs[i], W, b)` on x viewed as
(P, 1024 / P, in). tssa-stream runs it on 1, 2, 4 and 8 ranks (the workers);
beside it, in the same run, PyTorch eager F.linear on the whole batch and
PyTorch eager running the same split loop. Every cell is ms per run; `ranks
used` is how many ranks the placement gives any actor at 2 / 4 / 8 ranks.

Study `stream` (pipeline throughput): the same three programs over a stream
of 100 input sets (`--inputs DIR`, one folder per set), at 1 and 2 ranks, as
sets per second, with eager's rate (one call per set) beside; on several
ranks stages placed on different ranks work on different sets at once.

The machine is shared and noisy: the numbers are medians; compare only
numbers taken in one run. A study is skipped, with a message, when mpirun is
missing or `tssa-stream --version` does not list mpi.
"""
import argparse
import statistics
import os
import re
import shutil
import subprocess
import sys
import tempfile

import bench_common as bc
from bench_common import (CORES, check_outputs, export, off_rank0, placement, run_ranks,
                          scaling_workloads, time_eager)

bc.require("bench_mpi.py")
torch = bc.torch
MPI_TIMEOUT_S = 300
progress = bc.Progress("bench_mpi")


def ms(t):
    return f"{t * 1e3:.3f}" if t is not None else "FAIL"


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "-"


# ------------------------------------------------------------------ studies

def study_scaling(opts, workdir):
    rows, placements = [], []
    for name, (program, inputs, sizes) in scaling_workloads().items():
        case = os.path.join(workdir, "scaling", name)
        progress(f"scaling {name}: export")
        export.export(program, inputs, case)
        progress(f"scaling {name}: eager, {opts.runs} calls")
        eager = time_eager(program, inputs, opts.runs)
        # The three configurations take turns, round after round, so that a
        # slow spell of the shared machine hits them alike; each is the
        # median over the rounds of its per-run medians. "t1" is one
        # processing element: 1 rank, 1 thread (the strong-scaling base).
        # "sim": 2 ranks as separate hosts (--simulate-hosts: one core and
        # one thread each, TCP between them), the multi-host path.
        configs = {"t1": (1, 1, "tssa_out_np1t1", ()), 1: (1, None, "tssa_out_np1", ()),
                   2: (2, None, "tssa_out_np2", ()), "sim": (2, 1, "tssa_out_sim2", ("--simulate-hosts",))}
        times = {k: [] for k in configs}
        err = {}
        for round_ in range(opts.rounds):
            for key, (n, threads, out, extra) in configs.items():
                progress(f"scaling {name}: round {round_ + 1}/{opts.rounds}, {n} rank(s)"
                         f"{', 1 thread' if threads else ''}{' '.join(('',) + extra)}, --repeat {opts.runs}")
                secs, why = run_ranks(opts.tssa, case, n, opts.runs, out, threads=threads, extra=extra)
                if secs is None:
                    err[key] = why
                else:
                    times[key].append(secs)
        t = {k: (statistics.median(v) if v and k not in err else None) for k, v in times.items()}
        check = {n: check_outputs(case, configs[n][2]) if t[n] else err.get(n) for n in (1, 2)}
        t1 = t["t1"]
        line, actors = placement(opts.tssa, case, 2, opts.runs)
        speedup = t1 / t[2] if t1 and t[2] else None
        # The best round of each configuration: the machine's quietest
        # moments (another tenant's load takes a core from the two-thread
        # runs more than from the one-thread run).
        best = {k: (min(v) if v and k not in err else None) for k, v in times.items()}
        best_speedup = best["t1"] / best[2] if best["t1"] and best[2] else None
        sim = t1 / t["sim"] if t1 and t["sim"] else None
        rows.append(dict(name=name, sizes=sizes, tssa_np1_t1_s=t1, tssa_np1_s=t[1], tssa_np2_s=t[2],
                         tssa_sim2_s=t["sim"], sim_speedup=sim,
                         sim_same_bytes=same_bytes(case, "tssa_out_np1t1", "tssa_out_sim2"),
                         rounds_s={str(k): v for k, v in times.items()},
                         best_efficiency=best_speedup / 2 if best_speedup else None,
                         speedup=speedup, efficiency=speedup / 2 if speedup else None,
                         vs_threads=t[1] / t[2] if t[1] and t[2] else None,
                         eager_s=eager, check_np1=check[1], check_np2=check[2]))
        placements.append(dict(name=name, rank1=off_rank0(actors), placement=line,
                               actors=bc.actor_summary(actors)))

    print(f"## scaling: tssa-stream on 1 and 2 ranks ({CORES} cores), PyTorch eager (2 threads)\n")
    print("| workload | sizes | tssa 1 rank 1 thread ms | tssa 1 rank 2 threads ms | tssa 2 ranks ms "
          "| speedup 2 ranks / 1 thread | efficiency | efficiency, best rounds "
          "| 2 ranks / 1 rank 2 threads | eager ms "
          "| eager/tssa 1 rank | eager/tssa 2 ranks | check 1 rank | check 2 ranks |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        sp = f"{r['speedup']:.2f}" if r["speedup"] else "-"
        ef = f"{100 * r['efficiency']:.0f}%" if r["efficiency"] else "-"
        bef = f"{100 * r['best_efficiency']:.0f}%" if r["best_efficiency"] else "-"
        vt = f"{r['vs_threads']:.2f}" if r["vs_threads"] else "-"
        print(f"| {r['name']} | {r['sizes']} | {ms(r['tssa_np1_t1_s'])} | {ms(r['tssa_np1_s'])} "
              f"| {ms(r['tssa_np2_s'])} | {sp} | {ef} | {bef} | {vt} | {ms(r['eager_s'])} "
              f"| {ratio(r['eager_s'], r['tssa_np1_s'])} | {ratio(r['eager_s'], r['tssa_np2_s'])} "
              f"| {r['check_np1']} | {r['check_np2']} |")
    print(f"\nEach tssa-stream time is the median over {opts.rounds} rounds (the configurations "
          "taking turns) of rank 0's median per run. "
          "speedup: 1 rank with 1 thread (one core, the strong-scaling base) over 2 ranks "
          "with 1 thread each; efficiency = speedup / 2; best rounds: the same from each "
          "configuration's fastest round. The next column compares 2 ranks with "
          "1 rank running 2 threads (OpenMP and OpenBLAS on both cores). eager/tssa above 1: "
          "tssa-stream faster.\n")
    triad = triad_ratio()
    print("### 2 ranks as separate hosts (`mpirun --bind-to core -np 2 ... --simulate-hosts`, "
          "1 thread each)\n")
    print("| workload | 1 rank 1 thread ms | 2 simulated hosts ms | speedup | same bytes as 1 rank |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        sp = f"{r['sim_speedup']:.2f}" if r["sim_speedup"] else "-"
        print(f"| {r['name']} | {ms(r['tssa_np1_t1_s'])} | {ms(r['tssa_sim2_s'])} | {sp} | "
              f"{r['sim_same_bytes']} |")
    if triad:
        one, two = triad
        print(f"\nSTREAM triad (numpy, one process per core, in this run): one core {one:.1f} GB/s, "
              f"two cores at once {two:.1f} GB/s: {two / one:.2f}x. The memory-bound workload's "
              "speedup over that ratio: " +
              ", ".join(f"{r['name']} {100 * r['sim_speedup'] / (two / one):.0f}%" for r in rows
                        if r["sim_speedup"]) + "\n")
    print(f"### placement on 2 ranks (--emit=schedule --ranks 2 --repeat {opts.runs})\n")
    print("| workload | filters on rank 1 | placement |")
    print("|---|---|---|")
    for p in placements:
        print(f"| {p['name']} | {p['rank1']} | {p['placement']} |")
    print()
    return dict(rows=rows, placements=placements)


def same_bytes(case, a, b):
    """Whether two output folders of a case hold the same bytes."""
    da, db = os.path.join(case, a), os.path.join(case, b)
    if not os.path.isdir(da) or not os.path.isdir(db):
        return "-"
    names = sorted(f for f in os.listdir(da) if f.endswith(".npy"))
    for f in names:
        try:
            with open(os.path.join(da, f), "rb") as x, open(os.path.join(db, f), "rb") as y:
                if x.read() != y.read():
                    return "no"
        except OSError:
            return "no"
    return "yes" if names else "-"


TRIAD = """
import time, numpy as np
n = 1 << 24
a = np.zeros(n, np.float32); b = np.ones(n, np.float32); c = np.ones(n, np.float32)
best = 1e9
for _ in range(15):
    t = time.perf_counter(); np.multiply(c, 3.0, out=a); np.add(a, b, out=a)
    best = min(best, time.perf_counter() - t)
print(5 * 4 * n / best / 1e9)   # bytes moved: c read, a written, a and b read, a written
"""


def triad_ratio():
    """(one core's GB/s, two cores' at once GB/s) of a STREAM-like triad, one
    numpy process per core (pinned with taskset), or None without taskset."""
    if not shutil.which("taskset"):
        return None
    run = lambda core: subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c", TRIAD],
                                        stdout=subprocess.PIPE, text=True)
    try:
        one = float(run(0).communicate(timeout=120)[0])
        pair = [run(0), run(1)]
        two = sum(float(p.communicate(timeout=120)[0]) for p in pair)
    except (ValueError, subprocess.TimeoutExpired):
        return None
    return one, two


SPLIT_RANKS = bc.SPLIT_RANKS


def study_split_linear(opts, workdir):
    rows = bc.split_linear_rows(opts.tssa, workdir, opts.runs, progress=progress)
    for r in rows:
        r.pop("actors")            # the placement lines stay; run.py keeps the actors

    def star(n):
        return "*" if n > CORES else ""

    print(f"## split_linear: ms per run, batch split into P parts ({CORES} cores)\n")
    print("| shape | P | " + " | ".join(f"tssa {n} rank{'s' if n > 1 else ''}{star(n)}"
                                         for n in SPLIT_RANKS)
          + " | eager whole | eager split loop | ranks used (2/4/8) | check |")
    print("|---|---:|" + "---:|" * len(SPLIT_RANKS) + "---:|---:|---|---|")
    for r in rows:
        used = "/".join(str(r["ranks_used"].get(str(n), "?")) for n in SPLIT_RANKS if n > 1)
        print(f"| {r['shape']} | {r['parts']} | "
              + " | ".join(ms(r["tssa_s"][str(n)]) for n in SPLIT_RANKS)
              + f" | {ms(r['eager_whole_s'])} | {ms(r['eager_split_s'])} | {used} | {r['check']} |")
    print(f"\n* oversubscribed: more ranks than the {CORES} cores (tssa-stream gives each rank one "
          "thread on a shared core). Workers = mpirun ranks; 1 rank runs "
          f"{CORES} threads. PyTorch: eager, 2 threads.\n")
    return dict(rows=rows)


STREAM_SETS = 100


def run_stream(tssa, case, sets_dir, ranks):
    """(seconds for all sets, None) from rank 0's inputs line, or (None, why)."""
    env = bc.tssa_environ(OMP_NUM_THREADS=str(CORES), OPENBLAS_NUM_THREADS=str(CORES))
    cmd = [*bc.mpirun_cmd(ranks), tssa, "model.ir", *bc.case_args(case), "--inputs", sets_dir,
           "-o", f"stream_out_np{ranks}"]
    try:
        p = subprocess.run(cmd, cwd=case, env=env, capture_output=True, text=True,
                           timeout=MPI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {MPI_TIMEOUT_S} s"
    m = re.search(r"inputs: (\d+) sets in ([\d.]+) ms", p.stdout + p.stderr)
    if p.returncode != 0 or not m:
        return None, f"exit {p.returncode}"
    return float(m.group(2)) / 1e3, None


def study_stream(opts, workdir):
    """Pipeline throughput: STREAM_SETS input sets through --inputs."""
    rows = []
    for name, (program, inputs, sizes) in scaling_workloads().items():
        case = os.path.join(workdir, "stream", name)
        progress(f"stream {name}: export")
        export.export(program, inputs, case)
        sets_dir = os.path.join(case, "sets")
        for i in range(STREAM_SETS):        # the same files in every set (links)
            d = os.path.join(sets_dir, f"set{i:03d}", "inputs")
            os.makedirs(d, exist_ok=True)
            for f in os.listdir(os.path.join(case, "inputs")):
                os.symlink(os.path.join(case, "inputs", f), os.path.join(d, f))
        progress(f"stream {name}: eager, {STREAM_SETS} calls")
        eager = time_eager(program, inputs, STREAM_SETS)
        t = {}
        for n in (1, 2):
            progress(f"stream {name}: tssa-stream --inputs ({STREAM_SETS} sets) on {n} rank(s)")
            t[n], _ = run_stream(opts.tssa, case, sets_dir, n)
        same = "-"
        if t[1] and t[2]:
            a = os.path.join(case, "stream_out_np1", f"set{STREAM_SETS - 1:03d}", "out0.npy")
            b = os.path.join(case, "stream_out_np2", f"set{STREAM_SETS - 1:03d}", "out0.npy")
            same = "yes" if open(a, "rb").read() == open(b, "rb").read() else "NO"
        line, actors = placement(opts.tssa, case, 2, STREAM_SETS - 1)
        rows.append(dict(name=name, sizes=sizes, np1_s=t[1], np2_s=t[2], eager_per_set_s=eager,
                         same_bytes=same, rank1=off_rank0(actors), placement=line))
    print(f"## stream: {STREAM_SETS} input sets through --inputs, sets per second ({CORES} cores)\n")
    print("| workload | 1 rank sets/s | 2 ranks sets/s | speedup | eager sets/s | same bytes | "
          "on rank 1 |")
    print("|---|---:|---:|---:|---:|---|---|")
    for r in rows:
        rate = lambda s: f"{STREAM_SETS / s:.1f}" if s else "-"
        sp = f"{r['np1_s'] / r['np2_s']:.2f}" if r["np1_s"] and r["np2_s"] else "-"
        print(f"| {r['name']} | {rate(r['np1_s'])} | {rate(r['np2_s'])} | {sp} "
              f"| {1 / r['eager_per_set_s']:.1f} | {r['same_bytes']} | {r['rank1']} |")
    print()
    return dict(rows=rows)


STUDIES = {"scaling": study_scaling, "split_linear": study_split_linear, "stream": study_stream}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tssa", default=bc.DEFAULT_TSSA)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5,
                    help="scaling: times each configuration runs, taking turns (median of medians)")
    ap.add_argument("--only", default="", help="comma-separated: " + ",".join(STUDIES))
    ap.add_argument("--keep", help="keep the exported cases in this directory")
    ap.add_argument("--json", help="also write every number to this file")
    opts = ap.parse_args()
    opts.tssa = os.path.abspath(opts.tssa)
    chosen = [s for s in opts.only.split(",") if s] or list(STUDIES)
    unknown = [s for s in chosen if s not in STUDIES]
    if unknown:
        sys.exit(f"bench_mpi.py: unknown study {', '.join(unknown)} (have {', '.join(STUDIES)})")
    if not os.path.exists(opts.tssa):
        sys.exit(f"bench_mpi.py: {opts.tssa} not found: build first (scripts/build.sh build)")
    torch.set_num_threads(2)
    why_not = bc.mpi_unavailable(opts.tssa)
    workdir = opts.keep or tempfile.mkdtemp(prefix="bench_mpi.")
    results = {}
    for study in chosen:
        if why_not:
            print(f"## {study}: skipped: {why_not}\n")
            results[study] = dict(skipped=why_not)
            continue
        results[study] = STUDIES[study](opts, workdir)
    progress.finish()
    if opts.json:
        bc.write_json(opts.json, dict(cores=CORES, runs=opts.runs, **results))
    if not opts.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
