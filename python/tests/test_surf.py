"""SURF on the device against plinth's C++ CPU reference (Debian's cv2 has no xfeatures2d; the C++
tests compare that reference with opencv_contrib): the same keypoint count, positions within a
pixel for 99% and nearest descriptors matching for 95%, as tests/surf_test.cpp requires."""
import numpy as np
import pytest

import plinth
from plinth import _plinth

pytestmark = pytest.mark.skipif(not hasattr(plinth, "SURF"), reason="plinth built with PLINTH_WITH_SURF=OFF")


@pytest.mark.parametrize("extended,upright", [(False, False), (True, True)])
def test_surf_agrees_with_the_reference(photo_gray, extended, upright):
    surf = plinth.SURF_create(hessianThreshold=400, extended=extended, upright=upright)
    keypoints, descriptors = surf.detectAndCompute(photo_gray)
    ref_keypoints, ref_descriptors = _plinth._surf_reference(surf, photo_gray)
    n = len(ref_keypoints)
    assert n > 100 and len(keypoints) == n
    assert descriptors.shape == (n, surf.descriptorSize()) == ref_descriptors.shape and descriptors.dtype == np.float32
    close = sum(np.hypot(a.pt[0] - b.pt[0], a.pt[1] - b.pt[1]) <= 1 and a.octave == b.octave
                for a, b in zip(keypoints, ref_keypoints))
    assert close >= n * 99 // 100
    a, b = descriptors.astype(np.float64), ref_descriptors.astype(np.float64)
    distances = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T  # squared, without n x n x dim
    assert (distances.argmin(1) == np.arange(n)).sum() >= n * 95 // 100
    if upright:
        assert all(k.angle == 270 for k in keypoints)
    assert len(surf.detect(photo_gray)) == n


def test_surf_bad_input(photo_gray):
    with pytest.raises(ValueError):
        plinth.SURF_create(nOctaves=0)
    with pytest.raises(ValueError):
        plinth.SURF_create().detectAndCompute(photo_gray, mask=photo_gray)
    with pytest.raises(TypeError):
        plinth.SURF_create().detectAndCompute(photo_gray.astype(np.float32))
