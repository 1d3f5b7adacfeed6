"""DLPack (the Python array API's interchange): HostImage exports and plinth.from_dlpack imports host
memory without copies (pointer identity), bad arrays are refused with the module's one-line messages,
and DeviceImages off CUDA refuse export with BufferError. The CUDA side runs on the GPU machine only
(python/bench/cuda_interop_check.py)."""
import gc

import numpy as np
import pytest

import plinth
from conftest import cv2, noise


def test_numpy_takes_a_host_image_without_a_copy(rng):
    a = noise(rng, (37, 53, 3))
    view = plinth.HostImage(a)
    assert view.__dlpack_device__() == (1, 0)
    b = np.from_dlpack(view)
    assert b.ctypes.data == a.ctypes.data and b.shape == a.shape and b.strides == a.strides
    a[3, 4, 2] = 7
    assert b[3, 4, 2] == 7


def test_from_dlpack_views_a_numpy_array(rng):
    region = noise(rng, (40, 100), np.float32)[3:20, 10:60]  # rows 400 bytes apart
    image = plinth.from_dlpack(region)
    assert isinstance(image, plinth.HostImage)
    assert image.data_ptr == region.ctypes.data and image.pitch == 400
    assert (image.width, image.height, image.channels, image.dtype) == (50, 17, 1, np.float32)
    back = image.numpy()
    assert back.ctypes.data == region.ctypes.data
    np.testing.assert_array_equal(back, region)


def test_from_dlpack_keeps_the_producer_alive(rng):
    a = noise(rng, (20, 30))
    expected = a.copy()
    image = plinth.from_dlpack(a)
    del a
    gc.collect()
    np.testing.assert_array_equal(image.numpy(), expected)


def test_results_round_trip_without_copies(rng):
    a = noise(rng, (31, 45))
    blurred = plinth.GaussianBlur(a, (5, 5), 1.5)  # a NumPy view of plinth's memory
    image = plinth.from_dlpack(blurred)
    assert image.data_ptr == blurred.ctypes.data and image.pitch == blurred.strides[0]
    again = np.from_dlpack(plinth.from_dlpack(image))  # plinth -> plinth -> NumPy
    assert again.ctypes.data == blurred.ctypes.data
    np.testing.assert_array_equal(plinth.integral(again), cv2.integral(cv2.GaussianBlur(a, (5, 5), 1.5)))


def test_versioned_and_keyword_requests():
    view = plinth.HostImage(np.zeros((4, 5), np.uint16))
    assert type(view.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)).__name__ == "PyCapsule"
    with pytest.raises(BufferError, match="copy=True"):
        view.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="dl_device"):
        view.__dlpack__(dl_device=(2, 0))
    with pytest.raises(ValueError, match=r"^HostImage.__dlpack__: stream: a host image takes stream=None"):
        view.__dlpack__(stream=1)


@pytest.mark.parametrize("bad, error, message", [
    (np.zeros((3, 3), np.float16), TypeError, "from_dlpack: x: dtype float16 is not an image depth"),
    (np.zeros((3, 3), np.complex64), TypeError, "from_dlpack: x: dtype complex64 is not an image depth"),
    (np.zeros(5, np.uint8), ValueError, "from_dlpack: x: expected an image of shape (height, width) or (height, width, channels), got 1 dimensions"),
    (np.zeros((2, 3, 4, 5), np.uint8), ValueError, "got 4 dimensions"),
    (np.zeros((3, 3, 5), np.uint8), ValueError, "from_dlpack: x: an image has 1 to 4 channels, got 5"),
    (np.zeros((8, 8), np.uint8)[:, ::2], ValueError, "from_dlpack: x: the array's pixels are not contiguous within rows"),
    (np.zeros((8, 8), np.uint8).T, ValueError, "not contiguous"),
    ([[1, 2], [3, 4]], TypeError, "from_dlpack: x: expected an array with __dlpack__ and __dlpack_device__"),
])
def test_bad_arrays_are_refused(bad, error, message):
    with pytest.raises(error) as caught:
        plinth.from_dlpack(bad)
    assert str(caught.value).startswith(message) or message in str(caught.value)
    assert isinstance(caught.value, plinth.Error) and "\n" not in str(caught.value)


def test_unsupported_device_types_are_refused():
    class OnRocm:  # a producer on another device (kDLROCM)
        def __dlpack_device__(self):
            return (10, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("not to be called")

    with pytest.raises(TypeError, match=r"^from_dlpack: x: DLPack device type 10 is not supported"):
        plinth.from_dlpack(OnRocm())


def test_device_images_off_cuda_refuse_export(rng):
    q = plinth.Queue()
    if q.context.device["backend"] == "cuda":
        pytest.skip("on CUDA the export works: python/bench/cuda_interop_check.py checks it")
    d = q.upload(noise(rng, (6, 7)))
    assert d.__dlpack_device__() == (4, q.context.device["index"])  # kDLOpenCL
    with pytest.raises(BufferError, match=r"^DeviceImage.__dlpack__: only images on a CUDA device"):
        np.from_dlpack(d)


def test_torch_cpu_tensors_pass_both_ways(rng):
    torch = pytest.importorskip("torch")
    t = torch.arange(12 * 20, dtype=torch.float32).reshape(12, 20)
    image = plinth.from_dlpack(t)
    assert image.data_ptr == t.data_ptr() and image.pitch == 80
    a = noise(rng, (9, 11, 3))
    back = torch.from_dlpack(plinth.HostImage(a))
    assert back.data_ptr() == a.ctypes.data
    np.testing.assert_array_equal(back.numpy(), a)


def test_read_only_arrays(rng):
    a = noise(rng, (6, 7))
    a.flags.writeable = False
    if np.lib.NumpyVersion(np.__version__) < "2.0.0":  # NumPy 1 cannot export them (DLPack 0.x has no read-only flag)
        with pytest.raises(BufferError, match="readonly"):
            plinth.from_dlpack(a)
    else:  # NumPy 2 exports them as versioned capsules, which plinth asks for after the plain request fails
        assert plinth.from_dlpack(a).data_ptr == a.ctypes.data
