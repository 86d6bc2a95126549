from .consts import BLOCK
from .helpers import make_scale
