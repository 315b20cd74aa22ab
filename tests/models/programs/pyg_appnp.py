"""PyTorch Geometric's APPNP network (benchmark/citation/appnp.py): a
two-layer MLP predicts, then APPNP propagates the predictions K times by
personalized PageRank over the GCN-normalized graph (x <- (1 - alpha) *
A_hat x + alpha * h), the message passing written out as PyG's
MessagePassing runs it for this layer (issue 30's public code).

Origin: pyg-team/pytorch_geometric:
benchmark/citation/appnp.py, class Net (revision
064d52923a5168ab2e044435c822913020d15061);
torch_geometric/nn/conv/appnp.py, APPNP (__init__, forward, message;
revision 0a4d435e4f63dc964fdd966454a8bd5c68bfe129);
torch_geometric/nn/conv/gcn_conv.py gcn_norm,
torch_geometric/utils/loop.py add_remaining_self_loops,
torch_geometric/utils/_scatter.py scatter (reduce 'sum') and broadcast,
torch_geometric/nn/conv/message_passing.py propagate's collect and 'add'
aggregation (revision 5c6461b2305ad068a6d61165b3c55852a11aaa41, as
pyg_gcn.py has them).

Changes:
- MessagePassing.propagate is generated per layer by PyG's template
  machinery (jinja, inspect); it is written out as the three steps it
  performs for APPNP: collect (x_j = x.index_select(node_dim,
  edge_index[0])), message, aggregate (scatter into edge_index[1] with
  reduce 'sum').
- gcn_norm, add_remaining_self_loops, scatter and broadcast are pyg_gcn.py's
  ports (edge_index-tensor paths only; the same changes listed there).
- APPNP.forward keeps its edge_index-tensor path: the SparseTensor branches
  (isinstance on a type TorchScript-exported graphs cannot carry) and the
  cache (cached=False by default, so `cache` is always None) are dropped;
  the edge-dropout branch (dropout > 0 and training) is kept, never taken
  in eval mode.
- Net: `args.hidden`, `args.dropout`, `args.K`, `args.alpha` are
  constructor arguments (argparse globals in the benchmark), and forward
  takes x and edge_index instead of a Data object (the exporter binds
  tensors).
"""
from typing import Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Linear


def broadcast(src: Tensor, ref: Tensor, dim: int) -> Tensor:
    dim = ref.dim() + dim if dim < 0 else dim
    size = ((1, ) * dim) + (-1, ) + ((1, ) * (ref.dim() - dim - 1))
    return src.view(size).expand_as(ref)


def scatter_sum(src: Tensor, index: Tensor, dim: int, dim_size: int) -> Tensor:
    # scatter(src, index, dim, dim_size, reduce='sum')
    dim = src.dim() + dim if dim < 0 else dim
    size = src.size()[:dim] + (dim_size, ) + src.size()[dim + 1:]
    index = broadcast(index, src, dim)
    return src.new_zeros(size).scatter_add_(dim, index, src)


def add_remaining_self_loops(edge_index: Tensor, N: int) -> Tensor:
    mask = edge_index[0] != edge_index[1]
    device = edge_index.device
    loop_index = torch.arange(0, N, device=device).view(1, -1).repeat(2, 1)
    edge_index = edge_index[:, mask]
    edge_index = torch.cat([edge_index, loop_index], dim=1)
    return edge_index


def gcn_norm(
    edge_index: Tensor,
    edge_weight: Optional[Tensor],
    num_nodes: int,
    improved: bool = False,
    add_self_loops: bool = True,
    flow: str = "source_to_target",
    dtype: Optional[torch.dtype] = None,
) -> Tuple[Tensor, Tensor]:
    fill_value = 2. if improved else 1.
    assert flow in ['source_to_target', 'target_to_source']

    if add_self_loops:
        edge_index = add_remaining_self_loops(edge_index, num_nodes)

    if edge_weight is None:
        edge_weight = torch.ones((edge_index.size(1), ), dtype=dtype,
                                 device=edge_index.device)

    row, col = edge_index[0], edge_index[1]
    idx = col if flow == 'source_to_target' else row
    deg = scatter_sum(edge_weight, idx, 0, num_nodes)
    deg_inv_sqrt = deg.pow_(-0.5)
    deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float('inf'), 0)
    edge_weight = deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]
    return edge_index, edge_weight


class APPNP(torch.nn.Module):
    def __init__(self, K: int, alpha: float, dropout: float = 0.,
                 cached: bool = False, add_self_loops: bool = True,
                 normalize: bool = True):
        super().__init__()
        self.K = K
        self.alpha = alpha
        self.dropout = dropout
        self.cached = cached
        self.add_self_loops = add_self_loops
        self.normalize = normalize
        self.flow = "source_to_target"
        self.node_dim = -2

    def message(self, x_j: Tensor, edge_weight: Optional[Tensor]) -> Tensor:
        return x_j if edge_weight is None else edge_weight.view(-1, 1) * x_j

    def propagate(self, edge_index: Tensor, x: Tensor,
                  edge_weight: Optional[Tensor]) -> Tensor:
        x_j = x.index_select(self.node_dim, edge_index[0])
        out = self.message(x_j, edge_weight)
        return scatter_sum(out, edge_index[1], self.node_dim, x.size(self.node_dim))

    def forward(self, x: Tensor, edge_index: Tensor,
                edge_weight: Optional[Tensor] = None) -> Tensor:
        if self.normalize:
            edge_index, edge_weight = gcn_norm(  # yapf: disable
                edge_index, edge_weight, x.size(self.node_dim), False,
                self.add_self_loops, self.flow, dtype=x.dtype)

        h = x
        for k in range(self.K):
            if self.dropout > 0 and self.training:
                assert edge_weight is not None
                edge_weight = F.dropout(edge_weight, p=self.dropout)

            # propagate_type: (x: Tensor, edge_weight: OptTensor)
            x = self.propagate(edge_index, x=x, edge_weight=edge_weight)
            x = x * (1 - self.alpha)
            x = x + self.alpha * h

        return x


class Net(torch.nn.Module):
    def __init__(self, num_features: int, num_classes: int, hidden: int = 64,
                 dropout: float = 0.5, K: int = 10, alpha: float = 0.1):
        super().__init__()
        self.dropout = dropout
        self.lin1 = Linear(num_features, hidden)
        self.lin2 = Linear(hidden, num_classes)
        self.prop1 = APPNP(K, alpha)

    def forward(self, x: Tensor, edge_index: Tensor) -> Tensor:
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.relu(self.lin1(x))
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = self.lin2(x)
        x = self.prop1(x, edge_index)
        return F.log_softmax(x, dim=1)


def example():
    num_nodes, num_edges = 80, 320
    src = torch.randint(0, num_nodes, (num_edges,))
    dst = torch.randint(0, num_nodes, (num_edges,))
    src[:4] = dst[:4]   # explicit self-loops, which add_remaining_self_loops drops
    edge_index = torch.stack([src, dst])
    model = Net(24, 7).eval()
    return model, {"x": torch.randn(num_nodes, 24), "edge_index": edge_index}
