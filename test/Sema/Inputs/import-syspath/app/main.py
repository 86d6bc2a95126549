import os
import sys

import torch
import tilelang.language as T

sys.path.append(os.path.join(os.path.dirname(__file__), "../shared"))
from inputs import make_inputs  # noqa: E402


def scale(n, dtype):
    @T.prim_func
    def main(X: T.Tensor((n,), dtype)):
        with T.Kernel(T.ceildiv(n, 32), threads=32) as bx:
            for i in T.Parallel(32):
                X[bx * 32 + i] = X[bx * 32 + i] * 2

    return main


if __name__ == "__main__":
    x = make_inputs()
    scale(x.shape[0], T.bfloat16 if x.dtype == torch.bfloat16 else T.float16)
