#!/usr/bin/python3
"""run.py — the project's experiments, one subcommand per study, as CSVs and plots.

    /usr/bin/python3 experiments/run.py STUDY [--quick] [--out DIR]
        [--tssa build/tssa-stream] [--runs N] [--only NAME,...] [--keep DIR]
        [--batches 1,4,16,64] [--seqlens 16,64,256,1024,4096]
        [--threads 1,2] [--ranks 1,2,4] [--devices 1,2,4] [--hostfile FILE] [--rounds N]
        [--strict] [--emulate-cuda]

STUDY is one of (each after a figure of the TensorSSA paper, DAC'24, or a
table of the MIT thesis on tssa-stream's horizontal parallelization):
  speedup       end-to-end speedup over PyTorch eager per workload (Fig. 5):
                the paper's workloads (YOLOv3, SSD, YOLACT, FCOS post-processing,
                NASRNN, RNN, LSTM, seq2seq greedy decode, attention) and the
                project's own loop programs; TorchScript, torch.compile where
                the installed torch has it, tssa-stream on every backend here
  launches      kernels launched per run for the same (Fig. 6)
  batch         speedup against batch size (Fig. 7)
  seqlen        latency against sequence length (Fig. 8): RNN, LSTM, greedy
                decode, attention; the local growth exponent of each step
  horizontal    data-parallel loops over threads, MPI ranks (oversubscribed
                ones marked) and GPUs (--devices): speedup over one core and
                parallel efficiency; the partitioner's placement of every
                point is saved beside the CSV
  split-linear  the thesis's Tables 5.1/5.2: a linear layer split on the batch
                over 1, 2, 4, 8 workers, beside PyTorch
  scaling       the cost model against measurement: the data-parallel loops,
                a two-stage pipeline and a split-join of two branches on 1
                thread, 2 threads, mpirun -np 1, 2 and 4 (4: oversubscribed,
                a correctness check; --quick: 1 and 2) and the same with
                --simulate-hosts where tssa-stream has it; each point the
                median over --rounds rounds (configurations in turns), its
                speedup and efficiency over 1 thread, and the cost model's
                prediction for it (`--emit=schedule --json` with the same
                launch and options) with the prediction's error
  devices       --backend=cuda --devices 1,2,4 on the data-parallel loops
                (measured on a GPU, or through TSSA_CUDA_EMULATE=1 with
                --emulate-cuda) and the cost model's predicted speedup on N
                GPUs where --emit=schedule gives one
  all           every study above (speedup and launches share one measurement)

Each study writes <out>/<study>/<date>-<host>.csv, .png (the plot) and
.meta.json (the machine: cores, CPU, hwloc topology, GPUs; the versions of
tssa-stream, torch, the C compiler, mpirun; the command line and the git
commit), prints its table, and shows a progress line on stderr while it runs.
--out defaults to experiments/results. --quick runs every study at small
sizes (under two minutes for `all` on a 2-core machine; the ctest entry
experiments.quick runs it) and exits 77 when torch or matplotlib is missing.

Exit status: 0 when every study it ran wrote its CSV and plot (a workload
that failed is a row of the table with its reason and is listed at the
end); 1 when a study could not be run or written, or with --strict when a
point failed; 2 for bad usage (an unknown study, no tssa-stream binary).
Timing: PyTorch in this process (all cores, OMP_WAIT_POLICY=PASSIVE, warm-up
calls, the median of --runs calls with fresh input clones; slow calls get
fewer runs, at least 3), tssa-stream as `tssa-stream model.ir ARGS --repeat
RUNS --stats` (the median per run after the compile and the first run); every
tssa-stream output is checked against PyTorch eager's (experiments/
bench_common.py holds the code bench_e2e.py, bench_mpi.py and bench_gpu.py
share). See experiments/README.md for the plots of the last full run and how
to run it on a bigger machine.
"""
import argparse
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

import bench_common as bc

STUDIES = ("speedup", "launches", "batch", "seqlen", "horizontal", "split-linear", "scaling",
           "devices")

# Sizes. Full mode: the workloads' own sizes (bench_common.WORKLOADS, those of
# bench_e2e.py); --quick: small ones. (batch, seq, hidden); None = default.
QUICK_SIZES = {
    "yolo_decode": (1, None, None), "ssd_decode": (1, None, None), "mask_crop": (16, None, None),
    "fcos_decode": (1, None, None), "nasrnn": (4, 8, 32), "rnn_loop": (4, 8, 32),
    "lstm_loop": (4, 8, 32), "seq2seq_greedy": (4, 8, 32), "attention_heads": (1, 16, 128),
    "batch_loop": (8, None, 32), "gru_loop": (4, 8, 32), "kv_cache_decode": (2, 8, 32),
    "nested_loop_if": (6, None, None),
}
BATCH_WORKLOADS = ("yolo_decode", "ssd_decode", "nasrnn", "lstm_loop", "seq2seq_greedy",
                   "attention_heads")
BATCHES = {"full": (1, 4, 16, 64), "quick": (1, 4)}
SEQ_WORKLOADS = ("rnn_loop", "lstm_loop", "seq2seq_greedy", "attention_heads")
SEQLENS = {"full": (16, 64, 256, 1024, 4096), "quick": (8, 32)}
# The seqlen study's batch and width: (batch, hidden) per workload.
SEQ_SHAPES = {"full": {"rnn_loop": (16, 256), "lstm_loop": (16, 256), "seq2seq_greedy": (16, 256),
                       "attention_heads": (1, 256)},
              "quick": {"rnn_loop": (4, 32), "lstm_loop": (4, 32), "seq2seq_greedy": (4, 32),
                        "attention_heads": (1, 64)}}
HORIZONTAL_SIZES = {"full": dict(items=1024, seq=512, masks=400),
                    "quick": dict(items=64, seq=64, masks=32)}
SPLIT = {"full": dict(shapes=bc.SPLIT_SHAPES, parts=bc.SPLIT_PARTS, ranks=bc.SPLIT_RANKS),
         "quick": dict(shapes=((256, 128, 64),), parts=(2, 16), ranks=(1, 2, 4))}
SCALING_SIZES = {"full": dict(data=dict(items=1024, seq=512, masks=400),
                             tasks=dict(rows=512, width=256, steps=8)),
                 "quick": dict(data=dict(items=64, seq=64, masks=32),
                               tasks=dict(rows=64, width=64, steps=2))}
ROUNDS = {"full": 5, "quick": 1}
RUNS = {"full": 30, "quick": 3}
BUDGET_S = {"full": 3.0, "quick": 0.3}      # per PyTorch mode and point: fewer runs when slow
WARMUP = {"full": 10, "quick": 1}


def power_list(limit):
    out, n = [], 1
    while n < limit:
        out.append(n)
        n *= 2
    return out + [limit]


def int_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got {text!r}")
    return values


def ms(s):
    return None if s is None else s * 1e3


def ratio(a, b):
    return a / b if a and b else None


def short(text, n=120):
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 3] + "..."


# ------------------------------------------------------------------ the run

