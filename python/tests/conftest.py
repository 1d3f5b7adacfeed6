"""Shared inputs for the Python tests: OpenCV 4.6 (Debian's python3-opencv, the same library the C++
tests compare with) is the reference; images are seeded random noise and the bundled photo."""
import pathlib

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")
cv2.ocl.setUseOpenCL(False)  # OpenCV's CPU path is the specification

REPO = pathlib.Path(__file__).resolve().parents[2]
PHOTO = REPO / "data" / "astronaut.png"


@pytest.fixture(scope="session")
def photo_bgr():
    image = cv2.imread(str(PHOTO), cv2.IMREAD_COLOR)
    assert image is not None, PHOTO
    return image


@pytest.fixture(scope="session")
def photo_gray(photo_bgr):
    return cv2.cvtColor(photo_bgr, cv2.COLOR_BGR2GRAY)


@pytest.fixture
def rng():
    return np.random.default_rng(19)


def noise(rng, shape, dtype=np.uint8):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-100, 100, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, int(info.max) + 1, shape, dtype=dtype)
