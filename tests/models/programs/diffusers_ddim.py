"""A DDIM sampling loop with diffusers' first DDIMScheduler
(huggingface/diffusers, src/diffusers/schedulers/scheduling_ddim.py:
DDIMScheduler.__init__ (linear betas), get_alpha_prod, get_orig_t,
get_variance, step, revision 27266abc9ff8cda37a892e6ddfdd6a5caab94e66) and
the sinusoidal timestep embedding of src/diffusers/models/embeddings.py
(get_timestep_embedding, revision 168e5b7ffa4949fca82ed2fcd17d3451c5804401),
around a tiny convolutional denoiser (issue 30's public code).

Each of num_inference_steps steps predicts the noise at the training step
orig_t = timesteps // num_inference_steps * t, forms the predicted x0
(clipped to [-1, 1]), and moves to the previous step along formula (12) of
the DDIM paper; with eta = 0 no noise is added.

Changes:
- the scheduler is an nn.Module whose alphas_cumprod is a float64 buffer
  computed with torch (linspace, cumprod) instead of numpy arrays
  (TorchScript has no numpy); get_alpha_prod returns a Python float
  (`float(self.alphas_cumprod[t])`), the float64 scalar numpy gave, and
  `self.one` is 1.0;
- `self.clip(x, -1, 1)` (SchedulerMixin's numpy/torch dispatch) ->
  `torch.clamp(x, -1, 1)`;
- the sampling loop is written for this port after the DDIM pipeline of
  that time (for t in reversed(range(num_inference_steps)): residual =
  unet(image, orig_t); image = step(...)), `reversed(range(n))` written
  `range(n - 1, -1, -1)` (TorchScript has no reversed), eta fixed at 0 so that no random
  noise enters the result; the denoiser (two 3x3 convolutions with a SiLU
  and a projected timestep embedding) is a stand-in for the UNet;
- get_timestep_embedding's `assert len(timesteps.shape) == 1, "..."` is
  kept; its math.log(max_period) is computed as written.
"""
import math

import torch
import torch.nn as nn
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

    # scale embeddings
    emb = scale * emb

    # concat sine and cosine embeddings
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)

    # flip sine and cosine embeddings
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)

    # zero pad
    if embedding_dim % 2 == 1:
        emb = torch.nn.functional.pad(emb, (0, 1, 0, 0))
    return emb


class TinyDenoiser(nn.Module):
    def __init__(self, channels: int = 3, width: int = 16, temb: int = 16):
        super().__init__()
        self.temb = temb
        self.conv_in = nn.Conv2d(channels, width, 3, padding=1)
        self.time_proj = nn.Linear(temb, width)
        self.conv_out = nn.Conv2d(width, channels, 3, padding=1)

    def forward(self, x: Tensor, t: int) -> Tensor:
        ts = torch.full((x.size(0),), t, dtype=torch.long)
        emb = self.time_proj(get_timestep_embedding(ts, self.temb))
        h = F.silu(self.conv_in(x) + emb[:, :, None, None])
        return self.conv_out(h)


class DDIMScheduler(nn.Module):
    def __init__(self, timesteps: int = 1000, beta_start: float = 0.0001, beta_end: float = 0.02,
                 clip_predicted_image: bool = True):
        super().__init__()
        self.timesteps = int(timesteps)
        self.clip_image = clip_predicted_image
        betas = torch.linspace(beta_start, beta_end, timesteps, dtype=torch.float64)
        alphas = 1.0 - betas
        self.register_buffer("alphas_cumprod", torch.cumprod(alphas, dim=0))
        self.one = 1.0

    def get_alpha_prod(self, time_step: int) -> float:
        if time_step < 0:
            return self.one
        return float(self.alphas_cumprod[time_step])

    def get_orig_t(self, t: int, num_inference_steps: int) -> int:
        if t < 0:
            return -1
        return self.timesteps // num_inference_steps * t

    def get_variance(self, t: int, num_inference_steps: int) -> float:
        orig_t = self.get_orig_t(t, num_inference_steps)
        orig_prev_t = self.get_orig_t(t - 1, num_inference_steps)

        alpha_prod_t = self.get_alpha_prod(orig_t)
        alpha_prod_t_prev = self.get_alpha_prod(orig_prev_t)
        beta_prod_t = 1 - alpha_prod_t
        beta_prod_t_prev = 1 - alpha_prod_t_prev

        variance = (beta_prod_t_prev / beta_prod_t) * (1 - alpha_prod_t / alpha_prod_t_prev)

        return variance

    def step(self, residual: Tensor, image: Tensor, t: int, num_inference_steps: int,
             eta: float) -> Tensor:
        # 1. get actual t and t-1
        orig_t = self.get_orig_t(t, num_inference_steps)
        orig_prev_t = self.get_orig_t(t - 1, num_inference_steps)

        # 2. compute alphas, betas
        alpha_prod_t = self.get_alpha_prod(orig_t)
        alpha_prod_t_prev = self.get_alpha_prod(orig_prev_t)
        beta_prod_t = 1 - alpha_prod_t

        # 3. compute predicted original image from predicted noise also called
        # "predicted x_0" of formula (12) from https://arxiv.org/pdf/2010.02502.pdf
        pred_original_image = (image - beta_prod_t ** (0.5) * residual) / alpha_prod_t ** (0.5)

        # 4. Clip "predicted x_0"
        if self.clip_image:
            pred_original_image = torch.clamp(pred_original_image, -1, 1)

        # 5. compute variance: "sigma_t(eta)" -> see formula (16)
        variance = self.get_variance(t, num_inference_steps)
        std_dev_t = eta * variance ** (0.5)

        # 6. compute "direction pointing to x_t" of formula (12)
        pred_image_direction = (1 - alpha_prod_t_prev - std_dev_t**2) ** (0.5) * residual

        # 7. compute x_t without "random noise" of formula (12)
        pred_prev_image = alpha_prod_t_prev ** (0.5) * pred_original_image + pred_image_direction

        return pred_prev_image


class DDIMSampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.unet = TinyDenoiser()
        # Stable Diffusion's beta range (the scheduler's defaults end at
        # alpha_prod 4e-5, where x0 = (x - sqrt(1 - a) eps) / sqrt(a)
        # multiplies the denoiser's rounding by 150).
        self.noise_scheduler = DDIMScheduler(beta_start=0.00085, beta_end=0.012)

    def forward(self, image: Tensor, num_inference_steps: int) -> Tensor:
        for t in range(num_inference_steps - 1, -1, -1):
            orig_t = self.noise_scheduler.get_orig_t(t, num_inference_steps)
            residual = self.unet(image, orig_t)
            image = self.noise_scheduler.step(residual, image, t, num_inference_steps, 0.0)
        return image


def example():
    # 4 steps: over 10 steps the untrained denoiser carries a 2-ulp
    # difference in the cpu backend's expf (glibc's libmvec, in the fused
    # SiLU) to 5e-5 in the image, past the corpus's 1e-4 / 1e-5 tolerance
    # (the ref backend, with libm's expf, stays within 1e-6).
    return DDIMSampler().eval(), {"image": torch.randn(2, 3, 16, 16), "num_inference_steps": 4}
