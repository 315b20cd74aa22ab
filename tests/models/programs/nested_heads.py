"""A loop over attention heads inside a loop over batch items (issue 12's
nested data-parallel loop).

Each batch item's heads are computed by the inner loop into a fresh
per-item tensor, which the outer loop writes into the output: both loops
are data-parallel. The outer loop is one body filter fired once per item
(its body runs the inner loop). `n` bounds the outer loop so the same
program lowers at 10 items and at 200 to the same stream graph.
"""
import math

import torch


def nested_heads(x, w_q, w_k, w_v, heads: int, n: int):
    # x: [B, T, E]; w_q, w_k, w_v: [E, E]
    T = x.size(1)
    E = x.size(2)
    D = E // heads
    scale = 1.0 / math.sqrt(D)
    out = torch.zeros(n, T, E)
    for b in range(n):
        q = x[b] @ w_q
        k = x[b] @ w_k
        v = x[b] @ w_v
        item = torch.zeros(T, E)
        for h in range(heads):
            qh = q[:, h * D:(h + 1) * D]
            kh = k[:, h * D:(h + 1) * D]
            vh = v[:, h * D:(h + 1) * D]
            att = torch.softmax(qh @ kh.t() * scale, dim=-1)
            item[:, h * D:(h + 1) * D] = att @ vh
        out[b] = item
    return out


def example():
    inputs = {
        "x": torch.randn(200, 3, 8),
        "w_q": torch.randn(8, 8) * 0.4,
        "w_k": torch.randn(8, 8) * 0.4,
        "w_v": torch.randn(8, 8) * 0.4,
        "heads": 2,
        "n": 200,
    }
    return nested_heads, inputs
