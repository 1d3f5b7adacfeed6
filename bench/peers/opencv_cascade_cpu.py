#!/usr/bin/env python3
"""OpenCV's CPU CascadeClassifier as the benchmark peer of `plinth bench cascade`.

Times cv2.CascadeClassifier.detectMultiScale (frontalface_default, scale factor 1.1, 3 neighbours,
OpenCL off, cv2.setNumThreads(THREADS)) on the same inputs as bench/cascade_bench.cpp: the
astronaut photograph resized and tiled to 640x480 (1x1) and 1920x1080 (3x2 tiles of 640x540),
rolled right by 53 pixels per input set. Writes the JSON case schema of `plinth bench --json`
(schema plinth-bench/1, op "cascade", variant "opencv_cpu", timing "host_clock").

Timing: warm-up, then the median of N runs of one detectMultiScale call on a grey numpy image,
measured with time.perf_counter (the whole call: pyramid, integrals, evaluation, grouping).

Needs opencv-python-headless 4.x (OpenCV 5 dropped CascadeClassifier) and numpy:
pip install "opencv-python-headless<5" numpy. The
tiles are resized with cv2.resize(INTER_LINEAR), which is bit-exact with plinth's resize(linear).
"""

import argparse
import datetime
import json
import math
import os
import platform
import sys
import time

SCHEMA = "plinth-bench/1"


def summarize(times):
    t = sorted(times)
    n = len(t)

    def at(q):
        pos = q * (n - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, n - 1)
        return t[lo] + (t[hi] - t[lo]) * (pos - lo)

    return {"runs": n, "median_us": at(0.5), "min_us": t[0], "p10_us": at(0.1), "p90_us": at(0.9),
            "max_us": t[-1], "mean_us": sum(t) / n}


def tiled(cv2, np, photo, width, height, cols, rows, shift):
    tile_w, tile_h = width // cols, height // rows
    small = cv2.resize(photo, (tile_w, tile_h), interpolation=cv2.INTER_LINEAR)
    xs = ((np.arange(width) + shift) % width) % tile_w
    ys = np.arange(height) % tile_h
    return np.ascontiguousarray(small[np.ix_(ys, xs)])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photo", default=os.path.join(here, "..", "..", "data", "astronaut.png"))
    parser.add_argument("--cascade", default="/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml",
                        help="cascade XML (cv2.data.haarcascades has the same file in the wheel)")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--input-sets", type=int, default=4)
    parser.add_argument("-o", "--output", help="write the JSON here (default: stdout)")
    args = parser.parse_args()

    try:
        import cv2
        import numpy as np
    except ImportError as e:
        sys.exit(f"opencv_cascade_cpu: {e} (pip install \"opencv-python-headless<5\" numpy)")
    if not hasattr(cv2, "CascadeClassifier"):
        sys.exit(f"opencv_cascade_cpu: OpenCV {cv2.__version__} has no CascadeClassifier; "
                 "install a 4.x wheel: pip install \"opencv-python-headless<5\"")

    cascade_path = args.cascade
    if not os.path.isfile(cascade_path) and hasattr(cv2, "data"):
        cascade_path = os.path.join(cv2.data.haarcascades, os.path.basename(cascade_path))
    classifier = cv2.CascadeClassifier(cascade_path)
    if classifier.empty():
        sys.exit(f"opencv_cascade_cpu: cannot load {cascade_path}")
    photo = cv2.imread(args.photo, cv2.IMREAD_GRAYSCALE)
    if photo is None:
        sys.exit(f"opencv_cascade_cpu: cannot read {args.photo}")
    cv2.ocl.setUseOpenCL(False)
    cv2.setNumThreads(args.threads)

    cases = []
    for (width, height, cols, rows) in ((640, 480, 1, 1), (1920, 1080, 3, 2)):
        sets = [tiled(cv2, np, photo, width, height, cols, rows, 53 * s) for s in range(args.input_sets)]
        times = []
        found = 0
        for i in range(args.warmup + args.runs):
            img = sets[i % len(sets)]
            t0 = time.perf_counter()
            rects, neighbours = classifier.detectMultiScale2(img, scaleFactor=1.1, minNeighbors=3)
            t1 = time.perf_counter()
            if i >= args.warmup:
                times.append((t1 - t0) * 1e6)
            found = len(rects)
        stats = summarize(times)
        cases.append({
            "op": "cascade", "variant": "opencv_cpu", "config": "frontalface_default sf 1.1 mn 3",
            "width": width, "height": height, "bytes": width * height, "timing": "host_clock",
            "note": f"OpenCV {cv2.__version__} CPU, {args.threads} threads, OpenCL off; {found} faces",
            "stats": stats, "gpx_per_s": width * height / (stats["median_us"] * 1e3), "gb_per_s": width * height / (stats["median_us"] * 1e3),
            "times_us": times,
        })

    doc = {
        "schema": SCHEMA, "tool": "opencv_cascade_cpu",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "device": {"name": platform.processor() or platform.machine(), "type": "cpu", "compute_units": os.cpu_count()},
        "settings": {"warmup": args.warmup, "runs": args.runs, "threads": args.threads,
                     "timing": "host clock around each detectMultiScale call; median of the timed runs"},
        "cases": cases,
    }
    text = json.dumps(doc, indent=1)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
