"""inplace_rows.py — one case for every in-place variant of an op the op table
lists (the hand-listed twins of ops.h and those ir/gen_inplace_ops.py
derives into ops_inplace.inc), imported by gen_ops.py.

The variants are enumerated, not listed: every aten::<name>_ that PyTorch's
registry (torch._C._jit_get_all_schemas()) has, for a <name> the table lists,
where the table lists <name>_ too. CALLS says how to call each one; a
variant without an entry stops the generator, so a new derived twin cannot
go untested.

Each case, <name>_inplace__through_alias, makes a fresh tensor (a clone of
the input), takes an alias of it before the write (a view of its first
row, or a view of the whole of a 1-D tensor), applies the in-place op and
returns the op's result, the tensor and the alias:

    a = x.clone()
    v = a[0]             (a.view(a.size()) for a 1-D self)
    r = a.<name>_(args)
    return r, a, v

A data-writing op (add_, tril_) shows its result through all three; a
metadata op (squeeze_, t_, as_strided_) changes the shape of r and a but
not of v, which still reads the data unchanged.
"""

import torch

from op_rows import B, E, F, F64, L, POS, R, T

FAMILY = "inplace"


def UNIT(*shape):
    """float32 in (-0.9, 0.9): for acos, asin, atanh, erfinv."""
    return lambda: torch.rand(*shape) * 1.8 - 0.9


def OPEN01(*shape):
    """float32 in (0.05, 0.95): for logit."""
    return lambda: torch.rand(*shape) * 0.9 + 0.05


def GE1(*shape):
    """float32 in [1.5, 3.5): for acosh."""
    return lambda: torch.rand(*shape) * 2.0 + 1.5


def POS64(*shape):
    """float64 in [0.5, 2.5)."""
    return lambda: torch.rand(*shape, dtype=torch.float64) * 2.0 + 0.5


# name -> (self, arguments after self, the other inputs). The other inputs
# are the function's parameters after x, in the order given.
UNARY = ("abs asin acos atan asinh ceil conj_physical cos cosh deg2rad detach erf erfc exp exp2 expm1 "
         "floor frac gelu hardsigmoid hardswish i0 mish neg rad2deg relu relu6 round selu sgn sigmoid "
         "sign silu sin sinc sinh square tan tanh trunc").split()
