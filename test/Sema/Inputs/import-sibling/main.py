import tilelang.language as T
from shapes import BLOCK, make_inputs
import shapes
from not_a_file import unused
from broken import also_unused


def scale(n, block=BLOCK):
    @T.prim_func
    def main(X: T.Tensor((n,), "float16")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            for i in T.Parallel(block):
                X[bx * block + i] = X[bx * block + i] * 2

    return main


if __name__ == "__main__":
    x = make_inputs()
    scale(x.shape[0] * shapes.FACTOR)