class Run:
    """What every study of one invocation shares: options, the machine record,
    the scratch folder, the progress line, what is available here."""

    def __init__(self, opts, argv):
        self.opts = opts
        self.mode = "quick" if opts.quick else "full"
        self.info = bc.machine_info(opts.tssa, argv)
        self.info["mode"] = self.mode
        self.workdir = opts.keep or tempfile.mkdtemp(prefix="tssa-experiments.")
        os.makedirs(self.workdir, exist_ok=True)
        self.progress = bc.Progress("run.py")
        self.failures = []
        self.cache = {}          # (name, sizes) -> measure_workload result
        self.runs = opts.runs or RUNS[self.mode]
        self.budget = BUDGET_S[self.mode]
        self.warmup = WARMUP[self.mode]
        self.progress.note("checking what this machine has (cuda, mpi)")
        self.emulate = opts.emulate_cuda
        self.cuda_why = bc.cuda_unavailable(opts.tssa, self.workdir, emulate=self.emulate)
        self.backends = ("cpu",) if self.cuda_why else ("cpu", "cuda")
        self.torch_gpu = bc.torch.cuda.is_available() and not self.cuda_why and not self.emulate
        self.compile_why = bc.compile_unavailable()
        self.mpi_why = bc.mpi_unavailable(opts.tssa)
        self.info.update(cuda_backend=self.cuda_why or ("emulated on the CPU (TSSA_CUDA_EMULATE=1)"
                                                        if self.emulate else "yes"),
                         torch_compile=self.compile_why or "yes", mpi=self.mpi_why or "yes",
                         runs=self.runs, budget_s=self.budget)

    def torch_modes(self):
        modes = [("eager", "cpu"), ("script", "cpu"), ("compile", "cpu")]
        if self.torch_gpu:
            modes.append(("eager", "cuda"))
        return modes

    def only(self, names):
        chosen = [w for w in (self.opts.only or "").split(",") if w]
        return [n for n in names if not chosen or n in chosen]

    def fail(self, study, point, why):
        self.failures.append(f"{study} {point}: {why}")

    def measure(self, study, name, batch=None, seq=None, hidden=None, count=True, eager_only=False):
        key = (name, batch, seq, hidden, count, eager_only)
        if key in self.cache:
            return self.cache[key]
        program, inputs, sizes = bc.make_workload(name, batch, seq, hidden)
        tag = f"{name}_b{batch}_s{seq}_h{hidden}"
        case = os.path.join(self.workdir, study, tag)
        modes = [m for m in self.torch_modes() if m[0] == "eager" or not eager_only]
        r = bc.measure_workload(self.opts.tssa, case, program, inputs, self.runs,
                                torch_modes=modes, backends=self.backends, count=count,
                                budget_s=self.budget, warmup=self.warmup,
                                progress=lambda m: self.progress.note(f"{study} {name}: {m}"),
                                emulate_cuda=self.emulate)
        r["sizes"] = sizes
        if not self.opts.keep:
            shutil.rmtree(case, ignore_errors=True)
        self.cache[key] = r
        return r

    def quick_sizes(self, name):
        return QUICK_SIZES[name] if self.opts.quick else (None, None, None)

    def write(self, study, columns, rows, plot, headers=None, extra=None, notes=()):
        """CSV, meta JSON, the plot and the printed table of one study."""
        stem = bc.result_stem(self.opts.out, study, self.info)
        bc.write_csv(stem + ".csv", columns, rows)
        meta = dict(self.info, study=study, columns=columns, notes=list(notes))
        if extra:
            meta.update(extra)
        bc.write_json(stem + ".meta.json", meta)
        self.progress.note(f"{study}: plotting")
        plot(stem + ".png", rows)
        self.progress.finish()
        print(f"\n## {study} ({self.mode}) — {bc.machine_summary(self.info)}\n")
        bc.print_table(columns, rows, headers=headers)
        for n in notes:
            print(n)
        print(f"\nwrote {stem}.csv, {stem}.png, {stem}.meta.json\n", flush=True)
        return stem


def status_of(r, backends):
    """'ok' or 'failed: ...' for a measured workload."""
    if r.get("export_error"):
        return "failed: " + r["export_error"]
    bad = []
    for k, v in r.items():
        if k.startswith(("torch:", "tssa:")) and isinstance(v, dict) and v.get("error"):
            if k == "torch:compile" and v["error"].startswith("n/a"):
                continue
            bad.append(f"{k.split(':', 1)[1]}: {v['error']}")
    return "failed: " + "; ".join(bad) if bad else "ok"


def tssa_ok(r, backend):
    t = r.get(f"tssa:{backend}", {})
    return t.get("s") if not t.get("error") else None


def torch_s(r, key):
    v = r.get(key, {})
    return v.get("s") if not v.get("error") else None


def compile_cell(run, r, what="s"):
    """torch.compile's cell: its number, or why there is none."""
    v = r.get("torch:compile", {})
    if v.get("error"):
        return v["error"] if v["error"].startswith("n/a") else "failed"
    x = v.get(what)
    return ms(x) if what == "s" else x


def time_columns(run, speedups=("speedup_torchscript", "speedup_tssa_cpu")):
    """The columns of a timed point: ms of each mode, then speedups over eager."""
    cuda = "cuda" in run.backends
    cols = ["eager_ms", "torchscript_ms", "torch_compile_ms", "tssa_cpu_ms"]
    cols += (["eager_cuda_ms"] if run.torch_gpu else []) + (["tssa_cuda_ms"] if cuda else [])
    cols += list(speedups) + (["speedup_tssa_cuda"] if cuda else [])
    return cols + (["tssa_cuda_vs_eager_cuda"] if run.torch_gpu else [])


def time_cells(run, r):
    """A timed point's cells (time_columns, checks, status) from measure_workload."""
    eager = torch_s(r, "torch:eager")
    c = r.get("torch:compile", {})
    cells = dict(sizes=r["sizes"], eager_ms=ms(eager), torchscript_ms=ms(torch_s(r, "torch:script")),
                 torch_compile_ms=compile_cell(run, r), tssa_cpu_ms=ms(tssa_ok(r, "cpu")),
                 speedup_torchscript=ratio(eager, torch_s(r, "torch:script")),
                 speedup_torch_compile=(c["error"] if c.get("error", "").startswith("n/a")
                                        else ratio(eager, torch_s(r, "torch:compile"))),
                 speedup_tssa_cpu=ratio(eager, tssa_ok(r, "cpu")),
                 check=r.get("tssa:cpu", {}).get("check", ""), status=status_of(r, run.backends))
    if "cuda" in run.backends:
        cells.update(tssa_cuda_ms=ms(tssa_ok(r, "cuda")),
                     speedup_tssa_cuda=ratio(eager, tssa_ok(r, "cuda")),
                     check_cuda=r.get("tssa:cuda", {}).get("check", ""))
    if run.torch_gpu:
        cells.update(eager_cuda_ms=ms(torch_s(r, "torch:eager@cuda")),
                     tssa_cuda_vs_eager_cuda=ratio(torch_s(r, "torch:eager@cuda"),
                                                   tssa_ok(r, "cuda")))
    return cells


def check_columns(run):
    return ["check"] + (["check_cuda"] if "cuda" in run.backends else []) + ["status"]


# ------------------------------------------------------------------ plots

def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def figure(run, title, ncols=1, nrows=1, size=(8, 5)):
    plt = pyplot()
    fig, axes = plt.subplots(nrows, ncols, figsize=size, dpi=100)
    i = run.info
    gpus = ", ".join(i.get("gpus") or []) or "no GPU"
    fig.suptitle(f"{title}\n{i['host']}: {i['cores']} cores ({i.get('cpu') or '?'}), {gpus}; "
                 f"{i['date'][:10]}; torch {i.get('torch')}" + (" (quick)" if run.opts.quick else ""),
                 fontsize=9)
    return plt, fig, axes


def footnote(fig, lines):
    """Grey notes under the plot (what was not run, and why)."""
    lines = [l for l in lines if l]
    if lines:
        fig.text(0.995, 0.005, "; ".join(lines), fontsize=6, color="grey", ha="right", va="bottom")
        fig.footnoted = True


def not_run_notes(run):
    notes = []
    if run.compile_why:
        notes.append(f"torch.compile: {run.compile_why}")
    if run.cuda_why:
        notes.append(f"tssa-stream cuda: not run ({short(run.cuda_why, 70)})")
    return notes


def log2_axis(ax, values):
    """A base-2 log x axis labelled with the plain values (1, 2, 4, ...)."""
    values = sorted(set(v for v in values if isinstance(v, (int, float)) and v > 0))
    ax.set_xscale("log", base=2)
    if values:
        ax.set_xticks(values)
        ax.set_xticklabels([str(v) for v in values], fontsize=8)
        ax.minorticks_off()


