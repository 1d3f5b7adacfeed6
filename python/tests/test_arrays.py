"""Sorting, top-k, matching, k-means and visual words against NumPy and cv2."""
import numpy as np
import pytest

import plinth
from conftest import cv2


@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32])
def test_sort_and_argsort_are_stable(rng, dtype):
    keys = (rng.integers(-50, 50, 3000) if dtype != np.uint32 else rng.integers(0, 100, 3000)).astype(dtype)
    np.testing.assert_array_equal(plinth.sort(keys), np.sort(keys, kind="stable"))
    np.testing.assert_array_equal(plinth.sort(keys, descending=True), np.sort(keys, kind="stable")[::-1])
    np.testing.assert_array_equal(plinth.argsort(keys), np.argsort(keys, kind="stable"))


def test_top_k_ties_by_index(rng):
    keys = rng.integers(0, 20, 1000).astype(np.float32)
    values, indices = plinth.top_k(keys, 25)
    order = np.lexsort((np.arange(keys.size), -keys))[:25]  # largest first, ties by ascending index
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, keys[order])
    smallest, _ = plinth.top_k(keys, 5, largest=False)
    np.testing.assert_array_equal(smallest, np.sort(keys)[:5])
    with pytest.raises(ValueError):
        plinth.top_k(keys, 1001)


def test_hamming_matching_equals_cv2(rng):
    query = rng.integers(0, 256, (60, 32), dtype=np.uint8)
    train = rng.integers(0, 256, (90, 32), dtype=np.uint8)
    for cross in [False, True]:
        got = plinth.BFMatcher(plinth.NORM_HAMMING, crossCheck=cross).match(query, train)
        want = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=cross).match(query, train)
        assert [(m.queryIdx, m.trainIdx, m.distance) for m in got] == [(m.queryIdx, m.trainIdx, m.distance) for m in want]
    got = plinth.BFMatcher(plinth.NORM_HAMMING).knnMatch(query, train, k=3)
    want = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(query, train, k=3)
    assert [[(m.trainIdx, m.distance) for m in row] for row in got] == [[(m.trainIdx, m.distance) for m in row] for row in want]


def test_l2_matching_equals_cv2(rng):
    query = rng.normal(size=(40, 64)).astype(np.float32)
    train = rng.normal(size=(70, 64)).astype(np.float32)
    got = plinth.BFMatcher().match(query, train)
    want = cv2.BFMatcher(cv2.NORM_L2).match(query, train)
    assert [m.trainIdx for m in got] == [m.trainIdx for m in want]
    np.testing.assert_allclose([m.distance for m in got], [m.distance for m in want], rtol=1e-5)
    with pytest.raises(TypeError):
        plinth.BFMatcher().match(query.astype(np.float64), train)


def test_kmeans_from_initial_labels_equals_cv2(rng):
    centres = np.array([[0, 0], [10, 10], [-10, 8]], np.float32)
    data = np.concatenate([c + rng.normal(size=(50, 2)).astype(np.float32) for c in centres])
    labels0 = rng.integers(0, 3, (len(data), 1)).astype(np.int32)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-4)
    got = plinth.kmeans(data, 3, labels0, criteria, 1, plinth.KMEANS_USE_INITIAL_LABELS)
    want = cv2.kmeans(data, 3, labels0.copy(), criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-5)
    assert got[0] == pytest.approx(want[0], rel=1e-5)
    pp = plinth.kmeans(data, 3, None, criteria, 2, plinth.KMEANS_PP_CENTERS, seed=7)
    assert len(np.unique(pp[1])) == 3 and pp[0] == pytest.approx(want[0], rel=1e-3)


def test_bow_assign_against_nearest_words(rng):
    vocabulary = rng.normal(size=(16, 32)).astype(np.float32)
    descriptors = rng.normal(size=(100, 32)).astype(np.float32)
    starts = np.array([0, 30, 30, 100], np.int32)  # the second image has no descriptors
    histograms, labels = plinth.bow_assign(descriptors, vocabulary, starts)
    distances = ((descriptors[:, None, :] - vocabulary[None, :, :]) ** 2).sum(-1)
    np.testing.assert_array_equal(labels, distances.argmin(1))
    assert len(histograms) == 3 and histograms[1].size == 0
    for h, (s, e) in zip([histograms[0], histograms[2]], [(0, 30), (30, 100)]):
        np.testing.assert_allclose(h, np.bincount(labels[s:e], minlength=16) * np.float32(1 / (e - s)), rtol=1e-6)
