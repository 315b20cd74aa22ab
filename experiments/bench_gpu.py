#!/usr/bin/python3
"""bench_gpu.py — tssa-stream's cuda backend against PyTorch eager and torch.compile on a GPU.

    /usr/bin/python3 experiments/bench_gpu.py [--tssa build/tssa-stream]
        [--runs 50] [--warmup 10] [--only yolo_decode,lstm_loop] [--batch N]
        [--seq N] [--no-compile] [--reduce-overhead] [--out DIR] [--keep DIR] [--strict] [--emulate]

For each of the TensorSSA paper's workloads (bench_common.WORKLOADS: YOLOv3,
SSD, YOLACT and FCOS post-processing, NASRNN, RNN, LSTM, seq2seq greedy
decode, attention; --only also takes the project's own loop programs) at GPU
sizes (GPU_SIZES below: batches where the GPU is busy; --batch and --seq
override them) it exports the program with frontend/export.py, then on the
one GPU of this machine (device 0)
  - times PyTorch eager and torch.compile (Inductor, default mode) in this
    process: the program and its inputs on the GPU, factory calls inside it
    on the GPU too (torch.device context), fresh input clones per call made
    outside the timed region, --warmup calls (torch.compile's compile is in
    the first), then the median of --runs calls, each timed with CUDA events;
  - runs `tssa-stream --backend=cuda model.ir ARGS --repeat RUNS --stats`:
    the median per run it prints (the compile and the first run are not in
    it; as PyTorch's, each timed run starts with its inputs in device memory
    and ends when the device is done, its outputs left there), and its
    launches per run, launches_per_run (kernels) + gemms_per_run (cuBLAS
    calls);
  - counts PyTorch's kernel launches with torch.profiler (the CUDA kernel
    events of one call; memcpy/memset apart);
  - checks tssa-stream's outputs against PyTorch eager's (export's, computed
    on the CPU) and torch.compile's against eager's on the GPU (rtol and
    atol 1e-3);
  - puts each workload's floor beside its time: the larger of its bytes
    (inputs and a module's parameters read once, outputs written once) over
    the device-memory bandwidth and its matrix products' flops (torch's
    FlopCounterMode) over the float32 rate, both rates measured at the start
    (a 1 GiB device-to-device copy; an 8192^3 product, TF32 off);
  - runs tssa-stream again with --no-graphs (every timed run launched by
    the host, as a single run of a program is; by default --repeat's timed
    runs after the first replay it as a CUDA graph);
  - with --reduce-overhead, also torch.compile(mode="reduce-overhead"):
    Inductor's kernels replayed as CUDA graphs, the anchor to compare with
    when tssa-stream replays its runs as a CUDA graph too.
The paper's programs make their tensors on an input's device
(`device=pred.device`), as code written for torch.compile does: torch.compile
does not follow torch.set_default_device (pytorch/pytorch#151202).
Then the data-parallel workloads (batch map, 12-head attention, YOLACT's
mask crop at GPU sizes) run with `--devices N` for N in --devices (1,2,4):
each data-parallel filter in N copies on N devices, on this one GPU (the
multi-device path exercised where one GPU exists; time against N = 1),
written to <stem>.devices.csv.
It prints a table with the speedups (eager / tssa and torch.compile / tssa:
above 1, tssa-stream is faster), the geometric means, and the launch counts
beside those FuncTs (the TensorSSA paper's system) reports (YOLOv3 decode
34, LSTM 1921), and writes <out>/gpu/<date>-<host>.csv, .json (every number)
and .meta.json (the machine, GPU, versions, command); --out defaults to
experiments/results.

Exit status: 77 when there is no GPU (torch.cuda.is_available() is False;
nothing is measured), 2 for bad usage, 1 when the GPU is there but
tssa-stream's cuda backend does not run on it (or, with --strict, when any
workload failed); otherwise 0, failed workloads being rows of the table
with their reasons. --emulate exercises the script without a GPU: PyTorch
on the CPU and tssa-stream's CUDA kernels through TSSA_CUDA_EMULATE=1 (a
CPU shim); its numbers mean nothing.
"""
import argparse
import os
import shutil
import sys
import tempfile

import bench_common as bc

