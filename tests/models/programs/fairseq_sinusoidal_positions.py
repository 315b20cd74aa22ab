"""fairseq's sinusoidal positional embedding: the table built by
get_embedding (sin and cos of position times a geometric frequency ramp, the
padding row zeroed), positions made by utils.make_positions (a cumulative
sum over the non-padding mask, so padding keeps padding_idx), and the rows
gathered with index_select (issue 30's public code).

Origin: facebookresearch/fairseq, fairseq/modules/
sinusoidal_positional_embedding.py, class SinusoidalPositionalEmbedding
(__init__, get_embedding, forward), and fairseq/utils.py, make_positions,
revision ecbf110e1eb43861214b05fa001eff584954f65a.

Changes:
- `from fairseq import utils` becomes make_positions copied here;
  _load_from_state_dict and prepare_for_onnx_export_ (not called) are
  dropped.
- the example builds the table with init_size=8, shorter than the input
  (12 tokens), so that forward rebuilds it and, auto_expand being set,
  stores it (`self.weights = weights`, a prim::SetAttr under a condition
  that compares shape_as_tensor's result at run time).

The forward is called with its Optional arguments (incremental_state,
timestep, positions) left at None: the exporter binds them as None in
args.txt, since TorchScript's graph text keeps no defaults.
"""
import math
from typing import Any, Optional

import torch
import torch.onnx.operators
from torch import nn, Tensor


def make_positions(tensor, padding_idx: int, onnx_trace: bool = False):
    """Replace non-padding symbols with their position numbers.

    Position numbers begin at padding_idx+1. Padding symbols are ignored.
    """
    # The series of casts and type-conversions here are carefully
    # balanced to both work with ONNX export and XLA. In particular XLA
    # prefers ints, cumsum defaults to output longs, and ONNX doesn't know
    # how to handle the dtype kwarg in cumsum.
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx
class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim, padding_idx, init_size=1024, auto_expand=True):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx if padding_idx is not None else 0
        self.register_buffer("weights", SinusoidalPositionalEmbedding.get_embedding(init_size, embedding_dim, padding_idx), persistent=False)
        self.max_positions = int(1e5)
        self.auto_expand = auto_expand
        self.onnx_trace = False
    @staticmethod
    def get_embedding(num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None):
        half_dim = embedding_dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
        emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
        emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
        if embedding_dim % 2 == 1:
            emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
        if padding_idx is not None:
            emb[padding_idx, :] = 0
        return emb
    def forward(self, input, incremental_state: Optional[Any] = None, timestep: Optional[Tensor] = None, positions: Optional[Any] = None):
        bspair = torch.onnx.operators.shape_as_tensor(input)
        bsz, seq_len = bspair[0], bspair[1]
        max_pos = self.padding_idx + 1 + seq_len
        weights = self.weights
        if max_pos > self.weights.size(0):
            weights = SinusoidalPositionalEmbedding.get_embedding(max_pos, self.embedding_dim, self.padding_idx).to(self.weights)
            if self.auto_expand:
                self.weights = weights
        if incremental_state is not None:
            pos = timestep.view(-1)[0] + 1 if timestep is not None else seq_len
            if self.onnx_trace:
                return (weights.index_select(index=self.padding_idx + pos, dim=0).unsqueeze(1).repeat(bsz, 1, 1))
            return weights[self.padding_idx + pos, :].expand(bsz, 1, -1)
        positions = make_positions(input, self.padding_idx, onnx_trace=self.onnx_trace)
        if self.onnx_trace:
            flat_embeddings = weights.detach().index_select(0, positions.view(-1))
            embedding_shape = torch.cat((bsz.view(1), seq_len.view(1), torch.tensor([-1], dtype=torch.long)))
            embeddings = torch.onnx.operators.reshape_from_tensor_shape(flat_embeddings, embedding_shape)
            return embeddings
        return (weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach())


def example():
    tokens = torch.randint(4, 50, (3, 12))
    tokens[1, 9:] = 1       # padding (padding_idx 1) at the end of row 1
    tokens[2, 5:] = 1
    return SinusoidalPositionalEmbedding(16, 1, init_size=8), {"input": tokens}
