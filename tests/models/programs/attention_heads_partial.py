"""A head loop whose heads cover only part of the columns: 3 heads of
width 3 write columns 1..9 of an output of 11 columns that starts as ones
(kernels/batch_heads.c writes the heads' bands into it with one write and
leaves columns 0 and 10 as they were). The heads use matmul on 2-d rows.
"""
import torch


def attention_heads_partial(x, w_q, w_k, heads: int):
    T, E = x.shape
    D = (E - 2) // heads
    q = torch.matmul(x, w_q)
    k = torch.matmul(x, w_k)
    out = torch.ones(T, E)
    for h in range(heads):
        qh = q[:, 1 + h * D:1 + (h + 1) * D]
        kh = k[:, 1 + h * D:1 + (h + 1) * D]
        att = torch.softmax(torch.matmul(qh, kh.t()) * 0.5, dim=-1)
        out[:, 1 + h * D:1 + (h + 1) * D] = torch.matmul(att, kh)
    return out


def example():
    inputs = {
        "x": torch.randn(4, 11),
        "w_q": torch.randn(11, 11) * 0.4,
        "w_k": torch.randn(11, 11) * 0.4,
        "heads": 3,
    }
    return attention_heads_partial, inputs
