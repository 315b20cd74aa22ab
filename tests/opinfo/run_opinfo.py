#!/usr/bin/python3
"""run_opinfo.py — op conformance of tssa-stream against PyTorch's OpInfo database.

How it works. PyTorch's test suite describes every op it tests by an OpInfo
(torch.testing._internal.common_methods_invocations.op_db): how to call it,
which dtypes it supports and a generator of sample inputs. For each OpInfo
entry, each dtype among float32, float64, int64 and bool that the entry
supports on cpu, and each of its first few samples, this script

  1. writes a tiny Python program that makes the call, e.g.

         def case(t0: torch.Tensor, t1: torch.Tensor):
             return torch.add(t0, t1, alpha=2)

     Tensors of the sample (its input, and any tensor in its args and kwargs,
     also inside lists and tuples such as torch.cat's) become parameters; every
     other value (numbers, bools, None, int lists, dtypes, strings) is written
     as a literal. The call is the op's function spelled as TorchScript knows
     it (torch.X, torch.nn.functional.X, torch.linalg.X, torch.special.X),
     else its method (t0.X(...)), else a spelling from LAMBDA_SPELLINGS for
     entries that OpInfo calls through a Python lambda, reflected operators
     (2 + t0 for __radd__) and dtype conversions (t0.to(torch.int32) for
     int). Two adjustments keep TorchScript's stricter typing from hiding the
     op: an int passed where a Python function (F.threshold) annotates float
     is written as a float, and keyword arguments OpInfo passes with their
     default but TorchScript's schema lacks (requires_grad=False,
     as_tuple=False) are left out;
  2. exports it with frontend/export.py's export() (torch.jit.script, the
     graph text as model.ir, the inputs, args.txt and PyTorch's eager outputs
     under expected/);
  3. runs `tssa-stream --backend=ref` and `--backend=cpu` on the case, each
     under a time limit, and compares every out/outN.npy with expected/outN.npy
     using the corpus's own comparer (build/tests/npy_compare: same dtype and
     shape, floats within rtol 1e-4 / atol 1e-5, integers and bools exact).

Each (entry, dtype, sample) ends as one of
  not-exported  scripting or export failed (the reason, in one line)
  unsupported   tssa-stream refused the op: exit 2 "unknown op", or exit 1
                or 2 with a message saying "not supported" or "not implemented"
  error         any other non-zero exit or a time-out (its first stderr line)
  mismatch      the run succeeded but an output differs
  match         both backends reproduce PyTorch's outputs
An entry is *comparable* when at least one of its samples exported, and it
*matches* when every exported sample matches on both ref and cpu.

The random entries tssa-stream implements (RANDOM_CHECKED) are exported
with torch.manual_seed(0) before the eager and the scripted call, and
checked by what a draw must satisfy instead of by value (tssa-stream's
generator is not PyTorch's): PyTorch's shapes and dtypes, values in the op's
support, and bit-identical outputs on ref and cpu.

Entries are excluded up front, with the reason listed in the report: other
random ops and ops returning uninitialized memory (by name, by OpInfo's seeded
wrapper, or because two eager calls on the same inputs differ), ops with no
dtype among the four above (complex-only), sparse ops, CUDA-only ops, ops
OpInfo marks as not scriptable, and lambdas with no known TorchScript
spelling. Entries none of whose samples export (complex outputs,
torch.masked's keyword-only signatures...) are run but not comparable; the
report says why.

Work is split into (entry, dtype) units run by a multiprocessing pool; the
report is sorted by entry name, so it does not depend on the finishing order.

    run_opinfo.py                      full run, table to stdout
    run_opinfo.py --out docs/ops.md    full run, table written for committing
    run_opinfo.py --quick              the ctest subset (QUICK_OPS: first
                                       samples plus edge shapes), checked
                                       against quick_expected.txt
    run_opinfo.py --ops add,cat --keep-cases /tmp/cases

Exit status: 0 the harness ran (ops may still fail); 1 an op listed in the
--expect file no longer matches; 2 bad usage or a missing binary; 77 torch or
expecttest cannot be imported (the ctest entry is then skipped).
"""

import argparse
import collections
import filecmp
import importlib.util
import inspect
import itertools
import math
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Optional

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import torch
    import expecttest  # noqa: F401  (common_methods_invocations needs it)
    del expecttest
    from torch.testing._internal.common_methods_invocations import op_db
except ImportError as import_error:
    print(f"run_opinfo.py: skipped: {import_error}", file=sys.stderr)
    sys.exit(77)

sys.path.insert(0, os.path.join(ROOT, "frontend"))
import export as exporter  # noqa: E402  (frontend/export.py)


DTYPES = [torch.float32, torch.float64, torch.int64, torch.bool]
DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64",
               torch.int64: "int64", torch.bool: "bool"}
SAMPLES_PER_DTYPE = 8
QUICK_SAMPLES = 2
RUN_TIMEOUT_S = 20
UNIT_TIMEOUT_S = 900

