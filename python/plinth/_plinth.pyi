"""
plinth's C++ library (OpenCL kernels) for Python; use the `plinth` package.
"""

import numpy
from numpy.typing import ArrayLike, NDArray
from typing import TypeAlias

# An image argument: a NumPy array (synchronous call, NumPy result) or a DeviceImage (asynchronous call,
# DeviceImage result).
Image: TypeAlias = "NDArray | DeviceImage"
# A depth: a cv2 code (CV_8U .. CV_64F, -1 for the default), a name ("u8", "u32", "f32") or a NumPy dtype.
Depth: TypeAlias = "int | str | numpy.dtype | type"

from plinth import (
    ArgumentError as ArgumentError,
    DeviceError as DeviceError,
    Error as Error,
    FileError as FileError,
    FormatError as FormatError,
    OutOfMemoryError as OutOfMemoryError,
    RangeError as RangeError,
    UnsupportedTypeError as UnsupportedTypeError
)


def list_devices() -> list:
    """
    Every device plinth can use (CUDA, then OpenCL), as dicts: backend, index, name, vendor, platform, type, ...
    """

class Context:
    """A device opened for plinth's work. Copies share the device."""

    def __init__(self, device: str = '') -> None:
        """
        Opens the device chosen by `device` ('gpu', 'cpu', 'cuda', 'opencl:1', a name, ...); empty: PLINTH_DEVICE, else the first GPU, else the CPU.
        """

    @property
    def device(self) -> dict:
        """The device, as a dict."""

    def __repr__(self) -> str: ...

def set_device(device: str) -> Context:
    """
    Makes a new default queue on the device chosen by `device`; returns its Context.
    """

def default_queue() -> Queue:
    """The queue the operations use when none is given."""

class Event:
    """The completion and device timing of enqueued work."""

    def wait(self) -> None:
        """Blocks (the GIL released) until the work is done."""

    @property
    def valid(self) -> bool: ...

    @property
    def elapsed_us(self) -> float:
        """
        Device time from the first launch's start to the last one's end (waits; the queue's timing must be on).
        """

    @property
    def start_ns(self) -> int: ...

    @property
    def end_ns(self) -> int: ...

class Queue:
    """An in-order command queue. Work on one queue runs in submission order."""

    def __init__(self, context: Context | None = None, timing: bool = False) -> None:
        """
        A new queue on `context` (default: the default queue's context). timing=True records device timestamps (Event.elapsed_us), at some host cost per call.
        """

    @property
    def context(self) -> Context: ...

    @property
    def timing(self) -> bool:
        """
        Whether commands record device timestamps (off by default; Event.elapsed_us needs it).
        """

    @timing.setter
    def timing(self, arg: bool, /) -> None: ...

    def finish(self) -> None:
        """Waits (the GIL released) for everything enqueued so far."""

    def upload(self, array: ArrayLike, blocking: bool = True) -> DeviceImage:
        """
        Copies a NumPy image to a new DeviceImage. With blocking=False the copy is only enqueued: the array must not change until the DeviceImage's event (or finish()) completes; the queue keeps it alive.
        """

    def download(self, image: DeviceImage | None, out: ArrayLike | None = None, blocking: bool = True) -> NDArray | tuple[NDArray, Event]:
        """
        Copies a DeviceImage into a new NumPy array (or into `out`, same shape and dtype, without a copy of the array). With blocking=False returns (array, Event): read the array after the event.
        """

