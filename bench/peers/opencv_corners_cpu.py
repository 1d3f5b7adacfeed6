#!/usr/bin/env python3
"""OpenCV's CPU goodFeaturesToTrack and cornerMinEigenVal as the benchmark peer of `plinth bench corners`.

Times cv2.goodFeaturesToTrack (maxCorners 10000, qualityLevel 0.01, minDistance 10, blockSize 3,
gradientSize 3) and cv2.cornerMinEigenVal / cv2.cornerHarris (block 3 and 7, Sobel 3) with OpenCL
off and cv2.setNumThreads(THREADS), on the same inputs as bench/corners_bench.cpp: the grey
astronaut photograph repeated over the size and rolled right by 53 pixels per input set. Writes
the JSON case schema of `plinth bench --json` (schema plinth-bench/1, op "corners", variant
"opencv_cpu", timing "host_clock"), so bench/merge_results.py puts it beside plinth's rows.

Timing: warm-up, then the median of N runs of one call on a numpy image, measured with
time.perf_counter around the call. It also reports how many corners OpenCV found, which plinth's
good_features_to_track must equal (tests/corners_test.cpp checks the lists on OpenCV 4.6).

Needs opencv-python(-headless) and numpy.
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


def tiled(np, photo, width, height, shift):
    ph, pw = photo.shape
    xs = ((np.arange(width) + shift) % width) % pw
    ys = np.arange(height) % ph
    return np.ascontiguousarray(photo[np.ix_(ys, xs)])


def parse_size(text):
    w, _, h = text.lower().partition("x")
    if not w.isdigit() or not h.isdigit() or int(w) <= 0 or int(h) <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size WxH")
    return int(w), int(h)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photo", default=os.path.join(here, "..", "..", "data", "astronaut.png"))
    parser.add_argument("--sizes", default="1920x1080", help="comma-separated WxH list")
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
        sys.exit(f"opencv_corners_cpu: {e} (pip install opencv-python-headless numpy)")
    photo = cv2.imread(args.photo, cv2.IMREAD_GRAYSCALE)
    if photo is None:
        sys.exit(f"opencv_corners_cpu: cannot read {args.photo}")
    cv2.ocl.setUseOpenCL(False)
    cv2.setNumThreads(args.threads)

    calls = [
        ("min_eigen_val sobel 3 block 3", lambda img: cv2.cornerMinEigenVal(img, 3, ksize=3)),
        ("harris sobel 3 block 3", lambda img: cv2.cornerHarris(img, 3, 3, 0.04)),
        ("min_eigen_val sobel 3 block 7", lambda img: cv2.cornerMinEigenVal(img, 7, ksize=3)),
        ("harris sobel 3 block 7", lambda img: cv2.cornerHarris(img, 7, 3, 0.04)),
        ("gftt max 10000 q 0.01 d 10", lambda img: cv2.goodFeaturesToTrack(img, 10000, 0.01, 10, mask=None, blockSize=3, gradientSize=3)),
    ]
    cases = []
    for size in [parse_size(s) for s in args.sizes.split(",")]:
        width, height = size
        sets = [tiled(np, photo, width, height, 53 * s) for s in range(args.input_sets)]
        for label, call in calls:
            times = []
            result = None
            for i in range(args.warmup + args.runs):
                img = sets[i % len(sets)]
                t0 = time.perf_counter()
                result = call(img)
                t1 = time.perf_counter()
                if i >= args.warmup:
                    times.append((t1 - t0) * 1e6)
            stats = summarize(times)
            note = f"OpenCV {cv2.__version__} CPU, {args.threads} threads, OpenCL off"
            if label.startswith("gftt"):
                note += f"; {0 if result is None else len(result)} corners"
            cases.append({
                "op": "corners", "variant": "opencv_cpu", "config": label,
                "width": width, "height": height, "bytes": width * height, "timing": "host_clock", "note": note,
                "stats": stats, "gpx_per_s": width * height / (stats["median_us"] * 1e3),
                "gb_per_s": width * height / (stats["median_us"] * 1e3), "times_us": times,
            })
            print(f"opencv_corners_cpu: {label} | {width}x{height}: {stats['median_us']:.1f} us", file=sys.stderr)

    doc = {
        "schema": SCHEMA, "tool": "opencv_corners_cpu",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "device": {"name": platform.processor() or platform.machine(), "type": "cpu", "compute_units": os.cpu_count()},
        "settings": {"warmup": args.warmup, "runs": args.runs, "threads": args.threads,
                     "timing": "host clock around each call; median of the timed runs"},
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
