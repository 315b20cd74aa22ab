"""Multi-head attention with a loop over heads (TensorSSA paper workload).

Each head reads its slice of the projections and writes its result into the
matching columns of a preallocated output:
`out[:, :, h*D:(h+1)*D] = softmax(q k^T / sqrt(D)) v`. The trip count is a
graph input, so the head loop is static once inputs are bound.
"""
import math

import torch


def attention_heads(x, w_q, w_k, w_v, heads: int):
    # x: [B, T, E]; w_q, w_k, w_v: [E, E]
    B, T, E = x.shape
    D = E // heads
    q = torch.matmul(x, w_q)
    k = torch.matmul(x, w_k)
    v = torch.matmul(x, w_v)
    out = torch.zeros(B, T, E, device=x.device)
    scale = 1.0 / math.sqrt(D)
    for h in range(heads):
        qh = q[:, :, h * D:(h + 1) * D]
        kh = k[:, :, h * D:(h + 1) * D]
        vh = v[:, :, h * D:(h + 1) * D]
        att = torch.softmax(torch.bmm(qh, kh.transpose(1, 2)) * scale, dim=-1)
        out[:, :, h * D:(h + 1) * D] = torch.bmm(att, vh)
    return out


def example():
    inputs = {
        "x": torch.randn(2, 3, 8),
        "w_q": torch.randn(8, 8) * 0.4,
        "w_k": torch.randn(8, 8) * 0.4,
        "w_v": torch.randn(8, 8) * 0.4,
        "heads": 2,
    }
    return attention_heads, inputs
