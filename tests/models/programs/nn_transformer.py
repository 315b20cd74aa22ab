"""torch.nn.Transformer (PyTorch 1.13, torch/nn/modules/transformer.py):
one encoder and one decoder layer, batch_first, in eval mode, with the
causal target mask Transformer.generate_square_subsequent_mask makes, as a
sequence-to-sequence model calls it (issue 30's unseen-code check).

The encoder layer takes PyTorch's inference fast path
(aten::_transformer_encoder_layer_fwd); the decoder layer's self-attention
has an attn_mask and its cross-attention a key that is not the query, so
both take nn.MultiheadAttention's slow path, whose fast-path branch
(aten::_native_multi_head_attention) stays in the graph behind a run-time
`query is key` test. tssa-stream runs both ops as their definitions
(frontend/decompose.c). Before, the program stopped at run time (exit 1,
aten::_transformer_encoder_layer_fwd not in the op table). Changes: none to
the module; the mask is made outside, as generate_square_subsequent_mask is
a static method that TorchScript does not export with the module."""
import torch
from torch import nn

# nn.TransformerEncoder's nested-tensor path, behind run-time checks this
# case never passes (no src_key_padding_mask is given to the stack): see
# the docstring.
UNREACHED_OPS = ("aten::_nested_tensor_from_mask", "aten::_nested_tensor_from_mask_left_aligned",
                 "aten::to_padded_tensor")


def example():
    torch.manual_seed(0)
    m = nn.Transformer(16, 4, 1, 1, 32, batch_first=True)
    m.eval()
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(5)
    return m, {"src": torch.randn(2, 7, 16), "tgt": torch.randn(2, 5, 16), "tgt_mask": tgt_mask}
