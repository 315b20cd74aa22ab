"""k-diffusion's DPM-Solver++(2M) sampler on a Karras noise schedule
(crowsonkb/k-diffusion, k_diffusion/sampling.py: get_sigmas_karras,
append_zero and sample_dpmpp_2m; k_diffusion/utils.py: append_dims;
revision 4601bf085320592473f681a62808ed873d17fad5) around a tiny denoiser
wrapped with Karras et al.'s preconditioning (c_skip, c_out, c_in as
k-diffusion's layers.Denoiser has them) (issue 30's public code).

sample_dpmpp_2m: a multistep solver in log-sigma time t = -log(sigma):
each step one denoiser call; the first step (no earlier denoised output)
and the last (next sigma 0) are first-order, the others extrapolate from
this step's and the previous step's denoised outputs with the ratio of
the last two step sizes. The previous output is an Optional[Tensor]
carried by the loop (None on the first step).

Changes:
- `trange(len(sigmas) - 1, disable=disable)` -> `range(...)` (tqdm's
  progress bar); extra_args and callback dropped (None by default);
- the lambdas `sigma_fn = lambda t: t.neg().exp()` and
  `t_fn = lambda sigma: sigma.log().neg()` are module-level functions
  (TorchScript has no lambdas);
- `old_denoised = None` is annotated Optional[Tensor] (TorchScript types
  a bare None as NoneType);
- `model(x, sigmas[i] * s_in, **extra_args)` calls the module's own
  denoiser; get_sigmas_karras' `device` keeps its default;
- utils.append_dims: `x[(...,) + (None,) * dims_to_append]` ->
  `x.reshape(list(x.shape) + [1] * dims_to_append)` (the same view;
  TorchScript cannot index with a built tuple), its check kept as a raise;
- the denoiser (a 3x3 convolution pair with a SiLU, c_noise = log(sigma)/4
  as a per-sample bias) is a stand-in for a trained model, as in
  kdiffusion_heun.py.
"""
from typing import Optional

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


def sigma_fn(t: Tensor) -> Tensor:
    return t.neg().exp()


def t_fn(sigma: Tensor) -> Tensor:
    return sigma.log().neg()


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


class DPMpp2MSampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = TinyDenoiser()

    def sample_dpmpp_2m(self, x: Tensor, sigmas: Tensor) -> Tensor:
        """DPM-Solver++(2M)."""
        s_in = x.new_ones([x.shape[0]])
        old_denoised: Optional[Tensor] = None

        for i in range(len(sigmas) - 1):
            denoised = self.model(x, sigmas[i] * s_in)
            t, t_next = t_fn(sigmas[i]), t_fn(sigmas[i + 1])
            h = t_next - t
            if old_denoised is None or sigmas[i + 1] == 0:
                x = (sigma_fn(t_next) / sigma_fn(t)) * x - (-h).expm1() * denoised
            else:
                h_last = t - t_fn(sigmas[i - 1])
                r = h_last / h
                denoised_d = (1 + 1 / (2 * r)) * denoised - (1 / (2 * r)) * old_denoised
                x = (sigma_fn(t_next) / sigma_fn(t)) * x - (-h).expm1() * denoised_d
            old_denoised = denoised
        return x

    def forward(self, noise: Tensor, steps: int, sigma_min: float, sigma_max: float) -> Tensor:
        sigmas = get_sigmas_karras(steps, sigma_min, sigma_max)
        return self.sample_dpmpp_2m(noise * sigmas[0], sigmas)


def example():
    return DPMpp2MSampler().eval(), {"noise": torch.randn(2, 3, 16, 16), "steps": 10,
                                     "sigma_min": 0.02, "sigma_max": 20.0}
