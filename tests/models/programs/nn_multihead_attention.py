"""torch.nn.MultiheadAttention itself (PyTorch 1.13, torch/nn/modules/
activation.py and F.multi_head_attention_forward), batch_first, as a new
user would drop the library module in (issue
30's unseen-code check). Its forward asks prim::is_nested,
torch.is_grad_enabled() and torch.is_autocast_enabled() before choosing
the fused fast path; tssa-stream answers what an inference run under
torch.no_grad() answers (False for each), the checks fold at compile time,
and the slow path's ops are what runs. Before, prim::is_nested was not in
the op table: exit 1 at run time. Changes: none (the module as PyTorch
ships it)."""
import torch

# The fused fast path (aten::_native_multi_head_attention, which tssa-stream
# runs as its definition: frontend/decompose.c) is taken only for
# self-attention; here key is not query, so the slow path's ops run.


def example():
    torch.manual_seed(0)
    m = torch.nn.MultiheadAttention(16, 4, batch_first=True)
    m.eval()
    return m, {"query": torch.randn(2, 5, 16), "key": torch.randn(2, 7, 16),
               "value": torch.randn(2, 7, 16)}
