# A while loop: the condition is recomputed in the body (prim::Loop with a
# carried condition and no trip count).
import torch


def while_loop(x: torch.Tensor, limit: float):
    steps = 0
    while float(x.sum()) < limit:
        x = x * 2.0 + 1.0
        steps += 1
    return x, steps


MODEL = while_loop
