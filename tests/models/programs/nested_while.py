"""Loops decided at run time inside one another.

Power iteration until the eigenvalue estimate settles (a while loop with
`break`), each step rescaling the iterate by a data-dependent number of
halvings (an inner while loop) and adding a fixed number of small shifts (an
inner for loop): the outer loop's body holds two loops, each a hierarchical
filter of its own inside the outer one's body stream.
"""
import torch


def nested_while(x, w, tol: float):
    v = x / x.norm()
    lam = 0.0
    it = 0
    while it < 50:
        u = w @ v
        k = 0
        while k < 3 and float(u.abs().max()) > 1.0:
            u = u * 0.5
            k += 1
        for j in range(2):
            u = u + 0.01 * j * v
        new_lam = float(v @ u)
        v = u / u.norm()
        it += 1
        if abs(new_lam - lam) < tol:
            break
        lam = new_lam
    return v, lam, it


def example():
    a = torch.randn(8, 8)
    return nested_while, {"x": torch.randn(8), "w": a @ a.t() * 0.5, "tol": 1e-4}
