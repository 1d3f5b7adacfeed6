"""plinth's own operations (no cv2 function computes them; snake_case names): each against its definition
written here in NumPy (or from cv2's pieces), on host arrays and device images, and their bad input."""
import numpy as np
import pytest

import plinth
from conftest import cv2, noise


def epsilon_reference(y, window, threshold, border=cv2.BORDER_REFLECT_101, value=0):
    """docs/epsilon_filter.md: the mean, rounded half up, of the window's values within threshold of the centre."""
    r = window // 2
    padded = cv2.copyMakeBorder(y, r, r, r, r, border, value=value).astype(np.int64)
    centre = y.astype(np.int64)
    total, count = np.zeros_like(centre), np.zeros_like(centre)
    h, w = y.shape
    for dy in range(window):
        for dx in range(window):
            v = padded[dy:dy + h, dx:dx + w]
            near = np.abs(v - centre) <= threshold
            total += np.where(near, v, 0)
            count += near
    return ((total + count // 2) // count).astype(np.uint8)


@pytest.mark.parametrize("window, threshold, border", [
    (5, 20, cv2.BORDER_DEFAULT), (3, 0, cv2.BORDER_REPLICATE), (7, 255, cv2.BORDER_REFLECT), (9, 40, cv2.BORDER_WRAP),
    (5, 30, cv2.BORDER_CONSTANT),
])
def test_epsilon_filter(rng, window, threshold, border):
    smooth = cv2.GaussianBlur(noise(rng, (45, 61)), (7, 7), 2.0)  # some flat areas and some edges
    got = plinth.epsilon_filter(smooth, window, threshold, borderType=border, borderValue=90)
    np.testing.assert_array_equal(got, epsilon_reference(smooth, window, threshold, border, 90))


def test_epsilon_filter_on_nv12_and_on_the_device(rng):
    frame = noise(rng, (48 * 3 // 2, 64))  # NV12: 48 rows of Y, then 24 of interleaved UV
    got = plinth.epsilon_filter(frame, nv12=True)
    np.testing.assert_array_equal(got[:48], epsilon_reference(frame[:48], 5, 20))
    np.testing.assert_array_equal(got[48:], frame[48:])
    q = plinth.Queue()
    on_device = plinth.epsilon_filter(q.upload(frame), window=3, threshold=10, nv12=True, queue=q)
    np.testing.assert_array_equal(q.download(on_device)[:48], epsilon_reference(frame[:48], 3, 10))


def test_epsilon_filter_bad_input(rng):
    with pytest.raises(TypeError, match=r"^epsilon_filter: "):
        plinth.epsilon_filter(noise(rng, (8, 8), np.uint16))
    with pytest.raises(ValueError, match=r"^epsilon_filter: .*window"):
        plinth.epsilon_filter(noise(rng, (8, 8)), window=4)


@pytest.mark.parametrize("shape", [(37, 53), (20, 30, 3)])
def test_integral_count(rng, shape):
    a = noise(rng, shape) * (noise(rng, shape) > 128)  # about half zeros
    expected = cv2.integral((a != 0).astype(np.uint8))
    np.testing.assert_array_equal(plinth.integral_count(a), expected)
    unsigned = plinth.integral_count(a, sdepth="u32")
    assert unsigned.dtype == np.uint32
    np.testing.assert_array_equal(unsigned, expected)


def gaussian_weights(subsampling, sigma_factor):
    sigma = sigma_factor * subsampling
    radius = int(np.ceil(3 * sigma))
    x = np.arange(-radius, radius + 1, dtype=np.float64)
    w = np.exp(-x * x / (2 * sigma * sigma))
    return (w / w.sum()).astype(np.float32)


def test_subsampled_pyramid(rng):
    src = cv2.GaussianBlur(noise(rng, (96, 128)), (5, 5), 1.5)
    s = 4
    levels = plinth.subsampled_pyramid(src, levels=3, subsampling=s)
    assert [l.shape for l in levels] == [(96, 128), (24, 32), (6, 8)] and all(l.dtype == np.float32 for l in levels)
    np.testing.assert_array_equal(levels[0], src.astype(np.float32))
    k = gaussian_weights(s, 0.9)
    for below, level in zip(levels, levels[1:]):
        smoothed = cv2.sepFilter2D(np.ascontiguousarray(below), cv2.CV_32F, k, k, borderType=cv2.BORDER_REFLECT_101)
        h, w = level.shape
        np.testing.assert_allclose(level, smoothed[s // 2::s, s // 2::s][:h, :w], rtol=1e-5, atol=1e-3)
    q = plinth.Queue()
    on_device = plinth.subsampled_pyramid(q.upload(src), queue=q)
    for host, device in zip(levels, on_device):
        np.testing.assert_array_equal(q.download(device), host)


def test_sort_pairs(rng):
    keys = rng.integers(-50, 50, 1000).astype(np.int32)  # many ties: stability shows
    values = np.arange(1000, dtype=np.int32)
    got_keys, got_values = plinth.sort_pairs(keys, values)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(got_keys, keys[order])
    np.testing.assert_array_equal(got_values, values[order])
    down_keys, down_values = plinth.sort_pairs(keys, values.astype(np.float32), descending=True)
    order = np.argsort(-keys, kind="stable")  # descending, ties in input order
    np.testing.assert_array_equal(down_keys, keys[order])
    assert down_values.dtype == np.float32
    np.testing.assert_array_equal(down_values, values[order])
    floats = rng.uniform(-1, 1, 777).astype(np.float32)
    sorted_floats, idx = plinth.sort_pairs(floats, np.arange(777, dtype=np.uint32))
    np.testing.assert_array_equal(sorted_floats, np.sort(floats, kind="stable"))
    np.testing.assert_array_equal(idx, np.argsort(floats, kind="stable"))


def test_compact(rng):
    values = rng.uniform(-5, 5, 5000).astype(np.float32)
    flags = (rng.integers(0, 4, 5000) * (rng.integers(0, 2, 5000))).astype(np.uint8)  # non-zero flags of 1 to 3
    np.testing.assert_array_equal(plinth.compact(values, flags), values[flags != 0])
    ints = np.arange(100, dtype=np.uint32)
    assert plinth.compact(ints, np.zeros(100, np.uint8)).shape == (0,)
    np.testing.assert_array_equal(plinth.compact(ints, np.ones(100, np.uint8)), ints)


def test_array_ops_bad_input():
    with pytest.raises(ValueError, match=r"^sort_pairs: values: has 3 elements, keys 4$"):
        plinth.sort_pairs(np.zeros(4, np.int32), np.zeros(3, np.int32))
    with pytest.raises(TypeError, match=r"^sort_pairs: values: dtype float64"):
        plinth.sort_pairs(np.zeros(4, np.int32), np.zeros(4, np.float64))
    with pytest.raises(TypeError, match=r"^compact: flags: dtype bool"):
        plinth.compact(np.zeros(4, np.int32), np.zeros(4, bool))
    with pytest.raises(ValueError, match=r"^compact: flags: has 2 elements, values 4$"):
        plinth.compact(np.zeros(4, np.int32), np.zeros(2, np.uint8))
