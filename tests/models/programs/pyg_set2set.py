"""PyTorch Geometric's Set2Set readout: per graph of a batch, an LSTM query
attends over the graph's nodes by a scatter softmax (scatter-amax,
gather, exp, scatter-add) and reads them out by a scatter-add, for
processing_steps iterations; here as the readout of a small graph
classifier in the shape of PyG's examples/qm9_nn_conv.py (issue 30's
public code).

Origin: pyg-team/pytorch_geometric:
torch_geometric/nn/aggr/set2set.py, Set2Set (__init__, forward) and
torch_geometric/nn/aggr/base.py, Aggregation (__call__'s argument
handling, assert_index_present, assert_two_dimensional_input, reduce),
revision 03559e9176ff8810625a805989153853767c8f8b;
torch_geometric/utils/_softmax.py softmax (index path) and
torch_geometric/utils/_scatter.py scatter and broadcast as pyg_gat.py
ports them (revision 5c6461b2305ad068a6d61165b3c55852a11aaa41);
examples/qm9_nn_conv.py, Net.forward's readout (set2set, lin1, lin2).

Changes:
- Aggregation.__call__ (a Python override TorchScript does not go
  through: a scripted call runs forward) is written at the top of
  Set2Set.forward: the dimension check and dim_size from index.max() + 1;
  then `assert dim_size is not None` (TorchScript keeps dim_size
  Optional[int] after the if that sets it, and new_zeros needs an int);
  __call__'s try/except that rewrites an IndexError's message is dropped
  (TorchScript has no try);
- reduce and softmax keep their index paths (ptr is None here: the ptr
  branches call segment(), a torch-scatter kernel); reduce's `assert
  index is not None` stays, and it adds `assert dim_size is not None`
  (the scatter ported here, as in pyg_gat.py, takes an int dim_size);
  forward adds `assert index is not None` after assert_index_present
  (TorchScript does not refine a caller's Optional through a callee's
  raise);
- qm9_nn_conv.py's NNConv + GRU message passing before the readout is a
  Linear + ReLU encoder (a stand-in: this program exercises the readout),
  and forward takes x and the batch vector instead of a Data object.
"""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Linear


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    dim = ref.dim() + dim if dim < 0 else dim
    size = ((1, ) * dim) + (-1, ) + ((1, ) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter(src: Tensor, index: Tensor, dim: int, dim_size: int, reduce: str) -> Tensor:
    dim = src.dim() + dim if dim < 0 else dim
    size = src.size()[:dim] + (dim_size, ) + src.size()[dim + 1:]
    if reduce == 'sum' or reduce == 'add':
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_add_(dim, index, src)
    if reduce in ['min', 'max', 'amin', 'amax']:
        index = broadcast(index, src, dim)
        return src.new_zeros(size).scatter_reduce_(
            dim, index, src, reduce=f'a{reduce[-3:]}',
            include_self=False)
    raise ValueError(f"Encountered invalid `reduce` argument '{reduce}'")


def softmax(src: Tensor, index: Tensor, num_nodes: int, dim: int = 0) -> Tensor:
    N = num_nodes
    src_max = scatter(src.detach(), index, dim, dim_size=N, reduce='max')
    out = src - src_max.index_select(dim, index)
    out = out.exp()
    out_sum = scatter(out, index, dim, dim_size=N, reduce='sum') + 1e-16
    out_sum = out_sum.index_select(dim, index)
    return out / out_sum


class Set2Set(torch.nn.Module):
    def __init__(self, in_channels: int, processing_steps: int, **kwargs):
        super().__init__()
        self.in_channels = in_channels
        self.out_channels = 2 * in_channels
        self.processing_steps = processing_steps
        self.lstm = torch.nn.LSTM(self.out_channels, in_channels, **kwargs)
        self.reset_parameters()

    def reset_parameters(self):
        self.lstm.reset_parameters()

    def assert_index_present(self, index: Optional[Tensor]):
        # TODO Currently, not all aggregators support `ptr`. This assert helps
        # to ensure that we require `index` to be passed to the computation:
        if index is None:
            raise NotImplementedError(
                "Aggregation requires 'index' to be specified")

    def assert_two_dimensional_input(self, x: Tensor, dim: int):
        if x.dim() != 2:
            raise ValueError(f"Aggregation requires two-dimensional inputs "
                             f"(got '{x.dim()}')")

        if dim not in [-2, 0]:
            raise ValueError(f"Aggregation needs to perform aggregation in "
                             f"first dimension (got '{dim}')")

    def reduce(self, x: Tensor, index: Optional[Tensor] = None,
               ptr: Optional[Tensor] = None, dim_size: Optional[int] = None,
               dim: int = -2, reduce: str = 'sum') -> Tensor:
        assert index is not None
        assert dim_size is not None
        return scatter(x, index, dim, dim_size, reduce)

    def forward(self, x: Tensor, index: Optional[Tensor] = None,
                ptr: Optional[Tensor] = None, dim_size: Optional[int] = None,
                dim: int = -2) -> Tensor:
        # Aggregation.__call__
        if dim >= x.dim() or dim < -x.dim():
            raise ValueError(f"Encountered invalid dimension '{dim}' of "
                             f"source tensor with {x.dim()} dimensions")

        if index is None and ptr is None:
            index = x.new_zeros(x.size(dim), dtype=torch.long)

        if index is not None and dim_size is None:
            dim_size = int(index.max()) + 1 if index.numel() > 0 else 0
        assert dim_size is not None

        # TODO Currently, `to_dense_batch` can only operate on `index`:
        self.assert_index_present(index)
        self.assert_two_dimensional_input(x, dim)
        assert index is not None

        h = (x.new_zeros((self.lstm.num_layers, dim_size, x.size(-1))),
             x.new_zeros((self.lstm.num_layers, dim_size, x.size(-1))))
        q_star = x.new_zeros(dim_size, self.out_channels)

        for _ in range(self.processing_steps):
            q, h = self.lstm(q_star.unsqueeze(0), h)
            q = q.view(dim_size, self.in_channels)
            e = (x * q[index]).sum(dim=-1, keepdim=True)
            a = softmax(e, index, dim_size, dim)
            r = self.reduce(a * x, index, ptr, dim_size, dim, reduce='sum')
            q_star = torch.cat([q, r], dim=-1)

        return q_star


class Net(torch.nn.Module):
    def __init__(self, num_features: int, dim: int, num_targets: int):
        super().__init__()
        self.lin0 = Linear(num_features, dim)
        self.set2set = Set2Set(dim, processing_steps=3)
        self.lin1 = Linear(2 * dim, dim)
        self.lin2 = Linear(dim, num_targets)

    def forward(self, x: Tensor, batch: Tensor) -> Tensor:
        out = F.relu(self.lin0(x))
        out = self.set2set(out, batch)
        out = F.relu(self.lin1(out))
        out = self.lin2(out)
        return out.view(-1)


def example():
    sizes = [5, 9, 3, 7, 6]
    batch = torch.cat([torch.full((n,), g, dtype=torch.long) for g, n in enumerate(sizes)])
    return Net(11, 32, 1).eval(), {"x": torch.randn(len(batch), 11), "batch": batch}
