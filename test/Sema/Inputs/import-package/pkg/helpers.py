from . import consts
from .sub.deep import OFFSET


def make_scale(k):
    # A factory evaluated at compile time, as quantize's converters are.
    def scale(x):
        return x * (k * consts.FACTOR) + OFFSET

    return scale
