"""A write through a boolean mask (`freqs[log_t] = f(mels[log_t])`, as
torchaudio's _mel_to_hz writes its log part) whose values have a
data-dependent shape: aten::index_put's result still has self's shape and
dtype, so what follows it (a filter bank's slopes) has static shapes and
fuses. Expected values: PyTorch's. Exported with

    /usr/bin/python3 frontend/export.py \\
        tests/kernels/shape_decided/masked_write_then_grid.py:masked_write_then_grid \\
        --inputs 'mels=torch.linspace(0.0, 40.0, 12)' 'freqs=torch.linspace(0.0, 3000.0, 30)' \\
        -o tests/kernels/shape_decided/masked_write_then_grid
"""
import torch


def masked_write_then_grid(mels: torch.Tensor, freqs: torch.Tensor):
    hz = 200.0 / 3 * mels
    log_t = mels >= 15.0
    hz[log_t] = 1000.0 * torch.exp(0.06875 * (mels[log_t] - 15.0))
    slopes = hz.unsqueeze(0) - freqs.unsqueeze(1)
    diff = hz[1:] - hz[:-1]
    down = (-1.0 * slopes[:, :-2]) / diff[:-1]
    up = slopes[:, 2:] / diff[1:]
    return torch.clamp(torch.min(down, up), min=0.0)
