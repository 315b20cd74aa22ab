"""A head loop that must stay a loop (kernels/batch_heads.c refuses it):
each head adds the previous head's columns of the output, so an iteration
reads what the one before it wrote.
"""
import math

import torch


def attention_heads_chained(x, w_q, w_v, heads: int):
    B, T, E = x.shape
    D = E // heads
    q = torch.matmul(x, w_q)
    v = torch.matmul(x, w_v)
    out = torch.zeros(B, T, E)
    scale = 1.0 / math.sqrt(D)
    for h in range(heads):
        qh = q[:, :, h * D:(h + 1) * D]
        vh = v[:, :, h * D:(h + 1) * D]
        att = torch.softmax(torch.bmm(qh, qh.transpose(1, 2)) * scale, dim=-1)
        prev = out[:, :, (h - 1) * D:h * D] if h > 0 else torch.zeros(B, T, D)
        out[:, :, h * D:(h + 1) * D] = torch.bmm(att, vh) + prev
    return out


def example():
    inputs = {
        "x": torch.randn(2, 3, 9),
        "w_q": torch.randn(9, 9) * 0.4,
        "w_v": torch.randn(9, 9) * 0.4,
        "heads": 3,
    }
    return attention_heads_chained, inputs
