"""Writes python/plinth/_plinth.pyi: nanobind's stubgen of the built module (run with the Python that has
plinth installed), with the parameters the extension takes as plain objects given their real types
(images, depths, sizes, arrays). `--check` compares instead of writing (python/tests/test_stubs.py).

    build-python/venv/bin/python scripts/gen_python_stubs.py [--check]
"""
import pathlib
import re
import subprocess
import sys
import tempfile

STUB = pathlib.Path(__file__).resolve().parents[1] / "python" / "plinth" / "_plinth.pyi"

HEADER = '''
import numpy
from numpy.typing import ArrayLike, NDArray
from typing import TypeAlias

# An image argument: a NumPy array (synchronous call, NumPy result) or a DeviceImage (asynchronous call,
# DeviceImage result).
Image: TypeAlias = "NDArray | DeviceImage"
# A depth: a cv2 code (CV_8U .. CV_64F, -1 for the default), a name ("u8", "u32", "f32") or a NumPy dtype.
Depth: TypeAlias = "int | str | numpy.dtype | type"
'''

PARAMETERS = [
    (r"src|src1|src2|image|img|prevImg|nextImg|mask|dst", "Image"),
    (r"sdepth|sqdepth|ddepth|rtype|dtype", "Depth"),
    (r"ksize|anchor|dstsize|dsize|winSize|minSize|maxSize", "tuple[int, int]"),
    (r"criteria", "tuple[int, int, float]"),
    (r"array|out|keys|queryDescriptors|trainDescriptors|data|bestLabels|descriptors|vocabulary|image_starts|"
     r"prevPts|nextPts|rectList|kernelX|kernelY|kernel|x|values|flags", "ArrayLike"),
    (r"stream", "int"),
    (r"max_version|dl_device", "tuple[int, int]"),
    (r"copy", "bool"),
]


def typed(text):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("from ") or line.startswith("import "))
    lines[start:start] = HEADER.strip("\n").splitlines() + [""]
    out = []
    for line in lines:
        if line.lstrip().startswith("def "):
            for names, annotation in PARAMETERS:
                line = re.sub(rf"\b({names}): object( \| None)?", lambda m: f"{m.group(1)}: {annotation}{m.group(2) or ''}", line)
            name = re.search(r"def (\w+)\(", line).group(1)
            if name == "download" and "blocking" in line:  # Queue.download
                line = line.replace("-> object:", "-> NDArray | tuple[NDArray, Event]:")
            elif name in ("numpy", "sort", "argsort", "download", "detectMultiScale", "goodFeaturesToTrack"):
                line = line.replace("-> object:", "-> NDArray:")
            elif name == "__dlpack_device__":
                line = line.replace("-> tuple:", "-> tuple[int, int]:")
            elif name == "sort_pairs":
                line = line.replace("-> tuple:", "-> tuple[NDArray, NDArray]:")
            elif name == "compact":
                line = line.replace("-> object:", "-> NDArray:")
            elif name == "from_dlpack":
                line = line.replace("-> object:", "-> HostImage | DeviceImage:")
            elif name == "dtype":
                line = line.replace("-> object:", "-> numpy.dtype:")
            elif re.search(r"\((self, )?(src|src1|image|img)\b", line):
                line = line.replace("-> object:", "-> Image:")
        out.append(line)
    return "\n".join(out) + "\n"


def main():
    with tempfile.TemporaryDirectory() as folder:
        raw = pathlib.Path(folder) / "_plinth.pyi"
        subprocess.run([sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "plinth._plinth", "-o", str(raw)], check=True)
        text = typed(raw.read_text())
    if "--check" in sys.argv[1:]:
        if STUB.read_text() != text:
            print(f"{STUB} is not current: run {' '.join(sys.argv[:1])}", file=sys.stderr)
            return 1
        return 0
    STUB.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
