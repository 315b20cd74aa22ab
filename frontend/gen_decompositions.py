#!/usr/bin/python3
"""gen_decompositions.py — writes frontend/decompositions.inc: the TorchScript graph
text of every composite op that tssa-stream runs as its definition
(frontend/decompose.c inlines it in place of the op, before any backend sees the
program).

A composite op is one PyTorch implements in C++ as a sequence of ops the op
table already has (aten::channel_shuffle: a reshape, a transpose and a
copy). nn.TransformerEncoderLayer and nn.MultiheadAttention call
two of them on their inference fast path (eval mode, batch_first, no grad:
torch/nn/modules/transformer.py, activation.py), so every program holding
such a layer reaches them:

    aten::_native_multi_head_attention   aten/src/ATen/native/transformers/attention.cpp
    aten::_transformer_encoder_layer_fwd aten/src/ATen/native/transformers/transformer.cpp

Each definition below is written from that C++ source, in its order of
operations (the q projection gets its bias and then the 1/sqrt(head dim)
scale, as _transform_bias_rescale_qkv does; the residual adds follow the
layer's add_), with ATen's CPU checks and messages. Written out, the ops are
the table's: the projections are GEMMs, softmax and layer_norm fuse, and
the stream graph sees every step. This script checks each definition
against PyTorch's own op on random inputs over every flag and mask kind
before it writes anything (exit 1 when one differs), then writes the
inlined graph text of each (torch.jit.script, _jit_pass_inline).

    /usr/bin/python3 frontend/gen_decompositions.py          # rewrites frontend/decompositions.inc
    /usr/bin/python3 frontend/gen_decompositions.py --check  # exit 1 when it is stale

The one divergence is not numeric: PyTorch's fast path also takes nested
tensors (nn.TransformerEncoder converts a padded batch to one when given a
left-aligned src_key_padding_mask); tssa-stream has no nested tensors, so
that path stops at aten::_nested_tensor_from_mask, naming it.
"""

import math
import os
import sys
from typing import Optional, Tuple

try:
    import torch
    from torch import Tensor
except ImportError:                     # ctest: skipped where torch is missing
    print("gen_decompositions.py: skipped: no torch for /usr/bin/python3", file=sys.stderr)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "decompositions.inc")


def _native_multi_head_attention(query: Tensor, key: Tensor, value: Tensor, embed_dim: int,
                                 num_head: int, qkv_weight: Tensor, qkv_bias: Tensor,
                                 proj_weight: Tensor, proj_bias: Tensor, mask: Optional[Tensor],
                                 need_weights: bool, average_attn_weights: bool,
                                 mask_type: Optional[int]) -> Tuple[Tensor, Optional[Tensor]]:
    if query.dim() != 3 or query.size() != key.size() or key.size() != value.size():
        raise RuntimeError("expected `query`/`key`/`value` shapes to match")
    batch = query.size(0)
    length = query.size(1)
    head_dim = embed_dim // num_head
    if query is key and key is value:
        # self-attention: one product with all three projections (qkv_projection)
        q, k, v = torch.nn.functional.linear(query, qkv_weight).chunk(3, -1)
    else:
        q = torch.nn.functional.linear(query, qkv_weight[0:embed_dim])
        k = torch.nn.functional.linear(key, qkv_weight[embed_dim:2 * embed_dim])
        v = torch.nn.functional.linear(value, qkv_weight[2 * embed_dim:3 * embed_dim])
    q = (q + qkv_bias[0:embed_dim]) * (1.0 / math.sqrt(float(head_dim)))
    k = k + qkv_bias[embed_dim:2 * embed_dim]
    v = v + qkv_bias[2 * embed_dim:3 * embed_dim]
    q = q.view(batch, length, num_head, head_dim).transpose(1, 2)
    k = k.view(batch, length, num_head, head_dim).transpose(1, 2)
    v = v.view(batch, length, num_head, head_dim).transpose(1, 2)
    scores = torch.matmul(q, k.transpose(2, 3))
    if mask is not None:
        # masked_softmax: a mask of another dtype counts its nonzeros as masked;
        # [B, L] masks keys, [B, H, L, L] every score; a row with every key
        # masked is 0/0 (NaN), as ATen's CPU kernel gives
        if mask.size(0) != batch:
            raise RuntimeError("Expected attn_mask->sizes()[0] == batch_size to be true, but got false.")
        if mask.dim() == 2 and mask.size(1) == length:
            keys_masked = mask.view(batch, 1, 1, length)
        elif mask.size() == scores.size():
            keys_masked = mask
        else:
            raise RuntimeError("Mask shape should match input shape")
        if mask_type is None:
            raise RuntimeError("Mask Type should be defined")
        if mask_type == 0:
            raise RuntimeError("src_mask not currently supported on CPU")
        if keys_masked.dtype != torch.bool:
            keys_masked = keys_masked != 0
        scores = scores.masked_fill(keys_masked, float("-inf"))
    weights = torch.softmax(scores, -1)
    context = torch.matmul(weights, v).transpose(1, 2).reshape(batch, length, embed_dim)
    out = torch.nn.functional.linear(context, proj_weight, proj_bias)
    if not need_weights:
        return out, None
    if average_attn_weights:
        return out, weights.sum(1) / num_head
    return out, weights


