# A loop holding an if holding another loop: blocks nested three deep.
import torch


def nested_blocks(x: torch.Tensor, n: int):
    out = x
    for i in range(n):
        if i % 2 == 0:
            for j in range(i):
                out = out + j
        else:
            out = out * 0.5
            if bool(out.sum() > 10.0):
                out = out - 1.0
    return out


MODEL = nested_blocks
