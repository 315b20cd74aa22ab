#!/usr/bin/python3
"""Writes tests/tensor/torch_expected_<group>.h: cases for the tensor library's
unit tests, with the answers PyTorch gives, one header per group of cases
(unary, binary arithmetic, binary comparison/logic, and where/clamp/lerp with
promotion, views and creation). Each header is self-contained: the value
arrays its cases use, then its case tables. test_torch_cases.c includes them
all, so array names are numbered across the headers and never clash.

Run with Debian's python3-torch (1.13):  /usr/bin/python3 tests/tensor/gen_expected.py
The headers are committed; neither the build nor the tests need torch.

Each case names the C operation (a UnaryOp/BinaryOp symbol or a view op),
describes its inputs (dtype, shape, layout, values) and records PyTorch's
result: dtype, shape, strides, storage offset and values, or the first line
of the error PyTorch raises. Values are written exactly (hex floats, decimal
int64s)."""

import math
import os
import sys

import torch
import torch.nn.functional as F

OUT_DIR = os.path.dirname(os.path.abspath(__file__))

DT = {
    torch.bool: "DT_BOOL", torch.uint8: "DT_U8", torch.int8: "DT_I8", torch.int16: "DT_I16",
    torch.int32: "DT_I32", torch.int64: "DT_I64", torch.float32: "DT_F32", torch.float64: "DT_F64",
}
ALL_DTYPES = list(DT)
FLOATS = [torch.float32, torch.float64]

lines = []          # data arrays of the group being generated, emitted before its tables
counter = [0]


def fresh(prefix):
    counter[0] += 1
    return "%s_%d" % (prefix, counter[0])


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_double(v):
    v = float(v)
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return v.hex()


def c_int(v):
    v = int(v)
    if v == -2**63:
        return "INT64_MIN"
    return "%dLL" % v


array_names = {}     # array text -> name, so equal value lists are written once per header


def emit_array(ctype, prefix, body):
    key = (ctype, body)
    if key not in array_names:
        array_names[key] = fresh(prefix)
        lines.append("static const %s %s[] = {%s};" % (ctype, array_names[key], body))
    return array_names[key]


def values_array(t):
    """Row-major values of t as a C array (double or int64); returns (f, i)."""
    flat = t.detach().reshape(-1).tolist()
    if not flat:
        return "NULL", "NULL"
    if t.dtype in FLOATS:
        return emit_array("double", "f", ", ".join(c_double(v) for v in flat)), "NULL"
    return "NULL", emit_array("int64_t", "i", ", ".join(c_int(v) for v in flat))


def int_list(xs):
    return "{" + ", ".join(c_int(x) for x in xs) + "}" if xs else "{0}"


def tensor_spec(t, layout=None, wrapped=False):
    """A TestTensor initializer. layout: None (contiguous), ("perm", P): t is
    stored with its dims permuted by P, or ("step", [d, k]): t is every k-th
    element along dim d of a wider contiguous tensor."""
    f, i = values_array(t)
    kind, arg = ("contig", []) if layout is None else layout
    lay = {"contig": "LAYOUT_CONTIG", "perm": "LAYOUT_PERM", "step": "LAYOUT_STEP"}[kind]
    return "{%s, %d, %s, %s, %s, %s, %d, %s, %s}" % (
        DT[t.dtype], t.dim(), int_list(list(t.shape)), f, i, lay, len(arg), int_list(arg),
        "true" if wrapped else "false")


def make_input(values, dtype, shape, layout=None):
    """Builds the torch tensor a TestTensor spec describes (same layout)."""
    base = torch.tensor(values, dtype=dtype).reshape(shape)
    if layout is None:
        return base
    kind, arg = layout
    if kind == "perm":
        perm = arg
        inv = [perm.index(d) for d in range(len(perm))]
        return base.permute(perm).contiguous().permute(inv)
    dim, k = arg
    wide_shape = list(shape)
    wide_shape[dim] *= k
    wide = torch.zeros(wide_shape, dtype=dtype)
    view = wide.narrow(dim, 0, wide_shape[dim])[(slice(None),) * dim + (slice(None, None, k),)]
    view.copy_(base)
    return view


def result_spec(r):
    """{dtype, ndim, sizes, strides, offset, f, i}."""
    f, i = values_array(r)
    return "{%s, %d, %s, %s, %d, %s, %s}" % (
        DT[r.dtype], r.dim(), int_list(list(r.shape)), int_list(list(r.stride())),
        r.storage_offset(), f, i)


NO_RESULT = "{DT_BOOL, 0, {0}, {0}, 0, NULL, NULL}"


def run(fn):
    try:
        return fn(), None
    except Exception as e:   # PyTorch's error, first line
        return None, str(e).split("\n")[0]


