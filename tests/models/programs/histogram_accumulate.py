"""index_put_ with accumulate=True (a histogram): repeated indices must add
up, not overwrite."""
import torch


def histogram_accumulate(x, bins: int):
    hist = torch.zeros(bins)
    index = (x * bins).long().clamp(0, bins - 1)
    hist.index_put_((index,), torch.ones_like(x), accumulate=True)
    weighted = torch.zeros(bins)
    weighted.index_put_((index,), x, accumulate=True)
    return hist, weighted


def example():
    return histogram_accumulate, {"x": torch.rand(20), "bins": 5}