class DeviceImage:
    """An image in device memory (rows padded to a pitch)."""

    def __init__(self, width: int, height: int, dtype: Depth = 'u8', channels: int = 1, context: Context | None = None) -> None:
        """Allocates an image (contents undefined)."""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def channels(self) -> int: ...

    @property
    def pitch(self) -> int:
        """Bytes from one row to the next."""

    @property
    def dtype(self) -> numpy.dtype: ...

    @property
    def shape(self) -> tuple:
        """
        (height, width) or (height, width, channels), as the NumPy array it downloads to.
        """

    @property
    def event(self) -> Event:
        """The event of the operation that produced this image."""

    def download(self, queue: Queue | None = None) -> NDArray:
        """A NumPy copy of the image (waits)."""

    @property
    def __cuda_array_interface__(self) -> dict:
        """
        On a CUDA device: the image for CuPy, PyTorch and Numba without a copy (waits for its event first). Absent on OpenCL devices.
        """

    def __dlpack__(self, *, stream: int | None = None, max_version: tuple[int, int] | None = None, dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> object:
        """
        DLPack export on a CUDA device (torch.from_dlpack, cupy.from_dlpack; no copy). Unless stream is -1 it first waits for the work that produced the image; BufferError on OpenCL devices.
        """

    def __dlpack_device__(self) -> tuple[int, int]:
        """
        (2, CUDA ordinal) on CUDA, (4, index) on OpenCL (kDLOpenCL; no export).
        """

    @staticmethod
    def from_cuda_array(array: ArrayLike, context: Context | None = None) -> DeviceImage:
        """
        Adopts a CUDA array (anything with __cuda_array_interface__: CuPy, PyTorch, Numba) of shape (h, w) or (h, w, c) without a copy, on a CUDA context (default: the default queue's); the array is kept alive. Its producer's work must be complete (e.g. torch.cuda.synchronize()).
        """

    def __repr__(self) -> str: ...

def from_dlpack(x: ArrayLike, queue: Queue | None = None) -> HostImage | DeviceImage:
    """
    Adopts any DLPack array (NumPy, PyTorch, CuPy, JAX, plinth) of shape (h, w) or (h, w, c) without a copy: CPU memory becomes a HostImage, CUDA memory a DeviceImage (only on a CUDA queue: `queue`, default the default queue, whose stream the producer's pending work is ordered before). The array is kept alive.
    """

def page_locked(width: int, height: int, dtype: Depth = 'u8', channels: int = 1, context: Context | None = None) -> object:
    """
    A NumPy array of shape (height, width) or (height, width, channels) in page-locked (pinned) host memory on a CUDA context (default: the default queue's), plain memory on OpenCL; rows padded to 64 bytes, contents undefined. Uploads from it (frames copied in with numpy.copyto) skip the driver's staging copy; allocating it is slow, so keep and reuse it.
    """

class HostImage:
    """A plinth view of a NumPy image's memory, without a copy."""

    def __init__(self, array: ArrayLike) -> None:
        """
        Views `array` (shape (h, w) or (h, w, c), contiguous rows); the array is kept alive.
        """

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def channels(self) -> int: ...

    @property
    def pitch(self) -> int:
        """Bytes between rows (the array's strides[0])."""

    @property
    def dtype(self) -> numpy.dtype: ...

    @property
    def data_ptr(self) -> int:
        """Address of the first pixel (equals the array's ctypes.data)."""

    def __dlpack__(self, *, stream: int | None = None, max_version: tuple[int, int] | None = None, dl_device: tuple[int, int] | None = None, copy: bool | None = None) -> object:
        """
        DLPack export of the host memory (numpy.from_dlpack, torch.from_dlpack; no copy). stream must be None.
        """

    def __dlpack_device__(self) -> tuple[int, int]:
        """(1, 0): CPU memory (kDLCPU)."""

    def numpy(self) -> NDArray:
        """A NumPy array over the same memory (no copy)."""

def integral(src: Image | None, sdepth: Depth | None = -1, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.integral: the (W+1) x (H+1) sum image (sdepth default: int32 for uint8, else float64).
    """

def integral2(src: Image | None, sdepth: Depth | None = -1, sqdepth: Depth | None = -1, queue: Queue | None = None) -> Image:
    """cv2.integral2: (sum, sqsum); sqdepth default float64."""

def integral3(src: Image | None, sdepth: Depth | None = -1, sqdepth: Depth | None = -1, queue: Queue | None = None) -> Image:
    """cv2.integral3: (sum, sqsum, tilted)."""

def integral_count(src: Image | None, sdepth: Depth | None = -1, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    plinth's integral of non-zero counts: the (W+1) x (H+1) image of how many values are non-zero above and left of each point, per channel (cv2.integral of src != 0); sdepth int32 (default) or uint32.
    """

def boxFilter(src: Image | None, ddepth: Depth | None, ksize: tuple[int, int], anchor: tuple[int, int] = (-1, -1), normalize: bool = True, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.boxFilter: window sums (normalize=True: means). uint8, uint16, float32 sources.
    """

def blur(src: Image | None, ksize: tuple[int, int], anchor: tuple[int, int] = (-1, -1), borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """cv2.blur: the normalized box filter."""

def sepFilter2D(src: Image | None, ddepth: Depth | None, kernelX: ArrayLike, kernelY: ArrayLike, anchor: tuple[int, int] = (-1, -1), delta: float = 0.0, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.sepFilter2D: correlation with kernelX along rows and kernelY along columns (float32 coefficients).
    """

def filter2D(src: Image | None, ddepth: Depth | None, kernel: ArrayLike, anchor: tuple[int, int] = (-1, -1), delta: float = 0.0, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.filter2D: correlation with a 2-D kernel (rows x columns, float32 coefficients).
    """

def GaussianBlur(src: Image | None, ksize: tuple[int, int], sigmaX: float, sigmaY: float = 0.0, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.GaussianBlur: uint8 and uint16 bit-exact (OpenCV's fixed point), float32.
    """

def medianBlur(src: Image | None, ksize: int, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.medianBlur: median of the ksize x ksize window (replicated border).
    """

def epsilon_filter(src: Image | None, window: int = 5, threshold: int = 20, borderType: int = 4, borderValue: int = 0, nv12: bool = False, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    plinth's epsilon filter (docs/epsilon_filter.md) of a uint8 one-channel image: the mean, rounded half up, of the window x window neighbours within `threshold` of the centre. nv12=True: src is an NV12 frame as one (3H/2, W) array, its Y plane filtered and UV copied.
    """

def pyrDown(src: Image | None, dstsize: tuple[int, int] | None = None, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.pyrDown: Gaussian smoothing and every second pixel; ((W+1)//2, (H+1)//2).
    """

def pyrUp(src: Image | None, dstsize: tuple[int, int] | None = None, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """cv2.pyrUp: upsampling by two with Gaussian interpolation."""

def buildPyramid(src: Image | None, maxlevel: int, borderType: int = 4, queue: Queue | None = None) -> list:
    """cv2.buildPyramid: [src, pyrDown(src), ...], maxlevel + 1 images."""

def subsampled_pyramid(src: Image | None, levels: int = 3, subsampling: int = 4, sigma_factor: float = 0.9, borderType: int = 4, queue: Queue | None = None) -> list:
    """
    plinth's KLT pyramid: float32 levels, [src, then each level smoothed by a Gaussian of sigma sigma_factor * subsampling and sampled at (s*x + s/2, s*y + s/2)]; uint8 or float32 one-channel source.
    """

def add(src1: Image | None, src2: Image | None, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """cv2.add of two images of one shape and dtype (saturating)."""

def subtract(src1: Image | None, src2: Image | None, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """cv2.subtract of two images of one shape and dtype (saturating)."""

def absdiff(src1: Image | None, src2: Image | None, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """cv2.absdiff of two images of one shape and dtype."""

def convertTo(src: Image | None, rtype: Depth | None, alpha: float = 1.0, beta: float = 0.0, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.Mat.convertTo as a function: saturate(src * alpha + beta) in depth rtype (-1: the source's).
    """

def cvtColor(src: Image | None, code: int, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.cvtColor for COLOR_{RGB,BGR,RGBA,BGRA}2GRAY and COLOR_YUV2{GRAY,RGB,BGR,RGBA,BGRA}_NV12 (NV12 as one (3H/2, W) uint8 array).
    """

def resize(src: Image | None, dsize: tuple[int, int] | None, fx: float = 0.0, fy: float = 0.0, interpolation: int = 1, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.resize, bilinear (INTER_LINEAR, INTER_LINEAR_EXACT) on uint8 images; dsize (width, height) or None with fx, fy.
    """

class CascadeClassifier:
    """A Viola-Jones cascade from OpenCV's XML (Haar, LBP, the old format)."""

    def __init__(self, filename: str) -> None:
        """
        Loads a cascade file, or a name from opencv-data ('frontalface_alt2', 'haarcascade_eye', ...).
        """

    def empty(self) -> bool: ...

    @property
    def window_size(self) -> tuple: ...

    @property
    def feature_type(self) -> str: ...

    def detectMultiScale(self, image: Image | None, scaleFactor: float = 1.1, minNeighbors: int = 3, flags: int = 0, minSize: tuple[int, int] = (0, 0), maxSize: tuple[int, int] = (0, 0), queue: Queue | None = None) -> NDArray:
        """
        cv2.CascadeClassifier.detectMultiScale on a grey uint8 image (NumPy or DeviceImage): an (N, 4) int32 array of x, y, width, height. flags is ignored, as OpenCV ignores it for current cascades.
        """

    def detectMultiScale2(self, image: Image | None, scaleFactor: float = 1.1, minNeighbors: int = 3, flags: int = 0, minSize: tuple[int, int] = (0, 0), maxSize: tuple[int, int] = (0, 0), queue: Queue | None = None) -> tuple:
        """As detectMultiScale, with numDetections: (rects, neighbors)."""

    def detectMultiScaleBatch(self, images: list, scaleFactor: float = 1.1, minNeighbors: int = 3, minSize: tuple[int, int] = (0, 0), maxSize: tuple[int, int] = (0, 0), queue: Queue | None = None) -> list:
        """
        detectMultiScale over a list of grey images (sizes may differ) in one device pass: a list of (N, 4) arrays.
        """

def find_cascade(name: str) -> str:
    """
    The path of a cascade: an existing file as it is, else a name ('frontalface_alt2', 'haarcascade_eye.xml', ...) looked up in PLINTH_CASCADE_DIR, then opencv-data's directories.
    """

def groupRectangles(rectList: ArrayLike, groupThreshold: int, eps: float = 0.2) -> tuple:
    """cv2.groupRectangles on an (N, 4) int32 array: (rects, weights)."""

def cornerMinEigenVal(src: Image | None, blockSize: int, ksize: int = 3, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """
    cv2.cornerMinEigenVal of a grey uint8 image: float32 responses, bit-identical.
    """

def cornerHarris(src: Image | None, blockSize: int, ksize: int, k: float, borderType: int = 4, dst: Image | None = None, queue: Queue | None = None) -> Image:
    """cv2.cornerHarris of a grey uint8 image."""

def goodFeaturesToTrack(image: Image | None, maxCorners: int, qualityLevel: float, minDistance: float, mask: Image | None = None, blockSize: int = 3, useHarrisDetector: bool = False, k: float = 0.04, gradientSize: int = 3, queue: Queue | None = None) -> NDArray:
    """cv2.goodFeaturesToTrack: an (N, 1, 2) float32 array in OpenCV's order."""

def buildOpticalFlowPyramid(img: Image | None, winSize: tuple[int, int], maxLevel: int, withDerivatives: bool = True, queue: Queue | None = None) -> tuple:
    """
    cv2.buildOpticalFlowPyramid of a grey uint8 image: (maxLevel, [level0, derivatives0, level1, ...]); derivatives are (h, w, 2) int16 Scharr (Ix, Iy).
    """

def calcOpticalFlowPyrLK(prevImg: Image | None, nextImg: Image | None, prevPts: ArrayLike, nextPts: ArrayLike | None = None, winSize: tuple[int, int] = (21, 21), maxLevel: int = 3, criteria: tuple[int, int, float] = (3, 30, 0.01), flags: int = 0, minEigThreshold: float = 0.0001, queue: Queue | None = None) -> tuple:
    """
    cv2.calcOpticalFlowPyrLK on grey uint8 images: (nextPts, status (N, 1) uint8, err (N, 1) float32), bit-identical with OpenCV's CPU path.
    """

def sort(keys: ArrayLike, descending: bool = False, queue: Queue | None = None) -> NDArray:
    """
    Stable sort of a 1-D uint32, int32 or float32 array (float32 in IEEE totalOrder, NaN last).
    """

def argsort(keys: ArrayLike, descending: bool = False, queue: Queue | None = None) -> NDArray:
    """Indices (int32) of a stable sort, as numpy.argsort(kind='stable')."""

def top_k(keys: ArrayLike, k: int, largest: bool = True, queue: Queue | None = None) -> tuple:
    """
    The k largest (or smallest) keys of a 1-D array and their int32 indices, best first, ties by index.
    """

def sort_pairs(keys: ArrayLike, values: ArrayLike, descending: bool = False, queue: Queue | None = None) -> tuple[NDArray, NDArray]:
    """
    Stable sort of 1-D keys (uint32, int32, float32) carrying values (uint32, int32, float32) with them: (sorted keys, values in that order).
    """

def compact(values: ArrayLike, flags: ArrayLike, queue: Queue | None = None) -> NDArray:
    """
    Stable stream compaction: the values (1-D uint32, int32 or float32) whose uint8 flag is non-zero, in order (numpy's values[flags != 0]).
    """

class DMatch:
    """One match, as cv2.DMatch (imgIdx 0)."""

    @property
    def queryIdx(self) -> int: ...

    @queryIdx.setter
    def queryIdx(self, arg: int, /) -> None: ...

    @property
    def trainIdx(self) -> int: ...

    @trainIdx.setter
    def trainIdx(self, arg: int, /) -> None: ...

    @property
    def distance(self) -> float: ...

    @distance.setter
    def distance(self, arg: float, /) -> None: ...

    @property
    def imgIdx(self) -> int: ...

    def __repr__(self) -> str: ...

class BFMatcher:
    """
    cv2.BFMatcher: brute-force matching, NORM_L2 (float32) or NORM_HAMMING (uint8).
    """

    def __init__(self, normType: int = 4, crossCheck: bool = False) -> None: ...

    def match(self, queryDescriptors: ArrayLike, trainDescriptors: ArrayLike, queue: Queue | None = None) -> list:
        """The nearest train descriptor of each query: a list of DMatch."""

    def knnMatch(self, queryDescriptors: ArrayLike, trainDescriptors: ArrayLike, k: int, queue: Queue | None = None) -> list:
        """The k nearest train descriptors of each query, nearest first."""

def kmeans(data: ArrayLike, K: int, bestLabels: ArrayLike | None, criteria: tuple[int, int, float], attempts: int, flags: int, seed: int = 0, queue: Queue | None = None) -> tuple:
    """
    cv2.kmeans of float32 samples (n, dim): (compactness, labels (n, 1) int32, centers (K, dim) float32). flags: KMEANS_RANDOM_CENTERS, KMEANS_PP_CENTERS or KMEANS_USE_INITIAL_LABELS; `seed` replaces cv2's RNG state.
    """

def bow_assign(descriptors: ArrayLike, vocabulary: ArrayLike, image_starts: ArrayLike | None = None, queue: Queue | None = None) -> tuple:
    """
    Bag-of-words histograms as cv2.BOWImgDescriptorExtractor computes them: (list of float32 histograms, one per image (empty for an image without descriptors), int32 word of each descriptor). image_starts: offsets of each image's descriptors plus the total (default: one image).
    """

class KeyPoint:
    """
    A keypoint as cv2.KeyPoint: pt, size, angle, response, octave, class_id.
    """

    @property
    def pt(self) -> tuple: ...

    @property
    def size(self) -> float: ...

    @size.setter
    def size(self, arg: float, /) -> None: ...

    @property
    def angle(self) -> float: ...

    @angle.setter
    def angle(self, arg: float, /) -> None: ...

    @property
    def response(self) -> float: ...

    @response.setter
    def response(self, arg: float, /) -> None: ...

    @property
    def octave(self) -> int: ...

    @octave.setter
    def octave(self, arg: int, /) -> None: ...

    @property
    def class_id(self) -> int: ...

    @class_id.setter
    def class_id(self, arg: int, /) -> None: ...

    def __repr__(self) -> str: ...

class SURF:
    """cv2.xfeatures2d.SURF on the device (docs/features.md, "SURF")."""

    @staticmethod
    def create(hessianThreshold: float = 100.0, nOctaves: int = 4, nOctaveLayers: int = 3, extended: bool = False, upright: bool = False) -> SURF:
        """cv2.xfeatures2d.SURF_create's parameters and defaults."""

    def descriptorSize(self) -> int: ...

    def detectAndCompute(self, image: Image | None, mask: Image | None = None, queue: Queue | None = None) -> tuple:
        """
        Keypoints (a list of KeyPoint in OpenCV's order) and descriptors ((N, 64 or 128) float32) of a grey uint8 image.
        """

    def detect(self, image: Image | None, mask: Image | None = None, queue: Queue | None = None) -> list:
        """The keypoints alone."""

SURF_create = create