# The --quick subset: common ops of every family (elementwise, reductions,
# views, lists of tensors, matmul, nn.functional). Entry names as in op_db.
QUICK_OPS = [
    "__radd__", "abs", "add", "amax", "cat", "clamp", "cumsum", "div.no_rounding_mode",
    "exp", "flatten", "gather", "index_select", "masked_fill", "matmul",
    "max.reduction_with_dim", "mean", "nn.functional.conv2d", "nn.functional.layer_norm",
    "nn.functional.linear", "nn.functional.pad.reflect", "nn.functional.relu", "permute",
    "reshape", "softmax", "stack", "sum", "transpose", "where",
    # the softmax family: one fused row-reduction template (issue 27: 0-d rows)
    "softmax.with_dtype", "log_softmax", "log_softmax.dtype", "nn.functional.softmin",
    "nn.functional.softmin.with_dtype",
    # one or two entries of each op family added for issue 11
    "special.i0e", "polygamma.polygamma_n_1", "isclose", "logaddexp", "nn.functional.mish",
    "nn.functional.max_pool1d", "nn.functional.adaptive_avg_pool3d", "nn.functional.instance_norm",
    "nn.functional.conv_transpose2d", "nn.functional.interpolate.bilinear",
    "nn.functional.cross_entropy", "nn.functional.ctc_loss", "linalg.svd", "linalg.lu_factor",
    "linalg.lstsq", "median", "sort", "unique", "histogram", "scatter_reduce.amax", "tile",
    "repeat_interleave", "einsum", "linalg.cholesky",
    # random ops, checked by their support and ref = cpu (RANDOM_CHECKED)
    "bernoulli", "multinomial", "nn.functional.dropout", "randn_like",
]

# Random ops, and ops whose result is uninitialized memory.
RANDOM_NAME = re.compile(
    r"^(rand|randn|randint|normal|bernoulli|multinomial|uniform|poisson|cauchy|"
    r"exponential|geometric|log_normal|random)(_like|_)?(\.|$)|dropout|rrelu|"
    r"fractional_max_pool|lowrank|gumbel|^(new_)?empty")

# Entries OpInfo calls through a lambda that reorders or wraps the arguments,
# spelled by hand: (input, [arg sources], [kwarg sources "k=v"]) -> expression.
LAMBDA_SPELLINGS = {
    "einsum": lambda x, a, kw: call("torch.einsum", [a[0], x] + a[1:] + kw),
    "nn.functional.embedding":
        lambda x, a, kw: call("torch.nn.functional.embedding", [a[0], x] + a[1:] + kw),
    "nn.functional.embedding_bag":
        lambda x, a, kw: call("torch.nn.functional.embedding_bag", [a[0], x] + a[1:] + kw),
    "special.polygamma":
        lambda x, a, kw: call("torch.special.polygamma", [a[0], x] + a[1:] + kw),
    "fill": lambda x, a, kw: call("torch.fill", [x] + a + kw),
    "zero_": lambda x, a, kw: call("torch.zero_", [f"{x}.clone()"] + a + kw),
    "resize_": lambda x, a, kw: call(f"{x}.clone().resize_", a + kw),
    "resize_as_": lambda x, a, kw: call("torch.resize_as_", [f"{x}.clone()"] + a + kw),
    "T": lambda x, a, kw: f"{x}.T",
    "H": lambda x, a, kw: f"{x}.H",
    "mT": lambda x, a, kw: f"{x}.mT",
    "mH": lambda x, a, kw: f"{x}.mH",
    "linalg.lstsq.grad_oriented":
        lambda x, a, kw: call("torch.linalg.lstsq", [x] + a + kw) + "[0]",
    "linalg.pinv.singular": lambda x, a, kw: call("torch.linalg.pinv", [f"{x} @ {a[0]}.mT"]),
}

# Reflected operators (2 + t is t.__radd__(2)): TorchScript knows them only
# as operator syntax.
REFLECTED = {"__radd__": "+", "__rsub__": "-", "__rmul__": "*", "__rdiv__": "/",
             "__rmatmul__": "@", "__rmod__": "%", "__rpow__": "**", "__rand__": "&",
             "__ror__": "|", "__rxor__": "^"}
for _name, _sign in REFLECTED.items():
    LAMBDA_SPELLINGS[_name] = lambda x, a, kw, sign=_sign: f"({a[0]}) {sign} {x}"

# Dtype conversion methods: TorchScript's t.float() and friends take no
# arguments (OpInfo passes memory_format) and t.bool(), t.half()... do not
# exist, so they are spelled as t.to(dtype, ...).
CONVERSIONS = {"bool": "bool", "byte": "uint8", "char": "int8", "short": "int16",
               "int": "int32", "long": "int64", "half": "float16", "bfloat16": "bfloat16",
               "float": "float32", "double": "float64", "chalf": "complex32"}
for _name, _dtype in CONVERSIONS.items():
    LAMBDA_SPELLINGS[_name] = lambda x, a, kw, d=_dtype: call(f"{x}.to", [f"torch.{d}"] + a + kw)

# Random entries that are run, spelled by hand (OpInfo calls them through
# wrapper_set_seed lambdas), and checked by what a draw must satisfy instead
# of by value: tssa-stream's generator is not PyTorch's (README, "Random
# ops"). An output must have PyTorch's shape and dtype, lie in the op's
# support (the function: (PyTorch's array, ours) -> what is wrong, or None),
# and be bit-identical on ref and cpu (the same --seed).
def _finite(e, a):
    return None if np.array_equal(np.isnan(e), np.isnan(a)) else "NaN where PyTorch has none, or none where it has"


def _unit_interval(e, a):
    return None if ((a >= 0) & (a < 1)).all() else "a value outside [0, 1)"


def _whole(e, a):
    return None if (np.asarray(a, dtype=np.float64) % 1 == 0).all() else "a value that is not whole"


def _zero_one(e, a):
    return None if np.isin(a, [0, 1]).all() else "a value other than 0 and 1"


def _categories(e, a):
    return None if (a >= 0).all() else "a negative category"


def _kept_as_pytorch(e, a):
    """dropout: where both kept an element, both scaled it alike."""
    both = (e != 0) & (a != 0)
    return None if np.allclose(e[both], a[both], rtol=1e-5, atol=1e-6) else "a kept value scaled otherwise"


