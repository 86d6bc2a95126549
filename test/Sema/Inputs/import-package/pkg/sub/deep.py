from ..consts import FACTOR

OFFSET = FACTOR + 1
