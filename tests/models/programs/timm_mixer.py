"""timm's MLP-Mixer: patch embedding by a strided Conv2d, MixerBlocks
(LayerNorm, a token-mixing Mlp over the transposed sequence, a
channel-mixing Mlp, nn.GELU, residual adds), a final LayerNorm, mean over
tokens and a Linear head (issue 30's public code).

Origin: huggingface/pytorch-image-models, revision
03fa149147b1695dc7ebce06737623d39b7dd34f: timm/models/mlp_mixer.py,
classes MixerBlock and MlpMixer (forward_features, forward, _init_weights
for Linear and LayerNorm); timm/layers/mlp.py, class Mlp;
timm/layers/patch_embed.py, class PatchEmbed (its forward's flatten and
transpose).

Changes:
- Mlp keeps its nn.Linear path (use_conv False) and no norm_layer
  (nn.Identity); drop 0 makes its Dropouts identities, as is drop_path
  (nn.Identity); to_2tuple's results are written out;
- PatchEmbed's img_size assert (`_assert(H == self.img_size[0], ...)`)
  and its dynamic-padding options are dropped: a Conv2d with kernel and
  stride patch_size, `x.flatten(2).transpose(1, 2)`, as written;
- build_model_with_cfg, default_cfgs and the pretrained loading are not
  ported; the model is built directly with a small config (img 32, patch 8,
  embed_dim 32, 3 blocks, 10 classes); _init_weights initializes the
  head with small random values instead of zeros so that the case checks
  more than its bias.
"""
from functools import partial

import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None, act_layer=nn.GELU,
                 bias=True, drop=0.):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        bias = (bias, bias)
        drop_probs = (drop, drop)

        self.fc1 = nn.Linear(in_features, hidden_features, bias=bias[0])
        self.act = act_layer()
        self.drop1 = nn.Dropout(drop_probs[0])
        self.norm = nn.Identity()
        self.fc2 = nn.Linear(hidden_features, out_features, bias=bias[1])
        self.drop2 = nn.Dropout(drop_probs[1])

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        x = self.drop1(x)
        x = self.norm(x)
        x = self.fc2(x)
        x = self.drop2(x)
        return x


class PatchEmbed(nn.Module):
    def __init__(self, patch_size=16, in_chans=3, embed_dim=768):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = nn.Identity()

    def forward(self, x):
        x = self.proj(x)
        x = x.flatten(2).transpose(1, 2)  # NCHW -> NLC
        x = self.norm(x)
        return x


class MixerBlock(nn.Module):
    """ Residual Block w/ token mixing and channel MLPs
    Based on: 'MLP-Mixer: An all-MLP Architecture for Vision' - https://arxiv.org/abs/2105.01601
    """
    def __init__(
            self, dim, seq_len, mlp_ratio=(0.5, 4.0), mlp_layer=Mlp,
            norm_layer=partial(nn.LayerNorm, eps=1e-6), act_layer=nn.GELU, drop=0., drop_path=0.):
        super().__init__()
        tokens_dim, channels_dim = [int(x * dim) for x in mlp_ratio]
        self.norm1 = norm_layer(dim)
        self.mlp_tokens = mlp_layer(seq_len, tokens_dim, act_layer=act_layer, drop=drop)
        self.drop_path = nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp_channels = mlp_layer(dim, channels_dim, act_layer=act_layer, drop=drop)

    def forward(self, x):
        x = x + self.drop_path(self.mlp_tokens(self.norm1(x).transpose(1, 2)).transpose(1, 2))
        x = x + self.drop_path(self.mlp_channels(self.norm2(x)))
        return x


class MlpMixer(nn.Module):
    def __init__(self, num_classes=10, img_size=32, in_chans=3, patch_size=8, num_blocks=3,
                 embed_dim=32, mlp_ratio=(0.5, 4.0), norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.num_classes = num_classes
        self.num_features = self.embed_dim = embed_dim
        self.stem = PatchEmbed(patch_size=patch_size, in_chans=in_chans, embed_dim=embed_dim)
        num_patches = (img_size // patch_size) ** 2
        self.blocks = nn.Sequential(*[
            MixerBlock(embed_dim, num_patches, mlp_ratio, norm_layer=norm_layer)
            for _ in range(num_blocks)])
        self.norm = norm_layer(embed_dim)
        self.head = nn.Linear(embed_dim, self.num_classes)
        for name, module in self.named_modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.normal_(module.bias, std=1e-6 if 'mlp' in name else 0.02)
            elif isinstance(module, nn.LayerNorm):
                nn.init.normal_(module.weight, 1.0, 0.1)
                nn.init.normal_(module.bias, std=0.1)

    def forward_features(self, x):
        x = self.stem(x)
        x = self.blocks(x)
        x = self.norm(x)
        return x

    def forward(self, x):
        x = self.forward_features(x)
        x = x.mean(dim=1)
        x = self.head(x)
        return x


def example():
    return MlpMixer().eval(), {"x": torch.randn(4, 3, 32, 32)}
