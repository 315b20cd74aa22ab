import torch
def f(n: int):
    a = torch.sin(torch.arange(n * n, dtype=torch.float32).view(n, n) * 0.37)
    b = torch.cos(torch.arange(n * n, dtype=torch.float32).view(n, n) * 0.11)
    return torch.mm(a, b) + torch.mm(b, a)
print(torch.jit.script(f).graph)