def save(plt, fig, path):
    fig.tight_layout(rect=(0, 0.025, 1, 1) if getattr(fig, "footnoted", False) else None)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def bars(ax, labels, series, log=True, ylabel="", ref=None):
    """Grouped bars: series = [(legend, [value or None per label])]."""
    n = max(1, len(series))
    width = 0.8 / n
    for k, (legend, values) in enumerate(series):
        xs = [i + (k - (n - 1) / 2) * width for i in range(len(labels))]
        ax.bar([x for x, v in zip(xs, values) if v], [v for v in values if v], width, label=legend)
        for x, v in zip(xs, values):
            if not v:
                ax.text(x, 1 if log else 0, "×", ha="center", va="bottom", fontsize=7, color="grey")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    if log:
        ax.set_yscale("log")
    if ref is not None:
        ax.axhline(ref, color="black", linewidth=0.8)
    ax.set_ylabel(ylabel, fontsize=9)
    ax.tick_params(axis="y", labelsize=8)
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)


# ------------------------------------------------------------------ speedup, launches

def measure_speedup_workloads(run, study):
    names = run.only(list(bc.WORKLOADS))
    run.progress.add(len(names))
    rows = []
    for name in names:
        batch, seq, hidden = run.quick_sizes(name)
        run.progress.step(f"{study} {name}")
        r = run.measure(study, name, batch, seq, hidden, count=True)
        rows.append((name, r))
    return rows


def speedup_study(run):
    measured = measure_speedup_workloads(run, "speedup")
    cuda = "cuda" in run.backends
    cols = ["workload", "paper", "sizes"] + time_columns(
        run, ("speedup_torchscript", "speedup_torch_compile", "speedup_tssa_cpu")) + check_columns(run)
    rows = []
    for name, r in measured:
        row = dict(workload=name, paper=bc.WORKLOADS[name].paper or "(own loop)",
                   **time_cells(run, r))
        if row["status"] != "ok":
            run.fail("speedup", name, row["status"])
        rows.append(row)
    geo = {k: bc.geomean([r[k] for r in rows if isinstance(r.get(k), float)])
           for k in ("speedup_torchscript", "speedup_torch_compile", "speedup_tssa_cpu",
                     "speedup_tssa_cuda")}
    paper_geo = bc.geomean([r["speedup_tssa_cpu"] for r in rows
                            if r["paper"] != "(own loop)" and r.get("speedup_tssa_cpu")])
    notes = [f"\nspeedup = PyTorch eager ms / that mode's ms (above 1: faster than eager); "
             f"geometric means: TorchScript {fmt_x(geo['speedup_torchscript'])}, torch.compile "
             f"{fmt_x(geo['speedup_torch_compile']) if not run.compile_why else run.compile_why}, "
             f"tssa-stream cpu {fmt_x(geo['speedup_tssa_cpu'])} (paper workloads "
             f"{fmt_x(paper_geo)})"
             + (f", tssa-stream cuda {fmt_x(geo['speedup_tssa_cuda'])}" if cuda else
                f"; cuda backend: not run ({run.cuda_why})") + "."]
    if run.emulate:
        notes.append("cuda numbers: the CUDA kernels run through TSSA_CUDA_EMULATE=1 on the CPU "
                     "(a check of the scripts, not a measurement).")

    def plot(path, rows):
        plt, fig, ax = figure(run, "End-to-end speedup over PyTorch eager (cf. TensorSSA Fig. 5)")
        series = [("TorchScript", [r.get("speedup_torchscript") for r in rows])]
        if not run.compile_why:
            series.append(("torch.compile", [num(r.get("speedup_torch_compile")) for r in rows]))
        series.append((f"tssa-stream cpu (geomean {fmt_x(geo['speedup_tssa_cpu'])})",
                       [r.get("speedup_tssa_cpu") for r in rows]))
        if cuda:
            series.append((f"tssa-stream cuda{' (emulated)' if run.emulate else ''} "
                           f"(geomean {fmt_x(geo['speedup_tssa_cuda'])})",
                           [r.get("speedup_tssa_cuda") for r in rows]))
        bars(ax, [r["workload"] for r in rows], series, ylabel="speedup over eager (log)", ref=1.0)
        footnote(fig, not_run_notes(run))
        save(plt, fig, path)

    run.write("speedup", cols, rows, plot, notes=notes,
              extra=dict(geomean=geo, geomean_paper_tssa_cpu=paper_geo))
    return rows


def fmt_x(v):
    return f"{v:.2f}x" if v else "-"


def num(v):
    return v if isinstance(v, (int, float)) else None


def launches_study(run):
    measured = measure_speedup_workloads(run, "launches")
    cuda = "cuda" in run.backends
    cols = ["workload", "paper", "sizes", "eager_ops", "torchscript_ops", "torch_compile_ops",
            "tssa_cpu_launches", "tssa_cpu_kernels", "tssa_cpu_blas_calls", "tssa_cpu_ref_ops",
            "tssa_cpu_views"]
    if run.torch_gpu:
        cols += ["eager_cuda_kernels"]
    if cuda:
        cols += ["tssa_cuda_launches", "tssa_cuda_kernels", "tssa_cuda_gemms", "tssa_cuda_host_ops"]
    cols += ["tssa_cpu_over_torchscript", "status"]
    rows = []
    for name, r in measured:
        st = r.get("tssa:cpu", {}).get("stats", {})

        def g(stats, k):
            return bc.as_count(stats[k]) if k in stats else None
        ts = r.get("torch:script", {}).get("launches")
        row = dict(workload=name, paper=bc.WORKLOADS[name].paper or "(own loop)", sizes=r["sizes"],
                   eager_ops=r.get("torch:eager", {}).get("launches"), torchscript_ops=ts,
                   torch_compile_ops=compile_cell(run, r, "launches"),
                   tssa_cpu_launches=bc.as_count(r.get("tssa:cpu", {}).get("launches")),
                   tssa_cpu_kernels=g(st, "kernels_per_run"),
                   tssa_cpu_blas_calls=g(st, "library_calls_per_run"),
                   tssa_cpu_ref_ops=g(st, "fallbacks_per_run"), tssa_cpu_views=g(st, "views_per_run"),
                   status=status_of(r, run.backends))
        row["tssa_cpu_over_torchscript"] = ratio(row["tssa_cpu_launches"], ts)
        if run.torch_gpu:
            row["eager_cuda_kernels"] = r.get("torch:eager@cuda", {}).get("launches")
        if cuda:
            cs = r.get("tssa:cuda", {}).get("stats", {})
            row.update(tssa_cuda_launches=bc.as_count(r.get("tssa:cuda", {}).get("launches")),
                       tssa_cuda_kernels=g(cs, "launches_per_run"),
                       tssa_cuda_gemms=g(cs, "gemms_per_run"),
                       tssa_cuda_host_ops=g(cs, "host_nodes_per_run"))
        if row["status"] != "ok":
            run.fail("launches", name, row["status"])
        rows.append(row)
    notes = ["\nPyTorch: top-level aten ops per call (profiler; views are aten ops there too)"
             + ("; on the GPU, CUDA kernel events" if run.torch_gpu else "")
             + ". tssa-stream cpu launches = generated kernels + OpenBLAS calls + reference-kernel "
             "ops per run (views, headers on the same data, are no launch; listed apart)"
             + ("; cuda launches = kernel launches + cuBLAS calls (host_ops: nodes run on the host)"
                if cuda else f"; cuda backend: not run ({run.cuda_why})") + "."]

    def plot(path, rows):
        plt, fig, ax = figure(run, "Kernel launches per run (cf. TensorSSA Fig. 6)")
        series = [("PyTorch eager (aten ops)", [r.get("eager_ops") for r in rows]),
                  ("TorchScript (aten ops)", [r.get("torchscript_ops") for r in rows])]
        if not run.compile_why:
            series.append(("torch.compile", [num(r.get("torch_compile_ops")) for r in rows]))
        series.append(("tssa-stream cpu", [r.get("tssa_cpu_launches") for r in rows]))
        if run.torch_gpu:
            series.append(("PyTorch eager cuda kernels", [r.get("eager_cuda_kernels") for r in rows]))
        if cuda:
            series.append((f"tssa-stream cuda{' (emulated)' if run.emulate else ''}",
                           [r.get("tssa_cuda_launches") for r in rows]))
        bars(ax, [r["workload"] for r in rows], series, ylabel="launches per run (log)")
        footnote(fig, not_run_notes(run))
        save(plt, fig, path)

    run.write("launches", cols, rows, plot, notes=notes)
    return rows


