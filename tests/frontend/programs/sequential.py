# nn.Sequential of Linear/ReLU/Linear/Tanh, scripted and inlined.
import torch
from torch import nn

torch.manual_seed(0)
MODEL = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4), nn.Tanh())
