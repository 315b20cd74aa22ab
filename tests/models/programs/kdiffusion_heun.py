"""k-diffusion's Heun sampler on a Karras noise schedule (crowsonkb/k-diffusion,
k_diffusion/sampling.py: get_sigmas_karras, append_zero, to_d, sample_heun,
revision 0c72379a7d26023808bece9b984243c8271c6d88; utils.append_dims from
k_diffusion/utils.py) around a tiny denoiser wrapped with Karras et al.'s
preconditioning (c_skip, c_out, c_in as k-diffusion's layers.Denoiser has
them) (issue 30's public code).

sample_heun: for each pair of neighbouring sigmas, one denoiser call, the ODE
derivative d = (x - denoised) / sigma, an Euler step to the next sigma and,
unless that sigma is 0, a second denoiser call there and the average of
both derivatives (Heun's method). With s_churn = 0 gamma is 0 and no noise
is added, although `eps = torch.randn_like(x) * s_noise` is still drawn
each step, as the original does.

Changes:
- `trange(len(sigmas) - 1, disable=disable)` -> `range(...)` (tqdm's
  progress bar), extra_args, callback and decorate_sigma_hat dropped (all
  None by default);
- `s_tmin <= sigmas[i] <= s_tmax` on a 0-d tensor -> two comparisons with
  `float(sigmas[i])` (TorchScript needs a bool), and gamma typed float;
- `model(x, sigma, **extra_args)` calls the module's own denoiser;
  get_sigmas_karras' `device` and `concat_zero` keep their defaults;
- utils.append_dims(x, target_dims): `x[(...,) + (None,) * dims_to_append]`
  -> `x.reshape(list(x.shape) + [1] * dims_to_append)`, the same view with
  trailing dimensions of size 1 (TorchScript cannot index with a built
  tuple); its "input has more dims than target" check kept as a raise;
- the denoiser (a 3x3 convolution pair with a SiLU, given c_noise =
  log(sigma) / 4 as a per-sample bias) is a stand-in for a trained model.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor


def append_zero(x: Tensor) -> Tensor:
    return torch.cat([x, x.new_zeros([1])])


def get_sigmas_karras(n: int, sigma_min: float, sigma_max: float, rho: float = 7.) -> Tensor:
    """Constructs the noise schedule of Karras et al. (2022)."""
    ramp = torch.linspace(0, 1, n)
    min_inv_rho = sigma_min ** (1 / rho)
    max_inv_rho = sigma_max ** (1 / rho)
    sigmas = (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho
    return append_zero(sigmas)


def append_dims(x: Tensor, target_dims: int) -> Tensor:
    """Appends dimensions to the end of a tensor until it has target_dims dimensions."""
    dims_to_append = target_dims - x.ndim
    if dims_to_append < 0:
        raise ValueError(f'input has {x.ndim} dims but target_dims is {target_dims}, which is less')
    return x.reshape(list(x.shape) + [1] * dims_to_append)


def to_d(x: Tensor, sigma: Tensor, denoised: Tensor) -> Tensor:
    """Converts a denoiser output to a Karras ODE derivative."""
    return (x - denoised) / append_dims(sigma, x.ndim)


class TinyDenoiser(nn.Module):
    def __init__(self, channels: int = 3, width: int = 16, sigma_data: float = 0.5):
        super().__init__()
        self.sigma_data = sigma_data
        self.conv_in = nn.Conv2d(channels, width, 3, padding=1)
        self.noise_proj = nn.Linear(1, width)
        self.conv_out = nn.Conv2d(width, channels, 3, padding=1)

    def forward(self, x: Tensor, sigma: Tensor) -> Tensor:
        # layers.Denoiser's scalings (Karras et al. 2022, table 1)
        c_skip = self.sigma_data ** 2 / (sigma ** 2 + self.sigma_data ** 2)
        c_out = sigma * self.sigma_data / (sigma ** 2 + self.sigma_data ** 2) ** 0.5
        c_in = 1 / (sigma ** 2 + self.sigma_data ** 2) ** 0.5
        c_noise = sigma.log() / 4
        h = self.conv_in(x * append_dims(c_in, x.ndim))
        h = F.silu(h + self.noise_proj(c_noise[:, None])[:, :, None, None])
        return self.conv_out(h) * append_dims(c_out, x.ndim) + x * append_dims(c_skip, x.ndim)


class HeunSampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = TinyDenoiser()

    def sample_heun(self, x: Tensor, sigmas: Tensor, s_churn: float = 0., s_tmin: float = 0.,
                    s_tmax: float = float('inf'), s_noise: float = 1.) -> Tensor:
        """Implements Algorithm 2 (Heun steps) from Karras et al. (2022)."""
        s_in = x.new_ones([x.shape[0]])
        for i in range(len(sigmas) - 1):
            gamma: float = 0.
            if s_tmin <= float(sigmas[i]) and float(sigmas[i]) <= s_tmax:
                gamma = min(s_churn / (len(sigmas) - 1), 2 ** 0.5 - 1)
            eps = torch.randn_like(x) * s_noise
            sigma_hat = sigmas[i] * (gamma + 1)
            if gamma > 0:
                x = x + eps * (sigma_hat ** 2 - sigmas[i] ** 2) ** 0.5
            denoised = self.model(x, sigma_hat * s_in)
            d = to_d(x, sigma_hat, denoised)
            dt = sigmas[i + 1] - sigma_hat
            if sigmas[i + 1] == 0:
                # Euler method
                x = x + d * dt
            else:
                # Heun's method
                x_2 = x + d * dt
                denoised_2 = self.model(x_2, sigmas[i + 1] * s_in)
                d_2 = to_d(x_2, sigmas[i + 1], denoised_2)
                d_prime = (d + d_2) / 2
                x = x + d_prime * dt
        return x

    def forward(self, noise: Tensor, steps: int, sigma_min: float, sigma_max: float) -> Tensor:
        sigmas = get_sigmas_karras(steps, sigma_min, sigma_max)
        return self.sample_heun(noise * sigmas[0], sigmas)


def example():
    return HeunSampler().eval(), {"noise": torch.randn(2, 3, 16, 16), "steps": 8,
                                  "sigma_min": 0.02, "sigma_max": 20.0}