# ------------------------------------------------------------------ batch

def batch_study(run):
    batches = run.opts.batches or BATCHES[run.mode]
    names = run.only(list(BATCH_WORKLOADS))
    cols = ["workload", "batch", "batch_means", "sizes"] + time_columns(run) + check_columns(run)
    rows = []
    run.progress.add(len(names) * len(batches))
    for name in names:
        _, seq, hidden = run.quick_sizes(name)
        for b in batches:
            run.progress.step(f"batch {name} batch {b}")
            r = run.measure("batch", name, b, seq, hidden, count=False)
            row = dict(workload=name, batch=b, batch_means=bc.WORKLOADS[name].batch_means,
                       **time_cells(run, r))
            if row["status"] != "ok":
                run.fail("batch", f"{name} batch {b}", row["status"])
            rows.append(row)

    def plot(path, rows):
        plt, fig, ax = figure(run, "tssa-stream's speedup over PyTorch eager against batch size "
                                   "(cf. TensorSSA Fig. 7)")
        for k, name in enumerate(names):
            pts = [(r["batch"], r["speedup_tssa_cpu"]) for r in rows
                   if r["workload"] == name and r.get("speedup_tssa_cpu")]
            if pts:
                line, = ax.plot(*zip(*pts), marker="o", label=f"{name} (cpu)")
            ts = [(r["batch"], r["speedup_torchscript"]) for r in rows
                  if r["workload"] == name and r.get("speedup_torchscript")]
            if ts and pts:
                ax.plot(*zip(*ts), linestyle=":", color=line.get_color(), alpha=0.6)
            cu = [(r["batch"], r.get("speedup_tssa_cuda")) for r in rows
                  if r["workload"] == name and r.get("speedup_tssa_cuda")]
            if cu:
                ax.plot(*zip(*cu), marker="s", linestyle="--",
                        color=line.get_color() if pts else None, label=f"{name} (cuda)")
        log2_axis(ax, [r["batch"] for r in rows])
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("batch size", fontsize=9)
        ax.set_ylabel("speedup over eager (log; dotted: TorchScript)", fontsize=9)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
        save(plt, fig, path)

    notes = ["\nbatch_means: what one batch item is for that program. speedup: eager ms / ms."]
    run.write("batch", cols, rows, plot, notes=notes, extra=dict(batches=list(batches)))
    return rows


# ------------------------------------------------------------------ seqlen

def seqlen_study(run):
    seqlens = run.opts.seqlens or SEQLENS[run.mode]
    names = run.only(list(SEQ_WORKLOADS))
    cols = ["workload", "seqlen", "sizes"] + [
        c for c in time_columns(run, ("speedup_tssa_cpu",))
        if c not in ("torchscript_ms", "torch_compile_ms")] + [
        "eager_us_per_step", "tssa_cpu_us_per_step", "tssa_cpu_growth", "eager_growth"] + \
        check_columns(run)
    rows = []
    run.progress.add(len(names) * len(seqlens))
    for name in names:
        batch, hidden = SEQ_SHAPES[run.mode][name]
        prev = None
        for L in seqlens:
            run.progress.step(f"seqlen {name} length {L}")
            r = run.measure("seqlen", name, batch, L, hidden, count=False, eager_only=True)
            eager, tssa = torch_s(r, "torch:eager"), tssa_ok(r, "cpu")
            row = dict(workload=name, seqlen=L, **time_cells(run, r),
                       eager_us_per_step=eager * 1e6 / L if eager else None,
                       tssa_cpu_us_per_step=tssa * 1e6 / L if tssa else None)
            if prev:
                # local growth exponent: log(t / t_prev) / log(L / L_prev); 1 = linear
                if tssa and prev[1]:
                    row["tssa_cpu_growth"] = math.log(tssa / prev[1]) / math.log(L / prev[0])
                if eager and prev[2]:
                    row["eager_growth"] = math.log(eager / prev[2]) / math.log(L / prev[0])
            prev = (L, tssa, eager)
            if row["status"] != "ok":
                run.fail("seqlen", f"{name} length {L}", row["status"])
            rows.append(row)
    # The growth between the two longest lengths, per workload.
    growth = {}
    for name in names:
        g = [r.get("tssa_cpu_growth") for r in rows if r["workload"] == name]
        growth[name] = g[-1] if g else None
    notes = ["\ngrowth: log(t / t_before) / log(L / L_before) against the previous length "
             "(1: linear, 2: quadratic). Between the two longest lengths, tssa-stream cpu: "
             + ", ".join(f"{n} {g:.2f}" if g is not None else f"{n} -" for n, g in growth.items())
             + " (attention's scores are L x L: quadratic work by nature). TorchScript and "
             "torch.compile are left out here (Dynamo unrolls the Python loop, so its compile "
             "grows with the length); the speedup study has them."]

    def plot(path, rows):
        plt, fig, ax = figure(run, "Latency against sequence length (cf. TensorSSA Fig. 8)")
        for name in names:
            pts = [(r["seqlen"], r["tssa_cpu_ms"]) for r in rows
                   if r["workload"] == name and r.get("tssa_cpu_ms")]
            ep = [(r["seqlen"], r["eager_ms"]) for r in rows
                  if r["workload"] == name and r.get("eager_ms")]
            color = None
            if pts:
                line, = ax.plot(*zip(*pts), marker="o", label=f"{name} tssa-stream")
                color = line.get_color()
            if ep:
                ax.plot(*zip(*ep), marker="x", linestyle="--", color=color, alpha=0.7,
                        label=f"{name} eager")
        lo, hi = min(seqlens), max(seqlens)
        base = [r["tssa_cpu_ms"] for r in rows if r["seqlen"] == lo and r.get("tssa_cpu_ms")]
        if base:
            b = min(base)
            ax.plot([lo, hi], [b, b * hi / lo], color="grey", linestyle=":", linewidth=1,
                    label="linear (slope 1)")
        log2_axis(ax, [r["seqlen"] for r in rows])
        ax.set_yscale("log")
        ax.set_xlabel("sequence length (steps; attention: tokens)", fontsize=9)
        ax.set_ylabel("ms per run (log)", fontsize=9)
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
        save(plt, fig, path)

    run.write("seqlen", cols, rows, plot, notes=notes,
              extra=dict(seqlens=list(seqlens), shapes=SEQ_SHAPES[run.mode], growth=growth))
    return rows


# ------------------------------------------------------------------ horizontal

def hostfile_slots(path):
    """The slots a hostfile offers (mpirun's default: 1 per line without slots=)."""
    total = 0
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = [w for w in line.split() if w.startswith("slots=")]
        total += int(m[0].split("=", 1)[1]) if m else 1
    return total


