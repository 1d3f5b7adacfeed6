#!/usr/bin/env python3
"""OpenCV's cv2.calcOpticalFlowPyrLK as the benchmark peer of `plinth bench pyr_lk`.

Times OpenCV's CPU path (cv2.setNumThreads(THREADS), OpenCL off; variant "opencv_cpu") and its
OpenCL path (cv2.UMat inputs; variant "opencv_ocl") on the same inputs as bench/pyr_lk_bench.cpp:
the procedural value-noise frames (integer arithmetic, bit for bit the same), the second moved by
(17, -11) / 8 pixels, and the same jittered grids of 10k, 100k and 3300 points; 21x21 windows,
maxLevel 3, the default criteria. Each call builds both pyramids from the images, as plinth's
runs do. Writes the JSON case schema of `plinth bench --json` (schema plinth-bench/1, op
"pyr_lk", timing "host_clock").

Timing: warm-up, then the median of N runs measured with time.perf_counter around the call (and
cv2.ocl.finish() for UMat). The OpenCL variant's result is compared with the CPU path's (OpenCV's
OpenCL pyrLK is a different computation: float pyramid, hardware sampling, its own stop rule)
and the share of equal statuses and the largest position difference are noted.

Needs opencv-python(-headless) and numpy. Where OpenCL is unavailable the OpenCL rows say so.
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
SHIFT = (17, -11)  # eighths of a pixel, as kShiftX, kShiftY in bench/pyr_lk_bench.cpp
CONFIGS = [(10000, 21, 3), (100000, 21, 3), (3300, 21, 3)]


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


def lattice_hash(np, i, j, seed):
    i = np.asarray(i).astype(np.int64).astype(np.uint32)
    j = np.asarray(j).astype(np.int64).astype(np.uint32)
    h = (i * np.uint32(73856093)) ^ (j * np.uint32(19349663)) ^ np.uint32((seed * 83492791) & 0xFFFFFFFF)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0x5BD1E995)
    h = h ^ (h >> np.uint32(15))
    return (h & np.uint32(255)).astype(np.int64)


def noise(np, X, Y, cell, seed):
    span = 8 * cell
    i, j = X // span, Y // span
    fx, fy = X - i * span, Y - j * span
    I, J = i[None, :], j[:, None]
    FX, FY = fx[None, :], fy[:, None]
    v = (lattice_hash(np, I, J, seed) * (span - FX) * (span - FY) + lattice_hash(np, I + 1, J, seed) * FX * (span - FY)
         + lattice_hash(np, I, J + 1, seed) * (span - FX) * FY + lattice_hash(np, I + 1, J + 1, seed) * FX * FY)
    return v // (span * span)


def texture(np, w, h, seed, sx, sy):
    X = 8 * np.arange(w, dtype=np.int64) + sx
    Y = 8 * np.arange(h, dtype=np.int64) + sy
    return ((noise(np, X, Y, 6, seed) + noise(np, X, Y, 23, seed + 1)) // 2).astype(np.uint8)


def grid_points(np, w, h, n):
    cols = max(1, int(math.floor(math.sqrt(n * (w - 32) / (h - 32)) + 0.5)))
    rows = (n + cols - 1) // cols
    k = np.arange(n, dtype=np.int64)
    c, r = k % cols, k // cols
    x = 16 + c * (w - 32) // cols
    y = 16 + r * (h - 32) // rows
    hs = lattice_hash(np, k, 7, 99)
    pts = np.stack([x.astype(np.float32) + (hs & 3).astype(np.float32) * np.float32(0.25),
                    y.astype(np.float32) + ((hs >> 2) & 3).astype(np.float32) * np.float32(0.25)], axis=1)
    return pts.reshape(-1, 1, 2).astype(np.float32)


def parse_size(text):
    w, _, h = text.lower().partition("x")
    if not w.isdigit() or not h.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a size WxH")
    return int(w), int(h)


def time_calls(call, finish, warmup, runs, sets):
    for i in range(warmup):
        call(i % sets)
    finish()
    times = []
    for i in range(runs):
        finish()
        t0 = time.perf_counter()
        call(i % sets)
        finish()
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1920x1080,640x480")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--sets", type=int, default=4, help="frame pairs rotated (bench/pyr_lk_bench.cpp: 4)")
    parser.add_argument("--no-ocl", action="store_true", help="time the CPU path only")
    parser.add_argument("-o", "--json", default="", help="write the JSON here ('-' for stdout)")
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    out = sys.stderr if args.json == "-" else sys.stdout
    import cv2
    import numpy as np

    doc = {"schema": SCHEMA, "tool": "opencv_pyr_lk_peer", "opencv": cv2.__version__,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "command": " ".join(sys.argv), "device": {"host": platform.node(), "cpu_threads": args.threads},
           "settings": {"warmup": args.warmup, "runs": args.runs, "timing": "host clock around the call"},
           "copy": {}, "cases": []}
    cv2.setNumThreads(args.threads)
    have_ocl = not args.no_ocl and cv2.ocl.haveOpenCL()
    if have_ocl:
        cv2.ocl.setUseOpenCL(True)
        dev = cv2.ocl.Device.getDefault()
        doc["device"].update({"ocl_name": dev.name(), "ocl_driver_version": dev.driverVersion()})
    for w, h in sizes:
        frames = [(texture(np, w, h, 1000 + f, 0, 0), texture(np, w, h, 1000 + f, *SHIFT)) for f in range(args.sets)]
        for n, win, level in CONFIGS:
            pts = grid_points(np, w, h, n)
            config = (f"{n // 1000}k" if n % 1000 == 0 else str(n)) + f" pts {win}x{win} L{level}"
            base = {"op": "pyr_lk", "config": config, "width": w, "height": h,
                    "bytes": 2.0 * w * h + n * (8 + 8 + 1 + 4), "timing": "host_clock"}
            lk = dict(winSize=(win, win), maxLevel=level,
                      criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01))
            # CPU path, OpenCL off.
            cv2.ocl.setUseOpenCL(False)
            cpu = cv2.calcOpticalFlowPyrLK(frames[0][0], frames[0][1], pts, None, **lk)
            r = dict(base, variant="opencv_cpu",
                     note=f"OpenCV {cv2.__version__} CPU path, {args.threads} threads; "
                          f"{int(cpu[1].sum())} of {n} points tracked")
            times = time_calls(lambda s: cv2.calcOpticalFlowPyrLK(frames[s][0], frames[s][1], pts, None, **lk),
                               lambda: None, args.warmup, args.runs, args.sets)
            r["stats"] = summarize(times)
            doc["cases"].append(r)
            print(f"opencv_pyr_lk_peer: cpu | {config} | {w}x{h}: {r['stats']['median_us']:.1f} us", file=out, flush=True)
            if not have_ocl:
                continue
            cv2.ocl.setUseOpenCL(True)
            r = dict(base, variant="opencv_ocl")
            try:
                umats = [(cv2.UMat(a), cv2.UMat(b)) for a, b in frames]
                upts = cv2.UMat(pts)
                got = cv2.calcOpticalFlowPyrLK(umats[0][0], umats[0][1], upts, None, **lk)
                cv2.ocl.finish()
                nxt = got[0].get() if hasattr(got[0], "get") else got[0]
                st = got[1].get() if hasattr(got[1], "get") else got[1]
                same = int((st == cpu[1]).sum())
                both = (st[:, 0] == 1) & (cpu[1][:, 0] == 1)
                worst = float(np.abs(nxt[both] - cpu[0][both]).max()) if both.any() else 0.0
                fell_back = same == n and worst == 0.0
                r["note"] = (f"OpenCV {cv2.__version__} OpenCL (UMat); host clock incl. launch overhead; status equal to "
                             f"the CPU path's on {same} of {n} points, positions within {worst:.3g} px"
                             f"{'' if isinstance(got[0], cv2.UMat) else '; RESULT NOT A UMat: OpenCV may have fallen back to the CPU'}"
                             f"{'; IDENTICAL to the CPU path: OpenCV most likely ran its CPU code (its OpenCL pyrLK needs OpenCL images)' if fell_back else ''}")
                times = time_calls(lambda s: cv2.calcOpticalFlowPyrLK(umats[s][0], umats[s][1], upts, None, **lk),
                                   cv2.ocl.finish, args.warmup, args.runs, args.sets)
                r["stats"] = summarize(times)
                print(f"opencv_pyr_lk_peer: ocl | {config} | {w}x{h}: {r['stats']['median_us']:.1f} us", file=out, flush=True)
            except Exception as e:  # one error row, the run goes on
                r["error"] = f"{type(e).__name__}: {e}".strip().replace("\n", " ")
            doc["cases"].append(r)
    if args.json == "-":
        print(json.dumps(doc, indent=1))
    elif args.json:
        with open(args.json + ".tmp", "w") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
        os.replace(args.json + ".tmp", args.json)
        print(f"opencv_pyr_lk_peer: wrote {args.json}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