def sample(dtype, shape, kind="general", seed=0):
    """Deterministic test values for a dtype."""
    n = 1
    for s in shape:
        n *= s
    g = torch.Generator().manual_seed(1000 + seed)
    if dtype == torch.bool:
        return (torch.rand(n, generator=g) > 0.5).tolist()
    if dtype == torch.uint8:
        return torch.randint(0, 256 if kind == "general" else 12, (n,), generator=g).tolist()
    if dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
        lo, hi = (-120, 120) if kind == "general" else (-9, 10)
        return torch.randint(lo, hi, (n,), generator=g).tolist()
    if kind == "positive":
        return (torch.rand(n, generator=g, dtype=torch.float64) * 5 + 0.01).tolist()
    if kind == "unit":
        return (torch.rand(n, generator=g, dtype=torch.float64) * 1.8 - 0.9).tolist()
    vals = ((torch.rand(n, generator=g, dtype=torch.float64) - 0.5) * 12).tolist()
    specials = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -3.0, 1e-3]
    for k in range(min(len(specials), n // 2)):
        vals[2 * k] = specials[k]
    return vals


# ---------------------------------------------------------------- unary

UNARY = [
    ("UN_NEG", lambda x, a, b: torch.neg(x), None),
    ("UN_ABS", lambda x, a, b: torch.abs(x), None),
    ("UN_EXP", lambda x, a, b: torch.exp(x), None),
    ("UN_LOG", lambda x, a, b: torch.log(x), "positive"),
    ("UN_LOG2", lambda x, a, b: torch.log2(x), "positive"),
    ("UN_LOG1P", lambda x, a, b: torch.log1p(x), "positive"),
    ("UN_EXPM1", lambda x, a, b: torch.expm1(x), None),
    ("UN_SQRT", lambda x, a, b: torch.sqrt(x), "positive"),
    ("UN_RSQRT", lambda x, a, b: torch.rsqrt(x), "positive"),
    ("UN_SIN", lambda x, a, b: torch.sin(x), None),
    ("UN_COS", lambda x, a, b: torch.cos(x), None),
    ("UN_TAN", lambda x, a, b: torch.tan(x), "unit"),
    ("UN_TANH", lambda x, a, b: torch.tanh(x), None),
    ("UN_ERF", lambda x, a, b: torch.erf(x), None),
    ("UN_SIGMOID", lambda x, a, b: torch.sigmoid(x), None),
    ("UN_RELU", lambda x, a, b: torch.relu(x), None),
    ("UN_RELU6", lambda x, a, b: F.relu6(x), None),
    ("UN_GELU", lambda x, a, b: F.gelu(x), None),
    ("UN_GELU_TANH", lambda x, a, b: F.gelu(x, approximate="tanh"), None),
    ("UN_SILU", lambda x, a, b: F.silu(x), None),
    ("UN_FLOOR", lambda x, a, b: torch.floor(x), None),
    ("UN_CEIL", lambda x, a, b: torch.ceil(x), None),
    ("UN_ROUND", lambda x, a, b: torch.round(x), None),
    ("UN_TRUNC", lambda x, a, b: torch.trunc(x), None),
    ("UN_SIGN", lambda x, a, b: torch.sign(x), None),
    ("UN_RECIPROCAL", lambda x, a, b: torch.reciprocal(x), "positive"),
    ("UN_LOGICAL_NOT", lambda x, a, b: torch.logical_not(x), None),
    ("UN_BITWISE_NOT", lambda x, a, b: torch.bitwise_not(x), None),
    ("UN_HARDSIGMOID", lambda x, a, b: F.hardsigmoid(x), None),
    ("UN_HARDSWISH", lambda x, a, b: F.hardswish(x), None),
    ("UN_LEAKY_RELU", lambda x, a, b: F.leaky_relu(x, a), None),
    ("UN_ELU", lambda x, a, b: F.elu(x, a), None),
    ("UN_SOFTPLUS", lambda x, a, b: F.softplus(x, a, b), None),
    ("UN_HARDTANH", lambda x, a, b: F.hardtanh(x, a, b), None),
    ("UN_ROUND_DECIMALS", lambda x, a, b: torch.round(x, decimals=int(a)), None),
]
UNARY_PARAMS = {
    "UN_LEAKY_RELU": [(0.1, 0.0), (0.01, 0.0)],
    "UN_ELU": [(1.0, 0.0), (0.5, 0.0)],
    "UN_SOFTPLUS": [(1.0, 20.0), (2.0, 3.0)],
    "UN_HARDTANH": [(-1.0, 1.0), (-2.5, 4.5), (1.0, 5.0)],
    "UN_ROUND_DECIMALS": [(1.0, 0.0), (2.0, 0.0), (-1.0, 0.0)],
}


def gen_unary():
    rows = []
    for name, fn, kind in UNARY:
        for (p0, p1) in UNARY_PARAMS.get(name, [(0.0, 0.0)]):
            for di, dtype in enumerate(ALL_DTYPES):
                shape = [2, 5] if dtype in FLOATS else [7]
                vals = sample(dtype, shape, kind or "general", seed=di)
                if name == "UN_ROUND_DECIMALS" and dtype in FLOATS:
                    vals = [v * 37.0 for v in vals]
                layout = ("perm", [1, 0]) if len(shape) == 2 else None
                x = make_input(vals, dtype, shape, layout)
                r, err = run(lambda: fn(x, p0, p1))
                rows.append("{%s, %s, %s, %s, %s, %s, %s}" % (
                    c_string("%s %s" % (name, DT[dtype])), name, c_double(p0), c_double(p1),
                    tensor_spec(x, layout), result_spec(r) if r is not None else NO_RESULT,
                    c_string(err) if err else "NULL"))
                # the in-place form
                y = make_input(vals, dtype, shape, layout)
                call = inplace_call(name, y, p0, p1)
                if call is None:
                    continue
                r, err = run(call)
                rows.append("{%s, %s, %s, %s, %s, %s, %s}" % (
                    c_string("%s_ %s" % (name, DT[dtype])), name, c_double(p0), c_double(p1),
                    tensor_spec(make_input(vals, dtype, shape, layout), layout),
                    result_spec(r) if r is not None else NO_RESULT,
                    c_string(err) if err else "NULL"))
                unary_inplace_flags.append(len(rows) - 1)
    return rows


unary_inplace_flags = []


def inplace_call(name, y, p0, p1):
    m = {
        "UN_NEG": lambda: y.neg_(), "UN_ABS": lambda: y.abs_(), "UN_EXP": lambda: y.exp_(),
        "UN_LOG": lambda: y.log_(), "UN_LOG2": lambda: y.log2_(), "UN_LOG1P": lambda: y.log1p_(),
        "UN_EXPM1": lambda: y.expm1_(), "UN_SQRT": lambda: y.sqrt_(), "UN_RSQRT": lambda: y.rsqrt_(),
        "UN_SIN": lambda: y.sin_(), "UN_COS": lambda: y.cos_(), "UN_TAN": lambda: y.tan_(),
        "UN_TANH": lambda: y.tanh_(), "UN_ERF": lambda: y.erf_(), "UN_SIGMOID": lambda: y.sigmoid_(),
        "UN_RELU": lambda: y.relu_(), "UN_SILU": lambda: F.silu(y, inplace=True),
        "UN_FLOOR": lambda: y.floor_(), "UN_CEIL": lambda: y.ceil_(), "UN_ROUND": lambda: y.round_(),
        "UN_TRUNC": lambda: y.trunc_(), "UN_SIGN": lambda: y.sign_(),
        "UN_RECIPROCAL": lambda: y.reciprocal_(), "UN_LOGICAL_NOT": lambda: y.logical_not_(),
        "UN_BITWISE_NOT": lambda: y.bitwise_not_(),
        "UN_HARDSIGMOID": lambda: F.hardsigmoid(y, inplace=True),
        "UN_HARDSWISH": lambda: F.hardswish(y, inplace=True),
        "UN_LEAKY_RELU": lambda: F.leaky_relu_(y, p0),
        "UN_ELU": lambda: F.elu_(y, p0),
        "UN_HARDTANH": lambda: F.hardtanh_(y, p0, p1),
    }
    f = m.get(name)
    if f is None:
        return None     # no in-place form in PyTorch

    def call():
        f()
        return y
    return call


# ---------------------------------------------------------------- binary

BINARY = [
    ("BIN_ADD", lambda a, b: torch.add(a, b), lambda a, b: a.add_(b)),
    ("BIN_SUB", lambda a, b: torch.sub(a, b), lambda a, b: a.sub_(b)),
    ("BIN_MUL", lambda a, b: torch.mul(a, b), lambda a, b: a.mul_(b)),
    ("BIN_DIV", lambda a, b: torch.div(a, b), lambda a, b: a.div_(b)),
    ("BIN_DIV_TRUNC", lambda a, b: torch.div(a, b, rounding_mode="trunc"),
     lambda a, b: a.div_(b, rounding_mode="trunc")),
    ("BIN_DIV_FLOOR", lambda a, b: torch.div(a, b, rounding_mode="floor"),
     lambda a, b: a.div_(b, rounding_mode="floor")),
    ("BIN_REMAINDER", torch.remainder, lambda a, b: a.remainder_(b)),
    ("BIN_FMOD", torch.fmod, lambda a, b: a.fmod_(b)),
    ("BIN_POW", torch.pow, lambda a, b: a.pow_(b)),
    ("BIN_MAXIMUM", torch.maximum, None),
    ("BIN_MINIMUM", torch.minimum, None),
    ("BIN_ATAN2", torch.atan2, lambda a, b: a.atan2_(b)),
    ("BIN_EQ", torch.eq, lambda a, b: a.eq_(b)),
    ("BIN_NE", torch.ne, lambda a, b: a.ne_(b)),
    ("BIN_LT", torch.lt, lambda a, b: a.lt_(b)),
    ("BIN_LE", torch.le, lambda a, b: a.le_(b)),
    ("BIN_GT", torch.gt, lambda a, b: a.gt_(b)),
    ("BIN_GE", torch.ge, lambda a, b: a.ge_(b)),
    ("BIN_LOGICAL_AND", torch.logical_and, lambda a, b: a.logical_and_(b)),
    ("BIN_LOGICAL_OR", torch.logical_or, lambda a, b: a.logical_or_(b)),
    ("BIN_LOGICAL_XOR", torch.logical_xor, lambda a, b: a.logical_xor_(b)),
    ("BIN_BITWISE_AND", torch.bitwise_and, lambda a, b: a.bitwise_and_(b)),
    ("BIN_BITWISE_OR", torch.bitwise_or, lambda a, b: a.bitwise_or_(b)),
    ("BIN_BITWISE_XOR", torch.bitwise_xor, lambda a, b: a.bitwise_xor_(b)),
]

# (a dtype, a shape, a layout, b: dtype/shape/layout or a Python number)
BINARY_OPERANDS = [
    (torch.float32, [2, 3], None, (torch.float32, [2, 3], None)),
    (torch.float32, [2, 3], ("perm", [1, 0]), (torch.float32, [3], None)),
    (torch.float64, [3, 2], ("step", [1, 2]), (torch.float64, [3, 1], None)),
    (torch.float32, [4], None, (torch.float64, [], None)),
    (torch.float32, [2, 3], None, (torch.int64, [2, 3], None)),
    (torch.int64, [2, 3], None, (torch.int64, [3], None)),
    (torch.int32, [5], None, (torch.int32, [5], None)),
    (torch.int16, [5], None, (torch.int16, [5], None)),
    (torch.uint8, [5], None, (torch.int8, [5], None)),
    (torch.uint8, [5], None, (torch.int8, [], None)),
    (torch.int8, [5], None, (torch.int8, [5], None)),
    (torch.bool, [4], None, (torch.bool, [4], None)),
    (torch.int32, [5], None, 3),
    (torch.int32, [5], None, 2.5),
    (torch.int8, [5], None, 300),
    (torch.float32, [5], None, 2),
    (torch.float32, [5], None, 0.5),
    (torch.float32, [5], None, -1),
    (torch.float32, [5], None, 3.0),
    (torch.bool, [4], None, 2),
    (torch.bool, [4], None, True),
    (torch.int64, [], None, (torch.int32, [3], None)),
    (torch.float64, [], None, (torch.float32, [3], None)),
    (torch.int64, [3], None, (torch.float64, [], None)),
]


def number_spec(v):
    if isinstance(v, bool):
        return tensor_spec(torch.tensor(v), wrapped=True)
    if isinstance(v, int):
        return tensor_spec(torch.tensor(v, dtype=torch.int64), wrapped=True)
    return tensor_spec(torch.tensor(v, dtype=torch.float64), wrapped=True)


def binary_values(op, dtype, shape, seed, is_b):
    kind = "small" if op in ("BIN_POW",) else "general"
    vals = sample(dtype, shape, kind, seed)
    if is_b and op in ("BIN_DIV_TRUNC", "BIN_DIV_FLOOR", "BIN_REMAINDER", "BIN_FMOD") \
            and dtype not in FLOATS:
        vals = [v if v != 0 else 3 for v in vals]   # zero divisors are tested separately
    if op == "BIN_POW" and dtype in FLOATS:
        vals = [abs(v) % 3 for v in vals] if not is_b else [v % 4 - 2 for v in vals]
    if op == "BIN_POW" and dtype not in FLOATS and dtype != torch.bool and is_b:
        vals = [abs(v) % 6 for v in vals]
    return vals


# The binary ops of each header: arithmetic (with the alpha, division by zero
# and integer power cases), and comparison, logic and bitwise ops.
BINARY_ARITH = [b for b in BINARY if b[0] in (
    "BIN_ADD", "BIN_SUB", "BIN_MUL", "BIN_DIV", "BIN_DIV_TRUNC", "BIN_DIV_FLOOR", "BIN_REMAINDER",
    "BIN_FMOD", "BIN_POW", "BIN_MAXIMUM", "BIN_MINIMUM", "BIN_ATAN2")]
BINARY_COMPARE = [b for b in BINARY if b not in BINARY_ARITH]


def gen_binary(ops, with_extra_cases):
    rows = []
    for name, fn, inplace in ops:
        for k, (adt, ashape, alay, b) in enumerate(BINARY_OPERANDS):
            avals = binary_values(name, adt, ashape, k, False)
            a = make_input(avals, adt, ashape, alay)
            if isinstance(b, tuple):
                bdt, bshape, blay = b
                bvals = binary_values(name, bdt, bshape, k + 50, True)
                bt = make_input(bvals, bdt, bshape, blay)
                bspec = tensor_spec(bt, blay)
                bpy = bt
            else:
                bspec = number_spec(b)
                bpy = b
            if name in ("BIN_MAXIMUM", "BIN_MINIMUM", "BIN_ATAN2", "BIN_LOGICAL_AND",
                        "BIN_LOGICAL_OR", "BIN_LOGICAL_XOR") and not isinstance(bpy, torch.Tensor):
                continue    # these take tensors only
            r, err = run(lambda: fn(a, bpy))
            rows.append("{%s, %s, 1.0, false, %s, %s, %s, %s}" % (
                c_string("%s case %d" % (name, k)), name, tensor_spec(a, alay), bspec,
                result_spec(r) if r is not None else NO_RESULT, c_string(err) if err else "NULL"))
            if inplace is None:
                continue
            a2 = make_input(avals, adt, ashape, alay)
            r, err = run(lambda: inplace(a2, bpy))
            rows.append("{%s, %s, 1.0, true, %s, %s, %s, %s}" % (
                c_string("%s_ case %d" % (name, k)), name, tensor_spec(a, alay), bspec,
                result_spec(r) if r is not None else NO_RESULT, c_string(err) if err else "NULL"))
    if not with_extra_cases:
        return rows
    # add/sub with alpha, integer division by zero, negative integer powers
    extra = [
        ("BIN_ADD", torch.tensor([1.5, -2.0, 3.25]), torch.tensor([2.0, 0.5, -1.0]), 2.5),
        ("BIN_SUB", torch.tensor([1.5, -2.0, 3.25]), torch.tensor([2.0, 0.5, -1.0]), -0.5),
        ("BIN_ADD", torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]), 3),
        ("BIN_SUB", torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]), 2),
        ("BIN_ADD", torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]), 2.5),
        ("BIN_ADD", torch.tensor([True, False]), torch.tensor([True, False]), 1),
    ]
    for name, a, b, alpha in extra:
        f = torch.add if name == "BIN_ADD" else torch.sub
        r, err = run(lambda: f(a, b, alpha=alpha))
        rows.append("{%s, %s, %s, false, %s, %s, %s, %s}" % (
            c_string("%s alpha %s" % (name, alpha)), name, c_double(alpha), tensor_spec(a),
            tensor_spec(b), result_spec(r) if r is not None else NO_RESULT,
            c_string(err) if err else "NULL"))
    for name, fn in [("BIN_DIV_TRUNC", lambda a, b: torch.div(a, b, rounding_mode="trunc")),
                     ("BIN_DIV_FLOOR", lambda a, b: torch.div(a, b, rounding_mode="floor")),
                     ("BIN_REMAINDER", torch.remainder), ("BIN_FMOD", torch.fmod),
                     ("BIN_DIV", torch.div)]:
        for a, b in [(torch.tensor([7, -7, 1]), torch.tensor([2, 0, 1])),
                     (torch.tensor([7.0, -7.0, 0.0, 5.5]), torch.tensor([0.0, 0.0, 0.0, -0.0]))]:
            r, err = run(lambda: fn(a, b))
            rows.append("{%s, %s, 1.0, false, %s, %s, %s, %s}" % (
                c_string("%s by zero %s" % (name, DT[a.dtype])), name, tensor_spec(a),
                tensor_spec(b), result_spec(r) if r is not None else NO_RESULT,
                c_string(err) if err else "NULL"))
    pows = [(torch.tensor([2, 3, -1, 1]), -1), (torch.tensor([1, -1, 2, 0]), torch.tensor([-1, -3, -2, 5])),
            (torch.tensor([-3, 3]), 41), (torch.tensor([2, 3], dtype=torch.int8), 7),
            (torch.tensor([2.0, 4.0, 0.25]), 0.5), (torch.tensor([2.0, 4.0, 0.25]), -0.5),
            (torch.tensor([2.0, 4.0, 0.25]), -2), (torch.tensor([2.0, 4.0, 0.25]), 1.7)]
    for a, b in pows:
        r, err = run(lambda: torch.pow(a, b))
        bspec = tensor_spec(b) if isinstance(b, torch.Tensor) else number_spec(b)
        rows.append("{%s, BIN_POW, 1.0, false, %s, %s, %s, %s}" % (
            c_string("pow %s" % (b if not isinstance(b, torch.Tensor) else "tensor")),
            tensor_spec(a), bspec, result_spec(r) if r is not None else NO_RESULT,
            c_string(err) if err else "NULL"))
    return rows


