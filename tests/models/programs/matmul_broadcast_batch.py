"""matmul whose operands' batch dims broadcast against each other ([1, 2]
by [3, 1]: a 3 x 2 batch of products), as batch_heads makes for x @ w
per head: the cuda backend must not take the equal batch counts for pairs
of matrices (its GEMM pairs matrix i of A with matrix i of B), and gives
this product to the host.
"""
import torch


def matmul_broadcast_batch(a, b, c):
    return torch.matmul(a, b), torch.matmul(b.transpose(2, 3), c)


def example():
    inputs = {
        "a": torch.randn(1, 3, 4, 5),
        "b": torch.randn(3, 1, 5, 2),
        "c": torch.randn(1, 3, 5, 4),
    }
    return matmul_broadcast_batch, inputs
