#!/usr/bin/python3
"""bench_common.py — what the experiment scripts share (not run by itself).

Imported by experiments/run.py, bench_e2e.py, bench_mpi.py and bench_gpu.py:

  - the workloads: the TensorSSA paper's programs (tests/models/programs) and
    the project's own loop programs, built at any batch size, sequence length
    and width (WORKLOADS, make_workload), and the data-parallel programs of
    the scaling and split-linear studies (scaling_workloads, split_linear);
  - timing PyTorch (eager, TorchScript, torch.compile where the installed
    torch has it; on the CPU or a CUDA device) with fresh input clones per
    call, warm-up calls and medians, and counting what it launches with the
    profiler (CPU: top-level aten ops; GPU: CUDA kernel events);
  - running tssa-stream (`--repeat N --stats`, any backend, under mpirun),
    reading its stats and its placement (`--emit=schedule`), and checking its
    outputs against PyTorch eager's (the case frontend/export.py wrote);
  - what a result records beside it: the machine, the versions, the command
    (machine_info), CSV and JSON writers, and a progress line.

Importing this module sets OMP_WAIT_POLICY=PASSIVE (and OMP_NUM_THREADS /
OPENBLAS_NUM_THREADS to the core count unless set) before torch loads, so
that torch's and OpenBLAS's idle threads do not spin against each other;
tssa-stream processes get the environment without it (tssa_environ).
A missing torch or numpy does not fail the import: MISSING says what is
missing and require() exits with a message (and the caller's status).
"""
import csv
import json
import math
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time

CORES = os.cpu_count() or 1

# Before torch loads: its idle OpenMP threads and OpenBLAS's would otherwise
# spin and take the cores from each other (eager LSTM steps 10x slower on 2
# cores). tssa-stream runs with one pool (OpenMP's; OpenBLAS single-threaded
# in its panels) and gets the environment a user's shell would give it:
# tssa_environ() leaves the policy out unless the user set one.
USER_WAIT_POLICY = os.environ.get("OMP_WAIT_POLICY")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def tssa_environ(**extra):
    """The environment for a tssa-stream process: this one's, less the
    OMP_WAIT_POLICY set above for torch (a user's own is kept), plus extra."""
    e = dict(os.environ)
    if USER_WAIT_POLICY is None:
        e.pop("OMP_WAIT_POLICY", None)
    else:
        e["OMP_WAIT_POLICY"] = USER_WAIT_POLICY
    e.update(extra)
    return e