CALLS = {name: (F(2, 3), "", {}) for name in UNARY}
CALLS.update({
    "asin": (UNIT(2, 3), "", {}),
    "acos": (UNIT(2, 3), "", {}),
    "atanh": (UNIT(2, 3), "", {}),
    "erfinv": (UNIT(2, 3), "", {}),
    "acosh": (GE1(2, 3), "", {}),
    "logit": (OPEN01(2, 3), "", {}),
    "log": (POS(2, 3), "", {}),
    "log10": (POS(2, 3), "", {}),
    "log1p": (POS(2, 3), "", {}),
    "log2": (POS(2, 3), "", {}),
    "sqrt": (POS(2, 3), "", {}),
    "rsqrt": (POS(2, 3), "", {}),
    "reciprocal": (POS(2, 3), "", {}),
    "lgamma": (POS(2, 3), "", {}),
    "digamma": (POS(2, 3), "", {}),
    "mvlgamma": (POS(2, 3), "1", {}),
    "polygamma": (POS(2, 3), "1", {}),
    "celu": (F(2, 3), "0.5", {}),
    "elu": (F(2, 3), "0.5", {}),
    "hardtanh": (F(2, 3), "-0.5, 0.5", {}),
    "leaky_relu": (F(2, 3), "0.2", {}),
    "threshold": (F(2, 3), "0.1, 20.0", {}),
    "clamp": (F(2, 3), "-0.5, 0.5", {}),
    "clamp_max": (F(2, 3), "0.25", {}),
    "clamp_min": (F(2, 3), "0.25", {}),
    "nan_to_num": (T([[float("nan"), 1.5, float("inf")], [-float("inf"), -2.0, 0.5]]), "0.0, 9.0, -9.0", {}),
    "add": (F(2, 3), "y, alpha=2", {"y": F(2, 3)}),
    "sub": (F(2, 3), "y, alpha=0.5", {"y": F(3)}),
    "mul": (F(2, 3), "y", {"y": F(2, 3)}),
    "div": (F(2, 3), "y", {"y": POS(2, 3)}),
    "floor_divide": (F(2, 3), "y", {"y": POS(2, 3)}),
    "remainder": (F(2, 3), "y", {"y": POS(2, 3)}),
    "fmod": (F(2, 3), "y", {"y": POS(2, 3)}),
    "pow": (POS(2, 3), "y", {"y": F(2, 3)}),
    "float_power": (POS64(2, 3), "y", {"y": F64(2, 3)}),
    "atan2": (F(2, 3), "y", {"y": F(2, 3)}),
    "copysign": (F(2, 3), "y", {"y": F(2, 3)}),
    "hypot": (F(2, 3), "y", {"y": F(2, 3)}),
    "nextafter": (F(2, 3), "y", {"y": F(2, 3)}),
    "heaviside": (F(2, 3), "y", {"y": F(2, 3)}),
    "xlogy": (F(2, 3), "y", {"y": POS(2, 3)}),
    "igamma": (POS(2, 3), "y", {"y": POS(2, 3)}),
    "igammac": (POS(2, 3), "y", {"y": POS(2, 3)}),
    "ldexp": (F(2, 3), "y", {"y": L(2, 3, low=0, high=3)}),
    "lerp": (F(2, 3), "y, 0.25", {"y": F(2, 3)}),
    "eq": (F(2, 3), "y", {"y": F(2, 3)}),
    "ne": (F(2, 3), "0.0", {}),
    "lt": (F(2, 3), "y", {"y": F(2, 3)}),
    "le": (F(2, 3), "y", {"y": F(3)}),
    "gt": (F(2, 3), "0.0", {}),
    "ge": (F(2, 3), "y", {"y": F(2, 3)}),
    "logical_and": (F(2, 3), "y", {"y": B(2, 3)}),
    "logical_or": (F(2, 3), "y", {"y": B(2, 3)}),
    "logical_xor": (F(2, 3), "y", {"y": B(2, 3)}),
    "logical_not": (B(2, 3), "", {}),
    "bitwise_and": (L(2, 3), "y", {"y": L(2, 3)}),
    "bitwise_or": (L(2, 3), "y", {"y": L(2, 3)}),
    "bitwise_xor": (L(2, 3), "3", {}),
    "bitwise_not": (L(2, 3), "", {}),
    "bitwise_left_shift": (L(2, 3), "y", {"y": L(2, 3, low=0, high=4)}),
    "bitwise_right_shift": (L(2, 3), "y", {"y": L(2, 3, low=0, high=4)}),
    "gcd": (L(2, 3), "y", {"y": L(2, 3)}),
    "lcm": (L(2, 3), "y", {"y": L(2, 3)}),
    "addbmm": (F(2, 4), "y, z, beta=0.5, alpha=2.0", {"y": F(3, 2, 5), "z": F(3, 5, 4)}),
    "baddbmm": (F(3, 2, 4), "y, z, beta=0.5", {"y": F(3, 2, 5), "z": F(3, 5, 4)}),
    "addmm": (F(2, 4), "y, z, beta=0.5, alpha=2.0", {"y": F(2, 3), "z": F(3, 4)}),
    "addmv": (F(2), "y, z, alpha=2.0", {"y": F(2, 3), "z": F(3)}),
    "addr": (F(2, 3), "y, z", {"y": F(2), "z": F(3)}),
    "addcdiv": (F(2, 3), "y, z, value=0.5", {"y": F(2, 3), "z": POS(2, 3)}),
    "addcmul": (F(2, 3), "y, z, value=-2.0", {"y": F(2, 3), "z": F(3)}),
    "cumsum": (F(2, 3), "1", {}),
    "cumprod": (F(2, 3), "0", {}),
    "tril": (F(3, 3), "0", {}),
    "triu": (F(3, 3), "1", {}),
    "renorm": (F(3, 4), "2.0, 0, 1.0", {}),
    "masked_fill": (F(2, 3), "m, -1.0", {"m": B(2, 3)}),
    "masked_scatter": (F(2, 3), "m, s", {"m": B(2, 3), "s": F(6)}),
    "index_add": (F(3, 2), "0, i, s, alpha=2", {"i": T([2, 0]), "s": F(2, 2)}),
    "index_copy": (F(3, 2), "0, i, s", {"i": T([2, 0]), "s": F(2, 2)}),
    "index_fill": (F(2, 3), "1, i, -1.0", {"i": T([0, 2])}),
    "index_reduce": (F(3, 2), "0, i, s, 'prod'", {"i": T([2, 0, 2]), "s": F(3, 2)}),
    "index_put": (F(3, 2), "[i], s", {"i": T([2, 0]), "s": F(2, 2)}),
    "put": (F(2, 3), "i, s", {"i": T([0, 5, 2]), "s": F(3)}),
    "scatter": (F(3, 3), "0, i, s", {"i": T([[1, 0, 2]]), "s": F(1, 3)}),
    "scatter_add": (F(3, 3), "0, i, s", {"i": T([[1, 0, 1]]), "s": F(1, 3)}),
    "scatter_reduce": (F(3, 3), "0, i, s, 'amax'", {"i": T([[1, 0, 1]]), "s": F(1, 3)}),
    "dropout": (F(2, 3), "0.5, False", {}),
    "rrelu": (F(2, 3), "0.1, 0.3, False", {}),
    # the metadata kind: self's shape changes, the alias keeps its own
    "squeeze": (F(2, 1, 3), "1", {}),
    "unsqueeze": (F(2, 3), "1", {}),
    "t": (F(2, 3), "", {}),
    "transpose": (F(2, 3, 2), "0, 2", {}),
    "as_strided": (F(2, 3), "[3, 2], [1, 3], 0", {}),
})
# Ops with no Tensor method of that name: called as <module>.<name>_(a, ...).
FUNCTION_FORM = {name: "torch" for name in ("celu", "selu", "threshold", "dropout", "rrelu")}
FUNCTION_FORM.update({name: "torch._C._nn" for name in ("elu", "gelu", "hardsigmoid", "hardswish", "hardtanh",
                                                        "leaky_relu", "mish", "relu6", "silu")})


