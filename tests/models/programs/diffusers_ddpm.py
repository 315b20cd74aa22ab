"""A DDPM ancestral sampling loop with diffusers' early DDPMScheduler
(huggingface/diffusers, src/diffusers/schedulers/scheduling_ddpm.py:
DDPMScheduler.__init__ (linear betas), set_timesteps, get_variance
("fixed_small") and step, revision
fc9039a35aada619f834b58b041cc55c1be84b75) around a tiny convolutional
denoiser with diffusers' sinusoidal timestep embedding (issue 30's public
code).

Each step predicts the noise, forms x0 (clipped to [-1, 1]), takes the
posterior mean of formula (7) of the DDPM paper from x0 and x_t, and for
t > 0 adds sqrt(variance) times fresh Gaussian noise.

Changes:
- the scheduler is an nn.Module with float32 buffers betas, alphas and
  alphas_cumprod made by torch (linspace, cumprod) instead of numpy arrays,
  read as Python floats (`float(self.alphas_cumprod[t])`); self.one is 1.0;
  `self.clip(x, -1, 1)` / `self.clip(variance, min_value=1e-20)`
  (SchedulerMixin's numpy/torch dispatch) -> torch.clamp / max();
- step returns the previous sample instead of {"prev_sample": ...}, and
  get_variance's other variance types are left out (the default,
  "fixed_small", is the one ported); set_timesteps' numpy arange reversed
  is a range counting down;
- the sampling loop is written for this port after that revision's DDPM
  pipeline (for t in timesteps: model_output = unet(image, t); image =
  step(...); if t > 0: image += get_variance(t) ** 0.5 * noise): the noise
  that pipeline draws with torch.randn at each step is an input, one
  [B, C, H, W] slice per step, so that PyTorch and tssa-stream add the same
  numbers;
- the denoiser (two 3x3 convolutions with a SiLU and a projected timestep
  embedding, get_timestep_embedding as diffusers_ddim.py has it) is a
  stand-in for the UNet; 4 inference steps, for diffusers_ddim.py's reason.
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
    emb = scale * emb
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
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


class DDPMScheduler(nn.Module):
    def __init__(self, num_train_timesteps: int = 1000, beta_start: float = 0.0001,
                 beta_end: float = 0.02, clip_sample: bool = True):
        super().__init__()
        self.num_train_timesteps = num_train_timesteps
        self.clip_sample = clip_sample
        betas = torch.linspace(beta_start, beta_end, num_train_timesteps, dtype=torch.float32)
        alphas = 1.0 - betas
        self.register_buffer("betas", betas)
        self.register_buffer("alphas", alphas)
        self.register_buffer("alphas_cumprod", torch.cumprod(alphas, dim=0))
        self.one = 1.0

    def get_variance(self, t: int) -> float:
        alpha_prod_t = float(self.alphas_cumprod[t])
        alpha_prod_t_prev = float(self.alphas_cumprod[t - 1]) if t > 0 else self.one

        # For t > 0, compute predicted variance βt (see formula (6) and (7) from https://arxiv.org/pdf/2006.11239.pdf)
        # and sample from it to get previous sample
        # x_{t-1} ~ N(pred_prev_sample, variance) == add variance to pred_sample
        variance = (1 - alpha_prod_t_prev) / (1 - alpha_prod_t) * float(self.betas[t])

        # hacks - were probs added for training stability
        variance = max(variance, 1e-20)
        return variance

    def step(self, model_output: Tensor, timestep: int, sample: Tensor,
             predict_epsilon: bool = True) -> Tensor:
        t = timestep
        # 1. compute alphas, betas
        alpha_prod_t = float(self.alphas_cumprod[t])
        alpha_prod_t_prev = float(self.alphas_cumprod[t - 1]) if t > 0 else self.one
        beta_prod_t = 1 - alpha_prod_t
        beta_prod_t_prev = 1 - alpha_prod_t_prev

        # 2. compute predicted original sample from predicted noise also called
        # "predicted x_0" of formula (15) from https://arxiv.org/pdf/2006.11239.pdf
        if predict_epsilon:
            pred_original_sample = (sample - beta_prod_t ** (0.5) * model_output) / alpha_prod_t ** (0.5)
        else:
            pred_original_sample = model_output

        # 3. Clip "predicted x_0"
        if self.clip_sample:
            pred_original_sample = torch.clamp(pred_original_sample, -1, 1)

        # 4. Compute coefficients for pred_original_sample x_0 and current sample x_t
        # See formula (7) from https://arxiv.org/pdf/2006.11239.pdf
        pred_original_sample_coeff = (alpha_prod_t_prev ** (0.5) * float(self.betas[t])) / beta_prod_t
        current_sample_coeff = float(self.alphas[t]) ** (0.5) * beta_prod_t_prev / beta_prod_t

        # 5. Compute predicted previous sample µ_t
        # See formula (7) from https://arxiv.org/pdf/2006.11239.pdf
        pred_prev_sample = pred_original_sample_coeff * pred_original_sample + current_sample_coeff * sample

        return pred_prev_sample


class DDPMSampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.unet = TinyDenoiser()
        self.scheduler = DDPMScheduler()

    def forward(self, image: Tensor, noise: Tensor) -> Tensor:
        num_inference_steps = noise.size(0)
        step_size = self.scheduler.num_train_timesteps // num_inference_steps
        k = 0
        for t in range(step_size * (num_inference_steps - 1), -1, -step_size):
            model_output = self.unet(image, t)
            image = self.scheduler.step(model_output, t, image)
            if t > 0:
                image = image + (self.scheduler.get_variance(t) ** 0.5) * noise[k]
            k += 1
        return image


def example():
    steps = 4
    return DDPMSampler().eval(), {"image": torch.randn(2, 3, 16, 16),
                                  "noise": torch.randn(steps, 2, 3, 16, 16)}
