"""Image operations against cv2 (OpenCV 4.6): integer outputs bit-exact, floats within rounding."""
import numpy as np
import pytest

import plinth
from conftest import cv2, noise


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64])
def test_integral(rng, dtype):
    a = noise(rng, (31, 45), dtype)
    np.testing.assert_array_equal(plinth.integral(a), cv2.integral(a))
    s, sq = plinth.integral2(a)
    rs, rsq = cv2.integral2(a)
    np.testing.assert_array_equal(s, rs)
    np.testing.assert_allclose(sq, rsq, rtol=1e-12)


def test_integral3_and_depths(rng):
    a = noise(rng, (30, 41, 3))
    for ours, ref in zip(plinth.integral3(a, sdepth=cv2.CV_32F), cv2.integral3(a, sdepth=cv2.CV_32F)):
        np.testing.assert_array_equal(ours, ref)
    np.testing.assert_array_equal(plinth.integral(a, sdepth=cv2.CV_64F), cv2.integral(a, sdepth=cv2.CV_64F))
    u32 = plinth.integral(a, sdepth="u32")
    assert u32.dtype == np.uint32
    np.testing.assert_array_equal(u32, cv2.integral(a).astype(np.uint32))


@pytest.mark.parametrize("ksize,normalize,border", [((3, 3), True, cv2.BORDER_DEFAULT), ((7, 4), False, cv2.BORDER_REPLICATE),
                                                     ((15, 15), True, cv2.BORDER_CONSTANT)])
def test_box_filter(rng, ksize, normalize, border):
    a = noise(rng, (40, 57, 3))
    np.testing.assert_array_equal(plinth.boxFilter(a, -1, ksize, normalize=normalize, borderType=border),
                                  cv2.boxFilter(a, -1, ksize, normalize=normalize, borderType=border))
    np.testing.assert_array_equal(plinth.boxFilter(a, cv2.CV_32S, ksize, normalize=False, borderType=border),
                                  cv2.boxFilter(a, cv2.CV_32S, ksize, normalize=False, borderType=border))
    np.testing.assert_array_equal(plinth.blur(a, ksize, borderType=border), cv2.blur(a, ksize, borderType=border))


def test_sep_filter_and_filter2d(rng):
    a = noise(rng, (48, 64))
    kx = np.array([1, 4, 6, 4, 1], np.float32) / 16
    ky = np.array([-1, 0, 1], np.float32)
    np.testing.assert_array_equal(plinth.sepFilter2D(a, cv2.CV_16S, kx, ky, delta=3),
                                  cv2.sepFilter2D(a, cv2.CV_16S, kx, ky, delta=3))
    np.testing.assert_array_equal(plinth.sepFilter2D(a, -1, kx, kx), cv2.sepFilter2D(a, -1, kx, kx))
    k = rng.uniform(-1, 1, (5, 3)).astype(np.float32)
    np.testing.assert_array_equal(plinth.filter2D(a, -1, k, borderType=cv2.BORDER_REPLICATE),
                                  cv2.filter2D(a, -1, k, borderType=cv2.BORDER_REPLICATE))
    f = a.astype(np.float32)
    np.testing.assert_allclose(plinth.filter2D(f, -1, k, anchor=(0, 1)), cv2.filter2D(f, -1, k, anchor=(0, 1)), atol=1e-3)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_gaussian_blur(rng, dtype):
    a = noise(rng, (50, 70, 3), dtype)
    np.testing.assert_array_equal(plinth.GaussianBlur(a, (5, 5), 1.3), cv2.GaussianBlur(a, (5, 5), 1.3))
    np.testing.assert_array_equal(plinth.GaussianBlur(a, (0, 0), 2.0, sigmaY=1.0, borderType=cv2.BORDER_REFLECT),
                                  cv2.GaussianBlur(a, (0, 0), 2.0, sigmaY=1.0, borderType=cv2.BORDER_REFLECT))


def test_gaussian_blur_float(rng):
    a = noise(rng, (33, 47), np.float32)
    np.testing.assert_allclose(plinth.GaussianBlur(a, (7, 7), 1.5), cv2.GaussianBlur(a, (7, 7), 1.5), atol=1e-3)


@pytest.mark.parametrize("ksize", [3, 5, 7])
def test_median_blur(rng, ksize):
    a = noise(rng, (40, 50, 3))
    np.testing.assert_array_equal(plinth.medianBlur(a, ksize), cv2.medianBlur(a, ksize))


