"""Shared inputs for the Python tests: OpenCV 4.6 (Debian's python3-opencv, the same library the C++
tests compare with) is the reference; images are seeded random noise and the bundled photo."""
import os
import pathlib

import numpy as np
import pytest

import plinth

cv2 = pytest.importorskip("cv2")
cv2.ocl.setUseOpenCL(False)  # OpenCV's CPU path is the specification


def _leave_pocl_builds_to_pocl():
    """As in the C++ tests (tests/support/test_support.cpp): on PoCL, plinth's disk cache stays off
    unless PLINTH_CACHE_DIR names one. PoCL caches its builds itself, and a binary asked of PoCL
    costs a compile of every kernel of the program (docs/backends.md)."""
    if "PLINTH_CACHE_DIR" in os.environ:
        return
    try:
        platform = plinth.Context().device["platform"]
    except Exception:  # no device: the tests say so themselves
        return
    if platform == "Portable Computing Language":
        os.environ["PLINTH_CACHE_DIR"] = "off"


_leave_pocl_builds_to_pocl()

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
