"""A head loop whose heads are projections x @ w[:, h*D:(h+1)*D] written
into bands of rows: head h's [T, D] result fills rows h*T .. (h+1)*T of
the output. kernels/batch_heads.c makes the heads one product
x @ w[:, 0:N*D] and its bands stacked as [N, T, D] (a permute of the
product, not contiguous): moving them into rows is one kernel, not a view
(a view of the permute failed: `aten::view: view size is not compatible`).
"""
import torch


def attention_heads_projection_rows(x, w, heads: int):
    T, E = x.shape
    D = 2
    out = torch.zeros(heads * T, D)
    for h in range(heads):
        r = torch.mm(x, w[:, h * D:(h + 1) * D])
        out[h * T:(h + 1) * T, :] = r
    return out


def example():
    inputs = {
        "x": torch.randn(3, 6),
        "w": torch.randn(6, 8),
        "heads": 4,
    }
    return attention_heads_projection_rows, inputs
