"""torchaudio's mel filterbank applied to a power spectrogram, then the
decibel conversion with a top_db floor: create_fb_matrix builds the
triangular filters from Hz/mel conversions (the slaney scale writes the
log part of the mel-to-Hz map through a boolean mask, and warns when a
filter is all zeros), the spectrogram is multiplied by it, and
amplitude_to_DB clamps, takes log10 and floors each clip at its maximum
minus top_db (issue 30's public code).

Origin: pytorch/audio, torchaudio/functional/functional.py, functions
create_fb_matrix, _hz_to_mel, _mel_to_hz, _create_triangular_filterbank and
amplitude_to_DB, revision 02107beb9d8bf355246c1364a55e116a66d2e377. The
bodies are copied unchanged.

Changes:
- one entry point, log_mel, composes them as torchaudio's MelScale and
  AmplitudeToDB transforms do: the filterbank applied as create_fb_matrix's
  docstring says (a (..., n_freqs) tensor times the (n_freqs, n_mels)
  matrix: specgram.transpose(-1, -2) @ fb, transposed back), then
  amplitude_to_DB with multiplier 10 (power), amin 1e-10, db_multiplier
  log10(max(amin, ref=1)) = 0 and the given top_db. The transforms build the
  filterbank once in __init__ as a buffer; here it is built in the program,
  so its construction is part of what is checked.
"""
import math
import warnings
from typing import Optional

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


def _hz_to_mel(freq: float, mel_scale: str = "htk") -> float:
    if mel_scale not in ['slaney', 'htk']:
        raise ValueError('mel_scale should be one of "htk" or "slaney".')

    if mel_scale == "htk":
        return 2595.0 * math.log10(1.0 + (freq / 700.0))

    # Fill in the linear part
    f_min = 0.0
    f_sp = 200.0 / 3

    mels = (freq - f_min) / f_sp

    # Fill in the log-scale part
    min_log_hz = 1000.0
    min_log_mel = (min_log_hz - f_min) / f_sp
    logstep = math.log(6.4) / 27.0

    if freq >= min_log_hz:
        mels = min_log_mel + math.log(freq / min_log_hz) / logstep

    return mels


def _mel_to_hz(mels: Tensor, mel_scale: str = "htk") -> Tensor:
    if mel_scale not in ['slaney', 'htk']:
        raise ValueError('mel_scale should be one of "htk" or "slaney".')

    if mel_scale == "htk":
        return 700.0 * (10.0**(mels / 2595.0) - 1.0)

    # Fill in the linear scale
    f_min = 0.0
    f_sp = 200.0 / 3
    freqs = f_min + f_sp * mels

    # And now the nonlinear scale
    min_log_hz = 1000.0
    min_log_mel = (min_log_hz - f_min) / f_sp
    logstep = math.log(6.4) / 27.0

    log_t = (mels >= min_log_mel)
    freqs[log_t] = min_log_hz * torch.exp(logstep * (mels[log_t] - min_log_mel))

    return freqs


def _create_triangular_filterbank(
        all_freqs: Tensor,
        f_pts: Tensor,
) -> Tensor:
    # calculate the difference between each filter mid point and each stft freq point in hertz
    f_diff = f_pts[1:] - f_pts[:-1]  # (n_filter + 1)
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)  # (n_freqs, n_filter + 2)
    # create overlapping triangles
    zero = torch.zeros(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]  # (n_freqs, n_filter)
    up_slopes = slopes[:, 2:] / f_diff[1:]  # (n_freqs, n_filter)
    fb = torch.max(zero, torch.min(down_slopes, up_slopes))

    return fb


def create_fb_matrix(
        n_freqs: int,
        f_min: float,
        f_max: float,
        n_mels: int,
        sample_rate: int,
        norm: Optional[str] = None,
        mel_scale: str = "htk",
) -> Tensor:
    if norm is not None and norm != "slaney":
        raise ValueError("norm must be one of None or 'slaney'")

    # freq bins
    # Equivalent filterbank construction by Librosa
    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs)

    # calculate mel freq bins
    m_min = _hz_to_mel(f_min, mel_scale=mel_scale)
    m_max = _hz_to_mel(f_max, mel_scale=mel_scale)

    m_pts = torch.linspace(m_min, m_max, n_mels + 2)
    f_pts = _mel_to_hz(m_pts, mel_scale=mel_scale)

    # create filterbank
    fb = _create_triangular_filterbank(all_freqs, f_pts)

    if norm is not None and norm == "slaney":
        # Slaney-style mel is scaled to be approx constant energy per channel
        enorm = 2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])
        fb *= enorm.unsqueeze(0)

    if (fb.max(dim=0).values == 0.).any():
        warnings.warn(
            "At least one mel filterbank has all zero values. "
            f"The value for `n_mels` ({n_mels}) may be set too high. "
            f"Or, the value for `n_freqs` ({n_freqs}) may be set too low."
        )

    return fb


def log_mel(specgram: Tensor, sample_rate: int, n_mels: int, f_min: float,
            f_max: float, top_db: float) -> Tensor:
    fb = create_fb_matrix(specgram.size(-2), f_min, f_max, n_mels, sample_rate,
                          "slaney", "slaney")
    mel_specgram = torch.matmul(specgram.transpose(-1, -2), fb).transpose(-1, -2)
    return amplitude_to_DB(mel_specgram, 10.0, 1e-10, 0.0, top_db)


def example():
    # (batch, channel, freq, time) power spectrogram of a 512-point STFT
    specgram = torch.rand(2, 1, 257, 40) ** 4 * 10.0
    return log_mel, {"specgram": specgram, "sample_rate": 16000, "n_mels": 40,
                     "f_min": 0.0, "f_max": 8000.0, "top_db": 80.0}