def _transformer_encoder_layer_fwd(src: Tensor, embed_dim: int, num_heads: int, qkv_weight: Tensor,
                                   qkv_bias: Tensor, proj_weight: Tensor, proj_bias: Tensor,
                                   use_gelu: bool, norm_first: bool, eps: float,
                                   norm_weight_1: Tensor, norm_bias_1: Tensor,
                                   norm_weight_2: Tensor, norm_bias_2: Tensor,
                                   ffn_weight_1: Tensor, ffn_bias_1: Tensor,
                                   ffn_weight_2: Tensor, ffn_bias_2: Tensor,
                                   mask: Optional[Tensor], mask_type: Optional[int]) -> Tensor:
    x = src
    if norm_first:
        x = torch.layer_norm(x, [embed_dim], norm_weight_1, norm_bias_1, eps)
    x = _native_multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias,
                                     proj_weight, proj_bias, mask, False, True, mask_type)[0]
    x = x + src
    if not norm_first:
        x = torch.layer_norm(x, [embed_dim], norm_weight_1, norm_bias_1, eps)
    residual = x
    if norm_first:
        x = torch.layer_norm(x, [embed_dim], norm_weight_2, norm_bias_2, eps)
    x = torch.nn.functional.linear(x, ffn_weight_1, ffn_bias_1)
    if use_gelu:
        x = torch.nn.functional.gelu(x)
    else:
        x = torch.relu(x)
    x = torch.nn.functional.linear(x, ffn_weight_2, ffn_bias_2) + residual
    if not norm_first:
        x = torch.layer_norm(x, [embed_dim], norm_weight_2, norm_bias_2, eps)
    return x