os.environ.setdefault("OMP_NUM_THREADS", str(CORES))
os.environ.setdefault("OPENBLAS_NUM_THREADS", str(CORES))

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_TSSA = os.path.join(ROOT, "build", "tssa-stream")
for _p in (os.path.join(ROOT, "frontend"), os.path.join(ROOT, "tests", "models", "programs")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

MISSING = None
try:
    import numpy as np
    import torch
    import torch.nn.functional as F
    import export  # frontend/export.py
except ImportError as _e:     # Debian: apt-get install python3-torch python3-numpy
    MISSING = str(_e)
    np = torch = F = export = None


def require(script, status=1):
    """Exit with `status` and a message when torch or numpy is missing."""
    if MISSING:
        print(f"{script}: needs PyTorch and numpy ({MISSING}); run scripts/setup.sh --dev",
              file=sys.stderr)
        sys.exit(status)


# ------------------------------------------------------------------ progress

class Progress:
    """One progress line on stderr: `[prefix 3/20 1:05] message`. On a
    terminal each line overwrites the last; elsewhere (ctest, a log) each is
    its own line. total may be None (no count) and may grow (add)."""

    def __init__(self, prefix, total=None, stream=None):
        self.prefix = prefix
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.width = 0
        self.last = 0.0

    def add(self, n):
        self.total = (self.total or 0) + n

    def _line(self, msg):
        self.last = time.monotonic()
        el = int(self.last - self.start)
        count = f" {self.done}/{self.total}" if self.total else ""
        text = f"[{self.prefix}{count} {el // 60}:{el % 60:02d}] {msg}"
        if self.tty:
            cols = shutil.get_terminal_size((100, 20)).columns - 1
            text = text[:cols]
            pad = max(0, self.width - len(text))
            self.stream.write("\r" + text + " " * pad)
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def step(self, msg):
        """A new unit of work begins (counted)."""
        self.done += 1
        self._line(msg)

    def note(self, msg, force=False):
        """What the current unit is doing now (not counted). Off a terminal
        only when the last line is 10 s old (a log shows long phases), or
        when force (a result worth keeping in the log)."""
        if force and self.tty:
            self._line(msg)
            self.stream.write("\n")
            self.width = 0
        elif force or self.tty or time.monotonic() - self.last > 10:
            self._line(msg)

    def finish(self, msg=None):
        if msg:
            self._line(msg)
        if self.tty and self.width:
            self.stream.write("\n")
            self.stream.flush()
        self.width = 0

    def __call__(self, msg):
        self.note(msg)


# ------------------------------------------------------------------ workloads

class Workload:
    """A program with inputs built at a batch size, sequence length and width.

    build(g, batch, seq, hidden) -> (program, inputs dict, sizes text)
    batch:  what the batch means for this program (images, sequences, items)
    seq:    None where the program has no sequence; else the default length
    """

    def __init__(self, name, paper, build, loop, batch, seq=None, hidden=None, batch_means=""):
        self.name, self.paper, self.build, self.loop = name, paper, build, loop
        self.batch, self.seq, self.hidden, self.batch_means = batch, seq, hidden, batch_means

    def make(self, batch=None, seq=None, hidden=None):
        g = torch.Generator().manual_seed(0)
        torch.manual_seed(0)          # module weights (seq2seq's GreedyDecoder)
        return self.build(g, batch or self.batch, seq or self.seq, hidden or self.hidden)


def _rn(g, *shape, scale=1.0):
    return torch.randn(*shape, generator=g) * scale


def _yolo(g, batch, seq, hidden):
    from yolo_decode import yolo_decode
    return yolo_decode, {"pred": _rn(g, batch, 3, 40, 40, 85),
                         "anchors": torch.tensor([[10., 13.], [16., 30.], [33., 23.]]),
                         "stride": 8}, f"{batch}x3x40x40x85"


def _ssd(g, batch, seq, hidden):
    from ssd_decode import ssd_decode
    n = batch * 8732
    priors = torch.cat((torch.rand(n, 2, generator=g), torch.rand(n, 2, generator=g) * 0.3 + 0.05), 1)
    return ssd_decode, {"loc": _rn(g, n, 4, scale=0.5), "conf": _rn(g, n, 21), "priors": priors,
                        "variance_center": 0.1, "variance_size": 0.2}, \
        f"{batch}x8732 priors, 21 classes"


def _mask_crop(g, batch, seq, hidden):
    from mask_crop import crop_masks
    n = batch
    xy = torch.rand(n, 2, generator=g) * 120
    wh = torch.rand(n, 2, generator=g) * 40 + 4
    return crop_masks, {"masks": torch.rand(138, 138, n, generator=g),
                        "boxes": torch.cat((xy, xy + wh), 1), "padding": 1, "threshold": 0.3}, \
        f"138x138x{n} masks"


def _fcos(g, batch, seq, hidden):
    from fcos_decode import fcos_decode
    w = 100 * batch
    return fcos_decode, {"reg": _rn(g, 4, 100, w, scale=0.5), "cls_logits": _rn(g, 80, 100, w),
                         "centerness": _rn(g, 1, 100, w), "stride": 8}, f"80 classes, 100x{w}"


def _nasrnn(g, batch, seq, hidden):
    from nasrnn import nasrnn
    return nasrnn, {"x": _rn(g, seq, batch, hidden), "m0": _rn(g, batch, hidden, scale=0.5),
                    "c0": _rn(g, batch, hidden, scale=0.5),
                    "w_x": _rn(g, hidden, 8 * hidden, scale=0.05),
                    "w_m": _rn(g, hidden, 8 * hidden, scale=0.05)}, \
        f"{seq} steps, {batch}x{hidden}"


def _rnn(g, batch, seq, hidden):
    from rnn_loop import rnn_loop
    return rnn_loop, {"x": _rn(g, seq, batch, hidden), "h0": _rn(g, batch, hidden),
                      "w_ih": _rn(g, hidden, hidden, scale=0.05),
                      "w_hh": _rn(g, hidden, hidden, scale=0.05),
                      "bias": _rn(g, hidden, scale=0.1)}, f"{seq} steps, {batch}x{hidden}"


def _lstm(g, batch, seq, hidden):
    from lstm_loop import lstm_loop
    return lstm_loop, {"x": _rn(g, seq, batch, hidden), "h0": _rn(g, batch, hidden),
                       "c0": _rn(g, batch, hidden),
                       "w_ih": _rn(g, 4 * hidden, hidden, scale=0.05),
                       "w_hh": _rn(g, 4 * hidden, hidden, scale=0.05),
                       "b_ih": _rn(g, 4 * hidden, scale=0.1),
                       "b_hh": _rn(g, 4 * hidden, scale=0.1)}, f"{seq} steps, {batch}x{hidden}"


def _gru(g, batch, seq, hidden):
    from gru_loop import gru_loop
    return gru_loop, {"x": _rn(g, seq, batch, hidden), "h0": _rn(g, batch, hidden, scale=0.5),
                      "w_ih": _rn(g, 3 * hidden, hidden, scale=0.05),
                      "w_hh": _rn(g, 3 * hidden, hidden, scale=0.05),
                      "b_ih": _rn(g, 3 * hidden, scale=0.1),
                      "b_hh": _rn(g, 3 * hidden, scale=0.1)}, f"{seq} steps, {batch}x{hidden}"


def _seq2seq(g, batch, seq, hidden):
    from seq2seq_greedy import GreedyDecoder
    decoder = GreedyDecoder(vocab=1000, hidden=hidden, start_token=1)
    return decoder, {"h": _rn(g, batch, hidden), "steps": seq}, \
        f"{seq} steps, {batch}x{hidden}, vocab 1000"


def _attention(g, batch, seq, hidden):
    from attention_heads import attention_heads
    heads = max(1, hidden // 64)
    return attention_heads, {"x": _rn(g, batch, seq, hidden),
                             "w_q": _rn(g, hidden, hidden, scale=0.03),
                             "w_k": _rn(g, hidden, hidden, scale=0.03),
                             "w_v": _rn(g, hidden, hidden, scale=0.03), "heads": heads}, \
        f"{heads} heads, {batch}x{seq}x{hidden}"


def _batch_loop(g, batch, seq, hidden):
    from batch_loop import batch_loop
    return batch_loop, {"x": _rn(g, batch, 64, hidden), "weight": _rn(g, hidden, hidden, scale=0.1)}, \
        f"{batch}x64x{hidden}"


def _nested_loop_if(g, batch, seq, hidden):
    from nested_loop_if import nested_loop_if
    return nested_loop_if, {"x": _rn(g, batch, batch), "rows": batch}, f"{batch}x{batch}"


def _kv_cache(g, batch, seq, hidden):
    from kv_cache_decode import kv_cache_decode
    return kv_cache_decode, {"x0": _rn(g, batch, hidden),
                             **{w: _rn(g, hidden, hidden, scale=hidden ** -0.5)
                                for w in ("w_q", "w_k", "w_v", "w_o")}, "steps": seq}, \
        f"{seq} steps, {batch}x{hidden}"


# name -> Workload. The first nine are the TensorSSA paper's (Fig. 5-8: YOLOv3,
# SSD, YOLACT, FCOS post-processing, NASRNN, RNN, LSTM, seq2seq, attention);
# the rest are the project's own loop programs. Default sizes are bench_e2e's.
WORKLOADS = {w.name: w for w in (
    Workload("yolo_decode", "YOLOv3", _yolo, False, 1, batch_means="images"),
    Workload("ssd_decode", "SSD", _ssd, False, 6, batch_means="images of 8732 priors"),
    Workload("mask_crop", "YOLACT", _mask_crop, False, 100, batch_means="masks"),
    Workload("fcos_decode", "FCOS", _fcos, False, 1, batch_means="100x100 maps side by side"),
    Workload("nasrnn", "NASRNN", _nasrnn, True, 64, 50, 256, "sequences"),
    Workload("rnn_loop", "RNN", _rnn, True, 64, 50, 256, "sequences"),
    Workload("lstm_loop", "LSTM", _lstm, True, 64, 50, 256, "sequences"),
    Workload("seq2seq_greedy", "seq2seq", _seq2seq, True, 64, 50, 256, "sequences"),
    Workload("attention_heads", "attention", _attention, True, 1, 64, 768, "sequences"),
    Workload("batch_loop", None, _batch_loop, True, 64, None, 128, "items"),
    Workload("gru_loop", None, _gru, True, 64, 50, 256, "sequences"),
    Workload("kv_cache_decode", None, _kv_cache, True, 16, 32, 256, "sequences"),
    Workload("nested_loop_if", None, _nested_loop_if, True, 24, batch_means="rows"),
)}
PAPER = [n for n, w in WORKLOADS.items() if w.paper]


def make_workload(name, batch=None, seq=None, hidden=None):
    """(program, inputs, sizes text) of WORKLOADS[name] at these sizes."""
    return WORKLOADS[name].make(batch, seq, hidden)


# The data-parallel programs of the scaling and split-linear studies, written
# as imperative PyTorch (bench_mpi.py and run.py's horizontal study).

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


def two_stage(x, w1, w2, steps: int):
    # A pipeline of two heavy stages of equal work: stage 2 starts from all
    # of stage 1's rows (centred by their mean), so neither splits into the
    # other; over a stream of input sets (--repeat, --inputs) stage 1 of set
    # k+1 can run beside stage 2 of set k.
    h = x
    for _ in range(steps):
        h = torch.tanh(h @ w1)
    h = h - h.mean(dim=0, keepdim=True)
    for _ in range(steps):
        h = torch.sigmoid(h @ w2)
    return h


def two_branches(x, w1, w2, steps: int):
    # A split-join of two independent heavy branches (task parallelism):
    # each reads x alone, and only the sum joins them.
    a = x
    b = x
    for _ in range(steps):
        a = torch.tanh(a @ w1)
    for _ in range(steps):
        b = torch.sigmoid(b @ w2)
    return a + b


def task_workloads(rows=512, width=256, steps=8):
    """name -> (program, inputs, sizes text): a two-stage pipeline and a
    split-join of two independent branches (the scaling study's pipelined
    and task-parallel programs), each a chain of `steps` products per part."""
    g = torch.Generator().manual_seed(2)
    s = width ** -0.5
    return {
        "pipeline": (two_stage, {"x": _rn(g, rows, width), "w1": _rn(g, width, width, scale=s),
                                 "w2": _rn(g, width, width, scale=s), "steps": steps},
                     f"2 stages of {steps} products, {rows}x{width}"),
        "split_join": (two_branches, {"x": _rn(g, rows, width), "w1": _rn(g, width, width, scale=s),
                                      "w2": _rn(g, width, width, scale=s), "steps": steps},
                       f"2 branches of {steps} products, {rows}x{width}"),
    }


def scaling_workloads(items=1024, seq=512, masks=400):
    """name -> (program, inputs, sizes text): data-parallel loops. The defaults
    are bench_mpi.py's sizes; smaller ones make a quick run."""
    from attention_heads import attention_heads
    g = torch.Generator().manual_seed(0)
    xy = torch.rand(masks, 2, generator=g) * 120
    wh = torch.rand(masks, 2, generator=g) * 40 + 4
    return {
        "batch_map": (batch_map, {"x": _rn(g, items, 16, 128), "weight": _rn(g, 128, 128, scale=0.1),
                                  "bias": _rn(g, 128), "n": items},
                      f"{items} items of 16x128, W 128x128"),
        "attention": (attention_heads, {"x": _rn(g, 1, seq, 768), "w_q": _rn(g, 768, 768, scale=0.03),
                                        "w_k": _rn(g, 768, 768, scale=0.03),
                                        "w_v": _rn(g, 768, 768, scale=0.03), "heads": 12},
                      f"12 heads, seq {seq}, width 768"),
        "mask_crop": (crop_masks_loop, {"masks": torch.rand(masks, 138, 138, generator=g),
                                        "boxes": torch.cat((xy, xy + wh), 1), "padding": 1},
                      f"{masks} masks of 138x138"),
    }


# ------------------------------------------------------------------ PyTorch

def median_time(fn, runs, setup=None):
    """Median seconds of fn(*setup()) over `runs` calls; setup is not timed."""
    times = []
    for _ in range(runs):
        args = setup() if setup else ()
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def compile_unavailable():
    """None when torch.compile exists here, else the CSV cell that says why."""
    if hasattr(torch, "compile"):
        return None
    return f"n/a (torch {'.'.join(torch.__version__.split('.')[:2])})"


def to_device(program, inputs, device):
    """The program (a module is copied) and inputs moved to `device`."""
    if device == "cpu":
        return program, inputs
    if isinstance(program, torch.nn.Module):
        import copy
        program = copy.deepcopy(program).to(device)
    return program, {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in inputs.items()}


def _top_level_aten_ops(prof):
    """The aten ops no other aten op called. The profiler's event tree nests
    by nanosecond times; FunctionEvent.cpu_parent (the fallback) nests by
    whole microseconds and loses a child now and then (a view's as_strided
    that starts in the microsecond after its parent's rounded end)."""
    results = getattr(prof, "kineto_results", None) or getattr(
        getattr(prof, "profiler", None), "kineto_results", None)
    tree = getattr(results, "experimental_event_tree", None)
    if tree is not None:
        count = 0
        todo = [(root, False) for root in tree()]
        while todo:
            node, under = todo.pop()
            aten = node.name.startswith("aten::")
            count += aten and not under
            todo.extend((child, under or aten) for child in node.children)
        return count
    return sum(1 for e in prof.function_events
               if e.name.startswith("aten::") and (e.cpu_parent is None or
                                                   not e.cpu_parent.name.startswith("aten::")))


def _cuda_kernel_events(prof):
    """(kernels, memcpy + memset) among the profiler's CUDA device events."""
    kernels = copies = 0
    for e in prof.events():
        if getattr(e, "device_type", None) != torch.autograd.DeviceType.CUDA:
            continue
        if e.name.startswith(("Memcpy", "Memset")):
            copies += 1
        else:
            kernels += 1
    return kernels, copies


def time_torch(program, inputs, runs, mode="eager", device="cpu", warmup=10, budget_s=None,
               count=True, keep_output=False):
    """PyTorch's median seconds per call of `program` in `mode` (eager,
    script, compile) on `device` ("cpu" or "cuda").

    Every call gets fresh clones of the tensor inputs (programs may write into
    them), made before the timed region. On a CUDA device each call is timed
    with CUDA events and factory calls inside the program (torch.zeros(...))
    land on the device (torch.device context). With budget_s, the warm-up and
    the number of runs shrink for slow calls (at least 2 warm-up calls and 3
    runs). count: also profile one call and count what it launches: the
    top-level aten ops on the CPU, the CUDA kernel events on a GPU.

    Returns dict(s=seconds, runs=N, launches=count or None, copies=...,
    output=[CPU tensors] with keep_output: the first call's outputs,
    flattened); raises on failure (the caller reports the reason)."""
    names = list(inputs)
    program, inputs = to_device(program, inputs, device)
    cuda = device.startswith("cuda")

    def fresh():
        return [v.clone() if isinstance(v, torch.Tensor) else v for v in (inputs[k] for k in names)]

    if mode == "eager":
        fn = program
    elif mode == "script":
        fn = torch.jit.script(program)
    elif mode in ("compile", "compile-ro"):
        why = compile_unavailable()
        if why:
            raise RuntimeError(why)
        # compile-ro: mode="reduce-overhead", Inductor's kernels replayed as
        # CUDA graphs (the fair anchor for a backend that replays graphs too)
        fn = torch.compile(program, mode="reduce-overhead" if mode == "compile-ro" else "default")
    else:
        raise ValueError(f"unknown PyTorch mode {mode!r}")

    import contextlib
    # The paper's programs make their tensors on an input's device
    # (`torch.arange(H, device=pred.device)`), as code meant for
    # torch.compile must: torch.compile does not follow
    # torch.set_default_device (pytorch/pytorch#151202: a factory call with
    # constant arguments is made on the CPU while tracing, and the first op
    # mixing it with a GPU tensor fails with "RuntimeError when making fake
    # tensor call"). For other programs the default device still moves
    # factory calls in eager mode: torch.set_default_device (torch >= 2.0),
    # else a torch.device context around each call.
    default_device = cuda and hasattr(torch, "set_default_device")
    ctx = torch.device(device) if cuda and not default_device else contextlib.nullcontext()

    def call(args):
        # by name: a module whose example leaves earlier parameters at their
        # defaults (nn.Transformer's src_mask) takes the later ones by name
        with ctx:
            return fn(**dict(zip(names, args)))

    if default_device:
        torch.set_default_device(device)
    try:
        return _time_calls(call, fresh, mode, cuda, warmup, runs, budget_s, count, keep_output)
    finally:
        if default_device:
            torch.set_default_device("cpu")


def _time_calls(call, fresh, mode, cuda, warmup, runs, budget_s, count, keep_output):
    """time_torch's measurement of call(fresh()) (see there)."""
    with torch.no_grad():
        t = time.perf_counter()
        out = call(fresh())                  # first call: scripting/compiling happens here
        if cuda:
            torch.cuda.synchronize()
        first = time.perf_counter() - t
        out = flatten_outputs(out) if keep_output else None
        one = max(first, 1e-7)
        if mode != "eager":                  # the first call scripted / compiled: time another
            t = time.perf_counter()
            call(fresh())
            if cuda:
                torch.cuda.synchronize()
            one = max(time.perf_counter() - t, 1e-7)
        if budget_s:
            warmup = min(warmup, max(0, int(budget_s / 4 / one) - 1))
            runs = min(runs, max(3, int(budget_s / one)))
        for _ in range(warmup):
            call(fresh())
        times = []
        if cuda:
            for _ in range(runs):
                args = fresh()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize()
                start.record()
                call(args)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end) / 1e3)
        else:
            for _ in range(runs):
                args = fresh()
                t = time.perf_counter()
                call(args)
                times.append(time.perf_counter() - t)
        result = dict(s=max(statistics.median(times), 1e-9), runs=runs, first_call_s=first,
                      launches=None, copies=None, output=out)
        if count:
            args = fresh()
            if cuda:
                from torch.profiler import ProfilerActivity, profile
                with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                    call(args)
                    torch.cuda.synchronize()
                result["launches"], result["copies"] = _cuda_kernel_events(prof)
            else:
                with torch.autograd.profiler.profile() as prof:
                    call(args)
                result["launches"] = _top_level_aten_ops(prof)
    return result


