"""plinth from Python: cv2's names on NumPy arrays (synchronous) and on device images (asynchronous).

    python examples/python_api.py [photo]      (default: the bundled data/astronaut.png)
"""
import pathlib
import sys

import numpy as np

import plinth

path = sys.argv[1] if len(sys.argv) > 1 else str(pathlib.Path(__file__).resolve().parents[1] / "data" / "astronaut.png")
print("device:", plinth.default_queue().context.device["name"])

try:
    import cv2

    gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
except ImportError:  # no cv2: a synthetic image
    cv2, gray = None, (np.indices((480, 640)).sum(0) % 256).astype(np.uint8)
if gray is None:
    sys.exit(f"cannot read {path}")

# NumPy in, NumPy out: the input is viewed and the result is plinth's memory, both without copies.
sums = plinth.integral(gray)
print("integral:", sums.shape, sums.dtype, "total", sums[-1, -1])
faces = plinth.CascadeClassifier("frontalface_alt2").detectMultiScale(gray, scaleFactor=1.1, minNeighbors=3)
print("faces (x, y, w, h):", faces.tolist())
corners = plinth.goodFeaturesToTrack(gray, maxCorners=50, qualityLevel=0.01, minDistance=10)
print("corners:", len(corners))

# Device images: enqueue a chain, wait once, read the device time of each step.
q = plinth.Queue(timing=True)  # device timestamps for Event.elapsed_us
d = q.upload(gray)
small = plinth.pyrDown(d, queue=q)
blurred = plinth.GaussianBlur(small, (5, 5), 1.5, queue=q)
edges = plinth.absdiff(small, blurred, queue=q)
result = q.download(edges)
for name, image in [("pyrDown", small), ("GaussianBlur", blurred), ("absdiff", edges)]:
    print(f"{name}: {image.width}x{image.height}, {image.event.elapsed_us:.1f} us on the device")

# Errors are exceptions with the library's one-line message.
try:
    plinth.medianBlur(gray, 4)
except ValueError as error:
    print("error:", error)
