"""Reductions long enough that the cuda backend gives each row (or each
output) a block of threads (kernels/kir_print.c, kir_cuda_grid): the
values must be the sequential loop's and PyTorch's.

- a seq2seq-like step: log_softmax over rows of 1000 then max/argmax per
  row, with a NaN row (max and argmax NaN, index of the first NaN: 0 after
  log_softmax makes the whole row NaN), a row of one repeated value (ties:
  the first index), a row whose maximum appears twice (the first);
- a NaN straight into max/argmax (no log_softmax): the index of the NaN;
- one row of an odd length (777), longer than any block (the block strides);
- a sum, min and argmax over rows of 300 ints (ties in a row of one
  value), a count of trues and an any() over rows of 200 bools (one row
  all false), a float64 sum;
- an outer-dims sum (mask_crop's inside.sum(dim=(0, 1))) over [24, 20, 40].
"""
import torch


def block_row_reductions(x, y, z, b, m):
    logits = torch.log_softmax(x, dim=1)
    best, token = logits.max(dim=1)
    raw_best, raw_token = x.max(dim=1)
    soft = torch.softmax(y, dim=1)
    y_min, y_arg = y.min(dim=1)
    z_sum = z.sum(dim=1)
    z_min = z.min(dim=1).values
    z_arg = z.argmax(dim=1)
    b_count = b.sum(dim=1)
    b_any = b.any(dim=1)
    y_sum64 = y.double().sum(dim=1)
    m_sum = m.sum(dim=(0, 1))
    return (logits, best, token, raw_best, raw_token, soft, y_min, y_arg, z_sum, z_min, z_arg, b_count, b_any,
            y_sum64, m_sum)


def example():
    g = torch.Generator().manual_seed(31)
    x = torch.randn(6, 1000, generator=g)
    x[1, 7] = float("nan")
    x[2, :] = 1.5
    x[3, 500] = 9.0
    x[3, 999] = 9.0
    x[4, 999] = 7.0
    y = torch.randn(1, 777, generator=g)
    y[0, 776] = -9.0
    z = torch.randint(-1000, 1000, (3, 300), generator=g)
    z[2, :] = 5
    b = torch.rand(4, 200, generator=g) > 0.3
    b[3, :] = False
    m = torch.randn(24, 20, 40, generator=g)
    return block_row_reductions, {"x": x, "y": y, "z": z, "b": b, "m": m}