# ---------------------------------------------------------------- where, clamp, lerp

def gen_ternary():
    rows = []

    def add(label, kind, ins, fn, inplace=False):
        r, err = run(fn)
        specs = []
        for x in ins:
            if x is None:
                specs.append("{DT_BOOL, -1, {0}, NULL, NULL, LAYOUT_CONTIG, 0, {0}, false}")
            elif isinstance(x, tuple):
                specs.append(tensor_spec(x[0], x[1]))
            elif isinstance(x, torch.Tensor):
                specs.append(tensor_spec(x))
            else:
                specs.append(number_spec(x))
        rows.append("{%s, %s, %s, {%s}, %s, %s}" % (
            c_string(label), kind, "true" if inplace else "false", ", ".join(specs),
            result_spec(r) if r is not None else NO_RESULT, c_string(err) if err else "NULL"))

    cond = torch.tensor([[True, False, True], [False, False, True]])
    xf = torch.tensor([[1.5, -2.0, 3.0], [4.0, -5.5, 6.0]])
    xi = torch.tensor([[1, -2, 3], [4, -5, 6]], dtype=torch.int32)
    add("where f32 f32", "T_WHERE", [cond, xf, xf * 2], lambda: torch.where(cond, xf, xf * 2))
    add("where int32 number", "T_WHERE", [cond, xi, 2.5], lambda: torch.where(cond, xi, 2.5))
    add("where int32 int", "T_WHERE", [cond, xi, 7], lambda: torch.where(cond, xi, 7))
    add("where broadcast", "T_WHERE", [cond[0], xf, torch.tensor([9.0, 8.0], dtype=torch.float64).view(2, 1)],
        lambda: torch.where(cond[0], xf, torch.tensor([9.0, 8.0], dtype=torch.float64).view(2, 1)))
    ct = cond.t()
    add("where transposed", "T_WHERE", [(ct, ("perm", [1, 0])), (xf.t().contiguous().t(), ("perm", [1, 0])), 0.0],
        lambda: torch.where(ct, xf.t().contiguous().t(), 0.0))
    add("where long cond", "T_WHERE", [xi.long(), xf, xf], lambda: torch.where(xi.long(), xf, xf))
    add("where mismatch", "T_WHERE", [cond, xf, torch.zeros(4)], lambda: torch.where(cond, xf, torch.zeros(4)))

    v = torch.tensor([-3.0, -0.5, 0.0, 0.7, 2.0, float("nan"), 9.0])
    vi = torch.tensor([-3, -1, 0, 1, 2, 5, 9])
    add("clamp f32 both", "T_CLAMP", [v, -1.0, 2.0], lambda: torch.clamp(v, -1.0, 2.0))
    add("clamp f32 min", "T_CLAMP", [v, 0.5, None], lambda: torch.clamp(v, min=0.5))
    add("clamp f32 max", "T_CLAMP", [v, None, 0.5], lambda: torch.clamp(v, max=0.5))
    add("clamp f32 min>max", "T_CLAMP", [v, 2.0, 1.0], lambda: torch.clamp(v, 2.0, 1.0))
    add("clamp f32 nan min", "T_CLAMP", [v, float("nan"), None], lambda: torch.clamp(v, min=float("nan")))
    add("clamp f32 nan both", "T_CLAMP", [v, float("nan"), 1.0], lambda: torch.clamp(v, float("nan"), 1.0))
    add("clamp int int", "T_CLAMP", [vi, -1, 3], lambda: torch.clamp(vi, -1, 3))
    add("clamp int float", "T_CLAMP", [vi, -1.5, None], lambda: torch.clamp(vi, min=-1.5))
    add("clamp none", "T_CLAMP", [vi, None, None], lambda: torch.clamp(vi))
    tmin = torch.tensor([[0.0], [1.0], [float("nan")]])
    add("clamp tensor min", "T_CLAMP", [v, tmin, None], lambda: torch.clamp(v, min=tmin))
    tmax = torch.tensor(1.5, dtype=torch.float64)
    add("clamp tensor both", "T_CLAMP", [vi, torch.tensor(-2, dtype=torch.int32), tmax],
        lambda: torch.clamp(vi, torch.tensor(-2, dtype=torch.int32), tmax))
    add("clamp_ int float", "T_CLAMP", [vi.clone(), 0.5, None], lambda: vi.clone().clamp_(min=0.5), True)
    add("clamp_ int int", "T_CLAMP", [vi.clone(), 0, 4], lambda: vi.clone().clamp_(0, 4), True)
    add("clamp_ f32", "T_CLAMP", [v.clone(), -1.0, 1.0], lambda: v.clone().clamp_(-1.0, 1.0), True)
    add("clamp_ tensor", "T_CLAMP", [v.clone(), torch.zeros(7), None],
        lambda: v.clone().clamp_(min=torch.zeros(7)), True)
    add("clamp_ tensor float into long", "T_CLAMP", [vi.clone(), torch.tensor(2.0), None],
        lambda: vi.clone().clamp_(min=torch.tensor(2.0)), True)
    add("clamp_ broadcast out", "T_CLAMP", [vi.clone(), torch.zeros(2, 7, dtype=torch.int64), None],
        lambda: vi.clone().clamp_(min=torch.zeros(2, 7, dtype=torch.int64)), True)

    s = torch.tensor([1.0, -2.0, 3.5, 100.0])
    e = torch.tensor([3.0, 5.0, -1.0, 100.5])
    w = torch.tensor([0.0, 0.25, 0.75, 1.0])
    add("lerp scalar small", "T_LERP", [s, e, 0.3], lambda: torch.lerp(s, e, 0.3))
    add("lerp scalar large", "T_LERP", [s, e, 0.8], lambda: torch.lerp(s, e, 0.8))
    add("lerp tensor", "T_LERP", [s, e, w], lambda: torch.lerp(s, e, w))
    add("lerp f64", "T_LERP", [s.double(), e.double(), 1.0], lambda: torch.lerp(s.double(), e.double(), 1.0))
    add("lerp broadcast", "T_LERP", [s.view(4, 1), e, 0.5], lambda: torch.lerp(s.view(4, 1), e, 0.5))
    add("lerp dtype", "T_LERP", [s, e.double(), 0.5], lambda: torch.lerp(s, e.double(), 0.5))
    add("lerp weight dtype", "T_LERP", [s, e, w.double()], lambda: torch.lerp(s, e, w.double()))
    add("lerp int", "T_LERP", [vi[:4], vi[:4], 0.5], lambda: torch.lerp(vi[:4], vi[:4], 0.5))
    return rows