def channel_shuffle(self: Tensor, groups: int) -> Tensor:
    # aten/src/ATen/native/ChanelShuffle.cpp: a fresh tensor, channel c of
    # group g moved to g + c * groups
    if self.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {self.size()}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    channels = self.size(1)
    if channels % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and "
                           f"{groups} groups.")
    shuffled = self.reshape([self.size(0), groups, channels // groups, -1]).transpose(1, 2)
    return shuffled.reshape(self.size()).clone(memory_format=torch.contiguous_format)


DEFINITIONS = [
    ("aten::_native_multi_head_attention", _native_multi_head_attention),
    ("aten::_transformer_encoder_layer_fwd", _transformer_encoder_layer_fwd),
    ("aten::channel_shuffle", channel_shuffle),
]


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and torch.allclose(a, b, rtol=1e-5, atol=1e-5, equal_nan=True)


def check_against_pytorch():
    """Each definition, scripted, against PyTorch's op: masks none, [B, L]
    bool and float (with a fully masked row), [B, H, L, L]; every flag."""
    torch.manual_seed(0)
    failures = []
    batch, length, dim, heads, ffn = 3, 5, 8, 2, 12
    x = torch.randn(batch, length, dim)
    w = [torch.randn(3 * dim, dim) * 0.3, torch.randn(3 * dim), torch.randn(dim, dim) * 0.3,
         torch.randn(dim)]
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [True] * 5])
    masks = [(None, None), (pad, 1), (pad.float() * -1e9, 1), (pad, 2),
             (torch.rand(batch, heads, length, length) > 0.6, 1)]
    mha = torch.jit.script(_native_multi_head_attention)
    layer = torch.jit.script(_transformer_encoder_layer_fwd)
    with torch.no_grad():
        for mask, mask_type in masks:
            for need, average in ((True, True), (True, False), (False, True)):
                for key in (x, torch.randn(batch, length, dim)):
                    args = (x, key, key, dim, heads, *w, mask, need, average, mask_type)
                    want = torch._native_multi_head_attention(*args)
                    got = mha(*args)
                    if not (close(want[0], got[0]) and close(want[1], got[1])):
                        failures.append(f"mha mask_type={mask_type} need={need} avg={average}")
            ln = [torch.randn(dim), torch.randn(dim), torch.randn(dim), torch.randn(dim)]
            ff = [torch.randn(ffn, dim) * 0.3, torch.randn(ffn), torch.randn(dim, ffn) * 0.3,
                  torch.randn(dim)]
            for gelu in (False, True):
                for first in (False, True):
                    args = (x, dim, heads, *w, gelu, first, 1e-5, *ln, *ff, mask, mask_type)
                    if not close(torch._transformer_encoder_layer_fwd(*args), layer(*args)):
                        failures.append(f"layer mask_type={mask_type} gelu={gelu} norm_first={first}")
        shuffle = torch.jit.script(channel_shuffle)
        for shape, groups in (((2, 6, 3), 3), ((2, 6, 3, 2, 2), 2), ((1, 4, 5), 1), ((3, 4, 2), 4)):
            t = torch.randn(shape)
            got = shuffle(t, groups)
            if not torch.equal(torch.channel_shuffle(t, groups), got) or got.data_ptr() == t.data_ptr():
                failures.append(f"channel_shuffle {shape} groups={groups}")
        for shape, groups, message in (((2, 4), 2, "> 2 dims"), ((2, 6, 3), 4, "divisible"),
                                       ((2, 6, 3), 0, "positive")):
            for fn in (torch.channel_shuffle, shuffle):
                try:
                    fn(torch.randn(shape), groups)
                    failures.append(f"channel_shuffle: no error for {message}")
                except (RuntimeError, torch.jit.Error) as err:
                    if message not in str(err):
                        failures.append(f"channel_shuffle: expected '{message}', got {err}")
        for mask, mask_type, message in ((torch.zeros(length, length, dtype=torch.bool), 1, "batch_size"),
                                         (torch.zeros(batch, length, length, dtype=torch.bool), 1,
                                          "Mask shape"),
                                         (pad, None, "Mask Type"), (pad, 0, "src_mask")):
            for fn in (torch._native_multi_head_attention, mha):
                try:
                    fn(x, x, x, dim, heads, *w, mask, True, True, mask_type)
                    failures.append(f"no error for {message}")
                except (RuntimeError, torch.jit.Error) as err:
                    if message not in str(err):
                        failures.append(f"expected '{message}', got {err}")
    return failures


def graph_text(fn):
    graph = torch.jit.script(fn).graph
    torch._C._jit_pass_inline(graph)
    torch._C._jit_pass_dce(graph)       # the inlined callee's Function constant
    lines = []
    for line in str(graph).splitlines():
        code = line.split(" # ")[0].rstrip()      # source comments name this script
        lines.append(code)
    return "\n".join(lines) + "\n"


def render():
    out = ["/* decompositions.inc — written by frontend/gen_decompositions.py from its definitions",
           " * (checked there against PyTorch's own ops); do not edit. Read by frontend/decompose.c. */"]
    for name, fn in DEFINITIONS:
        out.append(f"DECOMPOSITION(\"{name}\",")
        for line in graph_text(fn).splitlines():
            escaped = line.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f"    \"{escaped}\\n\"")
        out.append(")")
    return "\n".join(out) + "\n"


def main():
    failures = check_against_pytorch()
    if failures:
        for f in failures:
            print(f"gen_decompositions.py: differs from PyTorch: {f}", file=sys.stderr)
        return 1
    text = render()
    if "--check" in sys.argv[1:]:
        with open(OUT) as f:
            if f.read() != text:
                print(f"gen_decompositions.py: {OUT} is stale: rerun frontend/gen_decompositions.py",
                      file=sys.stderr)
                return 1
        return 0
    with open(OUT, "w") as f:
        f.write(text)
    print(f"gen_decompositions.py: wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
