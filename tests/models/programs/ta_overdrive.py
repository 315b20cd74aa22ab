"""torchaudio's overdrive effect (SoX's overdrive): a soft-clipping
nonlinearity written with three boolean-mask assignments, then a first-order
DC-blocking recurrence over time, one column per step (issue 30's public
code).

Origin: pytorch/audio, torchaudio/functional/filtering.py, functions
overdrive and _dB2Linear, revision 35da8de2bceb7affb72fd3a28a39d777471068a3
(the version whose time loop is written in Python; later versions call a C++
loop, torch.ops.torchaudio._overdrive_core_loop, when it is built, and this
same Python loop otherwise). The bodies are copied unchanged.

Changes: none.
"""
import math

import torch
from torch import Tensor


def _dB2Linear(x: float) -> float:
    return math.exp(x * math.log(10) / 20.0)


def overdrive(waveform: Tensor, gain: float = 20, colour: float = 20) -> Tensor:
    actual_shape = waveform.shape
    device, dtype = waveform.device, waveform.dtype

    # convert to 2D (..,time)
    waveform = waveform.view(-1, actual_shape[-1])

    gain = _dB2Linear(gain)
    colour = colour / 200
    last_in = torch.zeros(waveform.shape[:-1], dtype=dtype, device=device)
    last_out = torch.zeros(waveform.shape[:-1], dtype=dtype, device=device)

    temp = waveform * gain + colour

    mask1 = temp < -1
    temp[mask1] = torch.tensor(-2.0 / 3.0, dtype=dtype, device=device)
    # Wrapping the constant with Tensor is required for Torchscript

    mask2 = temp > 1
    temp[mask2] = torch.tensor(2.0 / 3.0, dtype=dtype, device=device)

    mask3 = ~mask1 & ~mask2
    temp[mask3] = temp[mask3] - (temp[mask3] ** 3) * (1.0 / 3)

    output_waveform = torch.zeros_like(waveform, dtype=dtype, device=device)

    # TODO: Implement a torch CPP extension
    for i in range(waveform.shape[-1]):
        last_out = temp[:, i] - last_in + 0.995 * last_out
        last_in = temp[:, i]
        output_waveform[:, i] = waveform[:, i] * 0.5 + last_out * 0.75

    return output_waveform.clamp(min=-1, max=1).view(actual_shape)


def example():
    t = torch.linspace(0.0, 0.05, 800)
    waveform = torch.stack([
        0.6 * torch.sin(2 * 3.14159 * 110.0 * t),
        0.02 * torch.sin(2 * 3.14159 * 330.0 * t) + 0.01 * torch.randn(800),
    ]).view(1, 2, 800)
    return overdrive, {"waveform": waveform, "gain": 20.0, "colour": 20.0}
