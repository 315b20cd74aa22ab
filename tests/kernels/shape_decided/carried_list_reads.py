"""A for loop that reads, by index, a list of tensors of different shapes
that it carries and writes (mmdetection's FPN top-down path:
`laterals[i - 1] = laterals[i - 1] + interpolate(laterals[i],
size=laterals[i - 1].shape[2:])` over `range(len(laterals) - 1, 0, -1)`),
after a loop that appends to the list, then reads of it after the loop
(`outs[-1]`, unpacking). Unrolled at specialization, with the lists'
items followed, every tensor has a static shape and no loop stays a
run-time filter. Expected values: PyTorch's. Exported with

    /usr/bin/python3 frontend/export.py \\
        tests/kernels/shape_decided/carried_list_reads.py:carried_list_reads \\
        --inputs 'a=torch.randn(1, 2, 8, 8)' 'b=torch.randn(1, 2, 4, 4)' 'c=torch.randn(1, 2, 2, 2)' \\
        -o tests/kernels/shape_decided/carried_list_reads
"""
from typing import List

import torch
import torch.nn.functional as F


def carried_list_reads(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor):
    laterals: List[torch.Tensor] = []
    for x in [a, b, c]:
        laterals.append(torch.tanh(x) * 2.0)
    for i in range(len(laterals) - 1, 0, -1):
        prev_shape = laterals[i - 1].shape[2:]
        laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], size=prev_shape, mode="nearest")
    outs: List[torch.Tensor] = []
    for i in range(len(laterals)):
        outs.append(laterals[i].sum(dim=1))
    outs.append(F.max_pool2d(outs[-1].unsqueeze(1), 1, stride=2).squeeze(1))
    p2, p3, p4, p5 = outs
    return p2, p3 + 1.0, p4, p5
