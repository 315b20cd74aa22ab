#!/usr/bin/python3
"""bench_mpi.py — tssa-stream across MPI ranks, against PyTorch.

    /usr/bin/python3 experiments/bench_mpi.py [--tssa build/tssa-stream]
        [--runs 20] [--only scaling,split_linear,stream] [--keep DIR] [--json FILE]

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
iterations are independent, written below as imperative PyTorch —
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
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# Before torch loads (see bench_e2e.py): idle OpenMP/OpenBLAS threads must not
# spin and take the 2 cores from each other.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "frontend"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models", "programs"))

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:      # Debian: apt-get install python3-torch python3-numpy
    sys.exit(f"bench_mpi.py: needs PyTorch and numpy ({e}); run scripts/setup.sh --dev")

import export  # noqa: E402  (frontend/export.py)
from attention_heads import attention_heads  # noqa: E402

CORES = os.cpu_count() or 1
MPI_TIMEOUT_S = 300


# ------------------------------------------------------------------ programs

def batch_map(x, weight, bias, n: int):
    # x: [N, R, I]; weight: [I, O]; bias: [O]
    out = torch.empty(n, x.size(1), weight.size(1))
    for i in range(n):
        item = x[i]
        out[i] = torch.tanh(item @ weight + bias) * torch.sigmoid(item.sum(dim=1, keepdim=True)) + 0.5
    return out


def crop_masks_loop(masks, boxes, padding: int):
    # masks: [N, H, W]; boxes: [N, 4] as (x1, y1, x2, y2) in pixels
    n, H, W = masks.shape
    out = torch.zeros(n, H, W)
    cols = torch.arange(W, dtype=masks.dtype).view(1, -1)
    rows = torch.arange(H, dtype=masks.dtype).view(-1, 1)
    for i in range(n):
        b = boxes[i]
        x1 = torch.clamp(torch.min(b[0], b[2]) - padding, min=0)
        x2 = torch.clamp(torch.max(b[0], b[2]) + padding, max=W)
        y1 = torch.clamp(torch.min(b[1], b[3]) - padding, min=0)
        y2 = torch.clamp(torch.max(b[1], b[3]) + padding, max=H)
        inside = (cols >= x1) & (cols < x2) & (rows >= y1) & (rows < y2)
        out[i] = masks[i].masked_fill(~inside, 0.0)
    return out


def split_linear(x, weight, bias, parts: int):
    # x: [B, I]; weight: [O, I]; bias: [O]; B divisible by parts
    xs = x.view(parts, x.size(0) // parts, x.size(1))
    out = torch.empty(parts, x.size(0) // parts, weight.size(0))
    for i in range(parts):
        out[i] = F.linear(xs[i], weight, bias)
    return out.view(x.size(0), weight.size(0))


def whole_linear(x, weight, bias, parts: int):
    return F.linear(x, weight, bias)


def scaling_workloads():
    """name -> (program, inputs, sizes text)."""
    g = torch.Generator().manual_seed(0)

    def rn(*s, scale=1.0):
        return torch.randn(*s, generator=g) * scale

    n_masks = 400
    xy = torch.rand(n_masks, 2, generator=g) * 120
    wh = torch.rand(n_masks, 2, generator=g) * 40 + 4
    return {
        "batch_map": (batch_map, {"x": rn(1024, 16, 128), "weight": rn(128, 128, scale=0.1),
                                  "bias": rn(128), "n": 1024}, "1024 items of 16x128, W 128x128"),
        "attention": (attention_heads, {"x": rn(1, 512, 768), "w_q": rn(768, 768, scale=0.03),
                                        "w_k": rn(768, 768, scale=0.03),
                                        "w_v": rn(768, 768, scale=0.03), "heads": 12},
                      "12 heads, seq 512, width 768"),
        "mask_crop": (crop_masks_loop, {"masks": torch.rand(n_masks, 138, 138, generator=g),
                                        "boxes": torch.cat((xy, xy + wh), 1), "padding": 1},
                      "400 masks of 138x138"),
    }


# ------------------------------------------------------------------ running

def progress(msg):
    print(f"bench_mpi: {msg}", file=sys.stderr, flush=True)


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def time_eager(program, inputs, runs):
    """Median seconds per eager call (the programs do not write their inputs)."""
    args = list(inputs.values())
    with torch.no_grad():
        for _ in range(3):
            program(*args)
        return median_time(lambda: program(*args), runs)


def mpi_available(tssa):
    """None when tssa-stream can run on MPI ranks here, else why not."""
    if not shutil.which("mpirun"):
        return "mpirun not found (apt-get install openmpi-bin)"
    p = subprocess.run([tssa, "--version"], capture_output=True, text=True)
    version = (p.stdout + p.stderr).strip()
    if " mpi" not in version:
        return f"`{tssa} --version` does not list mpi ({version!r}): build with MPI"
    return None


def run_ranks(tssa, case, ranks, runs, out_name, threads=CORES):
    """(median seconds per run, None) from rank 0's repeat line, or (None, why).
    threads caps each rank's threads (OMP_NUM_THREADS; a rank never runs
    more than its share of the cores)."""
    args = open(os.path.join(case, "args.txt")).read().split()
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = ["mpirun", "--tag-output", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
           "-np", str(ranks), tssa, "model.ir", *args, "-o", out_name, "--repeat", str(runs)]
    try:
        p = subprocess.run(cmd, cwd=case, env=env, capture_output=True, text=True,
                           timeout=MPI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {MPI_TIMEOUT_S} s"
    text = p.stdout + p.stderr
    if p.returncode != 0:
        lines = [l for l in text.strip().splitlines() if "tssa-stream" in l] or \
            text.strip().splitlines() or [""]
        return None, f"exit {p.returncode}: {lines[-1][:160]}"
    pattern = r"repeat: \d+ runs after 1 warm-up: min ([\d.]+) ms, median ([\d.]+) ms"
    m = re.search(r"\[\d+,0\]<stderr>:tssa-stream: " + pattern, text) or re.search(pattern, text)
    if not m:
        return None, "no repeat line in the output"
    return float(m.group(2)) / 1e3, None


def placement(tssa, case, ranks, runs):
    """(the placement: line, the actors of the JSON schedule) for `ranks`."""
    args = open(os.path.join(case, "args.txt")).read().split()
    base = [tssa, "model.ir", *args, "--emit=schedule", "--ranks", str(ranks), "--repeat", str(runs)]
    p = subprocess.run(base, cwd=case, capture_output=True, text=True)
    line = next((l.strip() for l in p.stdout.splitlines() if l.startswith("placement:")),
                f"(no placement line; exit {p.returncode}: {p.stderr.strip()[-160:]})")
    p = subprocess.run(base + ["--json"], cwd=case, capture_output=True, text=True)
    try:
        actors = json.loads(p.stdout)["actors"]
    except (ValueError, KeyError):
        actors = []
    return line, actors


def off_rank0(actors):
    """The filters placed away from rank 0, as `Name xFIRINGS@rank` text."""
    items = []
    for a in actors:
        if a.get("rank", 0) != 0 and a.get("kind") == "filter":
            reps = a.get("repetitions", 1)
            name = a["path"].rsplit("/", 1)[-1] + (f" x{reps}" if reps > 1 else "")
            items.append(name if a["rank"] == 1 else f"{name}@{a['rank']}")
    return ", ".join(items) if items else "none (all on rank 0)"


def check_outputs(case, out_name):
    """'ok (largest error)' when tssa-stream's outputs match eager's, else why not."""
    worst = 0.0
    k = 0
    while os.path.exists(os.path.join(case, "expected", f"out{k}.npy")):
        want = np.load(os.path.join(case, "expected", f"out{k}.npy"))
        path = os.path.join(case, out_name, f"out{k}.npy")
        if not os.path.exists(path):
            return f"out{k} missing"
        got = np.load(path)
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"out{k}: {got.dtype}{list(got.shape)} vs {want.dtype}{list(want.shape)}"
        if want.dtype.kind in "fc":
            if not np.allclose(got, want, rtol=1e-4, atol=1e-4, equal_nan=True):
                return f"out{k}: max error {np.nanmax(np.abs(got - want)):.3g}"
            if want.size:
                worst = max(worst, float(np.nanmax(np.abs(got.astype(np.float64) - want))))
        elif not np.array_equal(got, want):
            return f"out{k}: {int(np.sum(got != want))} elements differ"
        k += 1
    return f"ok ({worst:.1e})"


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
        t, err, check = {}, {}, {}
        for n in (1, 2):
            progress(f"scaling {name}: tssa-stream on {n} rank(s), --repeat {opts.runs}")
            t[n], err[n] = run_ranks(opts.tssa, case, n, opts.runs, f"tssa_out_np{n}")
            check[n] = check_outputs(case, f"tssa_out_np{n}") if t[n] else err[n]
        # One processing element: 1 rank, 1 thread (the strong-scaling base).
        progress(f"scaling {name}: tssa-stream on 1 rank, 1 thread, --repeat {opts.runs}")
        t1, _ = run_ranks(opts.tssa, case, 1, opts.runs, "tssa_out_np1t1", threads=1)
        line, actors = placement(opts.tssa, case, 2, opts.runs)
        speedup = t1 / t[2] if t1 and t[2] else None
        rows.append(dict(name=name, sizes=sizes, tssa_np1_t1_s=t1, tssa_np1_s=t[1], tssa_np2_s=t[2],
                         speedup=speedup, efficiency=speedup / 2 if speedup else None,
                         vs_threads=t[1] / t[2] if t[1] and t[2] else None,
                         eager_s=eager, check_np1=check[1], check_np2=check[2]))
        placements.append(dict(name=name, rank1=off_rank0(actors), placement=line,
                               actors=[dict(path=a["path"], kind=a["kind"], rank=a["rank"],
                                            repetitions=a.get("repetitions"),
                                            est_seconds=a.get("est_seconds")) for a in actors]))

    print(f"## scaling: tssa-stream on 1 and 2 ranks ({CORES} cores), PyTorch eager (2 threads)\n")
    print("| workload | sizes | tssa 1 rank 1 thread ms | tssa 1 rank 2 threads ms | tssa 2 ranks ms "
          "| speedup 2 ranks / 1 thread | efficiency | 2 ranks / 1 rank 2 threads | eager ms "
          "| eager/tssa 1 rank | eager/tssa 2 ranks | check 1 rank | check 2 ranks |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for r in rows:
        sp = f"{r['speedup']:.2f}" if r["speedup"] else "-"
        ef = f"{100 * r['efficiency']:.0f}%" if r["efficiency"] else "-"
        vt = f"{r['vs_threads']:.2f}" if r["vs_threads"] else "-"
        print(f"| {r['name']} | {r['sizes']} | {ms(r['tssa_np1_t1_s'])} | {ms(r['tssa_np1_s'])} "
              f"| {ms(r['tssa_np2_s'])} | {sp} | {ef} | {vt} | {ms(r['eager_s'])} "
              f"| {ratio(r['eager_s'], r['tssa_np1_s'])} | {ratio(r['eager_s'], r['tssa_np2_s'])} "
              f"| {r['check_np1']} | {r['check_np2']} |")
    print("\nspeedup: 1 rank with 1 thread (one core, the strong-scaling base) over 2 ranks "
          "with 1 thread each; efficiency = speedup / 2. The next column compares 2 ranks with "
          "1 rank running 2 threads (OpenMP and OpenBLAS on both cores). eager/tssa above 1: "
          "tssa-stream faster.\n")
    print(f"### placement on 2 ranks (--emit=schedule --ranks 2 --repeat {opts.runs})\n")
    print("| workload | filters on rank 1 | placement |")
    print("|---|---|---|")
    for p in placements:
        print(f"| {p['name']} | {p['rank1']} | {p['placement']} |")
    print()
    return dict(rows=rows, placements=placements)


SPLIT_SHAPES = ((1024, 512, 256), (1024, 4096, 1024))
SPLIT_PARTS = (2, 64, 128)
SPLIT_RANKS = (1, 2, 4, 8)


def study_split_linear(opts, workdir):
    rows = []
    g = torch.Generator().manual_seed(1)
    for batch, fin, fout in SPLIT_SHAPES:
        x = torch.randn(batch, fin, generator=g)
        w = torch.randn(fout, fin, generator=g) / fin ** 0.5
        b = torch.randn(fout, generator=g)
        shape = f"{batch}x{fin} -> {batch}x{fout}"
        progress(f"split_linear {shape}: eager whole batch, {opts.runs} calls")
        whole = time_eager(whole_linear, {"x": x, "weight": w, "bias": b, "parts": 1}, opts.runs)
        for parts in SPLIT_PARTS:
            inputs = {"x": x, "weight": w, "bias": b, "parts": parts}
            case = os.path.join(workdir, "split_linear", f"{fin}x{fout}_P{parts}")
            progress(f"split_linear {shape} P={parts}: export")
            export.export(split_linear, inputs, case)
            progress(f"split_linear {shape} P={parts}: eager split loop, {opts.runs} calls")
            eager_split = time_eager(split_linear, inputs, opts.runs)
            t, checks, used, notes = {}, [], {}, {}
            for n in SPLIT_RANKS:
                progress(f"split_linear {shape} P={parts}: tssa-stream on {n} rank(s), "
                         f"--repeat {opts.runs}")
                t[n], err = run_ranks(opts.tssa, case, n, opts.runs, f"tssa_out_np{n}")
                c = check_outputs(case, f"tssa_out_np{n}") if t[n] else err
                if not c.startswith("ok"):
                    checks.append(f"{n} ranks: {c}")
                if n > 1:
                    line, actors = placement(opts.tssa, case, n, opts.runs)
                    used[n] = len({a["rank"] for a in actors}) if actors else None
                    notes[n] = line
            rows.append(dict(shape=shape, batch=batch, in_features=fin, out_features=fout,
                             parts=parts, tssa_s={str(n): t[n] for n in SPLIT_RANKS},
                             eager_whole_s=whole, eager_split_s=eager_split,
                             ranks_used={str(n): used[n] for n in used},
                             placement={str(n): notes[n] for n in notes},
                             check="; ".join(checks) or "ok"))

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
    args = open(os.path.join(case, "args.txt")).read().split()
    env = dict(os.environ, OMP_NUM_THREADS=str(CORES), OPENBLAS_NUM_THREADS=str(CORES))
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none", "-np", str(ranks),
           tssa, "model.ir", *args, "--inputs", sets_dir, "-o", f"stream_out_np{ranks}"]
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
    ap.add_argument("--tssa", default=os.path.join(ROOT, "build", "tssa-stream"))
    ap.add_argument("--runs", type=int, default=20)
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
    why_not = mpi_available(opts.tssa)
    workdir = opts.keep or tempfile.mkdtemp(prefix="bench_mpi.")
    results = {}
    for study in chosen:
        if why_not:
            print(f"## {study}: skipped: {why_not}\n")
            results[study] = dict(skipped=why_not)
            continue
        results[study] = STUDIES[study](opts, workdir)
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump(dict(cores=CORES, runs=opts.runs, **results), f, indent=1)
    if not opts.keep:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