# ---------------------------------------------------------------- promotion

def gen_promotion():
    rows = []
    for da in ALL_DTYPES:
        for db in ALL_DTYPES:
            for dim_a, dim_b in [(1, 1), (1, 0), (0, 1), (0, 0)]:
                a = torch.zeros([2] if dim_a else [], dtype=da)
                b = torch.zeros([2] if dim_b else [], dtype=db)
                r = torch.result_type(a, b)
                rows.append("{%s, %d, false, %s, %d, false, %s}" % (DT[da], dim_a, DT[db], dim_b, DT[r]))
        for number, ndt in [(2, "DT_I64"), (2.5, "DT_F64"), (True, "DT_BOOL")]:
            for dim in (1, 0):
                a = torch.zeros([2] if dim else [], dtype=da)
                r = torch.result_type(a, number)
                rows.append("{%s, %d, false, %s, 0, true, %s}" % (DT[da], dim, ndt, DT[r]))
    return rows


# ---------------------------------------------------------------- views

def gen_views():
    rows = []

    def add(label, op, shape, layout, args, fn):
        vals = list(range(1, 1 + int(torch.tensor(shape).prod().item() if shape else 1)))
        x = make_input(vals, torch.float32, shape, layout)
        r, err = run(lambda: fn(x))
        results = []
        aliases = []
        if r is not None:
            outs = list(r) if isinstance(r, (list, tuple)) else [r]
            for o in outs:
                results.append(result_spec(o))
                aliases.append("true" if o.storage().data_ptr() == x.storage().data_ptr() else "false")
        name = fresh("view_results")
        if results:
            lines.append("static const TestResult %s[] = {%s};" % (name, ", ".join(results)))
            alias_name = fresh("view_alias")
            lines.append("static const bool %s[] = {%s};" % (alias_name, ", ".join(aliases)))
        else:
            name = alias_name = "NULL"
        rows.append("{%s, %s, %s, %s, %d, %d, %s, %s, %s}" % (
            c_string(label), op, tensor_spec(x, layout), int_list(args), len(args),
            len(results), name, alias_name, c_string(err) if err else "NULL"))

    S = [2, 3, 4]
    T = ("perm", [0, 2, 1])     # x.transpose(1, 2) layout for shape S
    for lay in (None, T, ("step", [2, 2])):
        lt = "" if lay is None else " " + lay[0]
        add("select" + lt, "V_SELECT", S, lay, [1, -1], lambda x: x.select(1, -1))
        add("select oob" + lt, "V_SELECT", S, lay, [1, 3], lambda x: x.select(1, 3))
        add("select dim" + lt, "V_SELECT", S, lay, [-4, 0], lambda x: x.select(-4, 0))
        add("slice" + lt, "V_SLICE", S, lay, [2, 1, 3, 1], lambda x: x[:, :, 1:3])
        add("slice neg" + lt, "V_SLICE", S, lay, [1, -2, 2**63 - 1, 1], lambda x: x[:, -2:])
        add("slice clamp" + lt, "V_SLICE", S, lay, [2, -10, 10, 2], lambda x: x[:, :, -10:10:2])
        add("slice empty" + lt, "V_SLICE", S, lay, [0, 5, 1, 1], lambda x: x[5:1])
        # (a step near INT64_MAX overflows inside PyTorch; here it gives one element)
        add("slice big step" + lt, "V_SLICE", S, lay, [2, 1, 2**31, 2**31], lambda x: x[:, :, 1:2**31:2**31])
        add("slice step 0" + lt, "V_SLICE", S, lay, [0, 0, 1, 0], lambda x: torch.ops.aten.slice(x, 0, 0, 1, 0))
        add("narrow" + lt, "V_NARROW", S, lay, [2, -3, 2], lambda x: x.narrow(2, -3, 2))
        add("narrow end" + lt, "V_NARROW", S, lay, [2, 4, 0], lambda x: x.narrow(2, 4, 0))
        add("narrow bad" + lt, "V_NARROW", S, lay, [2, 3, 2], lambda x: x.narrow(2, 3, 2))
        add("narrow neg len" + lt, "V_NARROW", S, lay, [2, 1, -1], lambda x: x.narrow(2, 1, -1))
        for shp in ([6, 4], [4, -1], [2, 12], [24], [2, 3, 2, 2], [-1, 6], [3, 8], [-1, -1], [5, -1], [2, -2, 6], [1, 24, 1]):
            add("view %s%s" % (shp, lt), "V_VIEW", S, lay, shp, lambda x, s=shp: x.view(s))
            add("reshape %s%s" % (shp, lt), "V_RESHAPE", S, lay, shp, lambda x, s=shp: x.reshape(s))
        add("squeeze" + lt, "V_SQUEEZE", S, lay, [], lambda x: x.squeeze())
        add("unsqueeze 1" + lt, "V_UNSQUEEZE", S, lay, [1], lambda x: x.unsqueeze(1))
        add("unsqueeze -1" + lt, "V_UNSQUEEZE", S, lay, [-1], lambda x: x.unsqueeze(-1))
        add("unsqueeze 4" + lt, "V_UNSQUEEZE", S, lay, [4], lambda x: x.unsqueeze(4))
        add("expand" + lt, "V_EXPAND", S, lay, [5, -1, 3, 4], lambda x: x.expand(5, -1, 3, 4))
        add("expand bad" + lt, "V_EXPAND", S, lay, [2, 5, 4], lambda x: x.expand(2, 5, 4))
        add("expand few" + lt, "V_EXPAND", S, lay, [3, 4], lambda x: x.expand(3, 4))
        add("permute" + lt, "V_PERMUTE", S, lay, [2, 0, 1], lambda x: x.permute(2, 0, 1))
        add("permute neg" + lt, "V_PERMUTE", S, lay, [-1, 0, 1], lambda x: x.permute(-1, 0, 1))
        add("permute dup" + lt, "V_PERMUTE", S, lay, [2, 0, 2], lambda x: x.permute(2, 0, 2))
        add("permute short" + lt, "V_PERMUTE", S, lay, [1, 0], lambda x: x.permute(1, 0))
        add("transpose" + lt, "V_TRANSPOSE", S, lay, [0, -1], lambda x: x.transpose(0, -1))
        add("t 3d" + lt, "V_T", S, lay, [], lambda x: x.t())
        add("diagonal" + lt, "V_DIAGONAL", S, lay, [0, 0, 1], lambda x: x.diagonal(0, 0, 1))
        add("diagonal off" + lt, "V_DIAGONAL", S, lay, [1, 1, 2], lambda x: x.diagonal(1, 1, 2))
        add("diagonal neg" + lt, "V_DIAGONAL", S, lay, [-1, 2, 1], lambda x: x.diagonal(-1, 2, 1))
        add("diagonal empty" + lt, "V_DIAGONAL", S, lay, [7, 1, 2], lambda x: x.diagonal(7, 1, 2))
        add("diagonal same" + lt, "V_DIAGONAL", S, lay, [0, 1, -2], lambda x: x.diagonal(0, 1, -2))
        add("flatten" + lt, "V_FLATTEN", S, lay, [0, -1], lambda x: x.flatten())
        add("flatten 1" + lt, "V_FLATTEN", S, lay, [1, 2], lambda x: x.flatten(1))
        add("flatten 0 1" + lt, "V_FLATTEN", S, lay, [0, 1], lambda x: x.flatten(0, 1))
        add("flatten same" + lt, "V_FLATTEN", S, lay, [1, 1], lambda x: x.flatten(1, 1))
        add("flatten bad" + lt, "V_FLATTEN", S, lay, [2, 1], lambda x: x.flatten(2, 1))
        add("unflatten" + lt, "V_UNFLATTEN", S, lay, [2, 2, -1], lambda x: x.unflatten(2, (2, -1)))
        add("unflatten bad" + lt, "V_UNFLATTEN", S, lay, [1, 2, 2], lambda x: x.unflatten(1, (2, 2)))
        add("movedim" + lt, "V_MOVEDIM", S, lay, [0, 2], lambda x: x.movedim(0, 2))
        add("movedim neg" + lt, "V_MOVEDIM", S, lay, [-1, 0], lambda x: x.movedim(-1, 0))
        add("chunk" + lt, "V_CHUNK", S, lay, [3, 2], lambda x: x.chunk(3, 2))
        add("chunk 2" + lt, "V_CHUNK", S, lay, [2, 1], lambda x: x.chunk(2, 1))
        add("chunk 0" + lt, "V_CHUNK", S, lay, [0, 1], lambda x: x.chunk(0, 1))
        add("split" + lt, "V_SPLIT", S, lay, [3, 2], lambda x: x.split(3, 2))
        add("split big" + lt, "V_SPLIT", S, lay, [10, 1], lambda x: x.split(10, 1))
        add("split 0" + lt, "V_SPLIT", S, lay, [0, 1], lambda x: x.split(0, 1))
        add("split sizes" + lt, "V_SPLIT_SIZES", S, lay, [2, 1, 3], lambda x: x.split([1, 3], 2))
        add("split sizes bad" + lt, "V_SPLIT_SIZES", S, lay, [2, 1, 2], lambda x: x.split([1, 2], 2))
        add("unbind" + lt, "V_UNBIND", S, lay, [1], lambda x: x.unbind(1))
        add("unbind neg" + lt, "V_UNBIND", S, lay, [-1], lambda x: x.unbind(-1))
    # shapes with size-1 and size-0 dims
    add("squeeze ones", "V_SQUEEZE", [1, 3, 1], None, [], lambda x: x.squeeze())
    add("squeeze dim", "V_SQUEEZE_DIM", [1, 3, 1], None, [-1], lambda x: x.squeeze(-1))
    add("squeeze dim keep", "V_SQUEEZE_DIM", [1, 3, 1], None, [1], lambda x: x.squeeze(1))
    add("squeeze dim oob", "V_SQUEEZE_DIM", [1, 3, 1], None, [3], lambda x: x.squeeze(3))
    add("squeeze 0d", "V_SQUEEZE_DIM", [], None, [-1], lambda x: x.squeeze(-1))
    add("unsqueeze 0d", "V_UNSQUEEZE", [], None, [0], lambda x: x.unsqueeze(0))
    add("expand 0d", "V_EXPAND", [], None, [2, 3], lambda x: x.expand(2, 3))
    add("expand new 1", "V_EXPAND", [3], None, [2, 1, 3], lambda x: x.expand(2, 1, 3))
    add("expand col", "V_EXPAND", [3, 1], None, [3, 4], lambda x: x.expand(3, 4))
    add("expand leading -1", "V_EXPAND", [3, 1], None, [-1, 3, 4], lambda x: x.expand(-1, 3, 4))
    add("view 0d", "V_VIEW", [], None, [1, 1], lambda x: x.view(1, 1))
    add("view to 0d", "V_VIEW", [1], None, [], lambda x: x.view([]))
    add("t 1d", "V_T", [3], None, [], lambda x: x.t())
    add("t 2d", "V_T", [2, 3], None, [], lambda x: x.t())
    add("flatten 0d", "V_FLATTEN", [], None, [0, -1], lambda x: x.flatten())
    add("select 0d", "V_SELECT", [], None, [0, 0], lambda x: x.select(0, 0))
    add("unbind 0d", "V_UNBIND", [], None, [0], lambda x: x.unbind(0))
    add("chunk uneven", "V_CHUNK", [5], None, [4, 0], lambda x: x.chunk(4))
    add("chunk 6 by 4", "V_CHUNK", [6], None, [4, 0], lambda x: x.chunk(4))
    add("chunk empty", "V_CHUNK", [0], None, [3, 0], lambda x: x.chunk(3))
    add("split empty", "V_SPLIT", [0], None, [0, 0], lambda x: x.split(0))
    add("view stride chunks", "V_VIEW", [2, 1, 2], ("step", [0, 2]), [2, 2], lambda x: x.view(2, 2))
    add("view stride split", "V_VIEW", [2, 2], ("step", [0, 2]), [4], lambda x: x.view(4))
    add("view stride ones", "V_VIEW", [2, 2], ("step", [0, 2]), [2, 1, 2], lambda x: x.view(2, 1, 2))
    add("view inner step", "V_VIEW", [2, 3, 2], ("step", [2, 2]), [6, 2], lambda x: x.view(6, 2))
    add("view inner step bad", "V_VIEW", [2, 3, 2], ("step", [2, 2]), [2, 6], lambda x: x.view(2, 6))
    add("view empty", "V_VIEW", [0, 3], None, [3, -1], lambda x: x.view(3, -1))
    add("view empty ambiguous", "V_VIEW", [0, 3], None, [0, -1], lambda x: x.view(0, -1))
    add("view empty shape", "V_VIEW", [2, 0, 4], ("perm", [2, 1, 0]), [4, 0, 2], lambda x: x.view(4, 0, 2))
    add("view 4d perm", "V_VIEW", [2, 3, 4, 5], ("perm", [0, 2, 3, 1]), [2, 3, 20], lambda x: x.view(2, 3, 20))
    add("reshape 4d perm", "V_RESHAPE", [2, 3, 4, 5], ("perm", [0, 2, 3, 1]), [6, 20], lambda x: x.reshape(6, 20))
    return rows