def _rrelu(e, a):
    """rrelu: non-negative inputs pass unchanged, negative ones stay negative."""
    kept = e >= 0
    if not np.allclose(e[kept], a[kept], rtol=1e-5, atol=1e-6):
        return "a non-negative input changed"
    return None if (a[~kept] < 0).all() or not (~kept).any() else "a negative input changed sign"


RANDOM_CHECKED = {
    "rand_like": (lambda x, a, kw: call("torch.rand_like", [x] + a + kw), _unit_interval),
    "randn_like": (lambda x, a, kw: call("torch.randn_like", [x] + a + kw), _finite),
    "randint_like": (lambda x, a, kw: call("torch.randint_like", [x] + a + kw), _whole),
    "randn": (lambda x, a, kw: call("torch.randn", [x] + a + kw), _finite),
    "multinomial": (lambda x, a, kw: call("torch.multinomial", [x] + a + kw), _categories),
    "normal": (lambda x, a, kw: call("torch.normal", [x] + a + kw), _finite),
    "normal.number_mean": (lambda x, a, kw: call("torch.normal", [a[0], x] + a[1:] + kw), _finite),
    "bernoulli": (lambda x, a, kw: call("torch.bernoulli", [x] + a + kw), _zero_one),
    "nn.functional.dropout":
        (lambda x, a, kw: call("torch.nn.functional.dropout", [x] + a + kw), _kept_as_pytorch),
    "nn.functional.rrelu": (lambda x, a, kw: call("torch.nn.functional.rrelu", [x] + a + kw), _rrelu),
    "uniform": (lambda x, a, kw: call(f"{x}.clone().uniform_", [f"float({v})" for v in a] + kw), _finite),
}
for _name, (_spelling, _check) in RANDOM_CHECKED.items():
    LAMBDA_SPELLINGS[_name] = _spelling

# Keyword arguments that OpInfo passes with their default value but that
# TorchScript's schemas do not have; they are left out of the call.
DEFAULT_KWARGS = {"requires_grad": False, "as_tuple": False}


def call(function, parts):
    return f"{function}({', '.join(parts)})"


# ------------------------------------------------------------------ the entries

def entry_name(op):
    """The entry's name as the report spells it: name or name.variant."""
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def wanted_dtypes(op):
    supported = op.supported_dtypes("cpu")
    return [d for d in DTYPES if d in supported]


def torch_attribute(dotted):
    """torch.<dotted> if it exists, else None."""
    obj = torch
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def is_lambda(function):
    return getattr(function, "__name__", None) == "<lambda>"


def spelling(op):
    """How the generated program calls the op: a function
    (input source, [arg sources], [kwarg sources]) -> call expression, or
    None when there is no TorchScript spelling."""
    name = entry_name(op)
    for key in (name, op.name):
        if key in LAMBDA_SPELLINGS:
            return LAMBDA_SPELLINGS[key]
    function = torch_attribute(op.name)
    if function is not None and op.op is not None and not is_lambda(op.op):
        return lambda x, a, kw: call(f"torch.{op.name}", [x] + a + kw)
    if op.method_variant is not None and not is_lambda(op.method_variant):
        method = op.method_variant.__name__
        return lambda x, a, kw: call(f"{x}.{method}", a + kw)
    return None


def source_of(function):
    try:
        return inspect.getsource(function)
    except (OSError, TypeError):
        return ""


def static_exclusion(op):
    """Why the entry is not run, from its description alone; None to run it."""
    if op.op is None or getattr(op.op, "__module__", "").startswith("torch.cuda"):
        return "CUDA only (jiterator)"
    if entry_name(op) in RANDOM_CHECKED:
        pass
    elif RANDOM_NAME.search(op.name) or "wrapper_set_seed" in source_of(op.op):
        return "random (or uninitialized) output: values cannot match PyTorch's generator"
    if "sparse" in op.name:
        return "sparse tensors"
    if not wanted_dtypes(op):
        names = sorted(str(d).replace("torch.", "") for d in op.supported_dtypes("cpu"))
        return "no float32/float64/int64/bool on cpu (" + (", ".join(names) or "none") + ")"
    if not op.supports_scripting:
        return "OpInfo marks it as not scriptable"
    if spelling(op) is None:
        return "called through a Python lambda with no TorchScript spelling"
    return None


def clone_tree(value):
    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(clone_tree(v) for v in value)
    if isinstance(value, dict):
        return {k: clone_tree(v) for k, v in value.items()}
    return value


def same_result(a, b):
    a, b = exporter.flatten_outputs(a), exporter.flatten_outputs(b)
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            if x.is_floating_point() or x.is_complex():
                if not torch.equal(torch.nan_to_num(x), torch.nan_to_num(y)):
                    return False
            elif not torch.equal(x, y):
                return False
        elif not (x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y))):
            return False
    return True


def differs_between_calls(op):
    """True when two eager calls on the first sample give different results
    (an unlisted random op). Ops that fail or are not plain data say False."""
    dtype = wanted_dtypes(op)[0]
    torch.manual_seed(0)
    try:
        sample = next(iter(op.sample_inputs("cpu", dtype, requires_grad=False)))
        results = []
        for _ in range(2):
            args = clone_tree([sample.input, *sample.args])
            results.append(op(*args, **clone_tree(sample.kwargs)))
        return not same_result(*results)
    except Exception:  # the op's own failures are not our concern here
        return False


def exclusion(op):
    reason = static_exclusion(op)
    if reason is None and entry_name(op) not in RANDOM_CHECKED and differs_between_calls(op):
        reason = "random: two eager calls on the same inputs differ"
    return reason


# ------------------------------------------------------------------ programs

