#!/usr/bin/python3
"""bench_e2e.py — tssa-stream's cpu backend against PyTorch, end to end.

    /usr/bin/python3 experiments/bench_e2e.py [--tssa build/tssa-stream]
        [--runs 30] [--only yolo_decode,lstm_loop] [--keep DIR] [--json FILE]

For each workload (the TensorSSA paper's programs in tests/models/programs,
at realistic sizes: bench_common.WORKLOADS) it exports the program with
frontend/export.py (graph text, inputs, PyTorch's eager outputs), then times
in this one process
  - PyTorch eager and TorchScript (torch.jit.script): 2 threads, a warm-up
    of 10 calls, then the median of --runs calls. Every call gets fresh clones
    of the tensor inputs (some programs write into them), made outside the
    timed region;
  - tssa-stream: `tssa-stream model.ir ARGS --repeat RUNS --stats` with
    OMP_NUM_THREADS=2 and OPENBLAS_NUM_THREADS=2; the median per run it
    prints (the compile, and the first run, are not in it);
and checks tssa-stream's outputs against eager's (rtol 1e-4, atol 1e-4).
It prints per workload both times, the speed ratio min(eager, TS) / tssa
(above 1: tssa-stream is faster), tssa-stream's dispatches per run as they
ran (generated kernels, OpenBLAS calls, reference-kernel ops, views) against
the aten ops each PyTorch mode runs per call (profiler, top-level aten::
events; views are aten ops there too), then the geometric mean of
the ratios, and a bandwidth line: a fused elementwise program's GB/s against
a STREAM triad (torch.add(b, c, alpha=s, out=a)) measured in the same run.
The machine is shared and noisy: compare ratios taken in one run.
experiments/run.py (studies speedup and launches) measures the same
workloads with the same code (bench_common.py) and writes CSVs and plots.
"""
import argparse
import os
import sys
import tempfile

import bench_common as bc

bc.require("bench_e2e.py")
torch = bc.torch

# The workloads of the table, in its order, at bench_common's default sizes.
E2E_WORKLOADS = ("yolo_decode", "mask_crop", "ssd_decode", "batch_loop", "lstm_loop", "rnn_loop",
                 "seq2seq_greedy", "attention_heads", "fcos_decode", "nested_loop_if")
THREADS = 2


def bandwidth(tssa, workdir, runs):
    """(fused elementwise GB/s, STREAM triad GB/s) on 2^24 float32."""
    n = 1 << 24
    a, b, c = torch.empty(n), torch.rand(n), torch.rand(n)
    triad = bc.median_time(lambda: torch.add(b, c, alpha=3.0, out=a), runs)

    def elementwise(x):
        return (torch.sigmoid(x) * 2.0 + x) * x

    case = os.path.join(workdir, "elementwise")
    bc.export.export(elementwise, {"x": torch.rand(n)}, case)
    t, _, err = bc.run_tssa(tssa, case, runs, threads=THREADS)
    return (8 * n / t / 1e9 if t else float("nan")), 12 * n / triad / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tssa", default=bc.DEFAULT_TSSA)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", help="keep the exported cases in this directory")
    ap.add_argument("--json", help="also write every number to this file")
    opts = ap.parse_args()
    if not os.path.exists(opts.tssa):
        sys.exit(f"bench_e2e.py: {opts.tssa} not found: build first (scripts/build.sh build)")
    opts.tssa = os.path.abspath(opts.tssa)
    torch.set_num_threads(THREADS)
    workdir = opts.keep or tempfile.mkdtemp(prefix="bench_e2e.")
    chosen = [w for w in opts.only.split(",") if w]
    unknown = [w for w in chosen if w not in E2E_WORKLOADS]
    if unknown:
        sys.exit(f"bench_e2e.py: unknown workload {', '.join(unknown)} "
                 f"(have {', '.join(E2E_WORKLOADS)})")
    rows, ratios = [], []
    head = (f"{'workload':16} {'sizes':28} {'eager ms':>9} {'TS ms':>8} {'tssa ms':>8} "
            f"{'ratio':>6} {'tssa k+l+f+v':>15} {'eager ops':>9} {'TS ops':>7} {'kern/TS':>7} "
            f"{'disp/TS':>7}  check")
    print(head)
    print("-" * len(head))
    for name in E2E_WORKLOADS:
        if chosen and name not in chosen:
            continue
        program, inputs, sizes = bc.make_workload(name)
        loop = bc.WORKLOADS[name].loop
        r = bc.measure_workload(opts.tssa, os.path.join(workdir, name), program, inputs, opts.runs,
                                threads=THREADS)
        eager, script, tssa = r.get("torch:eager", {}), r.get("torch:script", {}), r.get("tssa:cpu", {})
        failed = r["export_error"] or eager.get("error") or script.get("error")
        if failed:
            print(f"{name:16} {sizes:28} FAILED: {failed}")
            continue
        if tssa.get("s") is None:
            print(f"{name:16} {sizes:28} {eager['s']*1e3:9.3f} {script['s']*1e3:8.3f} "
                  f"{'FAIL':>8}  {tssa.get('error', '')}")
            continue
        stats = tssa["stats"]
        kernels = float(stats.get("kernels_per_run", 0))
        library = float(stats.get("library_calls_per_run", 0))
        fallbacks = float(stats.get("fallbacks_per_run", 0))
        views = float(stats.get("views_per_run", 0))
        dispatches = kernels + library + fallbacks + views
        ts_ops = max(script["launches"], 1)
        t = tssa["s"]
        ratio = min(eager["s"], script["s"]) / t
        ratios.append(ratio)
        check = tssa["check"]
        print(f"{name:16} {sizes:28} {eager['s']*1e3:9.3f} {script['s']*1e3:8.3f} "
              f"{t*1e3:8.3f} {ratio:6.2f} {f'{kernels:g}+{library:g}+{fallbacks:g}+{views:g}':>15} "
              f"{eager['launches']:9d} {script['launches']:7d} {kernels / ts_ops:7.2f} "
              f"{dispatches / ts_ops:7.2f}{'*' if loop else ' '} {check}")
        rows.append(dict(name=name, sizes=sizes, eager_s=eager["s"], script_s=script["s"],
                         tssa_s=t, ratio=ratio, loop=loop, kernels=kernels, library=library,
                         fallbacks=fallbacks, views=views, eager_ops=eager["launches"],
                         script_ops=script["launches"], check=check))
    if ratios:
        geo = bc.geomean(ratios)
        print(f"\ngeometric mean of min(eager, TS) / tssa: {geo:.2f}x over {len(ratios)} workloads; "
              f"below 1x: {sum(r < 1 for r in ratios)}")
    print("tssa k+l+f+v: generated kernels + OpenBLAS calls + reference-kernel ops + views (no "
          "kernel: a header on the same data) per run, as they ran; kern/TS: the generated kernels, "
          "disp/TS: all four, over TorchScript's aten ops per call (views included; * loop workloads)")
    gbs, triad = bandwidth(opts.tssa, workdir, opts.runs)
    print(f"bandwidth: fused elementwise (sigmoid(x)*2+x)*x on 2^24 float32: {gbs:.1f} GB/s; "
          f"STREAM triad (torch, 2 threads): {triad:.1f} GB/s; {100 * gbs / triad:.0f}%")
    if opts.json:
        bc.write_json(opts.json, dict(rows=rows, bandwidth_gbs=gbs, triad_gbs=triad))
    if not opts.keep:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