# ---------------------------------------------------------------- creation

def gen_creation():
    rows = []

    def add(label, kind, args, dtype, fn):
        r, err = run(fn)
        rows.append("{%s, %s, {%s}, %s, %s, %s}" % (
            c_string(label), kind, ", ".join(c_double(a) for a in args), DT[dtype],
            result_spec(r) if r is not None else NO_RESULT, c_string(err) if err else "NULL"))

    for (s, e, st, dt) in [(0, 5, 1, torch.int64), (0, 1, 0.1, torch.float32), (0, 1, 0.1, torch.float64),
                           (0, 5, 1.5, torch.int32), (0, 5, 0.5, torch.int64), (0.5, 5, 1, torch.int64),
                           (5, 0, -1.5, torch.float32), (0, 1000, 100, torch.int8), (5, 0, 1, torch.float32),
                           (0, 10, 0, torch.float32), (-1, 2.5, 0.5, torch.uint8), (-3, 3, 0.7, torch.float32),
                           (0, float("inf"), 1, torch.float32)]:
        add("arange %s %s %s %s" % (s, e, st, DT[dt]), "C_ARANGE", [s, e, st], dt,
            lambda: torch.arange(s, e, st, dtype=dt))
    for (s, e, n, dt) in [(0, 10, 4, torch.int64), (0, 1, 7, torch.float32), (-3, 10, 5, torch.int32),
                          (0, 1, 1, torch.float32), (0, 1, 0, torch.float32), (0, 1, -1, torch.float32),
                          (-2.5, 7.25, 9, torch.float64), (1, -1, 6, torch.float32), (0, 1000, 5, torch.int8)]:
        add("linspace %s %s %s %s" % (s, e, n, DT[dt]), "C_LINSPACE", [s, e, n], dt,
            lambda: torch.linspace(s, e, n, dtype=dt))
    for (n, m, dt) in [(3, 3, torch.float32), (2, 4, torch.int64), (4, 2, torch.bool), (0, 0, torch.float32),
                       (-1, 2, torch.float32), (2, -2, torch.float32)]:
        add("eye %d %d %s" % (n, m, DT[dt]), "C_EYE", [n, m], dt, lambda: torch.eye(n, m, dtype=dt))
    return rows