class Unwritable(Exception):
    """A sample value that cannot be written as a TorchScript literal."""


def literal(value, tensors):
    """TorchScript source for `value`; tensors are appended to `tensors` and
    become the parameters t0, t1, ..."""
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return f"t{len(tensors) - 1}"
    if value is None or isinstance(value, (bool, str)):
        return repr(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        return repr(float(value))
    if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
        return repr(value)
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if value is Ellipsis:
        return "..."
    if isinstance(value, (list, tuple)):
        if not value:
            return "torch.jit.annotate(List[int], [])"
        items = [literal(v, tensors) for v in value]
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    raise Unwritable(f"argument of type {type(value).__name__} cannot be written as a literal")


def float_annotated(op, args, kwargs):
    """(args, kwargs) with ints made floats where the op is a Python function
    (torch.nn.functional.X) whose parameter is annotated float: eager Python
    accepts 1 for 1.0, TorchScript does not."""
    function = torch_attribute(op.name)
    if not inspect.isfunction(function):
        return args, kwargs
    try:
        bound = inspect.signature(function).bind_partial(*args, **kwargs)
    except TypeError:
        return args, kwargs
    for name, value in bound.arguments.items():
        annotation = bound.signature.parameters[name].annotation
        if annotation in (float, Optional[float]) and type(value) is int:
            bound.arguments[name] = float(value)
    return list(bound.args), dict(bound.kwargs)


def program_source(op, sample):
    """(source of the program `case`, its tensor arguments in order)."""
    args, kwargs = float_annotated(op, [sample.input, *sample.args], sample.kwargs)
    tensors = []
    x = literal(args[0], tensors)
    args = [literal(a, tensors) for a in args[1:]]
    kwargs = [f"{k}={literal(v, tensors)}" for k, v in kwargs.items()
              if not (k in DEFAULT_KWARGS and v is DEFAULT_KWARGS[k])]
    try:
        expression = spelling(op)(x, args, kwargs)
    except IndexError as err:
        raise Unwritable("the sample has fewer arguments than the spelling uses") from err
    params = ", ".join(f"t{i}: torch.Tensor" for i in range(len(tensors)))
    source = ("import math\nfrom typing import List\n\nimport torch\n\n\n"
              f"def case({params}):\n    return {expression}\n")
    return source, tensors


def load_program(path, module_name):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # TorchScript finds the source through it
    spec.loader.exec_module(module)
    return module.case


def first_line(text, limit=None):
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line if limit is None or len(line) <= limit else line[:limit - 1] + "…"
    return ""


def script_failure(text):
    """The line of a TorchScript error that says what is wrong; for "no
    overload matches", the reason given for the first overload."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    if lines[0] == "Arguments for call are not valid.":
        reasons = [line for prev, line in zip(lines, lines[1:])
                   if "->" in prev and "->" not in line]
        return "no overload matches: " + (reasons[0] if reasons else "?")
    if "->" in lines[0] and len(lines) > 1:  # a schema, then what is wrong with the call
        return lines[0].split("(")[0] + ": " + lines[1]
    return lines[0]


def export_failure(err):
    """One line saying why an export failed."""
    text = str(err)
    if text.startswith("torch.jit.script failed:"):
        return "torch.jit.script: " + script_failure(text.split("\n", 1)[-1])
    if isinstance(err, exporter.ExportError):
        return first_line(text)
    return f"{type(err).__name__}: {first_line(text)}"


def export_case(op, sample, case_dir, module_name):
    """Writes the case; returns None, or why it could not be exported."""
    try:
        source, tensors = program_source(op, sample)
    except Unwritable as err:
        return str(err)
    source_dir = case_dir + ".src"
    os.makedirs(source_dir)
    path = os.path.join(source_dir, "case.py")
    with open(path, "w") as f:
        f.write(source)
    try:
        program = load_program(path, module_name)
        inputs = {f"t{i}": t for i, t in enumerate(tensors)}
        seed = 0 if entry_name(op) in RANDOM_CHECKED else None
        exporter.export(program, inputs, case_dir, source_dir, seed=seed)
    except Exception as err:  # scripting and eager errors come in many types
        return export_failure(err).replace(source_dir + "/", "")
    finally:
        sys.modules.pop(module_name, None)
    return None


# ------------------------------------------------------------------ running

LOCATION = re.compile(r"^\S+?:\d+(:\d+)?: (error: )?")
UNKNOWN_OP = re.compile(r"unknown op '([^']+)'")
UNSUPPORTED = re.compile(r"not supported|not implemented")


def strip_location(line):
    return LOCATION.sub("", line)


def run_backend(tssa, compare, case_dir, backend, check=None):
    """(kind, message) of one tssa-stream run: match, mismatch, unsupported or
    error. check: a random entry's support check (RANDOM_CHECKED), which
    replaces the comparison of values."""
    out_dir = os.path.join(case_dir, "out_" + backend)
    with open(os.path.join(case_dir, "args.txt")) as f:
        bindings = f.read().split()
    command = [tssa, f"--backend={backend}", "model.ir", *bindings, "-o", out_dir]
    try:
        done = subprocess.run(command, cwd=case_dir, capture_output=True, text=True,
                              errors="replace", timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "error", f"timed out after {RUN_TIMEOUT_S} s"
    if done.returncode < 0:
        return "error", f"killed by signal {-done.returncode}"
    if done.returncode != 0:
        unknown = sorted(set(UNKNOWN_OP.findall(done.stderr)))
        if done.returncode == 2 and unknown:
            return "unsupported", "unknown op " + ", ".join(unknown)
        message = strip_location(first_line(done.stderr))
        if done.returncode in (1, 2) and UNSUPPORTED.search(done.stderr):
            return "unsupported", message
        return "error", f"exit {done.returncode}: {message}"
    if check is not None:
        return check_draws(check, case_dir, out_dir)
    return compare_outputs(compare, case_dir, out_dir)


def check_draws(check, case_dir, out_dir):
    """A random entry's outputs: PyTorch's count, shapes and dtypes, values
    in the op's support."""
    expected_dir = os.path.join(case_dir, "expected")
    expected = sorted(os.listdir(expected_dir))
    actual = sorted(n for n in os.listdir(out_dir) if n.startswith("out"))
    if actual != expected:
        return "mismatch", f"outputs {actual}, PyTorch returned {expected}"
    for name in expected:
        e = np.load(os.path.join(expected_dir, name))
        a = np.load(os.path.join(out_dir, name))
        if e.shape != a.shape or e.dtype != a.dtype:
            return "mismatch", f"{name}: {a.dtype}{list(a.shape)}, PyTorch's {e.dtype}{list(e.shape)}"
        wrong = check(e, a)
        if wrong:
            return "mismatch", f"{name}: {wrong}"
    return "match", ""


def same_draws(case_dir):
    """True when ref and cpu wrote the same bytes (the same --seed)."""
    names = sorted(os.listdir(os.path.join(case_dir, "out_ref")))
    return all(filecmp.cmp(os.path.join(case_dir, "out_ref", n), os.path.join(case_dir, "out_cpu", n),
                           shallow=False) for n in names)


def compare_outputs(compare, case_dir, out_dir):
    expected_dir = os.path.join(case_dir, "expected")
    expected = sorted(os.listdir(expected_dir))
    actual = sorted(n for n in os.listdir(out_dir) if n.startswith("out"))
    if len(actual) != len(expected):
        return "mismatch", f"{len(actual)} outputs written, PyTorch returned {len(expected)}"
    for name in expected:
        if not os.path.exists(os.path.join(out_dir, name)):
            return "mismatch", f"{name} missing"
        done = subprocess.run([compare, os.path.join("expected", name),
                               os.path.join(os.path.basename(out_dir), name)],
                              cwd=case_dir, capture_output=True, text=True, errors="replace")
        if done.returncode != 0:
            return "mismatch", f"{name}: " + comparison_summary(done.stdout or done.stderr)
    return "match", ""


def comparison_summary(report):
    """npy_compare's report in one line: what differs, and where first."""
    lines = [line.strip() for line in report.splitlines() if line.strip()]
    if not lines:
        return "npy_compare failed"
    if "values differ" not in lines[0]:
        return lines[0].split(": ", 1)[-1]
    counts = lines[-1].split(" (")[0]          # "3 of 10 elements differ"
    return f"{counts}, first {lines[1]}" if len(lines) > 2 else counts


def run_sample(op, sample, case_dir, module_name, options):
    """The record of one sample: {exported, why, ref: (kind, msg), cpu: (kind, msg)}."""
    why = export_case(op, sample, case_dir, module_name)
    if why is not None:
        return {"exported": False, "why": why}
    check = RANDOM_CHECKED.get(entry_name(op), (None, None))[1]
    record = {"exported": True,
              "ref": run_backend(options.tssa, options.compare, case_dir, "ref", check),
              "cpu": run_backend(options.tssa, options.compare, case_dir, "cpu", check)}
    if check and record["ref"][0] == record["cpu"][0] == "match" and not same_draws(case_dir):
        record["cpu"] = ("mismatch", "ref and cpu drew different numbers")
    return record


def sample_tensors(value):
    """Every tensor in a sample's input, args or kwargs (inside lists, tuples
    and dicts too)."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from sample_tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from sample_tensors(item)


def has_edge_shape(sample):
    """Whether a tensor of the sample is 0-d or has no elements: the shapes
    where a compiled kernel's loop bounds go wrong (a softmax's row of a 0-d
    tensor, an empty reduction)."""
    return any(t.dim() == 0 or t.numel() == 0
               for t in sample_tensors([sample.input, sample.args, sample.kwargs]))


def first_samples(op, dtype, count, edge_shapes_from=0):
    """The op's first `count` samples (seeded, so every run makes the same
    ones), and why the generator stopped early (None if it did not). With
    edge_shapes_from > count, every sample with an edge shape (has_edge_shape)
    among the first edge_shapes_from is taken too, in order."""
    torch.manual_seed(0)
    samples = []
    try:
        generated = op.sample_inputs("cpu", dtype, requires_grad=False)
        for i, sample in enumerate(itertools.islice(generated, max(count, edge_shapes_from))):
            if i < count or has_edge_shape(sample):
                samples.append(sample)
    except Exception as err:  # OpInfo's own generator failed
        return samples, f"sample_inputs failed: {type(err).__name__}: {first_line(err)}"
    return samples, None


def run_unit(unit):
    """Worker: every sample of one (entry index, dtype). Returns the records.
    A tssa-stream binary that cannot be started fails the whole run."""
    index, dtype, options = unit
    op = op_db[index]
    samples, failure = first_samples(op, dtype, options.samples, options.edge_shapes_from)
    base = tempfile.mkdtemp(prefix="opinfo_")
    records = []
    try:
        for i, sample in enumerate(samples):
            tag = f"{entry_name(op)}.{DTYPE_NAMES[dtype]}.{i}"
            case_dir = os.path.join(base, tag)
            module_name = "opinfo_case_" + re.sub(r"\W", "_", tag)
            records.append(run_sample(op, sample, case_dir, module_name, options))
            keep_case(case_dir, tag, options)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    if failure:
        records.append({"exported": False, "why": failure})
    return index, DTYPE_NAMES[dtype], records


def keep_case(case_dir, tag, options):
    """With --keep-cases, copies the case (and case.py next to it)."""
    if not options.keep_cases:
        return
    for suffix in ("", ".src"):
        if os.path.isdir(case_dir + suffix):
            target = os.path.join(options.keep_cases, tag + suffix)
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(case_dir + suffix, target)


def init_worker():
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")  # eager PyTorch's advice is noise here


def run_units(units, jobs):
    """Runs the units on `jobs` processes; yields (index, dtype name, records)
    as they finish, with a progress line each."""
    with multiprocessing.Pool(jobs, initializer=init_worker, maxtasksperchild=50) as pool:
        results = pool.imap_unordered(run_unit, units)
        for done in range(1, len(units) + 1):
            index, dtype, records = results.next(timeout=UNIT_TIMEOUT_S)
            counts = collections.Counter(sample_outcome(r) for r in records)
            print(f"[{done}/{len(units)}] {entry_name(op_db[index])} {dtype}: "
                  + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())), flush=True)
            yield index, dtype, records


# ------------------------------------------------------------------ verdicts

OUTCOME_ORDER = ["not-exported", "unsupported", "error", "mismatch", "match"]


def sample_outcome(record):
    """not-exported, or the worse of the two backends' results."""
    if not record["exported"]:
        return "not-exported"
    kinds = {record["ref"][0], record["cpu"][0]}
    return min(kinds, key=OUTCOME_ORDER.index)


