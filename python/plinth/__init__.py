"""plinth: computer vision on GPUs (OpenCL kernels), with cv2's names and conventions.

Operations take NumPy arrays and return NumPy arrays (synchronously), or take ``DeviceImage``s and
return ``DeviceImage``s whose ``.event`` completes when they are written (asynchronously). Every
error is a ``plinth.Error`` carrying the library's one-line message; wrong arguments are also
``ValueError`` or ``TypeError``.
"""

from ._plinth import *  # noqa: F401,F403
from ._plinth import (  # noqa: F401  (names the star import leaves out where __all__ is absent)
    Error, ArgumentError, RangeError, UnsupportedTypeError, FileError, FormatError, DeviceError, OutOfMemoryError,
)
from .constants import *  # noqa: F401,F403

__version__ = "0.1.0"