# (batch, seq, hidden) per workload; None: the workload's default
# (bench_common.WORKLOADS). What a batch item is: see Workload.batch_means.
GPU_SIZES = {
    "yolo_decode": (64, None, None),       # 64 images of 3x40x40x85
    "ssd_decode": (64, None, None),        # 64 x 8732 priors
    "mask_crop": (1600, None, None),       # 16 images x 100 masks of 138x138
    "fcos_decode": (16, None, None),       # 16 maps of 100x100, 80 classes
    "nasrnn": (256, 50, 256),
    "rnn_loop": (256, 50, 256),
    "lstm_loop": (256, 50, 256),
    "seq2seq_greedy": (256, 50, 256),
    "attention_heads": (32, 256, 768),
    "batch_loop": (256, None, 128),
    "gru_loop": (256, 50, 256),
    "kv_cache_decode": (256, 32, 256),
    "nested_loop_if": (24, None, None),
}
# Kernel launches FuncTs reports for the same programs (TensorSSA, DAC'24).
FUNCTS_LAUNCHES = {"yolo_decode": 34, "lstm_loop": 1921}

COLUMNS = ["workload", "paper", "sizes", "eager_ms", "torch_compile_ms", "tssa_cuda_ms",
           "eager_over_tssa", "compile_over_tssa", "compile_ro_ms", "compile_ro_over_tssa",
           "tssa_no_graphs_ms", "compile_over_tssa_no_graphs",
           "eager_kernels", "compile_kernels", "tssa_launches", "tssa_kernels", "tssa_gemms",
           "functs_launches", "mbytes", "gflop", "floor_ms", "tssa_over_floor", "check_tssa",
           "check_compile", "status"]


DEVICE_COLUMNS = ["workload", "sizes", "devices", "tssa_cuda_ms", "over_one_device", "launches",
                  "check", "status"]