def sample_problem(record):
    """'[ref] msg', '[cpu] msg' or '[both] msg' for a failing sample, else ''."""
    if not record["exported"]:
        return record["why"]
    ref, cpu = record["ref"], record["cpu"]
    if ref[0] == "match" and cpu[0] == "match":
        return ""
    if ref == cpu:
        return "[both] " + ref[1]
    if ref[0] != "match" and (cpu[0] == "match"
                              or OUTCOME_ORDER.index(ref[0]) <= OUTCOME_ORDER.index(cpu[0])):
        return "[ref] " + ref[1]
    return "[cpu] " + cpu[1]


REASON_KINDS = {"unknown op": "unknown op", "not supported": "unsupported feature",
                "wrong result": "wrong result", "error": "run-time error"}


def blocking_reasons(record):
    """Grouping keys of what keeps an exported sample from matching, each
    starting with a key of REASON_KINDS."""
    reasons = set()
    for backend, other in (("ref", "cpu"), ("cpu", "ref")):
        kind, message = record[backend]
        if kind == "match":
            continue
        if message.startswith("unknown op "):
            reasons.update("unknown op " + name for name in message[11:].split(", "))
        elif kind == "unsupported":
            reasons.add("not supported: " + normalize(message))
        elif kind == "mismatch":
            where = "" if record[other][0] == "mismatch" else f" on {backend} only"
            reasons.add(f"wrong result ({mismatch_kind(message)}){where}")
        else:
            reasons.add("error: " + normalize(message))
    return reasons


