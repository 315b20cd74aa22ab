"""A value fusion copies into its consumers (torch.full, a "free" fill)
that other nodes read too: diffusers' denoisers embed the timestep with
ts = torch.full((n,), t); get_timestep_embedding asserts on ts's rank
(aten::size of it) and builds its frequencies with an arange on
ts.device (prim::device of it), and the product of ts and the
frequencies fuses with the convolution's bias-add. The kernel that takes
ts along must take its own copy: pulled in whole, the readers of ts
followed the kernel while the arange they feed preceded it, and the cpu
backend looped forever reordering them (kernels_restore_def_order).
Written for this project (issue 30), from diffusers_ddim.py's denoiser."""
import math

import torch
import torch.nn.functional as F
from torch import Tensor


def get_timestep_embedding(timesteps: Tensor, embedding_dim: int, flip_sin_to_cos: bool = False,
                           downscale_freq_shift: float = 1, scale: float = 1,
                           max_period: int = 10000) -> Tensor:
    assert len(timesteps.shape) == 1, "Timesteps should be a 1d-array"
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(start=0, end=half_dim, dtype=torch.float32,
                                                    device=timesteps.device)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = torch.exp(exponent)
    emb = timesteps[:, None].float() * emb[None, :]
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    if embedding_dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb


def shared_free_value(x: Tensor, w: Tensor, b: Tensor, t: int) -> Tensor:
    ts = torch.full((x.size(0),), t, dtype=torch.long)
    return F.conv2d(x, w, b, padding=1) + get_timestep_embedding(ts, 16)[:, :, None, None]


def example():
    return shared_free_value, {"x": torch.randn(2, 3, 8, 8), "w": torch.randn(16, 3, 3, 3) * 0.3,
                               "b": torch.randn(16), "t": 9}