def table(ctype, name, rows):
    return "\nstatic const %s %s[] = {\n    %s\n};\n" % (ctype, name, ",\n    ".join(rows))


def write_header(group, what, generate):
    """Runs generate() (which returns the header's table text) with fresh
    value arrays, and writes torch_expected_<group>.h."""
    lines.clear()
    array_names.clear()
    tables = generate()
    path = os.path.join(OUT_DIR, "torch_expected_%s.h" % group)
    guard = "TSSA_TEST_TORCH_EXPECTED_%s_H" % group.upper()
    with open(path, "w") as f:
        f.write("/* torch_expected_%s.h — %s.\n"
                " * GENERATED by tests/tensor/gen_expected.py with PyTorch %s.\n"
                " * Do not edit; rerun the script. Types are in tests/tensor/torch_cases.h. */\n"
                % (group, what, torch.__version__))
        f.write("#ifndef %s\n#define %s\n\n" % (guard, guard))
        f.write("#include \"tensor/torch_cases.h\"\n\n")
        for line in lines:
            f.write(line + "\n")
        f.write(tables)
        f.write("\n#endif\n")
    return path


def main():
    torch.set_default_dtype(torch.float32)
    counts = {}

    def unary():
        rows = gen_unary()
        counts["unary"] = len(rows)
        return table("UnaryCase", "unary_cases", rows) + "static const bool unary_case_inplace[] = {%s};\n" % (
            ", ".join("true" if i in set(unary_inplace_flags) else "false" for i in range(len(rows))))

    def binary(ops, with_extra_cases, name):
        def generate():
            rows = gen_binary(ops, with_extra_cases)
            counts[name] = len(rows)
            return table("BinaryCase", name, rows)
        return generate

    def others():
        ternary, promotion, views, creation = gen_ternary(), gen_promotion(), gen_views(), gen_creation()
        counts.update(ternary=len(ternary), promotion=len(promotion), view=len(views), creation=len(creation))
        return (table("TernaryCase", "ternary_cases", ternary) + table("PromotionCase", "promotion_cases", promotion)
                + table("ViewCase", "view_cases", views) + table("CreationCase", "creation_cases", creation))

    paths = [
        write_header("unary", "unary ops, out of place and in place", unary),
        write_header("binary_arith", "binary arithmetic: + - * /, division modes, remainder, fmod, pow, "
                     "maximum, minimum, atan2", binary(BINARY_ARITH, True, "binary_arith_cases")),
        write_header("binary_compare", "binary comparison, logical and bitwise ops",
                     binary(BINARY_COMPARE, False, "binary_compare_cases")),
        write_header("shapes", "where/clamp/lerp, result_type promotion, views and range constructors", others),
    ]
    print("wrote %s: %s cases" % (", ".join(os.path.basename(p) for p in paths),
                                   ", ".join("%d %s" % (n, k) for k, n in counts.items())))


if __name__ == "__main__":
    sys.exit(main())