def reason_kind(reason):
    return next(kind for prefix, kind in REASON_KINDS.items() if reason.startswith(prefix))


def mismatch_kind(message):
    for kind in ("dtype differs", "shape differs", "outputs written", "missing"):
        if kind in message:
            return kind.replace("outputs written", "output count differs")
    return "values differ"


def normalize(message):
    """A message with its numbers and quoted details generalized, for grouping."""
    message = re.sub(r"-?\b\d+(\.\d+)?\b", "N", message)
    return message if len(message) <= 110 else message[:109] + "…"


class Entry:
    """What happened to one OpInfo entry: per dtype, its sample records."""

    def __init__(self, name):
        self.name = name
        self.by_dtype = {}

    def records(self):
        return [r for d in DTYPE_NAMES.values() for r in self.by_dtype.get(d, [])]

    def exported(self):
        return [r for r in self.records() if r["exported"]]

    def comparable(self):
        return bool(self.exported())

    def matches(self):
        return self.comparable() and all(sample_outcome(r) == "match" for r in self.exported())

    def reasons(self):
        found = set()
        for r in self.exported():
            found |= blocking_reasons(r)
        return found


# ------------------------------------------------------------------ report

def abbreviate(text, limit=90):
    text = text.replace("|", "\\|").replace("`", "'")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def dtype_row(entry, dtype):
    records = entry.by_dtype[dtype]
    counts = collections.Counter(sample_outcome(r) for r in records)
    exported = len(records) - counts["not-exported"]
    supported = exported - counts["unsupported"]
    problem = next((sample_problem(r) for r in records if sample_problem(r)), "")
    return (f"| {entry.name} | {dtype} | {len(records)} | {exported} | {supported} | "
            f"{counts['match']} | {counts['mismatch']} | {counts['error']} | "
            f"{abbreviate(problem)} |")


def entry_status(entry):
    if entry.matches():
        return "match"
    return "fail" if entry.comparable() else "not comparable"


def reason_table(entries):
    """Rows (reason, entries it appears in, entries it alone blocks, those
    entries' names), the reasons that alone block most entries first."""
    where = collections.defaultdict(list)
    alone = collections.Counter()
    for entry in entries:
        reasons = entry.reasons()
        for reason in reasons:
            where[reason].append(entry.name)
        if len(reasons) == 1:
            alone.update(reasons)
    rows = [(r, len(names), alone[r], sorted(names)) for r, names in where.items()]
    return sorted(rows, key=lambda row: (-row[2], -row[1], row[0]))


