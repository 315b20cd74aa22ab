"""Scalars that only the static shapes decide, at the top level: the list
`x.size()` of a computed tensor, its items, a rank test folded as an If,
and a reshape to the list built from them (torchaudio's amplitude_to_DB
packs its batch so: `shape = x.size()`, `packed = shape[-3] if x.dim() > 2
else 1`, `x.reshape(-1, packed, shape[-2], shape[-1])`, then back to
`shape`). Expected values: PyTorch's. Exported with

    /usr/bin/python3 frontend/export.py \\
        tests/kernels/shape_decided/size_list_reshape.py:size_list_reshape \\
        --inputs 'x=torch.rand(2, 3, 4, 5)' top_db=0.5 \\
        -o tests/kernels/shape_decided/size_list_reshape
"""
import torch


def size_list_reshape(x: torch.Tensor, top_db: float):
    y = torch.log10(torch.clamp(x, min=1e-10)) * 10.0
    shape = y.size()
    packed = shape[-3] if y.dim() > 2 else 1
    y = y.reshape(-1, packed, shape[-2], shape[-1])
    y = torch.max(y, (y.amax(dim=(-3, -2, -1)) - top_db).view(-1, 1, 1, 1))
    return y.reshape(shape)