def measure_ceilings(torch):
    """The two rates a floor divides by, measured here (METHOD: datasheet
    rates are leads): device-memory bandwidth from a 1 GiB device-to-device
    copy (bytes read + written), and the float32 matrix rate from an
    8192^3 product with TF32 off (as the workloads run). Medians of 10."""
    def median_ms(fn, n=10):
        fn()
        times = []
        for _ in range(n):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return sorted(times)[n // 2]
    g = torch.Generator(device="cuda").manual_seed(0)
    src = torch.rand(1 << 28, device="cuda", generator=g)
    dst = torch.empty_like(src)
    bandwidth = 2 * src.numel() * 4 / (median_ms(lambda: dst.copy_(src)) * 1e-3)
    del src, dst
    a = torch.rand(8192, 8192, device="cuda", generator=g)
    b = torch.rand(8192, 8192, device="cuda", generator=g)
    flop_rate = 2 * 8192 ** 3 / (median_ms(lambda: torch.mm(a, b), 5) * 1e-3)
    del a, b
    torch.cuda.empty_cache()
    return bandwidth, flop_rate


def work_of(torch, program, inputs, outputs):
    """(bytes, flops) the workload cannot do without: each input (and a
    module's parameters) read once, each output written once; the matrix
    products' flops as torch's FlopCounterMode counts them in one eager call
    on the CPU (None where this torch has no counter). Loops' serial steps
    are not in it: a floor, not a prediction."""
    nbytes = lambda t: t.numel() * t.element_size()      # noqa: E731
    total = sum(nbytes(v) for v in inputs.values() if isinstance(v, torch.Tensor))
    if isinstance(program, torch.nn.Module):
        total += sum(nbytes(p) for p in program.parameters())
    total += sum(nbytes(o) for o in outputs or [])
    try:
        from torch.utils.flop_counter import FlopCounterMode
    except ImportError:
        return total, None
    args = {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in inputs.items()}
    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        program(**args)
    return total, counter.get_total_flops()


def devices_study(opts, workdir):
    """The data-parallel workloads (bench_common.scaling_workloads at GPU
    sizes) with `--backend=cuda --devices N`: each data-parallel filter in N
    copies on N devices, here all on the one GPU."""
    counts = [int(c) for c in opts.devices.split(",") if c]
    items = opts.batch or 4096
    rows = []
    env = {"TSSA_CUDA_EMULATE": "1"} if opts.emulate else None
    for name, (program, inputs, sizes) in bc.scaling_workloads(items=items, seq=opts.seq or 512,
                                                                masks=items).items():
        case = os.path.join(workdir, "devices-" + name)
        try:
            bc.export.export(program, inputs, case)
            export_error = None
        except Exception as e:        # noqa: BLE001 (reported in the table)
            export_error = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        one = None
        for n in counts:
            row = dict(workload=name, sizes=sizes, devices=n)
            if export_error:
                row.update(status=f"failed: export: {export_error}")
                rows.append(row)
                continue
            t, stats, why = bc.run_tssa(opts.tssa, case, opts.runs, backend="cuda", env=env,
                                        extra=("--devices", str(n)), out_name=f"out_d{n}")
            check = bc.check_outputs(case, f"out_d{n}", rtol=1e-3, atol=1e-3) if t else ""
            one = t if n == 1 else one
            row.update(tssa_cuda_ms=t and t * 1e3, over_one_device=one / t if one and t else None,
                       launches=bc.launches(stats, "cuda"), check=check,
                       status="ok" if t and check.startswith("ok") else f"failed: {why or check}")
            rows.append(row)
        if not opts.keep:
            shutil.rmtree(case, ignore_errors=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--tssa", default=bc.DEFAULT_TSSA)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--only", default="", help="comma-separated workload names (default: the "
                    "paper's: " + ",".join(bc.PAPER) + ")")
    ap.add_argument("--batch", type=int, help="one batch size for every workload")
    ap.add_argument("--seq", type=int, help="one sequence length for the loop workloads")
    ap.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    ap.add_argument("--reduce-overhead", action="store_true",
                    help="also torch.compile(mode=\"reduce-overhead\"): Inductor with CUDA graphs")
    ap.add_argument("--out", default=os.path.join(bc.HERE, "results"))
    ap.add_argument("--keep", help="keep the exported cases in this folder")
    ap.add_argument("--strict", action="store_true", help="exit 1 when any workload failed")
    ap.add_argument("--devices", default="1,2,4",
                    help="device counts for the data-parallel workloads (--devices N on this GPU)")
    ap.add_argument("--emulate", action="store_true",
                    help="no GPU: PyTorch on the CPU, tssa-stream under TSSA_CUDA_EMULATE=1")
    opts = ap.parse_args()
    bc.require("bench_gpu.py", 77)
    torch = bc.torch
    names = [w for w in opts.only.split(",") if w] or list(bc.PAPER)
    unknown = [w for w in names if w not in bc.WORKLOADS]
    if unknown:
        print(f"bench_gpu.py: unknown workload {', '.join(unknown)} "
              f"(have {', '.join(bc.WORKLOADS)})", file=sys.stderr)
        return 2
    if not opts.emulate and not torch.cuda.is_available():
        print("bench_gpu.py: no CUDA GPU here (torch.cuda.is_available() is False): nothing to "
              "measure. Run it on a machine with a GPU, a CUDA build of torch and tssa-stream "
              "built with cuda (`tssa-stream --version` lists it); --emulate checks the script "
              "itself on a CPU.", file=sys.stderr)
        return 77
    opts.tssa = os.path.abspath(opts.tssa)
    if not os.path.exists(opts.tssa):
        print(f"bench_gpu.py: {opts.tssa} not found: build first (scripts/build.sh build)",
              file=sys.stderr)
        return 2
    device = "cpu" if opts.emulate else "cuda"
    if not opts.emulate:
        torch.backends.cuda.matmul.allow_tf32 = False     # compare float32 with float32
        torch.backends.cudnn.allow_tf32 = False
    info = bc.machine_info(opts.tssa)
    info.update(study="gpu", runs=opts.runs, warmup=opts.warmup, emulated=opts.emulate,
                gpu=torch.cuda.get_device_name(0) if not opts.emulate else "emulated (CPU)",
                cuda=getattr(torch.version, "cuda", None))
    workdir = opts.keep or tempfile.mkdtemp(prefix="bench_gpu.")
    progress = bc.Progress("bench_gpu", total=len(names))
    cuda_why = bc.cuda_unavailable(opts.tssa, workdir, emulate=opts.emulate)
    if cuda_why:
        print(f"bench_gpu.py: tssa-stream's cuda backend does not run here: {cuda_why}",
              file=sys.stderr)
    modes = [("eager", device)] + ([] if opts.no_compile else [("compile", device)]) + \
        ([("compile-ro", device)] if opts.reduce_overhead and not opts.no_compile else [])
    bandwidth = flop_rate = None
    if not opts.emulate:
        bandwidth, flop_rate = measure_ceilings(torch)
        info.update(bandwidth_gb_s=bandwidth / 1e9, fp32_tflop_s=flop_rate / 1e12)
        progress.note(f"ceilings: {bandwidth / 1e9:.0f} GB/s device-to-device copy, "
                      f"{flop_rate / 1e12:.1f} TFLOP/s float32 product (TF32 off)", force=True)
    rows, raw = [], {}
    # The CSV is rewritten after every workload, so a run cut short (a lent
    # GPU's time running out) still leaves the rows it finished.
    stem = bc.result_stem(opts.out, "gpu", info)
    for name in names:
        batch, seq, hidden = GPU_SIZES[name]
        w = bc.WORKLOADS[name]
        batch = opts.batch or batch
        seq = (opts.seq or seq) if w.seq else None
        program, inputs, sizes = bc.make_workload(name, batch, seq, hidden)
        progress.step(f"{name} ({sizes})")
        r = bc.measure_workload(opts.tssa, os.path.join(workdir, name), program, inputs, opts.runs,
                                torch_modes=modes, backends=() if cuda_why else ("cuda",),
                                count=True, warmup=opts.warmup, emulate_cuda=opts.emulate,
                                keep_output=True,
                                progress=lambda m, n=name: progress.note(f"{n}: {m}"))
        key = "" if device == "cpu" else f"@{device}"
        eager = r.get(f"torch:eager{key}", {})
        comp = r.get(f"torch:compile{key}", {})
        ro = r.get(f"torch:compile-ro{key}", {})
        ro_s = ro.get("s") if not ro.get("error") else None
        nbytes, flops = work_of(torch, program, inputs, eager.get("output"))
        floor_s = None
        if bandwidth:
            floor_s = max(nbytes / bandwidth, (flops or 0) / flop_rate)
        tssa = r.get("tssa:cuda", {"error": f"not run: {cuda_why}"} if cuda_why else {})
        stats = tssa.get("stats", {})
        # the same runs without CUDA graph replay (each run launched by the
        # host, as a single run of the program is)
        ng_s = None
        if not cuda_why and not r.get("export_error"):
            ng_s, _, _ = bc.run_tssa(opts.tssa, os.path.join(workdir, name), tssa.get("runs") or opts.runs,
                                     backend="cuda", env=bc.cuda_env(opts.emulate),
                                     extra=("--no-graphs",), out_name="tssa_out_no_graphs")
        e_s = eager.get("s") if not eager.get("error") else None
        c_s = comp.get("s") if not comp.get("error") else None
        t_s = tssa.get("s") if not tssa.get("error") else None
        check_compile = (bc.compare_outputs(comp.get("output"), eager.get("output"))
                         if c_s and e_s else comp.get("error", "not run" if opts.no_compile else ""))
        problems = [f"{k}: {v['error']}" for k, v in (("export", {"error": r["export_error"]}),
                                                       ("eager", eager), ("torch.compile", comp),
                                                       ("torch.compile reduce-overhead", ro),
                                                       ("tssa-stream", tssa))
                    if v.get("error") and not v["error"].startswith("n/a")]
        if c_s and not check_compile.startswith("ok"):
            problems.append(f"torch.compile output: {check_compile}")
        row = dict(workload=name, paper=w.paper or "(own loop)", sizes=sizes,
                   eager_ms=e_s and e_s * 1e3, torch_compile_ms=c_s and c_s * 1e3,
                   tssa_cuda_ms=t_s and t_s * 1e3,
                   eager_over_tssa=e_s / t_s if e_s and t_s else None,
                   compile_over_tssa=c_s / t_s if c_s and t_s else None,
                   compile_ro_ms=ro_s and ro_s * 1e3,
                   tssa_no_graphs_ms=ng_s and ng_s * 1e3,
                   compile_over_tssa_no_graphs=c_s / ng_s if c_s and ng_s else None,
                   compile_ro_over_tssa=ro_s / t_s if ro_s and t_s else None,
                   mbytes=nbytes / 1e6, gflop=flops and flops / 1e9,
                   floor_ms=floor_s and floor_s * 1e3,
                   tssa_over_floor=t_s / floor_s if t_s and floor_s else None,
                   eager_kernels=eager.get("launches"), compile_kernels=comp.get("launches"),
                   tssa_launches=bc.as_count(tssa.get("launches")),
                   tssa_kernels=bc.as_count(stats.get("launches_per_run")),
                   tssa_gemms=bc.as_count(stats.get("gemms_per_run")),
                   functs_launches=FUNCTS_LAUNCHES.get(name),
                   check_tssa=tssa.get("check", ""), check_compile=check_compile,
                   status="failed: " + "; ".join(problems) if problems else "ok")
        rows.append(row)
        bc.write_csv(stem + ".csv", COLUMNS, rows)
        def ms(v):
            return f"{v:.3f} ms" if v else "-"
        progress.note(f"{name}: eager {ms(row['eager_ms'])}, torch.compile "
                      f"{ms(row['torch_compile_ms'])}, tssa-stream {ms(row['tssa_cuda_ms'])} "
                      f"({row['tssa_launches']} launches), floor {ms(row['floor_ms'])}, "
                      f"{row['status'][:200]}", force=True)
        raw[name] = {k: ({kk: vv for kk, vv in v.items() if kk != "output"}
                         if isinstance(v, dict) else v) for k, v in r.items()}
        if not opts.keep:
            shutil.rmtree(os.path.join(workdir, name), ignore_errors=True)
    progress.finish()

    geo_eager = bc.geomean([r["eager_over_tssa"] for r in rows])
    geo_compile = bc.geomean([r["compile_over_tssa"] for r in rows])
    geo_ro = bc.geomean([r["compile_ro_over_tssa"] for r in rows])
    geo_ng = bc.geomean([r["compile_over_tssa_no_graphs"] for r in rows])
    bc.write_csv(stem + ".csv", COLUMNS, rows)
    bc.write_json(stem + ".json", dict(rows=rows, raw=raw, geomean_eager_over_tssa=geo_eager,
                                       geomean_compile_over_tssa=geo_compile,
                                       geomean_compile_ro_over_tssa=geo_ro,
                                       geomean_compile_over_tssa_no_graphs=geo_ng))
    bc.write_json(stem + ".meta.json", dict(info, columns=COLUMNS))
    title = f"## tssa-stream --backend=cuda against PyTorch on {info['gpu']}"
    if opts.emulate:
        title += " (EMULATED: PyTorch on the CPU, CUDA kernels through TSSA_CUDA_EMULATE; " \
                 "the numbers mean nothing)"
    print(f"\n{title}\n{bc.machine_summary(info)}\n")
    bc.print_table(COLUMNS, rows)
    def x(v):
        return f"{v:.2f}x" if v else "-"
    print(f"\ngeometric mean of eager / tssa-stream: {x(geo_eager)}; of torch.compile / "
          f"tssa-stream: {x(geo_compile)} (above 1: tssa-stream faster)"
          + (f"; of torch.compile reduce-overhead / tssa-stream: {x(geo_ro)}" if geo_ro else "")
          + (f"; of torch.compile / tssa-stream --no-graphs: {x(geo_ng)}" if geo_ng else ""))
    print("floor_ms: the larger of (input + output bytes) / the measured copy bandwidth and the "
          "products' flops / the measured float32 rate; tssa_over_floor: how far above it")
    print("kernels: PyTorch's CUDA kernel events per call (profiler); tssa_launches = "
          "launches_per_run + gemms_per_run (tssa-stream --stats); functs_launches: FuncTs' counts "
          "in the TensorSSA paper (its sizes may differ)")
    print(f"\nwrote {stem}.csv, {stem}.json, {stem}.meta.json")
    device_rows = [] if cuda_why else devices_study(opts, workdir)
    if device_rows:
        bc.write_csv(stem + ".devices.csv", DEVICE_COLUMNS, device_rows)
        print(f"\n## the data-parallel workloads over --devices N on {info['gpu']} (one GPU standing "
              "in for N devices: the multi-device path, not a speedup)\n")
        bc.print_table(DEVICE_COLUMNS, device_rows)
        print(f"\nwrote {stem}.devices.csv")
    if not opts.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    failed = [r for r in rows if r["status"] != "ok"]
    if cuda_why or (opts.strict and failed):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