def horizontal_study(run):
    opts = run.opts
    sizes = HORIZONTAL_SIZES[run.mode]
    workloads = bc.scaling_workloads(**sizes)
    chosen = [w for w in (opts.only or "").split(",") if w]
    if chosen and any(c in workloads for c in chosen):
        workloads = {n: w for n, w in workloads.items() if n in chosen}
    threads = opts.threads or power_list(bc.CORES)
    ranks = opts.ranks or [1, 2, 4]
    devices = opts.devices or [1, 2, 4]
    slots = hostfile_slots(opts.hostfile) if opts.hostfile else bc.CORES
    gpu_why = None
    if run.cuda_why:
        gpu_why = f"no GPU backend here: {run.cuda_why}"
    elif "--devices" not in bc.tssa_help(opts.tssa):
        gpu_why = "this tssa-stream has no --devices option (multi-GPU placement)"
    # Real GPUs only: tssa-stream would let one GPU stand in for several devices.
    # Emulated (a check of the script): every count runs on the CPU shim.
    n_gpus = 0 if gpu_why else max(devices) if run.emulate else bc.torch.cuda.device_count()
    runs = run.runs
    cols = ["workload", "sizes", "kind", "workers", "cores", "oversubscribed", "ms",
            "speedup", "efficiency", "eager_ms", "check", "placement", "status"]
    rows, placements = [], {}
    run.progress.add(len(workloads) * (len(threads) + len(ranks) + 2))
    for name, (program, inputs, wsizes) in workloads.items():
        case = os.path.join(run.workdir, "horizontal", name)
        run.progress.step(f"horizontal {name}: export, eager")
        try:
            bc.export.export(program, inputs, case)
            eager = bc.time_eager(program, inputs, runs)
        except Exception as e:     # noqa: BLE001
            why = f"failed: export: {type(e).__name__}: {short(e)}"
            rows.append(dict(workload=name, sizes=wsizes, status=why))
            run.fail("horizontal", name, why)
            continue
        placements[name] = {}
        base = None
        for n in threads:
            run.progress.step(f"horizontal {name}: {n} thread(s), --repeat {runs}")
            t, _, err = bc.run_tssa(opts.tssa, case, runs, threads=n, out_name=f"out_t{n}")
            check = bc.check_outputs(case, f"out_t{n}") if t else ""
            if n == 1:
                base = t
            status = "ok" if t and check.startswith("ok") else f"failed: {err or check}"
            rows.append(dict(workload=name, sizes=wsizes, kind="threads", workers=n, cores=n,
                             oversubscribed="yes" if n > bc.CORES else "no", ms=ms(t),
                             speedup=ratio(base, t), efficiency=ratio(ratio(base, t), n),
                             eager_ms=ms(eager), check=check, placement="one process",
                             status=status))
        for n in ranks:
            run.progress.step(f"horizontal {name}: mpirun -np {n}, --repeat {runs}")
            over = n > slots
            if run.mpi_why:
                rows.append(dict(workload=name, sizes=wsizes, kind="ranks", workers=n,
                                 status=f"not run: {run.mpi_why}"))
                continue
            t, err = bc.run_ranks(opts.tssa, case, n, runs, f"out_np{n}", hostfile=opts.hostfile)
            check = bc.check_outputs(case, f"out_np{n}") if t else ""
            line, actors = bc.placement(opts.tssa, case, n, runs)
            placements[name][str(n)] = dict(placement=line, off_rank0=bc.off_rank0(actors),
                                            actors=bc.actor_summary(actors))
            # tssa-stream binds each rank to its share of a host's cores: on one
            # host all ranks together use all of them; on a cluster, count ranks.
            cores = slots if not opts.hostfile else n
            status = "ok" if t and check.startswith("ok") else f"failed: {err or check}"
            rows.append(dict(workload=name, sizes=wsizes, kind="ranks", workers=n, cores=cores,
                             oversubscribed="yes" if over else "no", ms=ms(t),
                             speedup=ratio(base, t), efficiency=ratio(ratio(base, t), cores),
                             eager_ms=ms(eager), check=check,
                             placement=short(bc.off_rank0(actors), 80) if n > 1 else "rank 0",
                             status=status))
        run.progress.step(f"horizontal {name}: GPUs")
        if gpu_why:
            rows.append(dict(workload=name, sizes=wsizes, kind="gpus",
                             workers=",".join(map(str, devices)), status=f"not run: {gpu_why}"))
        else:
            gbase = None
            for n in devices:
                if n > n_gpus:
                    rows.append(dict(workload=name, sizes=wsizes, kind="gpus", workers=n,
                                     status=f"not run: {n_gpus} GPU(s) here"))
                    continue
                run.progress.note(f"horizontal {name}: --backend=cuda --devices {n}")
                t, _, err = bc.run_tssa(opts.tssa, case, runs, backend="cuda", out_name=f"out_g{n}",
                                        extra=("--devices", str(n)), env=bc.cuda_env(run.emulate))
                check = bc.check_outputs(case, f"out_g{n}", rtol=1e-3, atol=1e-3) if t else ""
                line, actors = bc.placement(opts.tssa, case, n, runs, devices=True,
                                            env=bc.cuda_env(run.emulate))
                placements[name][f"devices {n}"] = dict(placement=line,
                                                        off_device0=bc.off_rank0(actors, "device"),
                                                        actors=bc.actor_summary(actors))
                if n == 1:
                    gbase = t
                status = "ok" if t and check.startswith("ok") else f"failed: {err or check}"
                rows.append(dict(workload=name, sizes=wsizes, kind="gpus", workers=n, cores=n,
                                 oversubscribed="no", ms=ms(t), speedup=ratio(gbase, t),
                                 efficiency=ratio(ratio(gbase, t), n), eager_ms=ms(eager),
                                 check=check, placement=short(bc.off_rank0(actors, "device"), 80)
                                 if n > 1 else "device 0", status=status))
    for r in rows:
        if r.get("status", "").startswith("failed"):
            run.fail("horizontal", f"{r['workload']} {r.get('kind')} {r.get('workers')}", r["status"])
    stem = bc.result_stem(opts.out, "horizontal", run.info)
    bc.write_json(stem + ".placement.json",
                  dict(note="the partitioner's placement for each rank count "
                            "(`tssa-stream --emit=schedule --ranks N --repeat RUNS`) and GPU "
                            "count (`--emit=schedule --backend=cuda --devices N`)",
                       runs=runs, placements=placements))
    notes = [f"\nspeedup: ms of 1 thread (one core) / ms; threads and GPU points: efficiency = "
             f"speedup / workers; ranks: tssa-stream binds each rank to its share of the {slots} "
             f"cores (1 rank runs {slots} threads), so efficiency = speedup / cores used. "
             f"oversubscribed: more ranks than cores (or hostfile slots). placement: the filters "
             f"the partitioner put off rank 0 (all of it in {os.path.basename(stem)}.placement.json)."]

    def plot(path, rows):
        plt, fig, (ax1, ax2) = figure(run, "Horizontal parallelization: speedup over one core",
                                      ncols=2)
        styles = {"threads": "-", "ranks": "--", "gpus": ":"}
        colors = {}
        for name in workloads:
            for kind in ("threads", "ranks", "gpus"):
                pts = [r for r in rows if r["workload"] == name and r.get("kind") == kind
                       and r.get("speedup")]
                if not pts:
                    continue
                xs = [r["workers"] for r in pts]
                kw = dict(linestyle=styles[kind], label=f"{name} {kind}")
                if name in colors:
                    kw["color"] = colors[name]
                line, = ax1.plot(xs, [r["speedup"] for r in pts], marker="o", **kw)
                colors[name] = line.get_color()
                ax2.plot(xs, [100 * r["efficiency"] for r in pts], marker="o", **kw)
                over = [r for r in pts if r.get("oversubscribed") == "yes"]
                if over:
                    ax1.scatter([r["workers"] for r in over], [r["speedup"] for r in over],
                                s=90, facecolors="none", edgecolors="red", zorder=5)
        mx = max([r["workers"] for r in rows if isinstance(r.get("workers"), int)] or [1])
        ax1.plot([1, min(mx, slots)], [1, min(mx, slots)], color="grey", linestyle=":",
                 linewidth=1, label="ideal")
        ws = [r["workers"] for r in rows if isinstance(r.get("workers"), int)]
        log2_axis(ax1, ws)
        log2_axis(ax2, ws)
        ax1.set_xlabel("workers (threads / ranks / GPUs); red ring: oversubscribed", fontsize=8)
        ax2.set_xlabel("workers", fontsize=8)
        ax1.set_ylabel("speedup over 1 thread", fontsize=9)
        ax2.set_ylabel("parallel efficiency %", fontsize=9)
        ax1.legend(fontsize=6)
        for a in (ax1, ax2):
            a.grid(alpha=0.3)
            a.tick_params(labelsize=8)
        if gpu_why:
            footnote(fig, ["GPU points: not run (" + short(gpu_why, 90) + ")"])
        save(plt, fig, path)

    run.write("horizontal", cols, rows, plot, notes=notes,
              extra=dict(threads=threads, ranks=ranks, devices=devices, slots=slots,
                         hostfile=opts.hostfile, gpus_not_run=gpu_why))
    return rows


