import torch
from sizes import LENGTH


def make_inputs():
    return torch.randn(LENGTH, dtype=torch.bfloat16)
