import tilelang.language as T
from shapes import *


def fill(n, block=BLOCK):
    @T.prim_func
    def main(X: T.Tensor((n,), "float16")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                X[bx * block + i] = 0

    return main


if __name__ == "__main__":
    fill(make_inputs().shape[0] + FACTOR)