# ------------------------------------------------------------------ split-linear

def split_linear_study(run):
    opts = run.opts
    cfg = SPLIT[run.mode]
    ranks = opts.ranks or list(cfg["ranks"])
    slots = hostfile_slots(opts.hostfile) if opts.hostfile else bc.CORES
    rank_cols = [f"tssa_{n}_ranks_ms" for n in ranks]
    cols = ["shape", "parts"] + rank_cols + ["eager_whole_ms", "eager_split_ms",
                                             "best_tssa_vs_eager_whole", "oversubscribed_ranks",
                                             "ranks_used", "check"]
    run.progress.add(len(cfg["shapes"]) * len(cfg["parts"]))
    if run.mpi_why:
        rows = [dict(shape=f"{b}x{i} -> {b}x{o}", check=f"not run: {run.mpi_why}")
                for b, i, o in cfg["shapes"]]
        raw = []
    else:
        def say(msg):
            if "eager split" in msg:
                run.progress.step(msg)
            else:
                run.progress.note(msg)
        raw = bc.split_linear_rows(opts.tssa, run.workdir, run.runs, cfg["shapes"], cfg["parts"],
                                   ranks, progress=say, hostfile=opts.hostfile)
        rows = []
        for r in raw:
            row = dict(shape=r["shape"], parts=r["parts"], eager_whole_ms=ms(r["eager_whole_s"]),
                       eager_split_ms=ms(r["eager_split_s"]),
                       oversubscribed_ranks=",".join(str(n) for n in ranks if n > slots) or "none",
                       ranks_used="/".join(str(r["ranks_used"].get(str(n), "?"))
                                           for n in ranks if n > 1),
                       check=r["check"])
            for n in ranks:
                row[f"tssa_{n}_ranks_ms"] = ms(r["tssa_s"][str(n)])
            best = min([v for v in r["tssa_s"].values() if v] or [None], key=lambda v: v or 1e9)
            row["best_tssa_vs_eager_whole"] = ratio(r["eager_whole_s"], best)
            if r["check"] != "ok":
                run.fail("split-linear", f"{r['shape']} P={r['parts']}", r["check"])
            rows.append(row)
    stem = bc.result_stem(opts.out, "split-linear", run.info)
    bc.write_json(stem + ".placement.json",
                  dict(note="the partitioner's placement at each rank count above 1",
                       rows=[dict(shape=r["shape"], parts=r["parts"], placement=r["placement"],
                                  actors=r["actors"]) for r in raw]))
    headers = [c + ("*" if c.startswith("tssa_") and int(c.split("_")[1]) > slots else "")
               for c in cols]
    notes = [f"\nms per run. Workers = mpirun ranks (* oversubscribed: more ranks than the "
             f"{slots} cores); 1 rank runs {slots} threads. eager whole: F.linear on the whole "
             "batch; eager split: the same loop over P parts. ranks_used: ranks the placement "
             "gives any actor at each rank count above 1. best_tssa_vs_eager_whole: eager whole "
             "ms / tssa-stream's best ms (above 1: tssa-stream faster)."]

    def plot(path, rows):
        shapes = list(dict.fromkeys(r["shape"] for r in rows if r.get("parts")))
        plt, fig, axes = figure(run, "Split linear layer (MIT thesis, Tables 5.1/5.2): ms per run",
                                ncols=max(1, len(shapes)))
        axes = axes if hasattr(axes, "__len__") else [axes]
        for ax, shape in zip(axes, shapes):
            sub = [r for r in rows if r["shape"] == shape]
            series = [(f"tssa {n} rank{'s' if n > 1 else ''}{'*' if n > slots else ''}",
                       [r.get(f"tssa_{n}_ranks_ms") for r in sub]) for n in ranks]
            series += [("eager whole", [r.get("eager_whole_ms") for r in sub]),
                       ("eager split loop", [r.get("eager_split_ms") for r in sub])]
            bars(ax, [f"P={r['parts']}" for r in sub], series, ylabel="ms per run (log)")
            ax.set_title(shape, fontsize=9)
            ax.legend(fontsize=6)
        save(plt, fig, path)

    run.write("split-linear", cols, rows, plot, headers=headers, notes=notes,
              extra=dict(ranks=ranks, slots=slots, shapes=[list(s) for s in cfg["shapes"]],
                         parts=list(cfg["parts"])))
    return rows


# ------------------------------------------------------------------ scaling, devices

def scaling_configs(run, simulate):
    """The scaling study's configurations: (key, label, ranks or None,
    threads per rank, extra options, cores used, oversubscribed, why not run
    or None). mpirun ranks are bound by tssa-stream to their share of the
    host (together all of its cores); with --simulate-hosts each rank runs
    one thread as if alone on its own host."""
    cores = bc.CORES
    configs = [("t1", "1 thread", None, 1, (), 1, False, None),
               ("t2", "2 threads", None, 2, (), min(2, cores), 2 > cores, None)]
    rank_counts = [1, 2] if run.opts.quick else [1, 2, 4]
    for n in rank_counts:
        configs.append((f"np{n}", f"mpirun -np {n}", n, cores, (), cores, n > cores,
                        run.mpi_why))
    for n in rank_counts:
        why = run.mpi_why or (None if simulate else "no --simulate-hosts")
        configs.append((f"np{n}_hosts", f"mpirun -np {n} --simulate-hosts", n, 1,
                        ("--simulate-hosts",), min(n, cores), n > cores, why))
    return configs


def pct_error(predicted, measured):
    return 100.0 * (predicted - measured) / measured if predicted and measured else None