def flatten_outputs(value):
    """A program's outputs as a flat list of CPU tensors (tuples and lists in
    order, numbers as 0-d tensors), as frontend/export.py flattens them."""
    flat = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif isinstance(v, torch.Tensor):
            flat.append(v.detach().cpu().clone())
        else:
            flat.append(torch.tensor(v))
    walk(value)
    return flat


def compare_outputs(got, want, rtol=1e-3, atol=1e-3):
    """'ok (largest error)' when two flattened outputs agree, else why not."""
    if got is None or want is None:
        return "no outputs to compare"
    if len(got) != len(want):
        return f"{len(got)} outputs, expected {len(want)}"
    worst = 0.0
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"out{k}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        if w.is_floating_point():
            if not torch.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                return f"out{k}: max error {float((g - w).abs().nan_to_num().max()):.3g}"
            if w.numel():
                worst = max(worst, float((g.double() - w.double()).abs().nan_to_num().max()))
        elif not torch.equal(g, w):
            return f"out{k}: {int((g != w).sum())} elements differ"
    return f"ok ({worst:.1e})"


def time_eager(program, inputs, runs, warmup=3):
    """Median seconds per eager call, inputs reused (for programs that do not
    write their inputs)."""
    args = list(inputs.values())
    with torch.no_grad():
        for _ in range(warmup):
            program(*args)
        return median_time(lambda: program(*args), runs)


