"""A speech front end's last steps with torchaudio: a batched power
spectrogram (batch, channel, freq, time) to decibels with a top_db floor
per example (amplitude_to_DB's packed-channel path: amax over three
dimensions, a broadcast max), then delta features by compute_deltas with a
9-frame window and constant (zero) padding, a mode the corpus's
ta_compute_deltas (replicate) does not take (issue 30's public code).

Origin: pytorch/audio, torchaudio/functional/functional.py, functions
amplitude_to_DB and compute_deltas, revision
02107beb9d8bf355246c1364a55e116a66d2e377. The bodies are copied unchanged.

Changes:
- one entry point, db_and_deltas, runs amplitude_to_DB (multiplier 10,
  amin 1e-10, db_multiplier 0, top_db given) and compute_deltas on its
  result (win_length and mode given), and returns both.
"""
from typing import Optional, Tuple

import torch
from torch import Tensor


def amplitude_to_DB(
        x: Tensor,
        multiplier: float,
        amin: float,
        db_multiplier: float,
        top_db: Optional[float] = None
) -> Tensor:
    x_db = multiplier * torch.log10(torch.clamp(x, min=amin))
    x_db -= multiplier * db_multiplier

    if top_db is not None:
        # Expand batch
        shape = x_db.size()
        packed_channels = shape[-3] if x_db.dim() > 2 else 1
        x_db = x_db.reshape(-1, packed_channels, shape[-2], shape[-1])

        x_db = torch.max(x_db, (x_db.amax(dim=(-3, -2, -1)) - top_db).view(-1, 1, 1, 1))

        # Repack batch
        x_db = x_db.reshape(shape)

    return x_db


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


def db_and_deltas(power_spec: Tensor, top_db: float, win_length: int,
                  mode: str) -> Tuple[Tensor, Tensor]:
    x_db = amplitude_to_DB(power_spec, 10.0, 1e-10, 0.0, top_db)
    return x_db, compute_deltas(x_db, win_length, mode)


def example():
    power_spec = torch.rand(2, 2, 32, 60) ** 4 * 100.0
    return db_and_deltas, {"power_spec": power_spec, "top_db": 80.0, "win_length": 9,
                           "mode": "constant"}