def scaling_study(run):
    opts = run.opts
    sizes = SCALING_SIZES[run.mode]
    workloads = dict(bc.scaling_workloads(**sizes["data"]))
    workloads.update(bc.task_workloads(**sizes["tasks"]))
    kinds = {"batch_map": "data-parallel", "attention": "data-parallel",
             "mask_crop": "data-parallel", "pipeline": "pipelined", "split_join": "task-parallel"}
    chosen = [w for w in (opts.only or "").split(",") if w]
    if chosen and any(c in workloads for c in chosen):
        workloads = {n: w for n, w in workloads.items() if n in chosen}
    simulate = "--simulate-hosts" in bc.tssa_help(opts.tssa)
    configs = scaling_configs(run, simulate)
    runs, rounds = run.runs, opts.rounds or ROUNDS[run.mode]
    cols = ["workload", "kind", "sizes", "config", "ranks", "threads_per_rank", "cores",
            "oversubscribed", "ms", "predicted_ms", "error_pct", "best_ms", "best_error_pct",
            "speedup", "predicted_speedup", "efficiency", "load", "check", "placement", "status"]
    rows, placements = [], {}
    runnable = [c for c in configs if not c[7]]
    run.progress.add(len(workloads) * (1 + rounds * len(runnable)))
    for name, (program, inputs, wsizes) in workloads.items():
        case = os.path.join(run.workdir, "scaling", name)
        run.progress.step(f"scaling {name}: export, predictions")
        try:
            bc.export.export(program, inputs, case)
        except Exception as e:     # noqa: BLE001
            why = f"failed: export: {type(e).__name__}: {short(e)}"
            rows.append(dict(workload=name, kind=kinds.get(name), sizes=wsizes, status=why))
            run.fail("scaling", name, why)
            continue
        pred, pred_why = {}, {}
        for key, label, n, threads, extra, *_rest in runnable:
            pred[key], pred_why[key] = bc.predicted_cost(opts.tssa, case, runs, ranks=n,
                                                         threads=threads, extra=extra)
        placements[name] = {key: dict(placement=p["placement"], cost=p["cost"],
                                      filters=[a for a in bc.actor_summary(p["actors"])
                                               if a["est_seconds"] is not None])
                            for key, p in pred.items() if p}
        # The configurations take turns, round after round, so that a slow
        # spell of the shared machine hits them alike (bench_mpi.py's way).
        times = {c[0]: [] for c in runnable}
        fastest = {c[0]: [] for c in runnable}
        loads = {c[0]: [] for c in runnable}
        err = {}
        for round_ in range(rounds):
            for key, label, n, threads, extra, *_rest in runnable:
                run.progress.step(f"scaling {name}: round {round_ + 1}/{rounds}, {label}, "
                                  f"--repeat {runs}")
                out = f"out_{key}"
                loads[key].append(os.getloadavg()[0])
                if n is None:
                    t, _, why = bc.run_tssa(opts.tssa, case, runs, threads=threads, out_name=out,
                                            best=fastest[key])
                else:
                    t, why = bc.run_ranks(opts.tssa, case, n, runs, out, threads=threads,
                                          extra=extra, best=fastest[key])
                if t is None:
                    err[key] = why
                else:
                    times[key].append(t)
        measured = {k: (statistics.median(v) if v and k not in err else None)
                    for k, v in times.items()}
        base = measured.get("t1")
        pbase = pred["t1"]["per_run_s"] if pred.get("t1") else None
        for key, label, n, threads, extra, cores, over, why_not in configs:
            row = dict(workload=name, kind=kinds.get(name), sizes=wsizes, config=label,
                       ranks=n or 1, threads_per_rank=threads, cores=cores,
                       oversubscribed="yes" if over else "no")
            if why_not:
                row["status"] = f"not run: {why_not}"
                rows.append(row)
                continue
            t = measured.get(key)
            best = min(fastest[key]) if fastest[key] and t else None
            p = pred[key]["per_run_s"] if pred.get(key) else None
            check = bc.check_outputs(case, f"out_{key}") if t else ""
            if t and check.startswith("ok"):
                status = "ok (oversubscribed: correctness only)" if over else "ok"
            else:
                status = f"failed: {err.get(key) or check}"
            if not pred.get(key):
                status += f"; no prediction: {pred_why[key]}"
            placement = pred[key]["placement"] if pred.get(key) else None
            row.update(ms=ms(t), predicted_ms=ms(p), error_pct=pct_error(p, t),
                       best_ms=ms(best), best_error_pct=pct_error(p, best),
                       load=statistics.mean(loads[key]) if loads[key] else None,
                       speedup=ratio(base, t), predicted_speedup=ratio(pbase, p),
                       efficiency=ratio(ratio(base, t), cores), check=check,
                       placement=short(placement or ("one rank" if not n else ""), 90),
                       status=status)
            rows.append(row)
    for r in rows:
        if r.get("status", "").startswith("failed"):
            run.fail("scaling", f"{r['workload']} {r.get('config')}", r["status"])
    stem = bc.result_stem(opts.out, "scaling", run.info)
    bc.write_json(stem + ".placement.json",
                  dict(note="each configuration's `--emit=schedule --json` placement and cost "
                            "object (the cost model's rates, per-rank work and messages, L, B)",
                       runs=runs, rounds=rounds, placements=placements))
    scored = [r for r in rows if r.get("error_pct") is not None and r.get("oversubscribed") == "no"]
    within = [r for r in scored if abs(r["error_pct"]) <= 25]
    within_best = [r for r in scored if r.get("best_error_pct") is not None
                   and abs(r["best_error_pct"]) <= 25]
    notes = [f"\nms: the median over {rounds} round(s) (configurations in turns) of the median per "
             f"run of --repeat {runs}. predicted_ms: the cost model's time per run for the same "
             "launch and options (--emit=schedule --json --repeat RUNS: L on one busy rank; "
             "(L + (RUNS - 1) B) / RUNS when several ranks run the runs as one stream); "
             "error_pct = (predicted - measured) / measured. best_ms: the fastest run of all "
             "rounds (the machine at its quietest: the cost model predicts a machine to itself; "
             "several busy ranks time the runs as one stream, so there it is the fastest round), "
             "best_error_pct its error. load: the 1-minute load average as the rounds started "
             f"(above {bc.CORES}: other processes shared the cores). speedup: 1 thread's ms / ms "
             "(predicted_speedup the same from the predictions); efficiency = speedup / cores "
             f"used (mpirun ranks share all {bc.CORES} cores; --simulate-hosts ranks 1 thread "
             "each). Oversubscribed points are a correctness check (not scored).",
             f"within 25 %: {len(within)} of {len(scored)} scored points"
             + (" (" + ", ".join(f"{r['workload']} {r['config']} {r['error_pct']:+.0f}%"
                                 for r in scored if r not in within) + " outside)"
                if len(within) < len(scored) else ""),
             f"within 25 % of the fastest runs: {len(within_best)} of {len(scored)}"]

    def plot(path, rows):
        names = list(dict.fromkeys(r["workload"] for r in rows))
        ncols = 3
        nrows = max(1, (len(names) + ncols - 1) // ncols)
        plt, fig, axes = figure(run, "Cost model: predicted against measured ms per run",
                                ncols=ncols, nrows=nrows, size=(13, 4.2 * nrows))
        flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
        for ax, name in zip(flat, names):
            # Points with no number (not run, failed) are left out of the
            # plot: the table and the footnote say why.
            sub = [r for r in rows if r["workload"] == name and r.get("config")
                   and (r.get("ms") or r.get("predicted_ms"))]
            labels = [r["config"].replace("mpirun ", "").replace(" --simulate-hosts", " sim")
                      + ("*" if r.get("oversubscribed") == "yes" else "") for r in sub]
            bars(ax, labels, [("measured (median)", [r.get("ms") for r in sub]),
                              ("measured (fastest)", [r.get("best_ms") for r in sub]),
                              ("predicted", [r.get("predicted_ms") for r in sub])],
                 ylabel="ms per run (log)")
            ax.set_title(f"{name} ({sub[0].get('kind') if sub else ''})", fontsize=9)
        for ax in flat[len(names):]:
            ax.axis("off")
        missing = sorted({r["config"] for r in rows if r.get("config")
                          and not (r.get("ms") or r.get("predicted_ms"))})
        footnote(fig, ["*: oversubscribed (correctness only)",
                       "" if simulate else "--simulate-hosts points: not run (no such option)",
                       ("not run or failed (see the CSV): " + ", ".join(missing)) if missing else ""])
        save(plt, fig, path)

    run.write("scaling", cols, rows, plot, notes=notes,
              extra=dict(runs=runs, rounds=rounds, simulate_hosts=simulate,
                         sizes=SCALING_SIZES[run.mode],
                         within_25_pct=f"{len(within)} of {len(scored)}",
                         within_25_pct_of_best=f"{len(within_best)} of {len(scored)}"))
    return rows


def devices_study(run):
    opts = run.opts
    sizes = SCALING_SIZES[run.mode]["data"]
    workloads = bc.scaling_workloads(**sizes)
    chosen = [w for w in (opts.only or "").split(",") if w]
    if chosen and any(c in workloads for c in chosen):
        workloads = {n: w for n, w in workloads.items() if n in chosen}
    devices = opts.devices or [1, 2, 4]
    runs = run.runs
    why = None
    if run.cuda_why:
        why = "no GPU" + ("" if run.cuda_why.startswith("no GPU") else f" ({short(run.cuda_why, 80)})")
    elif "--devices" not in bc.tssa_help(opts.tssa):
        why = "this tssa-stream has no --devices option"
    env = bc.cuda_env(run.emulate)
    cols = ["workload", "sizes", "devices", "ms", "speedup", "predicted_speedup_n_gpus",
            "launches", "check", "placement", "device_note", "status"]
    rows = []
    run.progress.add(len(workloads))
    for name, (program, inputs, wsizes) in workloads.items():
        run.progress.step(f"devices {name}")
        case = os.path.join(run.workdir, "devices", name)
        try:
            bc.export.export(program, inputs, case)
        except Exception as e:     # noqa: BLE001
            rows.append(dict(workload=name, sizes=wsizes,
                             status=f"failed: export: {type(e).__name__}: {short(e)}"))
            continue
        base = None
        for n in devices:
            row = dict(workload=name, sizes=wsizes, devices=n)
            # The projection needs no GPU: the placement is planned without one.
            p, _ = bc.predicted_cost(opts.tssa, case, runs, extra=("--backend=cuda", "--devices",
                                                                   str(n)), env=env)
            if p:
                # --emit=schedule's device_note: "devices: N, predicted S.SSx the steady
                # state of one device (...)"
                note = p["doc"].get("device_note") or ""
                m = re.search(r"predicted ([0-9.]+)x", note)
                row["predicted_speedup_n_gpus"] = (float(m.group(1)) if m else
                                                   bc.find_number(p["doc"], "speedup"))
                row["device_note"] = short(note, 160) if note else None
                row["placement"] = short(bc.off_rank0(p["actors"], "device"), 80) if n > 1 \
                    else "device 0"
            if why:
                row["status"] = f"not run: {why}"
                rows.append(row)
                continue
            run.progress.note(f"devices {name}: --backend=cuda --devices {n}")
            t, stats, err = bc.run_tssa(opts.tssa, case, runs, backend="cuda", out_name=f"out_g{n}",
                                        extra=("--devices", str(n)), env=env)
            check = bc.check_outputs(case, f"out_g{n}", rtol=1e-3, atol=1e-3) if t else ""
            if n == 1:
                base = t
            row.update(ms=ms(t), speedup=ratio(base, t), launches=bc.launches(stats, "cuda"),
                       check=check,
                       status=("ok" + (" (emulated: numbers mean nothing)" if run.emulate else "")
                               if t and check.startswith("ok") else f"failed: {err or check}"))
            rows.append(row)
    for r in rows:
        if r.get("status", "").startswith("failed"):
            run.fail("devices", f"{r['workload']} {r.get('devices')}", r["status"])
    notes = ["\nms: median per run of --repeat RUNS on --backend=cuda --devices N (logical devices "
             "on the GPUs here); speedup over --devices 1. predicted_speedup_n_gpus: the cost "
             "model's predicted speedup on N GPUs as --emit=schedule --backend=cuda --devices N "
             "gives it (empty where it gives none)."]

    def plot(path, rows):
        plt, fig, ax = figure(run, "Logical devices: ms per run, and the projection to N GPUs")
        names = list(dict.fromkeys(r["workload"] for r in rows))
        series = [(f"--devices {n}", [next((r.get("ms") for r in rows if r["workload"] == w
                                            and r.get("devices") == n), None) for w in names])
                  for n in devices]
        measured = any(v for _, values in series for v in values)
        bars(ax, names, series, log=measured, ylabel="ms per run" + (" (log)" if measured else ""))
        footnote(fig, [f"not run: {why}" if why else "",
                       "emulated on the CPU (TSSA_CUDA_EMULATE=1)" if run.emulate and not why else ""])
        save(plt, fig, path)

    run.write("devices", cols, rows, plot, notes=notes,
              extra=dict(devices=devices, runs=runs, not_run=why, emulated=run.emulate))
    return rows


STUDY_FUNCS = {"speedup": speedup_study, "launches": launches_study, "batch": batch_study,
               "seqlen": seqlen_study, "horizontal": horizontal_study,
               "split-linear": split_linear_study, "scaling": scaling_study,
               "devices": devices_study}


# ------------------------------------------------------------------ main

def parse(argv):
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--quick", action="store_true",
                        help="small sizes, few runs: every study in under 2 minutes")
    common.add_argument("--out", default=os.path.join(bc.HERE, "results"),
                        help="results folder (default experiments/results)")
    common.add_argument("--tssa", default=bc.DEFAULT_TSSA, help="the tssa-stream binary")
    common.add_argument("--runs", type=int, help="timed runs per point (full 20, quick 3)")
    common.add_argument("--only", help="comma-separated workload names")
    common.add_argument("--keep", help="keep the exported cases in this folder")
    common.add_argument("--batches", type=int_list, help="batch study: batch sizes (1,4,16,64)")
    common.add_argument("--seqlens", type=int_list,
                        help="seqlen study: sequence lengths (16,64,256,1024,4096)")
    common.add_argument("--threads", type=int_list,
                        help="horizontal: thread counts (default 1, 2, 4, ... up to the cores)")
    common.add_argument("--ranks", type=int_list,
                        help="horizontal and split-linear: MPI rank counts (1,2,4 / 1,2,4,8)")
    common.add_argument("--devices", type=int_list, help="horizontal: GPU counts (1,2,4)")
    common.add_argument("--hostfile", help="mpirun --hostfile FILE for the rank points (a cluster)")
    common.add_argument("--rounds", type=int,
                        help="scaling: rounds of every configuration, taking turns (full 5, quick 1)")
    common.add_argument("--strict", action="store_true",
                        help="exit 1 when any point failed (the ctest entry uses it)")
    common.add_argument("--emulate-cuda", action="store_true",
                        help="test the scripts' cuda paths without a GPU: tssa-stream's cuda "
                             "backend under TSSA_CUDA_EMULATE=1 (numbers mean nothing)")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    sub = ap.add_subparsers(dest="study", metavar="STUDY")
    sub.required = True
    for s in STUDIES + ("all",):
        sub.add_parser(s, parents=[common], help=f"run the {s} study" if s != "all" else
                       "run every study")
    return ap.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    opts = parse(argv)
    missing = bc.MISSING
    if not missing:
        import importlib
        try:
            importlib.import_module("matplotlib")
        except ImportError as e:
            missing = f"{e} (apt-get install python3-matplotlib)"
    if missing:
        print(f"run.py: needs PyTorch, numpy and matplotlib: {missing}; run scripts/setup.sh --dev",
              file=sys.stderr)
        return 77 if opts.quick else 1
    opts.tssa = os.path.abspath(opts.tssa)
    if not os.path.exists(opts.tssa):
        print(f"run.py: {opts.tssa} not found: build first (scripts/build.sh build)", file=sys.stderr)
        return 2
    if opts.hostfile and not os.path.exists(opts.hostfile):
        print(f"run.py: hostfile {opts.hostfile} not found", file=sys.stderr)
        return 2
    opts.out = os.path.abspath(opts.out)
    bc.torch.set_num_threads(bc.CORES)
    started = time.monotonic()
    run = Run(opts, [os.path.abspath(__file__)] + argv)
    studies = STUDIES if opts.study == "all" else (opts.study,)
    broken = []
    try:
        for s in studies:
            try:
                STUDY_FUNCS[s](run)
            except KeyboardInterrupt:
                raise
            except Exception as e:       # noqa: BLE001 (a study that broke: say so, go on)
                import traceback
                run.progress.finish()
                traceback.print_exc()
                broken.append(f"{s}: {type(e).__name__}: {e}")
    finally:
        run.progress.finish()
        if not opts.keep:
            shutil.rmtree(run.workdir, ignore_errors=True)
    took = time.monotonic() - started
    print(f"run.py {opts.study}{' --quick' if opts.quick else ''}: {len(studies) - len(broken)} of "
          f"{len(studies)} studies written to {opts.out} in {took:.0f} s; "
          f"{len(run.failures)} point(s) failed")
    for f in run.failures:
        print(f"  failed: {short(f, 200)}")
    for b in broken:
        print(f"  study broken: {b}")
    if broken or (opts.strict and run.failures):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
