"""A loop whose trip count is scalar arithmetic on the size of a computed
tensor (k-diffusion's `for i in range(len(sigmas) - 1)` over a schedule it
built from linspace and cat): aten::len, aten::sub and aten::floordiv on
ints that only shape inference knows. Exported with

    /usr/bin/python3 frontend/export.py \\
        tests/kernels/static_trips/trips_from_intermediate.py:trips_from_intermediate \\
        --inputs 'x=torch.randn(5, 3)' 'h0=torch.randn(3)' n=9 \\
        -o tests/kernels/static_trips/trips_from_intermediate
"""
import torch


def trips_from_intermediate(x: torch.Tensor, h0: torch.Tensor, n: int):
    y = torch.cat([torch.linspace(0, 1, n), torch.zeros(1)])
    h = h0
    for i in range((len(y) - 1) // 2):
        h = torch.tanh(h * y[i] + x[i] + y[i + 1])
    return h