# ------------------------------------------------------------------ tssa-stream

REPEAT_RE = r"repeat: \d+ runs after 1 warm-up: min ([\d.]+) ms, median ([\d.]+) ms"
TSSA_TIMEOUT_S = 900


def case_args(case):
    return open(os.path.join(case, "args.txt")).read().split()


def tssa_version(tssa):
    p = subprocess.run([tssa, "--version"], capture_output=True, text=True)
    return (p.stdout + p.stderr).strip()


def tssa_help(tssa):
    p = subprocess.run([tssa, "--help"], capture_output=True, text=True)
    return p.stdout + p.stderr


def _last_error(text, code):
    lines = [l for l in text.strip().splitlines() if "error" in l] or text.strip().splitlines()
    return f"exit {code}: {lines[-1][:200]}" if lines else f"exit {code}"


def run_tssa(tssa, case, runs, threads=None, backend=None, out_name="tssa_out", env=None,
             extra=(), timeout=TSSA_TIMEOUT_S, best=None):
    """`tssa-stream model.ir ARGS -o OUT --repeat RUNS --stats` in `case`.
    Returns (median seconds per run, stats dict, None) or (None, stats, why);
    best (a list): the run's fastest time per run is appended to it."""
    threads = threads or CORES
    e = tssa_environ(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    e.update(env or {})
    cmd = [tssa, "model.ir", *case_args(case), "-o", out_name, "--repeat", str(runs), "--stats",
           *extra]
    if backend:
        cmd.append(f"--backend={backend}")
    try:
        p = subprocess.run(cmd, cwd=case, env=e, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, {}, f"timed out after {timeout} s"
    stats = dict(re.findall(r"stats: (\S+) (\S+)", p.stderr))
    if p.returncode != 0:
        return None, stats, _last_error(p.stderr, p.returncode)
    m = re.search(REPEAT_RE, p.stderr)
    if not m:
        return None, stats, "no repeat line in tssa-stream's output"
    if best is not None:
        best.append(float(m.group(1)) / 1e3)
    return float(m.group(2)) / 1e3, stats, None


def launches(stats, backend="cpu"):
    """What a tssa-stream run launched per run, from its --stats: on the cpu
    backend generated kernels + OpenBLAS calls + reference-kernel ops (views
    are no launch); on cuda kernel launches + cuBLAS calls."""
    def f(k):
        return float(stats.get(k, 0) or 0)
    if backend == "cuda":
        if "launches_per_run" not in stats:
            return None
        return f("launches_per_run") + f("gemms_per_run")
    if "kernels_per_run" not in stats:
        return None
    return f("kernels_per_run") + f("library_calls_per_run") + f("fallbacks_per_run")


def check_outputs(case, out_name="tssa_out", rtol=1e-4, atol=1e-4):
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
            if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
                return f"out{k}: max error {np.nanmax(np.abs(got - want)):.3g}"
            if want.size:
                worst = max(worst, float(np.nanmax(np.abs(got.astype(np.float64) - want))))
        elif not np.array_equal(got, want):
            return f"out{k}: {int(np.sum(got != want))} elements differ"
        k += 1
    return f"ok ({worst:.1e})"


def cuda_unavailable(tssa, workdir, emulate=False):
    """None when tssa-stream's cuda backend runs here, else why not.
    emulate: run it through TSSA_CUDA_EMULATE=1 (a CPU shim) instead of a GPU."""
    if not emulate and not torch.cuda.is_available():
        return "no GPU (torch.cuda.is_available() is False)"
    case = os.path.join(workdir, "cuda_trial")

    def trial(x):
        return torch.sigmoid(x) * 2.0 + x
    export.export(trial, {"x": torch.rand(64)}, case)
    t, _, err = run_tssa(tssa, case, 1, backend="cuda", env=cuda_env(emulate), timeout=300)
    if err:
        return f"tssa-stream --backend=cuda fails: {err}"
    c = check_outputs(case, rtol=1e-4, atol=1e-5)
    return None if c.startswith("ok") else f"tssa-stream --backend=cuda trial output: {c}"


def cuda_env(emulate):
    return {"TSSA_CUDA_EMULATE": "1"} if emulate else {}


def mpi_unavailable(tssa):
    """None when tssa-stream can run on MPI ranks here, else why not."""
    if not shutil.which("mpirun"):
        return "mpirun not found (apt-get install openmpi-bin)"
    version = tssa_version(tssa)
    if " mpi" not in version:
        return f"`{tssa} --version` does not list mpi ({version!r}): build with MPI"
    return None


def mpirun_cmd(ranks, hostfile=None):
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none"]
    if hostfile:
        cmd += ["--hostfile", hostfile]
    return cmd + ["-np", str(ranks)]


def run_ranks(tssa, case, ranks, runs, out_name, threads=None, hostfile=None,
              timeout=TSSA_TIMEOUT_S, extra=(), best=None):
    """(median seconds per run, None) from rank 0's repeat line under
    `mpirun -np ranks`, or (None, why). threads caps each rank's threads
    (OMP_NUM_THREADS; a rank never runs more than its share of the cores);
    extra: more tssa-stream options (--simulate-hosts); best (a list): the
    run's fastest time per run is appended to it (several busy ranks time
    the runs as one stream: then it is the median's figure)."""
    threads = threads or CORES
    env = tssa_environ(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [*mpirun_cmd(ranks, hostfile), "--tag-output", tssa, "model.ir", *case_args(case),
           "-o", out_name, "--repeat", str(runs), *extra]
    try:
        p = subprocess.run(cmd, cwd=case, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    text = p.stdout + p.stderr
    if p.returncode != 0:
        lines = [l for l in text.strip().splitlines() if "tssa-stream" in l] or \
            text.strip().splitlines() or [""]
        return None, f"exit {p.returncode}: {lines[-1][:160]}"
    m = re.search(r"\[\d+,0\]<stderr>:tssa-stream: " + REPEAT_RE, text) or re.search(REPEAT_RE, text)
    if not m:
        return None, "no repeat line in the output"
    if best is not None:
        best.append(float(m.group(1)) / 1e3)
    return float(m.group(2)) / 1e3, None


def placement(tssa, case, ranks, runs, devices=False, env=None):
    """(the placement: line, the actors of the JSON schedule) for `ranks`
    (`--emit=schedule --ranks N --repeat RUNS`: the placement is planned for
    the RUNS + 1 runs, so ask with the timed run's --repeat); devices: for
    N GPUs instead (`--backend=cuda --devices N`, planned without a GPU)."""
    where = ["--backend=cuda", "--devices", str(ranks)] if devices else ["--ranks", str(ranks)]
    base = [tssa, "model.ir", *case_args(case), "--emit=schedule", *where, "--repeat", str(runs)]
    e = tssa_environ(**(env or {}))
    p = subprocess.run(base, cwd=case, capture_output=True, text=True, env=e)
    line = next((l.strip() for l in p.stdout.splitlines() if l.startswith("placement:")),
                f"(no placement line; exit {p.returncode}: {p.stderr.strip()[-160:]})")
    p = subprocess.run(base + ["--json"], cwd=case, capture_output=True, text=True, env=e)
    try:
        actors = json.loads(p.stdout)["actors"]
    except (ValueError, KeyError):
        actors = []
    return line, actors


def predicted_cost(tssa, case, runs, ranks=None, threads=None, extra=(), env=None,
                   timeout=TSSA_TIMEOUT_S):
    """The cost model's prediction for a run as run_tssa (ranks None) or
    run_ranks (`mpirun -np ranks`) would make it with these threads and
    options: `--emit=schedule --json --repeat RUNS` under the same launch
    and environment, so the rates, the link and the placement are the run's.
    Returns (dict(cost=the JSON's cost object, per_run_s, placement), None)
    or (None, why). per_run_s is what the run's repeat line reports: one
    rank times each run (L, which is B there); several busy ranks run the
    RUNS runs as one stream, (L + (RUNS - 1) B) / RUNS per run."""
    threads = threads or CORES
    e = tssa_environ(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    e.update(env or {})
    cmd = [tssa, "model.ir", *case_args(case), "--emit=schedule", "--json", "--repeat", str(runs),
           *extra]
    if ranks:
        cmd = [*mpirun_cmd(ranks), *cmd]
    try:
        p = subprocess.run(cmd, cwd=case, env=e, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    if p.returncode != 0:
        return None, _last_error(p.stderr, p.returncode)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return None, "--emit=schedule --json printed no JSON"
    cost = doc.get("cost")
    if not cost:
        return None, "no cost object in --emit=schedule --json (an older tssa-stream)"
    L, B = cost["latency_s"], cost["bottleneck_s"]
    return dict(cost=cost, per_run_s=(L + (runs - 1) * B) / runs,
                placement=doc.get("placement_note"), actors=doc.get("actors", []),
                doc=doc), None


def find_number(obj, word):
    """The first number under a key containing `word` anywhere in a JSON
    document (depth first), or None."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if word in k and isinstance(v, (int, float)) and not isinstance(v, bool):
                return v
        for v in obj.values():
            found = find_number(v, word)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = find_number(v, word)
            if found is not None:
                return found
    return None


def off_rank0(actors, key="rank"):
    """The filters placed away from rank 0, as `Name xFIRINGS@rank` text
    (key "device": away from cuda:0, `@cuda:N`)."""
    first, second = (0, 1) if key == "rank" else ("cuda:0", "cuda:1")
    items = []
    for a in actors:
        where = a.get(key, first)
        if where not in (first, "cpu") and a.get("kind") == "filter":
            reps = a.get("repetitions", 1)
            name = a["path"].rsplit("/", 1)[-1] + (f" x{reps}" if reps > 1 else "")
            items.append(name if where == second else f"{name}@{where}")
    return ", ".join(items) if items else f"none (all on {key} {first})"


def actor_summary(actors):
    """The JSON schedule's actors, reduced to what a placement record keeps."""
    return [dict(path=a["path"], kind=a["kind"], rank=a.get("rank", 0),
                 **({"device": a["device"]} if a.get("device", "cpu") != "cpu" else {}),
                 repetitions=a.get("repetitions"), est_seconds=a.get("est_seconds"))
            for a in actors]


# ------------------------------------------------------------------ one workload

def measure_workload(tssa, case, program, inputs, runs,
                     torch_modes=(("eager", "cpu"), ("script", "cpu")), backends=("cpu",),
                     threads=None, count=True, budget_s=None, warmup=10, progress=None,
                     emulate_cuda=False, keep_output=False):
    """Export `program` on `inputs` to `case`, time it in PyTorch for each
    (mode, device) of torch_modes and in tssa-stream on each of `backends`,
    check tssa-stream's outputs against eager's.

    Returns {"torch:MODE" (on the CPU) or "torch:MODE@DEVICE": dict(s,
    launches, runs) or dict(error), "tssa:BACKEND": dict(s, stats, launches,
    check, runs[, error]), "export_error": why or None}. A failure is
    recorded with its reason, never raised; a tssa-stream run whose outputs
    differ from eager's keeps its time and gets error "wrong output: ...".
    tssa-stream runs as many times as eager on the CPU did (--repeat)."""
    say = progress or (lambda msg: None)
    result = {"export_error": None}
    try:
        say("export")
        export.export(program, inputs, case)
    except Exception as e:        # noqa: BLE001 (reported in the table)
        result["export_error"] = f"export: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
        return result
    tssa_runs = runs
    for mode, device in torch_modes:
        key = f"torch:{mode}" + ("" if device == "cpu" else f"@{device}")
        if mode.startswith("compile") and compile_unavailable():
            result[key] = dict(error=compile_unavailable())
            continue
        say(f"PyTorch {mode} on {device}")
        try:
            result[key] = time_torch(program, inputs, runs, mode, device, warmup=warmup,
                                     budget_s=budget_s, count=count, keep_output=keep_output)
            if mode == "eager" and device == "cpu":
                tssa_runs = result[key]["runs"]
        except Exception as e:    # noqa: BLE001
            import traceback      # the whole trace in the log (the table keeps a line)
            traceback.print_exc(file=sys.stderr)
            lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()] or [""]
            why = lines[0][:160] + (f" ... {lines[-1][:200]}" if len(lines) > 1 else "")
            result[key] = dict(error=f"{type(e).__name__}: {why}")
    for backend in backends:
        say(f"tssa-stream --backend={backend} --repeat {tssa_runs}")
        out = f"tssa_out_{backend}"
        t, stats, err = run_tssa(tssa, case, tssa_runs, threads=threads, backend=backend,
                                 out_name=out,
                                 env=cuda_env(emulate_cuda) if backend == "cuda" else None)
        r = dict(s=t, stats=stats, runs=tssa_runs, launches=launches(stats, backend))
        if err:
            r["error"] = err
        else:
            tol = 1e-3 if backend == "cuda" else 1e-4
            r["check"] = check_outputs(case, out, rtol=tol, atol=tol)
            if not r["check"].startswith("ok"):
                r["error"] = f"wrong output: {r['check']}"
        result[f"tssa:{backend}"] = r
    return result


SPLIT_SHAPES = ((1024, 512, 256), (1024, 4096, 1024))
SPLIT_PARTS = (2, 64, 128)
SPLIT_RANKS = (1, 2, 4, 8)


def split_linear_rows(tssa, workdir, runs, shapes=SPLIT_SHAPES, parts_list=SPLIT_PARTS,
                      ranks_list=SPLIT_RANKS, progress=None, hostfile=None):
    """The MIT thesis's Tables 5.1/5.2: a linear layer (batch -> in -> out
    features) whose batch is split into P parts by a data-parallel loop
    (split_linear), run by tssa-stream on each rank count of ranks_list, with
    PyTorch eager on the whole batch and on the same split loop beside it.
    One row per (shape, P): seconds per run, the ranks the placement gives
    any actor at each rank count above 1, its placement line, the checks."""
    say = progress or (lambda msg: None)
    rows = []
    g = torch.Generator().manual_seed(1)
    for batch, fin, fout in shapes:
        x = torch.randn(batch, fin, generator=g)
        w = torch.randn(fout, fin, generator=g) / fin ** 0.5
        b = torch.randn(fout, generator=g)
        shape = f"{batch}x{fin} -> {batch}x{fout}"
        say(f"split_linear {shape}: eager whole batch, {runs} calls")
        whole = time_eager(whole_linear, {"x": x, "weight": w, "bias": b, "parts": 1}, runs)
        for parts in parts_list:
            inputs = {"x": x, "weight": w, "bias": b, "parts": parts}
            case = os.path.join(workdir, "split_linear", f"{batch}x{fin}x{fout}_P{parts}")
            say(f"split_linear {shape} P={parts}: export")
            export.export(split_linear, inputs, case)
            say(f"split_linear {shape} P={parts}: eager split loop, {runs} calls")
            eager_split = time_eager(split_linear, inputs, runs)
            t, checks, used, notes, actors_at = {}, [], {}, {}, {}
            for n in ranks_list:
                say(f"split_linear {shape} P={parts}: tssa-stream on {n} rank(s), --repeat {runs}")
                t[n], err = run_ranks(tssa, case, n, runs, f"tssa_out_np{n}", hostfile=hostfile)
                c = check_outputs(case, f"tssa_out_np{n}") if t[n] else err
                if not c.startswith("ok"):
                    checks.append(f"{n} ranks: {c}")
                if n > 1:
                    line, actors = placement(tssa, case, n, runs)
                    used[n] = len({a["rank"] for a in actors}) if actors else None
                    notes[n] = line
                    actors_at[str(n)] = actor_summary(actors)
            rows.append(dict(shape=shape, batch=batch, in_features=fin, out_features=fout,
                             parts=parts, tssa_s={str(n): t[n] for n in ranks_list},
                             eager_whole_s=whole, eager_split_s=eager_split,
                             ranks_used={str(n): used[n] for n in used},
                             placement={str(n): notes[n] for n in notes},
                             actors=actors_at, check="; ".join(checks) or "ok"))
    return rows


def as_count(v):
    """A per-run count as an int when whole (--stats gives per-run averages)."""
    if v is None:
        return None
    v = float(v)
    return int(v) if v.is_integer() else round(v, 2)


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# ------------------------------------------------------------------ records

def _first_line(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return ((p.stdout or p.stderr).strip().splitlines() or [""])[0]
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine_info(tssa, argv=None):
    """The machine, the versions and the command, for the record beside a result."""
    def here(arg):          # paths inside the checkout relative to it: no machine's paths
        a = str(arg)
        return os.path.relpath(a, ROOT) if a.startswith(ROOT + os.sep) else a
    info = dict(date=time.strftime("%Y-%m-%dT%H:%M:%S%z"), host=socket.gethostname(),
                command=" ".join([sys.executable] + [here(a) for a in
                                                     (argv if argv is not None else sys.argv)]),
                cores=CORES, platform=platform.platform())
    cpu = None
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info["cpu"] = cpu
    info["tssa_stream"] = tssa_version(tssa) if os.path.exists(tssa) else f"{tssa} not found"
    try:
        p = subprocess.run([tssa, "--emit=topology"], capture_output=True, text=True, timeout=60)
        info["topology"] = [l for l in p.stdout.splitlines()
                            if l.split(":")[0] in ("host", "cores", "NUMA nodes", "caches", "gpus")]
    except (OSError, subprocess.TimeoutExpired):
        info["topology"] = []
    info["compiler"] = _first_line([os.environ.get("CC", "cc"), "--version"])
    info["mpirun"] = _first_line(["mpirun", "--version"]) if shutil.which("mpirun") else None
    info["python"] = sys.version.split()[0]
    info["torch"] = torch.__version__ if torch else None
    info["numpy"] = np.__version__ if np else None
    try:
        import matplotlib
        info["matplotlib"] = matplotlib.__version__
    except ImportError:
        info["matplotlib"] = None
    gpus = []
    if torch is not None and torch.cuda.is_available():
        gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    info["gpus"] = gpus
    try:
        p = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                           capture_output=True, text=True, timeout=30)
        info["git"] = p.stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        info["git"] = None
    info["env"] = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                              "OMP_WAIT_POLICY", "CC", "TSSA_CACHE_DIR")
                   if k in os.environ}
    return info


def machine_summary(info):
    """One paragraph of machine_info for a table's heading."""
    topo = "; ".join(info.get("topology") or [])
    gpus = ", ".join(info.get("gpus") or []) or "no GPU"
    return (f"{info['host']}: {info['cores']} cores ({info.get('cpu') or '?'}), {gpus}; "
            f"{info['tssa_stream']}; torch {info.get('torch')}; {info.get('compiler')}"
            + (f"\ntopology: {topo}" if topo else ""))


def result_stem(out_dir, study, info):
    """<out>/<study>/<date>-<host> (the date of the run, the host's name)."""
    d = os.path.join(out_dir, study)
    os.makedirs(d, exist_ok=True)
    host = re.sub(r"[^A-Za-z0-9_.-]", "_", info["host"]) or "host"
    return os.path.join(d, f"{info['date'][:10]}-{host}")


def fmt(v, digits=3):
    """A CSV / table cell: numbers rounded, None empty."""
    if v is None:
        return ""
    if isinstance(v, float):
        if not math.isfinite(v):
            return ""
        return f"{v:.{digits}f}" if abs(v) < 1e5 else f"{v:.0f}"
    return str(v)


def write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow([fmt(r.get(c)) for c in columns])


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, default=str)
        f.write("\n")


def print_table(columns, rows, file=None, headers=None):
    """A Markdown table of rows (dicts) on stdout."""
    out = file or sys.stdout
    heads = headers or columns
    cells = [[fmt(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(heads, widths)) + " |", file=out)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|", file=out)
    for c in cells:
        print("| " + " | ".join(v.ljust(w) for v, w in zip(c, widths)) + " |", file=out)
    out.flush()
