"""attention_heads.py's head loop with one head of width 6: a loop of one
iteration, batched like any other (kernels/batch_heads.c).
"""
import math

import torch


def attention_heads_one(x, w_q, w_k, w_v, heads: int):
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
        "x": torch.randn(3, 4, 6),
        "w_q": torch.randn(6, 6) * 0.4,
        "w_k": torch.randn(6, 6) * 0.4,
        "w_v": torch.randn(6, 6) * 0.4,
        "heads": 1,
    }
    return attention_heads_one, inputs