# In-place variants that always draw random numbers: their values come from
# tssa-stream's Philox streams, not PyTorch's generator, so no PyTorch output
# can be expected here; tests/tensor's tensor_random_stats (distributions
# against PyTorch's) and tests/eval's random_determinism cover them.
ALWAYS_RANDOM = {"bernoulli_", "normal_"}


def inplace_variants():
    """Every in-place variant of an op the op table lists (see the header)."""
    import op_table  # tests/models/op_table.py (gen_ops.py puts it on the path)
    known = op_table.known_op_kinds()
    registry = {s.name for s in torch._C._jit_get_all_schemas()}
    return sorted(k[len("aten::"):] for k in known
                  if k.startswith("aten::") and k.endswith("_") and k[:-1] in known and k in registry
                  and k[len("aten::"):] not in ALWAYS_RANDOM)


def add_rows():
    variants = inplace_variants()
    missing = [v for v in variants if v[:-1] not in CALLS]
    if missing:
        raise SystemExit("inplace_rows.py: no CALLS entry for " + ", ".join(missing))
    for variant in variants:
        name = variant[:-1]
        self_input, args, others = CALLS[name]
        params = ", ".join(["x", *others])
        if name in FUNCTION_FORM:
            call = f"{FUNCTION_FORM[name]}.{variant}(a{', ' if args else ''}{args})"
        else:
            call = f"a.{variant}({args})"
        alias = "a[0]" if self_input().dim() > 1 else "a.view(a.size())"
        body = ("a = x.clone()\n"
                f"v = {alias}\n"
                f"r = {call}\n"
                "return r, a, v")
        R(f"{name}_inplace", "through_alias", params, body, x=self_input, **others)


add_rows()

# The program that asked for derived twins: squeeze_ of max's keepdim result.
R("squeeze_inplace", "max_keepdim", "x",
  "m, i = x.max(1, keepdim=True)\nm.squeeze_(1)\nreturn m, i", x=F(3, 4))
R("squeeze_inplace", "all_dims", "x", "a = x.clone()\nv = a.view(-1)\na.squeeze_()\nreturn a, v", x=F(1, 3, 1))
R("t_inplace", "then_written", "x",
  "a = x.clone()\nv = a[0]\na.t_()\na[0].fill_(7.0)\nreturn a, v", x=F(2, 3))
R("unsqueeze_inplace", "in_branch", "x, flag: bool",
  "a = x.clone()\nif flag:\n    a.unsqueeze_(0)\nreturn a", x=F(2, 3), flag=True)
R("tril_inplace", "on_view", "x", "a = x.clone()\na[1:].tril_()\nreturn a", x=F(4, 3))
# PyTorch's checks: an in-place result must keep self's dtype and shape.
E("atan2_inplace", "int_self", "x, y", "a = x.clone()\nreturn a.atan2_(y)",
  (1, "can't be cast to the desired output type Long"), x=L(2, 3), y=F(2, 3))
E("addmm_inplace", "broadcast_self", "x, y, z", "a = x.clone()\nreturn a.addmm_(y, z)",
  (1, "doesn't match the broadcast shape"), x=F(4), y=F(2, 3), z=F(3, 4))
# Metadata twins where TensorSSA cannot rename (kept imperative) or must not
# confuse another tensor object with self.
R("unsqueeze_inplace", "in_loop", "x, n: int",
  "a = x.clone()\nfor _ in range(n):\n    a.unsqueeze_(0)\nreturn a, a.dim()", x=F(2, 3), n=2)
R("squeeze_inplace", "graph_input", "x", "x.squeeze_(0)\nreturn x + 1.0", x=F(1, 3))
R("squeeze_inplace", "detached_keeps_shape", "x",
  "a = x.clone()\nd = a.detach()\na.squeeze_(1)\na.mul_(2.0)\nreturn d, a", x=F(2, 1, 3))
R("transpose_inplace", "stored_in_list", "x",
  "a = x.clone()\nl = [a]\na.transpose_(0, 1)\nreturn l[0], a", x=F(2, 3))
