"""attention_heads.py's head loop with 12 heads of width 3 (D not a power
of two) over 5 tokens: kernels/batch_heads.c makes it batched GEMMs and one
softmax kernel over all heads (kernels.batch_heads counts them).
"""
import math

import torch


def attention_heads_twelve(x, w_q, w_k, w_v, heads: int):
    B, T, E = x.shape
    D = E // heads
    q = torch.matmul(x, w_q)
    k = torch.matmul(x, w_k)
    v = torch.matmul(x, w_v)
    out = torch.zeros(B, T, E)
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
        "x": torch.randn(2, 5, 36),
        "w_q": torch.randn(36, 36) * 0.3,
        "w_k": torch.randn(36, 36) * 0.3,
        "w_v": torch.randn(36, 36) * 0.3,
        "heads": 12,
    }
    return attention_heads_twelve, inputs
