#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora, fuzz/corpus/<target>/: tiny valid inputs of every kind
each reader accepts, so the fuzzer starts from inside the formats. Standard library only; the
cascades are cut down from Debian's opencv-data (/usr/share/opencv4). The JPEG seeds were written
once with OpenCV's imwrite (the standard library has no JPEG encoder); only exif_orientation6.jpg
is made here, from color420.jpg. Re-running rewrites the same bytes."""
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def put(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data)


def gradient(w, h, channels, bits=8):
    """Row-major samples: a diagonal ramp per channel, different for each channel."""
    top = (1 << bits) - 1
    return [[((x * 37 + y * 11 + c * 83) * (top // 255 or 1)) % (top + 1) for x in range(w) for c in range(channels)]
            for y in range(h)]


# ---- images (PNG, BMP, PGM / PPM) ------------------------------------------------------------

def png(w, h, color_type, bits, rows, palette=None, interlace=0):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    channels = len(rows[0]) // w

    def scanlines(sub):
        return b"".join(b"\0" + (bytes(r) if bits == 8 else b"".join(struct.pack(">H", v) for v in r)) for r in sub)
    if interlace:  # Adam7: seven passes, each a sub-image of its own rows (x0, y0, dx, dy)
        raw = b""
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
            sub = [[v for x in range(x0, w, dx) for v in rows[y][x * channels:(x + 1) * channels]] for y in range(y0, h, dy)]
            if sub and sub[0]:
                raw += scanlines(sub)
    else:
        raw = scanlines(rows)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bits, color_type, 0, 0, interlace))
    if palette:
        out += chunk(b"PLTE", bytes(palette))
    return out + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def bmp(w, h, bits, rows, palette=None):
    pal = bytes(palette) if palette else b""
    stride = (w * bits // 8 + 3) & ~3
    pixels = b""
    for row in reversed(rows):  # bottom-up
        line = bytes(row)
        pixels += line + b"\0" * (stride - len(line))
    offset = 14 + 40 + len(pal)
    header = b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, bits, 0, len(pixels), 2835, 2835, len(pal) // 4, 0)
    return header + info + pal + pixels


def pnm(kind, w, h, maxval, rows):
    head = f"{kind}\n# plinth fuzz seed\n{w} {h}\n{maxval}\n".encode()
    if kind in ("P2", "P3"):
        return head + "\n".join(" ".join(str(v) for v in row) for row in rows).encode() + b"\n"
    if maxval > 255:
        return head + b"".join(struct.pack(">H", v) for row in rows for v in row)
    return head + b"".join(bytes(row) for row in rows)


def images():
    put("image", "gray8.png", png(7, 5, 0, 8, gradient(7, 5, 1)))
    put("image", "gray16.png", png(5, 4, 0, 16, gradient(5, 4, 1, 16)))
    put("image", "gray_alpha.png", png(4, 3, 4, 8, gradient(4, 3, 2)))
    put("image", "rgb8.png", png(6, 5, 2, 8, gradient(6, 5, 3)))
    put("image", "rgba8.png", png(5, 3, 6, 8, gradient(5, 3, 4)))
    put("image", "rgb16.png", png(3, 3, 2, 16, gradient(3, 3, 3, 16)))
    put("image", "palette.png", png(6, 4, 3, 8, [[(x + y) % 4 for x in range(6)] for y in range(4)],
                                    palette=[0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]))
    put("image", "interlaced.png", png(9, 9, 0, 8, gradient(9, 9, 1), interlace=1))
    put("image", "rgb24.bmp", bmp(5, 3, 24, gradient(5, 3, 3)))
    put("image", "rgba32.bmp", bmp(3, 2, 32, gradient(3, 2, 4)))
    put("image", "palette8.bmp", bmp(6, 3, 8, [[(x * y) % 4 for x in range(6)] for y in range(3)],
                                     palette=[0, 0, 0, 0, 255, 255, 255, 0, 0, 0, 255, 0, 255, 0, 0, 0]))
    put("image", "gray8.pgm", pnm("P5", 7, 4, 255, gradient(7, 4, 1)))
    put("image", "gray16.pgm", pnm("P5", 4, 3, 65535, gradient(4, 3, 1, 16)))
    put("image", "ascii.pgm", pnm("P2", 5, 3, 200, [[v % 201 for v in r] for r in gradient(5, 3, 1)]))
    put("image", "rgb8.ppm", pnm("P6", 4, 3, 255, gradient(4, 3, 3)))
    put("image", "ascii.ppm", pnm("P3", 3, 2, 1000, [[v % 1001 for v in r] for r in gradient(3, 2, 3, 16)]))
    put("image", "exif_orientation6.jpg", with_exif_orientation(os.path.join(CORPUS, "image", "color420.jpg"), 6))


def with_exif_orientation(jpeg_path, orientation):
    """The JPEG with an APP1 EXIF segment after its SOI: big-endian TIFF, one directory entry
    (Orientation, SHORT)."""
    with open(jpeg_path, "rb") as f:
        jpeg = f.read()
    tiff = b"MM" + struct.pack(">HIH", 42, 8, 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    exif = b"Exif\0\0" + tiff + struct.pack(">I", 0)
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif + jpeg[2:]


# ---- .npy ---------------------------------------------------------------------------------------

def npy(descr, shape, payload, version=1, spacing=", "):
    shape_text = "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
    header = "{'descr': '" + descr + "'" + spacing + "'fortran_order': False" + spacing + "'shape': " + shape_text + ", }"
    prefix = 10 if version == 1 else 12
    header += " " * ((64 - (prefix + len(header) + 1) % 64) % 64) + "\n"
    length = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header.encode("latin-1") + payload


def npys():
    put("npy", "u8_2d.npy", npy("|u1", (3, 5), bytes(range(15))))
    put("npy", "u8_3ch.npy", npy("|u1", (2, 3, 3), bytes(range(18))))
    put("npy", "i8.npy", npy("|i1", (2, 2), bytes([0, 255, 128, 7])))
    put("npy", "u16_4ch.npy", npy("<u2", (2, 2, 4), struct.pack("<16H", *range(0, 16000, 1000))))
    put("npy", "s16.npy", npy("<i2", (2, 3), struct.pack("<6h", -3, -2, -1, 0, 1, 2)))
    put("npy", "u32.npy", npy("<u4", (1, 3), struct.pack("<3I", 0, 1, 4000000000)))
    put("npy", "s32_v2.npy", npy("<i4", (2, 2), struct.pack("<4i", -7, 0, 7, 1 << 30), version=2))
    put("npy", "f32.npy", npy("<f4", (2, 2, 2), struct.pack("<8f", 0.5, -1.25, 3e10, 0, 1, 2, 3, 4)))
    put("npy", "f64_v3.npy", npy("<f8", (1, 2), struct.pack("<2d", 3.14, -2.5), version=3))
    put("npy", "u64.npy", npy("<u8", (1, 1), struct.pack("<Q", 1 << 63)))
    put("npy", "s64_native.npy", npy("=i8", (1, 2), struct.pack("<2q", -1, 5)))
    put("npy", "compact.npy", npy("|u1", (2, 2), bytes(4), spacing=","))


# ---- NV12 ---------------------------------------------------------------------------------------

def nv12s():
    # fuzz_nv12.cpp's input: width and height (u16 LE), frame index (s8), then the raw file.
    def frame(w, h, seed):
        return bytes((i * 7 + seed) % 256 for i in range(w * h * 3 // 2))
    put("nv12", "4x2_two_frames", struct.pack("<HHb", 4, 2, 1) + frame(4, 2, 0) + frame(4, 2, 50))
    put("nv12", "2x2_one_frame", struct.pack("<HHb", 2, 2, 0) + frame(2, 2, 9))
    put("nv12", "8x6_three_frames", struct.pack("<HHb", 8, 6, 2) + b"".join(frame(8, 6, s) for s in (1, 2, 3)))
    put("nv12", "16x16", struct.pack("<HHb", 16, 16, 0) + frame(16, 16, 4))


# ---- cascades -----------------------------------------------------------------------------------

HAAR_STUMP = """<?xml version="1.0"?>
<opencv_storage>
<cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType><featureType>HAAR</featureType>
<height>8</height><width>8</width><stageParams><maxWeakCount>2</maxWeakCount></stageParams>
<featureParams><maxCatCount>0</maxCatCount></featureParams><stageNum>2</stageNum>
<stages>
<_><maxWeakCount>1</maxWeakCount><stageThreshold>-0.5</stageThreshold><weakClassifiers>
<_><internalNodes>0 -1 0 1.5e-02</internalNodes><leafValues>-1. 1.</leafValues></_></weakClassifiers></_>
<_><maxWeakCount>2</maxWeakCount><stageThreshold>-0.25</stageThreshold><weakClassifiers>
<_><internalNodes>0 -1 1 -3.e-03</internalNodes><leafValues>0.5 -0.5</leafValues></_>
<_><internalNodes>0 -1 2 2.e-02</internalNodes><leafValues>-0.75 0.25</leafValues></_></weakClassifiers></_>
</stages>
<features>
<_><rects><_>2 2 4 4 -1.</_><_>2 4 4 2 2.</_></rects></_>
<_><rects><_>0 0 8 3 -1.</_><_>0 1 8 1 3.</_></rects><tilted>0</tilted></_>
<_><rects><_>1 1 6 6 -1.</_><_>3 3 2 2 4.</_><_>1 1 1 1 0.</_></rects></_>
</features></cascade>
</opencv_storage>
"""

HAAR_TREE_TILTED = """<?xml version="1.0"?>
<opencv_storage>
<cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType><featureType>HAAR</featureType>
<height>10</height><width>12</width><featureParams><maxCatCount>0</maxCatCount></featureParams>
<stages><_><stageThreshold>-1.5</stageThreshold><weakClassifiers>
<_><internalNodes>1 -1 0 0.125 0 -2 1 -0.0625</internalNodes><leafValues>0.5 -0.25 0.75</leafValues></_>
</weakClassifiers></_></stages>
<features>
<_><rects><_>4 1 3 3 -1.</_><_>5 2 1 1 9.</_></rects><tilted>1</tilted></_>
<_><rects><_>0 0 12 10 -1.</_><_>3 3 6 4 2.</_></rects></_>
</features></cascade>
</opencv_storage>
"""

LBP_STUMP = """<?xml version="1.0"?>
<opencv_storage>
<cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType><featureType>LBP</featureType>
<height>12</height><width>12</width><featureParams><maxCatCount>256</maxCatCount></featureParams><stageNum>1</stageNum>
<stages><_><maxWeakCount>2</maxWeakCount><stageThreshold>-0.75</stageThreshold><weakClassifiers>
<_><internalNodes>0 -1 0 -67130709 -21569 -1426120013 -1275125205 -21585 -16385 587145899 -24005</internalNodes>
<leafValues>-0.65 0.88</leafValues></_>
<_><internalNodes>0 -1 1 -1 0 255 -256 65535 -65536 1 -2</internalNodes><leafValues>-0.77 0.72</leafValues></_>
</weakClassifiers></_></stages>
<features><_><rect>0 0 3 4</rect></_><_><rect>1 2 3 2</rect></_></features></cascade>
</opencv_storage>
"""

OLD_FORMAT = """<?xml version="1.0"?>
<opencv_storage>
<plate type_id="opencv-haar-classifier"><size>8 6</size><stages>
<_><trees>
<_><_><feature><rects><_>1 1 4 2 -1.</_><_>1 2 4 1 2.</_></rects><tilted>0</tilted></feature>
<threshold>0.01</threshold><left_val>-0.9</left_val><right_node>1</right_node></_>
<_><feature><rects><_>3 0 2 2 -1.</_><_>3 1 1 1 2.</_></rects><tilted>1</tilted></feature>
<threshold>-0.02</threshold><left_val>0.4</left_val><right_val>0.8</right_val></_></_>
</trees><stage_threshold>-0.1</stage_threshold><parent>-1</parent><next>-1</next></_>
</stages></plate>
</opencv_storage>
"""


def first_stage_of(path):
    """A real cascade cut to its first stage and the features that stage uses, compact."""
    root = ET.parse(path).getroot()
    cascade = root[0]
    stages = cascade.find("stages")
    for extra in list(stages)[1:]:
        stages.remove(extra)
    cascade.find("stageNum").text = "1"
    used = 0
    for nodes in stages.iter("internalNodes"):
        numbers = nodes.text.split()
        width = 4 if cascade.find("featureType").text.strip() == "HAAR" else 11
        used = max([used] + [int(numbers[k + 2]) + 1 for k in range(0, len(numbers), width)])
    features = cascade.find("features")
    for extra in list(features)[used:]:
        features.remove(extra)
    text = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0"?>\n' + re.sub(r">\s+<", "><", re.sub(r"[ \t\n]+", " ", text)) + "\n"


def cascades():
    put("cascade", "haar_stumps.xml", HAAR_STUMP)
    put("cascade", "haar_tree_tilted.xml", HAAR_TREE_TILTED)
    put("cascade", "lbp_stumps.xml", LBP_STUMP)
    put("cascade", "old_format_tree.xml", OLD_FORMAT)
    for name in ("haarcascades/haarcascade_frontalface_default.xml", "lbpcascades/lbpcascade_frontalface.xml"):
        path = os.path.join("/usr/share/opencv4", name)
        if not os.path.exists(path):
            sys.exit(f"{path} is missing (apt-get install opencv-data)")
        put("cascade", "stage0_" + os.path.basename(name), first_stage_of(path))


if __name__ == "__main__":
    images()
    npys()
    nv12s()
    cascades()
