"""torch.nn.TransformerEncoder over two torch.nn.TransformerEncoderLayer
(PyTorch 1.13, torch/nn/modules/transformer.py), batch_first, in eval mode,
as a new user drops the library modules in (issue 30's unseen-code check),
and a third layer with GELU and norm_first called with a key padding mask.

In eval mode with batch_first and no gradients, each layer's forward takes
PyTorch's inference fast path: one aten::_transformer_encoder_layer_fwd per
layer (self-attention by aten::_native_multi_head_attention, the residual
adds, the layer norms and the feed-forward block in one C++ call), with the
key padding mask as a [B, L] mask of mask_type 1. tssa-stream runs both ops
as their definitions (frontend/gen_decompositions.py, checked against
PyTorch's), so the stream graph sees the projections as GEMMs and the norms
and activations fused. Before, the program stopped at run time (exit 1,
aten::_transformer_encoder_layer_fwd not in the op table).

The encoder stack is called without src_key_padding_mask: with one, and a
mask whose padding is at the end of every row, nn.TransformerEncoder turns
the batch into a nested tensor (aten::_nested_tensor_from_mask), which
tssa-stream does not have. Changes: none to the modules."""
import torch
from torch import nn

# nn.TransformerEncoder's nested-tensor path, behind run-time checks this
# case never passes (no src_key_padding_mask is given to the stack): see
# the docstring.
UNREACHED_OPS = ("aten::_nested_tensor_from_mask", "aten::_nested_tensor_from_mask_left_aligned",
                 "aten::to_padded_tensor")


class Encoder(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4, ffn: int = 32):
        super().__init__()
        layer = nn.TransformerEncoderLayer(dim, heads, ffn, batch_first=True)
        self.stack = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.last = nn.TransformerEncoderLayer(dim, heads, ffn, activation="gelu", batch_first=True,
                                               norm_first=True)

    def forward(self, x, padding):
        return self.last(self.stack(x), src_key_padding_mask=padding)


def example():
    torch.manual_seed(0)
    m = Encoder()
    m.eval()
    padding = torch.tensor([[False] * 6, [False] * 4 + [True] * 2, [False, True] * 3])
    return m, {"x": torch.randn(3, 6, 16), "padding": padding}
