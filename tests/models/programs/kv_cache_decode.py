"""Autoregressive decoding with key/value caches (TensorSSA paper workload).

Each generated step writes its key and value into the caches,
`k_cache[:, t] = k`, then attends over the prefix `k_cache[:, :t + 1]` that it
has just extended: a read of a growing slice of a tensor mutated in the same
iteration.
"""
import math

import torch


def kv_cache_decode(x0, w_q, w_k, w_v, w_o, steps: int):
    # x0: [B, E]; w_*: [E, E]
    B, E = x0.shape
    k_cache = torch.zeros(B, steps, E)
    v_cache = torch.zeros(B, steps, E)
    outs = torch.zeros(B, steps, E)
    x = x0
    for t in range(steps):
        q = torch.mm(x, w_q)
        k_cache[:, t] = torch.mm(x, w_k)
        v_cache[:, t] = torch.mm(x, w_v)
        keys = k_cache[:, :t + 1]
        scores = torch.bmm(keys, q.unsqueeze(2)).squeeze(2) / math.sqrt(E)
        att = torch.softmax(scores, dim=1)
        context = torch.bmm(att.unsqueeze(1), v_cache[:, :t + 1]).squeeze(1)
        x = torch.tanh(torch.mm(context, w_o))
        outs[:, t] = x
    return outs, k_cache, v_cache


def example():
    inputs = {
        "x0": torch.randn(2, 4),
        "w_q": torch.randn(4, 4) * 0.5,
        "w_k": torch.randn(4, 4) * 0.5,
        "w_v": torch.randn(4, 4) * 0.5,
        "w_o": torch.randn(4, 4) * 0.5,
        "steps": 4,
    }
    return kv_cache_decode, inputs
