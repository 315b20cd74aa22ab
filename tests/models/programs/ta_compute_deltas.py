"""torchaudio's delta coefficients of a spectrogram, applied twice as a
feature pipeline does (deltas and delta-deltas): replicate-padding in time,
a ramp kernel -n..n repeated for every row, and a depthwise conv1d
(groups = rows) divided by 2 * sum(n^2) (issue 30's public code).

Origin: pytorch/audio, torchaudio/functional/functional.py, function
compute_deltas, revision 02107beb9d8bf355246c1364a55e116a66d2e377. The body
is copied unchanged.

Changes:
- one entry point, deltas_and_accelerations, applies compute_deltas to the
  features and again to its result, as its docstring's example does
  (`delta = compute_deltas(specgram); delta2 = compute_deltas(delta)`), and
  returns both.
"""
from typing import Tuple

import torch
from torch import Tensor


def compute_deltas(
        specgram: Tensor,
        win_length: int = 5,
        mode: str = "replicate"
) -> Tensor:
    device = specgram.device
    dtype = specgram.dtype

    # pack batch
    shape = specgram.size()
    specgram = specgram.reshape(1, -1, shape[-1])

    assert win_length >= 3

    n = (win_length - 1) // 2

    # twice sum of integer squared
    denom = n * (n + 1) * (2 * n + 1) / 3

    specgram = torch.nn.functional.pad(specgram, (n, n), mode=mode)

    kernel = torch.arange(-n, n + 1, 1, device=device, dtype=dtype).repeat(specgram.shape[1], 1, 1)

    output = torch.nn.functional.conv1d(specgram, kernel, groups=specgram.shape[1]) / denom

    # unpack batch
    output = output.reshape(shape)

    return output


def deltas_and_accelerations(specgram: Tensor, win_length: int) -> Tuple[Tensor, Tensor]:
    delta = compute_deltas(specgram, win_length)
    delta2 = compute_deltas(delta, win_length)
    return delta, delta2


def example():
    # (channel, n_mfcc, time)
    specgram = torch.randn(2, 20, 150).cumsum(-1) * 0.1
    return deltas_and_accelerations, {"specgram": specgram, "win_length": 5}
