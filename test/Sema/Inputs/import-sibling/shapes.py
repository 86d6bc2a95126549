# Imported by main.py and main_star.py from their own directory.
import torch

BLOCK = 32
FACTOR = 2


def make_inputs():
    return torch.randn(96, dtype=torch.float16)


# A bare call at module level is skipped, as in the compiled file.
print("imported")

if __name__ == "__main__":
    # Not run: the module runs under its own name.
    BLOCK = 1
