"""torchaudio's mu-law companding, encoder and decoder, run back to back
(issue 30's public code).

Origin: pytorch/audio, torchaudio/functional/functional.py, functions
mu_law_encoding and mu_law_decoding, revision
02107beb9d8bf355246c1364a55e116a66d2e377. Both bodies are copied unchanged.

Changes:
- one entry point, mu_law_roundtrip, calls the encoder and then the decoder
  on its result and returns both, so that one case checks both functions
  (the originals are two separate library functions).
"""
from typing import Tuple

import torch
from torch import Tensor


def mu_law_encoding(
        x: Tensor,
        quantization_channels: int
) -> Tensor:
    mu = quantization_channels - 1.0
    if not x.is_floating_point():
        x = x.to(torch.float)
    mu = torch.tensor(mu, dtype=x.dtype)
    x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
    x_mu = ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)
    return x_mu


def mu_law_decoding(
        x_mu: Tensor,
        quantization_channels: int
) -> Tensor:
    mu = quantization_channels - 1.0
    if not x_mu.is_floating_point():
        x_mu = x_mu.to(torch.float)
    mu = torch.tensor(mu, dtype=x_mu.dtype)
    x = ((x_mu) / mu) * 2 - 1.0
    x = torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu)) - 1.0) / mu
    return x


def mu_law_roundtrip(waveform: Tensor, quantization_channels: int) -> Tuple[Tensor, Tensor]:
    encoded = mu_law_encoding(waveform, quantization_channels)
    return encoded, mu_law_decoding(encoded, quantization_channels)


def example():
    t = torch.linspace(0.0, 1.0, 4000)
    waveform = torch.stack([
        0.8 * torch.sin(2 * 3.14159 * 220.0 * t),
        0.3 * torch.sin(2 * 3.14159 * 440.0 * t) + 0.05 * torch.randn(4000),
    ]).clamp(-1.0, 1.0)
    return mu_law_roundtrip, {"waveform": waveform, "quantization_channels": 256}
