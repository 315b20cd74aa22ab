"""Rotary position embeddings as Hugging Face's LLaMA writes them
(models/llama/modeling_llama.py): LlamaRotaryEmbedding's cos/sin caches
built with einsum and kept as non-persistent buffers, rotate_half, and
apply_rotary_pos_emb with position ids (issue 11's public programs)."""
import torch
from torch import nn


class LlamaRotaryEmbedding(torch.nn.Module):
    def __init__(self, dim, max_position_embeddings=32, base=10000, device=None):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float().to(device) / dim))
        self.register_buffer("inv_freq", inv_freq)

        # Build here to make `torch.jit.trace` work.
        self.max_seq_len_cached = max_position_embeddings
        t = torch.arange(self.max_seq_len_cached, device=self.inv_freq.device, dtype=self.inv_freq.dtype)
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        # Different from paper, but it uses a different permutation in order to obtain the same calculation
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos()[None, None, :, :], persistent=False)
        self.register_buffer("sin_cached", emb.sin()[None, None, :, :], persistent=False)

    def forward(self, x, seq_len: int):
        # x: [bs, num_attention_heads, seq_len, head_size]
        return (
            self.cos_cached[:, :, :seq_len, ...].to(dtype=x.dtype),
            self.sin_cached[:, :, :seq_len, ...].to(dtype=x.dtype),
        )


def rotate_half(x):
    """Rotates half the hidden dims of the input."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids):
    # The first two dimensions of cos and sin are always 1, so we can `squeeze` them.
    cos = cos.squeeze(1).squeeze(0)  # [seq_len, dim]
    sin = sin.squeeze(1).squeeze(0)  # [seq_len, dim]
    cos = cos[position_ids].unsqueeze(1)  # [bs, 1, seq_len, dim]
    sin = sin[position_ids].unsqueeze(1)  # [bs, 1, seq_len, dim]
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


class RotaryAttentionInputs(nn.Module):
    def __init__(self, head_dim=8):
        super().__init__()
        self.rotary_emb = LlamaRotaryEmbedding(head_dim)

    def forward(self, q, k, position_ids):
        cos, sin = self.rotary_emb(k, seq_len=k.shape[-2])
        return apply_rotary_pos_emb(q, k, cos, sin, position_ids)


def example():
    return RotaryAttentionInputs(), {"q": torch.randn(2, 3, 5, 8), "k": torch.randn(2, 3, 5, 8),
                                     "position_ids": torch.arange(5).unsqueeze(0).expand(2, 5)}
