import tilelang.language as T
from pkg import BLOCK, make_scale
import pkg.consts
from pkg.sub.deep import OFFSET


def scale(n):
    @T.prim_func
    def main(X: T.Tensor((n,), "int32")):
        with T.Kernel(T.ceildiv(n, BLOCK), threads=BLOCK) as bx:
            for i in T.Parallel(BLOCK):
                X[bx * BLOCK + i] = make_scale(2)(X[bx * BLOCK + i])

    return main


if __name__ == "__main__":
    scale(pkg.consts.FACTOR * 128 + OFFSET - 4)
