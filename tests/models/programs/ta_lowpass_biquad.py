"""torchaudio's biquad low-pass filter (SoX's lowpass): the filter design,
then lfilter, an IIR filter evaluated as its difference equation: the
feed-forward part as one conv1d, the feedback part a loop over samples
whose step updates the current output column in place with addmv_ and
writes it into the padded output (issue 30's public code).

Origin: pytorch/audio, torchaudio/functional/filtering.py, functions
lowpass_biquad, biquad, lfilter and _lfilter_core_generic_loop, revision
35da8de2bceb7affb72fd3a28a39d777471068a3. The bodies are copied unchanged
but for the changes below.

Changes:
- the module-level choice `_lfilter_core_cpu_loop =
  torch.ops.torchaudio._lfilter_core_loop` (torchaudio's C++ extension, or
  _lfilter_core_generic_loop when the extension is not built, as the
  original's try/except does) is resolved to _lfilter_core_generic_loop:
  the C++ op is not part of PyTorch. Both arms of lfilter's device test
  then call the same function; the test itself is kept.
"""
import math

import torch
from torch import Tensor


def biquad(
    waveform: Tensor, b0: float, b1: float, b2: float, a0: float, a1: float, a2: float
) -> Tensor:
    device = waveform.device
    dtype = waveform.dtype

    output_waveform = lfilter(
        waveform,
        torch.tensor([a0, a1, a2], dtype=dtype, device=device),
        torch.tensor([b0, b1, b2], dtype=dtype, device=device),
    )
    return output_waveform


def _lfilter_core_generic_loop(input_signal_windows: Tensor, a_coeffs_flipped: Tensor, padded_output_waveform: Tensor):
    n_order = a_coeffs_flipped.size(0)
    for i_sample, o0 in enumerate(input_signal_windows.t()):
        windowed_output_signal = padded_output_waveform[
            :, i_sample:i_sample + n_order
        ]
        o0.addmv_(windowed_output_signal, a_coeffs_flipped, alpha=-1)
        padded_output_waveform[:, i_sample + n_order - 1] = o0


def lfilter(
    waveform: Tensor,
    a_coeffs: Tensor,
    b_coeffs: Tensor,
    clamp: bool = True,
) -> Tensor:
    # pack batch
    shape = waveform.size()
    waveform = waveform.reshape(-1, shape[-1])

    assert a_coeffs.size(0) == b_coeffs.size(0)
    assert len(waveform.size()) == 2
    assert waveform.device == a_coeffs.device
    assert b_coeffs.device == a_coeffs.device

    device = waveform.device
    dtype = waveform.dtype
    n_channel, n_sample = waveform.size()
    n_order = a_coeffs.size(0)
    n_sample_padded = n_sample + n_order - 1
    assert n_order > 0

    # Pad the input and create output

    padded_waveform = torch.nn.functional.pad(waveform, [n_order - 1, 0])
    padded_output_waveform = torch.zeros_like(padded_waveform)

    # Set up the coefficients matrix
    # Flip coefficients' order
    a_coeffs_flipped = a_coeffs.flip(0)
    b_coeffs_flipped = b_coeffs.flip(0)

    # calculate windowed_input_signal in parallel using convolution
    input_signal_windows = torch.nn.functional.conv1d(
        padded_waveform.unsqueeze(1),
        b_coeffs_flipped.view(1, 1, -1)
    ).squeeze(1)

    input_signal_windows.div_(a_coeffs[0])
    a_coeffs_flipped.div_(a_coeffs[0])

    if input_signal_windows.device == torch.device('cpu') and\
       a_coeffs_flipped.device == torch.device('cpu') and\
       padded_output_waveform.device == torch.device('cpu'):
        _lfilter_core_generic_loop(input_signal_windows, a_coeffs_flipped, padded_output_waveform)
    else:
        _lfilter_core_generic_loop(input_signal_windows, a_coeffs_flipped, padded_output_waveform)

    output = padded_output_waveform[:, n_order - 1:]

    if clamp:
        output = torch.clamp(output, min=-1.0, max=1.0)

    # unpack batch
    output = output.reshape(shape[:-1] + output.shape[-1:])

    return output


def lowpass_biquad(
    waveform: Tensor, sample_rate: int, cutoff_freq: float, Q: float = 0.707
) -> Tensor:
    w0 = 2 * math.pi * cutoff_freq / sample_rate
    alpha = math.sin(w0) / 2 / Q

    b0 = (1 - math.cos(w0)) / 2
    b1 = 1 - math.cos(w0)
    b2 = b0
    a0 = 1 + alpha
    a1 = -2 * math.cos(w0)
    a2 = 1 - alpha
    return biquad(waveform, b0, b1, b2, a0, a1, a2)


def example():
    t = torch.arange(600, dtype=torch.float32) / 8000.0
    waveform = torch.stack([
        0.5 * torch.sin(2 * 3.14159 * 200.0 * t) + 0.3 * torch.sin(2 * 3.14159 * 3000.0 * t),
        0.4 * torch.randn(600).clamp(-2.0, 2.0),
        0.2 * torch.sin(2 * 3.14159 * 50.0 * t),
    ]).view(3, 1, 600)
    return lowpass_biquad, {"waveform": waveform, "sample_rate": 8000,
                            "cutoff_freq": 1000.0, "Q": 0.707}
