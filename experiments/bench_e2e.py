#!/usr/bin/python3
"""bench_e2e.py — tssa-stream's cpu backend against PyTorch, end to end.

    /usr/bin/python3 experiments/bench_e2e.py [--tssa build/tssa-stream]
        [--runs 30] [--only yolo_decode,lstm_loop] [--keep DIR] [--json FILE]

For each workload (the TensorSSA paper's programs in tests/models/programs,
at realistic sizes) it exports the program with frontend/export.py (graph
text, inputs, PyTorch's eager outputs), then times in this one process
  - PyTorch eager and TorchScript (torch.jit.script): 2 threads, a warm-up
    of 10 calls, then the median of --runs calls. Every call gets fresh clones
    of the tensor inputs (some programs write into them); the median time of
    cloning alone is subtracted;
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
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

# Before torch loads: its idle OpenMP threads and OpenBLAS's would otherwise
# spin and take the 2 cores from each other (eager LSTM steps 10x slower).
# tssa-stream's kernels wait passively too (kernels/kernel_program.c).
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
except ImportError as e:      # Debian: apt-get install python3-torch python3-numpy
    sys.exit(f"bench_e2e.py: needs PyTorch and numpy ({e}); run scripts/setup.sh --dev")

import export  # noqa: E402  (frontend/export.py)


def workloads():
    """name -> (program, inputs dict, sizes text, loop workload?)."""
    g = torch.Generator().manual_seed(0)

    def rn(*s, scale=1.0):
        return torch.randn(*s, generator=g) * scale

    from yolo_decode import yolo_decode
    from mask_crop import crop_masks
    from ssd_decode import ssd_decode
    from batch_loop import batch_loop
    from lstm_loop import lstm_loop
    from rnn_loop import rnn_loop
    from seq2seq_greedy import GreedyDecoder
    from attention_heads import attention_heads
    from fcos_decode import fcos_decode
    from nested_loop_if import nested_loop_if

    n_boxes = 100
    xy = torch.rand(n_boxes, 2, generator=g) * 120
    wh = torch.rand(n_boxes, 2, generator=g) * 40 + 4
    boxes = torch.cat((xy, xy + wh), 1)
    n_priors = 6 * 8732
    priors = torch.cat((torch.rand(n_priors, 2, generator=g),
                        torch.rand(n_priors, 2, generator=g) * 0.3 + 0.05), 1)
    torch.manual_seed(0)
    decoder = GreedyDecoder(vocab=1000, hidden=256, start_token=1)
    return {
        "yolo_decode": (yolo_decode, {"pred": rn(1, 3, 40, 40, 85),
                                      "anchors": torch.tensor([[10., 13.], [16., 30.], [33., 23.]]),
                                      "stride": 8}, "1x3x40x40x85", False),
        "mask_crop": (crop_masks, {"masks": torch.rand(138, 138, n_boxes, generator=g),
                                   "boxes": boxes, "padding": 1, "threshold": 0.3},
                      "138x138x100", False),
        "ssd_decode": (ssd_decode, {"loc": rn(n_priors, 4, scale=0.5), "conf": rn(n_priors, 21),
                                    "priors": priors, "variance_center": 0.1,
                                    "variance_size": 0.2}, "6*8732 priors, 21 classes", False),
        "batch_loop": (batch_loop, {"x": rn(64, 64, 128), "weight": rn(128, 128, scale=0.1)},
                       "64x64x128", True),
        "lstm_loop": (lstm_loop, {"x": rn(50, 64, 256), "h0": rn(64, 256), "c0": rn(64, 256),
                                  "w_ih": rn(1024, 256, scale=0.05),
                                  "w_hh": rn(1024, 256, scale=0.05),
                                  "b_ih": rn(1024, scale=0.1), "b_hh": rn(1024, scale=0.1)},
                      "50 steps, 64x256", True),
        "rnn_loop": (rnn_loop, {"x": rn(50, 64, 256), "h0": rn(64, 256),
                                "w_ih": rn(256, 256, scale=0.05), "w_hh": rn(256, 256, scale=0.05),
                                "bias": rn(256, scale=0.1)}, "50 steps, 64x256", True),
        "seq2seq_greedy": (decoder, {"h": rn(64, 256), "steps": 50},
                           "50 steps, 64x256, vocab 1000", True),
        "attention_heads": (attention_heads, {"x": rn(1, 64, 768), "w_q": rn(768, 768, scale=0.03),
                                              "w_k": rn(768, 768, scale=0.03),
                                              "w_v": rn(768, 768, scale=0.03), "heads": 12},
                            "12 heads, 64x768", True),
        "fcos_decode": (fcos_decode, {"reg": rn(4, 100, 100, scale=0.5),
                                      "cls_logits": rn(80, 100, 100),
                                      "centerness": rn(1, 100, 100), "stride": 8},
                        "80 classes, 100x100", False),
        "nested_loop_if": (nested_loop_if, {"x": rn(24, 24), "rows": 24}, "24x24", True),
    }


def median_time(fn, runs, setup=None):
    times = []
    for _ in range(runs):
        args = setup() if setup else ()
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def time_pytorch(program, inputs, runs):
    """Median seconds per call of eager and TorchScript, clone time subtracted."""
    names = list(inputs)

    def fresh():
        return [v.clone() if isinstance(v, torch.Tensor) else v for v in (inputs[k] for k in names)]

    clone = median_time(lambda *a: None, runs, fresh)
    scripted = torch.jit.script(program)
    result = {}
    with torch.no_grad():
        for mode, fn in (("eager", program), ("script", scripted)):
            for _ in range(10):     # TorchScript profiles and optimizes in its first calls
                fn(*fresh())
            result[mode] = max(median_time(fn, runs, fresh) - clone, 1e-7)
            with torch.autograd.profiler.profile() as prof:
                fn(*fresh())
            result[mode + "_ops"] = sum(
                1 for e in prof.function_events
                if e.name.startswith("aten::") and (e.cpu_parent is None or
                                                    not e.cpu_parent.name.startswith("aten::")))
    return result


def run_tssa(tssa, case, runs):
    """tssa-stream's median ms per run and its --stats, from its stderr."""
    args = open(os.path.join(case, "args.txt")).read().split()
    out = os.path.join(case, "tssa_out")
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2")
    cmd = [tssa, "model.ir", *args, "-o", out, "--repeat", str(runs), "--stats"]
    p = subprocess.run(cmd, cwd=case, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return None, {}, p.stderr.strip().splitlines()[-1:] or ["exit %d" % p.returncode]
    m = re.search(r"repeat: \d+ runs after 1 warm-up: min ([\d.]+) ms, median ([\d.]+) ms", p.stderr)
    stats = dict(re.findall(r"stats: (\S+) (\S+)", p.stderr))
    return float(m.group(2)) / 1e3, stats, None


def check_outputs(case):
    """The largest error of tssa-stream's outputs against eager's, or a reason."""
    worst = 0.0
    k = 0
    while os.path.exists(os.path.join(case, "expected", f"out{k}.npy")):
        want = np.load(os.path.join(case, "expected", f"out{k}.npy"))
        path = os.path.join(case, "tssa_out", f"out{k}.npy")
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


def bandwidth(tssa, workdir, runs):
    """(fused elementwise GB/s, STREAM triad GB/s) on 2^24 float32."""
    n = 1 << 24
    a, b, c = torch.empty(n), torch.rand(n), torch.rand(n)
    triad = median_time(lambda: torch.add(b, c, alpha=3.0, out=a), runs)

    def elementwise(x):
        return (torch.sigmoid(x) * 2.0 + x) * x

    case = os.path.join(workdir, "elementwise")
    export.export(elementwise, {"x": torch.rand(n)}, case)
    t, _, err = run_tssa(tssa, case, runs)
    return (8 * n / t / 1e9 if t else float("nan")), 12 * n / triad / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tssa", default=os.path.join(ROOT, "build", "tssa-stream"))
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", help="keep the exported cases in this directory")
    ap.add_argument("--json", help="also write every number to this file")
    opts = ap.parse_args()
    if not os.path.exists(opts.tssa):
        sys.exit(f"bench_e2e.py: {opts.tssa} not found: build first (scripts/build.sh build)")
    torch.set_num_threads(2)
    workdir = opts.keep or tempfile.mkdtemp(prefix="bench_e2e.")
    chosen = [w for w in opts.only.split(",") if w]
    rows, ratios = [], []
    head = (f"{'workload':16} {'sizes':28} {'eager ms':>9} {'TS ms':>8} {'tssa ms':>8} "
            f"{'ratio':>6} {'tssa k+l+f+v':>15} {'eager ops':>9} {'TS ops':>7} {'kern/TS':>7} "
            f"{'disp/TS':>7}  check")
    print(head)
    print("-" * len(head))
    for name, (program, inputs, sizes, loop) in workloads().items():
        if chosen and name not in chosen:
            continue
        case = os.path.join(workdir, name)
        export.export(program, inputs, case)
        torch_t = time_pytorch(program, inputs, opts.runs)
        t, stats, err = run_tssa(opts.tssa, case, opts.runs)
        best = min(torch_t["eager"], torch_t["script"])
        if t is None:
            print(f"{name:16} {sizes:28} {torch_t['eager']*1e3:9.3f} {torch_t['script']*1e3:8.3f} "
                  f"{'FAIL':>8}  {err[0] if err else ''}")
            continue
        kernels = float(stats.get("kernels_per_run", 0))
        library = float(stats.get("library_calls_per_run", 0))
        fallbacks = float(stats.get("fallbacks_per_run", 0))
        views = float(stats.get("views_per_run", 0))
        dispatches = kernels + library + fallbacks + views
        ts_ops = max(torch_t['script_ops'], 1)
        ratio = best / t
        ratios.append(ratio)
        check = check_outputs(case)
        print(f"{name:16} {sizes:28} {torch_t['eager']*1e3:9.3f} {torch_t['script']*1e3:8.3f} "
              f"{t*1e3:8.3f} {ratio:6.2f} {f'{kernels:g}+{library:g}+{fallbacks:g}+{views:g}':>15} "
              f"{torch_t['eager_ops']:9d} {torch_t['script_ops']:7d} {kernels / ts_ops:7.2f} "
              f"{dispatches / ts_ops:7.2f}{'*' if loop else ' '} {check}")
        rows.append(dict(name=name, sizes=sizes, eager_s=torch_t["eager"],
                         script_s=torch_t["script"], tssa_s=t, ratio=ratio, loop=loop,
                         kernels=kernels, library=library, fallbacks=fallbacks, views=views,
                         eager_ops=torch_t["eager_ops"], script_ops=torch_t["script_ops"],
                         check=check))
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeometric mean of min(eager, TS) / tssa: {geo:.2f}x over {len(ratios)} workloads; "
              f"below 1x: {sum(r < 1 for r in ratios)}")
    print("tssa k+l+f+v: generated kernels + OpenBLAS calls + reference-kernel ops + views (no "
          "kernel: a header on the same data) per run, as they ran; kern/TS: the generated kernels, "
          "disp/TS: all four, over TorchScript's aten ops per call (views included; * loop workloads)")
    gbs, triad = bandwidth(opts.tssa, workdir, opts.runs)
    print(f"bandwidth: fused elementwise (sigmoid(x)*2+x)*x on 2^24 float32: {gbs:.1f} GB/s; "
          f"STREAM triad (torch, 2 threads): {triad:.1f} GB/s; {100 * gbs / triad:.0f}%")
    if opts.json:
        import json
        with open(opts.json, "w") as f:
            json.dump(dict(rows=rows, bandwidth_gbs=gbs, triad_gbs=triad), f, indent=1)
    if not opts.keep:
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