def export_table(entries):
    """Rows (export failure, samples, entries, example entries), most common first."""
    samples = collections.Counter()
    where = collections.defaultdict(set)
    for entry in entries:
        for r in entry.records():
            if not r["exported"]:
                key = normalize(r["why"])
                samples[key] += 1
                where[key].add(entry.name)
    return sorted(((k, n, len(where[k]), sorted(where[k])[:3]) for k, n in samples.items()),
                  key=lambda row: (-row[2], -row[1], row[0]))


def header(options):
    """The report's first paragraph: how it was made."""
    four = "float32, float64, int64 and bool"
    if options.ops:
        flags, what, dtypes = "--ops " + options.ops, "the `op_db` entries named", four
    elif options.quick:
        flags, what, dtypes = "--quick", "the `--quick` subset of `op_db`", "float32"
    else:
        flags, what, dtypes = "--out docs/ops.md", "every entry of `op_db`", four
    return (f"Written by `/usr/bin/python3 tests/opinfo/run_opinfo.py {flags}` "
            f"(torch {torch.__version__}): {what}, dtypes {dtypes} where the entry supports "
            f"them, the first {options.samples} samples of each"
            + (f" and those with a 0-d or empty tensor among the first {options.edge_shapes_from}"
               if options.edge_shapes_from > options.samples else "")
            + ", exported with "
            "`frontend/export.py` and run with `tssa-stream --backend=ref` and `--backend=cpu` "
            "against PyTorch's eager outputs. The docstring of `tests/opinfo/run_opinfo.py` "
            "says how a sample becomes a case and how it is classified. Do not edit by hand: "
            "rerun the script.")


def render(entries, excluded, options):
    comparable = [e for e in entries if e.comparable()]
    matching = [e for e in comparable if e.matches()]
    percent = 100.0 * len(matching) / len(comparable) if comparable else 0.0
    summary = (f"{len(matching)} of {len(comparable)} comparable op_db entries match "
               f"on ref and cpu ({percent:.1f} %)")
    lines = [
        "# Op conformance against PyTorch's OpInfo database",
        "",
        header(options),
        "",
        f"**{summary}.**",
        "",
        f"- op_db entries: {len(entries) + len(excluded)}; excluded up front: {len(excluded)}; "
        f"run: {len(entries)}",
        f"- comparable (at least one sample exported): {len(comparable)}; "
        f"not comparable: {len(entries) - len(comparable)}",
        f"- matching on both backends: {len(matching)}",
        "",
    ]
    lines += render_reasons(comparable) + render_export_failures(entries)
    lines += render_entries(entries) + render_excluded(excluded)
    return summary, "\n".join(lines) + "\n"


def render_reasons(comparable):
    rows = reason_table([e for e in comparable if not e.matches()])
    singles = sorted((row for row in rows if row[1] == 1 and row[0].startswith("unknown op ")),
                     key=lambda row: row[0])
    lines = ["## What keeps comparable entries from matching", ""]
    lines += render_blocker_kinds([e for e in comparable if not e.matches()])
    lines += ["Per reason: the failing entries where some exported sample hits it, and "
              "those where it is the only reason (fixing it alone would make them match).", "",
              "| reason | entries | only reason | for example |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {abbreviate(reason, 110)} | {n} | {alone} | {', '.join(names[:3])} |"
              for reason, n, alone, names in rows if n > 1 or not reason.startswith("unknown op ")]
    lines += ["", f"Unknown ops that each appear in one entry ({len(singles)}; the entry is "
              "in parentheses when its name differs): "
              + ", ".join(single_op(reason, names[0]) for reason, _, _, names in singles) + "."]
    return lines + [""]


def render_blocker_kinds(failing):
    """Failing entries counted by the kinds of reason that block them."""
    by_kinds = collections.Counter()
    missing_ops = collections.Counter()
    for entry in failing:
        reasons = entry.reasons()
        kinds = sorted({reason_kind(r) for r in reasons})
        by_kinds[" + ".join(kinds)] += 1
        if kinds == ["unknown op"]:
            missing_ops[min(len(reasons), 3)] += 1
    lines = [f"{len(failing)} comparable entries fail. What blocks them:", ""]
    lines += [f"- {kinds}: {n}"
              for kinds, n in sorted(by_kinds.items(), key=lambda kv: (-kv[1], kv[0]))]
    lines += ["", "Of the entries blocked by unknown ops alone, "
              f"{missing_ops[1]} lack one op, {missing_ops[2]} two and {missing_ops[3]} three "
              "or more (an inlined Python function such as `F.interpolate` puts the ops of "
              "every branch in the graph, and every op of the graph must be known).", ""]
    return lines


def single_op(reason, entry):
    op = reason[len("unknown op "):]
    same = entry.replace(".", "_").endswith(op.split("::")[-1])
    return f"`{op}`" + ("" if same else f" ({entry})")


def render_export_failures(entries):
    lines = ["## Why samples do not export", "",
             "| reason | samples | entries | for example |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {abbreviate(reason, 110)} | {n} | {m} | {', '.join(examples)} |"
              for reason, n, m, examples in export_table(entries)]
    return lines + [""]


