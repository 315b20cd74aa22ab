# If/else with several outputs, an elif chain, and an if without an else.
import torch


def ifs(x: torch.Tensor, flag: bool, k: int):
    if flag:
        y = x + 1
        z = x * 2
    else:
        y = x - 1
        z = x / 2
    if k > 3:
        y = y.relu()
    elif k < -3:
        y = -y
    else:
        y = y.abs()
    if k == 0:
        z = z + y
    return y, z


MODEL = ifs
