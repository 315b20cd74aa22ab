"""Inputs that are mutated and returned.

a is updated in place from b, then b is updated: the graph returns the
mutated inputs themselves plus a value computed from both versions.
"""
import torch


def mutated_input(a, b):
    a.add_(b)
    b.mul_(2.0)
    total = a + b
    a.clamp_(min=-1.0, max=1.0)
    return a, b, total


def example():
    return mutated_input, {"a": torch.randn(2, 3), "b": torch.randn(2, 3)}