def render_entries(entries):
    lines = ["## Per entry and dtype", "",
             "samples: run (at most the first few); exported: became a case; supported: "
             "tssa-stream did not refuse an op; match: right on both backends; first problem: "
             "of the first failing sample, [ref], [cpu] or [both] saying where.", "",
             "| entry | dtype | samples | exported | supported | match | mismatch | error "
             "| first problem |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for entry in entries:
        for dtype in DTYPE_NAMES.values():
            if dtype in entry.by_dtype:
                lines.append(dtype_row(entry, dtype))
    lines += ["", "Entries by status:", ""]
    for status in ("match", "fail", "not comparable"):
        names = [e.name for e in entries if entry_status(e) == status]
        lines.append(f"- {status} ({len(names)}): " + ", ".join(f"`{n}`" for n in names))
    return lines + [""]


def render_excluded(excluded):
    lines = ["## Excluded entries", "", "| entry | reason |", "| --- | --- |"]
    lines += [f"| {name} | {abbreviate(reason)} |" for name, reason in sorted(excluded)]
    return lines + [""]


# ------------------------------------------------------------------ main

def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="run_opinfo.py",
        description="Run PyTorch's OpInfo samples through tssa-stream (ref and cpu) "
                    "and report which ops match PyTorch.")
    parser.add_argument("--quick", action="store_true",
                        help=f"the ctest subset: {len(QUICK_OPS)} ops, first {QUICK_SAMPLES} "
                             f"samples and the 0-d or empty ones among the first {SAMPLES_PER_DTYPE}, "
                             "float32 only; checked against quick_expected.txt")
    parser.add_argument("--ops", metavar="NAME,...",
                        help="only these entries (name, or name.variant)")
    parser.add_argument("--out", metavar="FILE.md", help="write the report here (else stdout)")
    parser.add_argument("--tssa", default=os.path.join(ROOT, "build", "tssa-stream"),
                        help="the tssa-stream binary (default: build/tssa-stream)")
    parser.add_argument("--compare", default=os.path.join(ROOT, "build", "tests", "npy_compare"),
                        help="the npy_compare binary (default: build/tests/npy_compare)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--samples", type=int, default=None,
                        help=f"samples per entry and dtype (default {SAMPLES_PER_DTYPE}, "
                             f"{QUICK_SAMPLES} with --quick)")
    parser.add_argument("--edge-shapes", action="store_true",
                        help=f"also run every sample with a 0-d or empty tensor among the first "
                             f"{SAMPLES_PER_DTYPE} (always on with --quick)")
    parser.add_argument("--expect", metavar="FILE",
                        help="entries (one a line) that must match; exit 1 if one does not "
                             "(default with --quick: tests/opinfo/quick_expected.txt)")
    parser.add_argument("--keep-cases", metavar="DIR", help="copy every case directory here")
    options = parser.parse_args(argv)
    if options.samples is None:
        options.samples = QUICK_SAMPLES if options.quick else SAMPLES_PER_DTYPE
    # The quick subset's first samples are ordinary shapes; its edge-shape
    # samples among the full run's first SAMPLES_PER_DTYPE run too, so a
    # kernel that breaks only on them fails ctest, not just the full sweep.
    options.edge_shapes_from = SAMPLES_PER_DTYPE if options.quick or options.edge_shapes else 0
    if options.expect is None and options.quick:
        options.expect = os.path.join(HERE, "quick_expected.txt")
    for what in ("tssa", "compare"):
        path = getattr(options, what)
        if not os.access(path, os.X_OK):
            parser.error(f"--{what}: {path} is not an executable")
        setattr(options, what, os.path.abspath(path))
    if options.keep_cases:
        options.keep_cases = os.path.abspath(options.keep_cases)
        os.makedirs(options.keep_cases, exist_ok=True)
    return options


def selected_entries(options):
    """Indices into op_db of the entries to consider, in name order."""
    wanted = None
    if options.quick:
        wanted = set(QUICK_OPS)
    if options.ops:
        wanted = set(options.ops.split(","))
    indices = [i for i, op in enumerate(op_db)
               if wanted is None or op.name in wanted or entry_name(op) in wanted]
    found = {entry_name(op_db[i]) for i in indices} | {op_db[i].name for i in indices}
    unknown = sorted((wanted or set()) - found)
    if unknown:
        print("run_opinfo.py: error: no op_db entry named " + ", ".join(unknown), file=sys.stderr)
        sys.exit(2)
    return sorted(indices, key=lambda i: entry_name(op_db[i]))


def plan(indices, options):
    """(units to run, Entry per index, excluded (name, reason) pairs)."""
    units, entries, excluded = [], {}, []
    for index in indices:
        op = op_db[index]
        reason = exclusion(op)
        if reason is not None:
            excluded.append((entry_name(op), reason))
            continue
        entries[index] = Entry(entry_name(op))
        dtypes = [torch.float32] if options.quick else wanted_dtypes(op)
        units += [(index, dtype, options) for dtype in dtypes if dtype in wanted_dtypes(op)]
    return units, entries, excluded


def check_expectations(path, entries):
    """Names listed in `path` that no longer match; [] when all do."""
    with open(path) as f:
        wanted = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    by_name = {e.name: e for e in entries}
    return [name for name in wanted if name not in by_name or not by_name[name].matches()]


def main(argv=None):
    options = parse_args(argv)
    warnings.filterwarnings("ignore")  # eager PyTorch's advice is noise here
    started = time.monotonic()
    units, entries, excluded = plan(selected_entries(options), options)
    print(f"run_opinfo.py: {len(entries)} entries ({len(excluded)} excluded), "
          f"{len(units)} (entry, dtype) units on {options.jobs} processes", flush=True)
    for index, dtype, records in run_units(units, options.jobs):
        entries[index].by_dtype[dtype] = records
    ordered = sorted(entries.values(), key=lambda e: e.name)
    summary, text = render(ordered, excluded, options)
    if options.out:
        with open(options.out, "w") as f:
            f.write(text)
    else:
        print(text)
    print(f"run_opinfo.py: {summary}; took {time.monotonic() - started:.0f} s")
    if options.expect:
        regressed = check_expectations(options.expect, ordered)
        if regressed:
            print("run_opinfo.py: FAIL: these entries matched before and no longer do: "
                  + ", ".join(regressed), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