def test_pyramids(rng):
    a = noise(rng, (45, 61, 3))
    np.testing.assert_array_equal(plinth.pyrDown(a), cv2.pyrDown(a))
    np.testing.assert_array_equal(plinth.pyrUp(a), cv2.pyrUp(a))
    ours, ref = plinth.buildPyramid(a, 3), [a]
    for _ in range(3):  # cv2.buildPyramid is not in OpenCV's Python API; its definition
        ref.append(cv2.pyrDown(ref[-1]))
    assert len(ours) == len(ref) == 4 and ours[0] is a
    for o, r in zip(ours, ref):
        np.testing.assert_array_equal(o, r)
    with pytest.raises(ValueError):
        plinth.pyrDown(a, dstsize=(10, 10))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32])
def test_arithmetic(rng, dtype):
    a, b = noise(rng, (20, 30, 2), dtype), noise(rng, (20, 30, 2), dtype)
    np.testing.assert_array_equal(plinth.add(a, b), cv2.add(a, b))
    np.testing.assert_array_equal(plinth.subtract(a, b), cv2.subtract(a, b))
    np.testing.assert_array_equal(plinth.absdiff(a, b), cv2.absdiff(a, b))
    with pytest.raises(ValueError):
        plinth.add(a, b[:10])


def test_convert(rng):
    # cv2 has no Python convertTo; its definition: saturate(round_half_even(src * alpha + beta)). The
    # parameters keep every product exact in float, so float64 arithmetic gives the same values.
    a = noise(rng, (20, 30))
    for rtype, dtype, alpha, beta in [(cv2.CV_16S, np.int16, -2.5, 7.0), (cv2.CV_8U, np.uint8, 0.5, 0.25), (-1, np.uint8, 2.0, -3.0)]:
        info = np.iinfo(dtype)
        expected = np.clip(np.rint(a * alpha + beta), info.min, info.max).astype(dtype)
        np.testing.assert_array_equal(plinth.convertTo(a, rtype, alpha, beta), expected)
    scaled = plinth.convertTo(a, cv2.CV_32F, 1 / 255)
    assert scaled.dtype == np.float32
    np.testing.assert_allclose(scaled, a.astype(np.float32) * np.float32(1 / 255), rtol=1e-6)


def test_cvt_color(photo_bgr, rng):
    np.testing.assert_array_equal(plinth.cvtColor(photo_bgr, cv2.COLOR_BGR2GRAY), cv2.cvtColor(photo_bgr, cv2.COLOR_BGR2GRAY))
    rgba = noise(rng, (21, 30, 4))
    np.testing.assert_array_equal(plinth.cvtColor(rgba, cv2.COLOR_RGBA2GRAY), cv2.cvtColor(rgba, cv2.COLOR_RGBA2GRAY))
    nv12 = noise(rng, (48 * 3 // 2, 64))
    for code in [cv2.COLOR_YUV2GRAY_NV12, cv2.COLOR_YUV2BGR_NV12, cv2.COLOR_YUV2RGBA_NV12]:
        np.testing.assert_array_equal(plinth.cvtColor(nv12, code), cv2.cvtColor(nv12, code))
    with pytest.raises(ValueError):
        plinth.cvtColor(photo_bgr, cv2.COLOR_BGR2HSV)


def test_resize(photo_gray):
    for dsize in [(200, 150), (512, 512), (256, 256), (700, 333)]:
        np.testing.assert_array_equal(plinth.resize(photo_gray, dsize), cv2.resize(photo_gray, dsize))
        np.testing.assert_array_equal(plinth.resize(photo_gray, dsize, interpolation=cv2.INTER_LINEAR_EXACT),
                                      cv2.resize(photo_gray, dsize, interpolation=cv2.INTER_LINEAR_EXACT))
    np.testing.assert_array_equal(plinth.resize(photo_gray, None, fx=0.5, fy=0.25), cv2.resize(photo_gray, None, fx=0.5, fy=0.25))
    with pytest.raises(ValueError):  # cv2 maps with 1/fx, plinth with the sizes: refused, not approximated
        plinth.resize(photo_gray, None, fx=0.3, fy=0.7)
    with pytest.raises(ValueError):
        plinth.resize(photo_gray, (10, 10), interpolation=cv2.INTER_CUBIC)


def test_device_chain_equals_host_calls(rng):
    a = noise(rng, (60, 80))
    q = plinth.Queue()
    d = q.upload(a)
    chained = plinth.absdiff(plinth.pyrUp(plinth.pyrDown(d, queue=q), queue=q), d, queue=q)
    np.testing.assert_array_equal(q.download(chained), cv2.absdiff(cv2.pyrUp(cv2.pyrDown(a)), a))
