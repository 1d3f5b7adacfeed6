"""On a CUDA device: DeviceImages pass to PyTorch and back through __cuda_array_interface__ without
copies (plinth's CUDA contexts are the device's primary context, which PyTorch uses too). Prints
"cuda interop: ok" or raises. Needs torch with CUDA; scripts/device/python_calls.sh runs it there."""
import numpy as np
import torch

import plinth

plinth.set_device("cuda")
q = plinth.default_queue()
print("device:", q.context.device["name"], q.context.device["backend"])

a = np.random.default_rng(19).integers(0, 256, (37, 53, 3), dtype=np.uint8)
d = q.upload(a)
t = torch.as_tensor(d, device="cuda")  # export: no copy
assert t.data_ptr() == d.__cuda_array_interface__["data"][0], "torch copied the image"
assert t.shape == (37, 53, 3) and t.stride()[0] == d.pitch
np.testing.assert_array_equal(t.cpu().numpy(), a)

source = torch.arange(20 * 30, dtype=torch.float32, device="cuda").reshape(20, 30) * 0.5
torch.cuda.synchronize()
adopted = plinth.DeviceImage.from_cuda_array(source)  # import: no copy
assert adopted.__cuda_array_interface__["data"][0] == source.data_ptr()
np.testing.assert_array_equal(adopted.download(q), source.cpu().numpy())
doubled = plinth.add(adopted, adopted, queue=q)
np.testing.assert_array_equal(q.download(doubled), (source * 2).cpu().numpy())
print("cuda interop: ok")
