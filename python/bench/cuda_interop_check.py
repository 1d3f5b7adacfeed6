"""On a CUDA device: DeviceImages pass to PyTorch (and CuPy, where installed) and back without copies,
through __cuda_array_interface__ and through DLPack (torch.from_dlpack(device_image),
plinth.from_dlpack(tensor)); plinth's CUDA contexts are the device's primary context, which PyTorch
and CuPy use too. Checks pointers and values; prints "cuda interop: ok" or raises. Needs torch with
CUDA; scripts/device/python_calls.sh runs it there."""
import numpy as np
import torch

import plinth

plinth.set_device("cuda")
q = plinth.default_queue()
print("device:", q.context.device["name"], q.context.device["backend"])


def pointer(image):
    return image.__cuda_array_interface__["data"][0]


a = np.random.default_rng(19).integers(0, 256, (37, 53, 3), dtype=np.uint8)
d = q.upload(a)

# __cuda_array_interface__
t = torch.as_tensor(d, device="cuda")  # export: no copy
assert t.data_ptr() == pointer(d), "torch copied the image"
assert t.shape == (37, 53, 3) and t.stride()[0] == d.pitch
np.testing.assert_array_equal(t.cpu().numpy(), a)

source = torch.arange(20 * 30, dtype=torch.float32, device="cuda").reshape(20, 30) * 0.5
torch.cuda.synchronize()
adopted = plinth.DeviceImage.from_cuda_array(source)  # import: no copy
assert pointer(adopted) == source.data_ptr()
np.testing.assert_array_equal(adopted.download(q), source.cpu().numpy())
doubled = plinth.add(adopted, adopted, queue=q)
np.testing.assert_array_equal(q.download(doubled), (source * 2).cpu().numpy())
print("cuda array interface (torch): ok")

# DLPack with torch: export of a result still being computed (torch passes its current stream; plinth
# waits for the image's work first), then import (plinth passes its queue's stream).
assert d.__dlpack_device__() == (2, q.context.device["index"])
blurred = plinth.GaussianBlur(d, (5, 5), 1.2, queue=q)
tb = torch.from_dlpack(blurred)
assert tb.data_ptr() == pointer(blurred), "torch.from_dlpack copied the image"
assert tuple(tb.shape) == (37, 53, 3) and tb.stride()[0] == blurred.pitch and tb.device.type == "cuda"
np.testing.assert_array_equal(tb.cpu().numpy(), plinth.GaussianBlur(a, (5, 5), 1.2))

ramp = (torch.arange(24 * 40, dtype=torch.int32, device="cuda").reshape(24, 40) * 3)[:, 4:36]  # rows 160 bytes apart
imported = plinth.from_dlpack(ramp)  # no synchronize: the producer orders its work before plinth's stream
assert isinstance(imported, plinth.DeviceImage)
assert pointer(imported) == ramp.data_ptr() and imported.pitch == 160 and imported.shape == (24, 32)
summed = plinth.add(imported, imported, queue=q)
np.testing.assert_array_equal(q.download(summed), (ramp * 2).cpu().numpy())
back = torch.from_dlpack(imported)  # plinth -> torch of an adopted tensor: the same memory again
assert back.data_ptr() == ramp.data_ptr()
try:
    plinth.from_dlpack(torch.zeros(4, 4, 4, 4, device="cuda"))
    raise AssertionError("a 4-D tensor was accepted")
except ValueError as error:
    assert str(error).startswith("from_dlpack: x: expected an image of shape"), error
print("dlpack (torch): ok")

try:
    import cupy
except ImportError:
    cupy = None
if cupy is None:
    print("dlpack (cupy): skipped, cupy is not installed")
else:
    c = cupy.from_dlpack(blurred)
    assert c.data.ptr == pointer(blurred), "cupy.from_dlpack copied the image"
    np.testing.assert_array_equal(cupy.asnumpy(c), tb.cpu().numpy())
    via_cai = cupy.asarray(d)
    assert via_cai.data.ptr == pointer(d)
    grid = cupy.arange(16 * 64, dtype=cupy.uint8).reshape(16, 64)
    from_cupy = plinth.from_dlpack(grid)
    assert pointer(from_cupy) == grid.data.ptr
    np.testing.assert_array_equal(from_cupy.download(q), cupy.asnumpy(grid))
    print("dlpack (cupy): ok")
print("cuda interop: ok")
