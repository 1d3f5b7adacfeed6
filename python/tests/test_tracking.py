"""Corners and pyramidal Lucas-Kanade against cv2: bit-identical responses, lists, points, status and err."""
import numpy as np
import pytest

import plinth
from conftest import REPO, cv2


@pytest.fixture(scope="module")
def frames():
    a = cv2.imread(str(REPO / "data" / "klt_megamind_a.png"), cv2.IMREAD_GRAYSCALE)
    b = cv2.imread(str(REPO / "data" / "klt_megamind_b.png"), cv2.IMREAD_GRAYSCALE)
    assert a is not None and b is not None
    return a, b


def test_corner_responses(frames):
    a = frames[0]
    np.testing.assert_array_equal(plinth.cornerMinEigenVal(a, 3), cv2.cornerMinEigenVal(a, 3))
    np.testing.assert_array_equal(plinth.cornerMinEigenVal(a, 5, ksize=5, borderType=cv2.BORDER_REPLICATE),
                                  cv2.cornerMinEigenVal(a, 5, ksize=5, borderType=cv2.BORDER_REPLICATE))
    np.testing.assert_array_equal(plinth.cornerHarris(a, 2, 3, 0.04), cv2.cornerHarris(a, 2, 3, 0.04))


def test_good_features_to_track(frames):
    a = frames[0]
    got = plinth.goodFeaturesToTrack(a, 300, 0.01, 8)
    want = cv2.goodFeaturesToTrack(a, 300, 0.01, 8)
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    mask = np.zeros_like(a)
    mask[20:120, 30:200] = 255
    np.testing.assert_array_equal(plinth.goodFeaturesToTrack(a, 100, 0.02, 5, mask=mask, useHarrisDetector=True),
                                  cv2.goodFeaturesToTrack(a, 100, 0.02, 5, mask=mask, useHarrisDetector=True))


def test_build_optical_flow_pyramid(frames):
    a = frames[0]
    levels, pyramid = plinth.buildOpticalFlowPyramid(a, (21, 21), 3)
    want_levels, want = cv2.buildOpticalFlowPyramid(a, (21, 21), 3)
    assert levels == want_levels and len(pyramid) == len(want)
    for ours, ref in zip(pyramid, want):
        np.testing.assert_array_equal(ours, ref)


def test_calc_optical_flow_pyr_lk(frames):
    a, b = frames
    points = cv2.goodFeaturesToTrack(a, 200, 0.01, 7)
    got = plinth.calcOpticalFlowPyrLK(a, b, points, None, winSize=(21, 21), maxLevel=3)
    want = cv2.calcOpticalFlowPyrLK(a, b, points, None, winSize=(21, 21), maxLevel=3)
    for ours, ref in zip(got, want):
        assert ours.shape == ref.shape and ours.dtype == ref.dtype
        np.testing.assert_array_equal(ours, ref)
    assert got[1].sum() > len(points) // 2


def test_points_must_be_float32_pairs(frames):
    a, b = frames
    with pytest.raises(TypeError):
        plinth.calcOpticalFlowPyrLK(a, b, np.zeros((4, 1, 2), np.float64), None)
    with pytest.raises(ValueError):
        plinth.calcOpticalFlowPyrLK(a, b, np.zeros((4, 3), np.float32), None)
