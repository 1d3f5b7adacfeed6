#!/usr/bin/env python3
"""OpenCV's OpenCL path (cv2 with UMat) as a benchmark peer of `plinth bench`.

Times the OpenCV counterparts of plinth's ops on random inputs of the same sizes and writes the
same JSON case schema as `plinth bench --json` (variant "opencv_ocl"), so that
bench/merge_results.py can print one table with plinth, NPP and OpenCV side by side.

Timing: a warm-up, then the median of N runs of (call + cv2.ocl.finish()) measured with a host
clock after a cv2.ocl.finish(). Unlike plinth's and NPP's device events this INCLUDES the host's
launch overhead (and any silent CPU fallback of OpenCV, which has no OpenCL kernel for some
requests, e.g. medianBlur beyond 5x5): the numbers are an upper bound of OpenCV's device time.

Where OpenCL is unavailable it says so, writes a document with no cases, and exits 0.
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
ROTATION_BYTES = 192 * 2**20  # as bench_driver.cpp: input sets that outgrow the cache


def parse_size(text):
    w, _, h = text.lower().partition("x")
    if not w.isdigit() or not h.isdigit() or int(w) <= 0 or int(h) <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size WxH")
    return int(w), int(h)


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


def input_sets(w, h, warmup, runs, forced):
    if forced:
        return forced
    wanted = math.ceil(ROTATION_BYTES / (w * h))
    return max(4, min(wanted, max(4, min(256, warmup + runs))))


def gaussian_taps(n):
    sigma = n / 6.0
    taps = [math.exp(-0.5 * ((i - n // 2) / sigma) ** 2) for i in range(n)]
    s = sum(taps)
    return [t / s for t in taps]


def make_cases(cv2, np, w, h):
    """(op, config, make_input(rng), call(src, out), bytes, tolerance): call writes into `out`,
    the result of an earlier call (or None the first time), so that timed runs allocate nothing."""
    px = w * h
    u8 = lambda rng, shape=(h, w): rng.integers(0, 256, size=shape, dtype=np.uint8)
    f32 = lambda rng: rng.random((h, w), dtype=np.float32)
    taps = np.array(gaussian_taps(31), dtype=np.float32)
    integral_bytes = lambda out: px + (w + 1) * (h + 1) * out
    first = lambda o: o[0] if o else None
    second = lambda o: o[1] if o else None
    cases = [
        ("integral", "u8 -> s32", u8, lambda s, o: cv2.integral(s, sum=first(o), sdepth=cv2.CV_32S), integral_bytes(4), 0),
        ("integral", "u8 -> s32 + f64 sq", u8,
         lambda s, o: cv2.integral2(s, sum=first(o), sqsum=second(o), sdepth=cv2.CV_32S, sqdepth=cv2.CV_64F),
         integral_bytes(12), 0),
        ("box_filter", "u8 8x8", u8, lambda s, o: cv2.blur(s, (8, 8), dst=first(o)), 2 * px, 0),
        ("box_filter", "u8 31x31", u8, lambda s, o: cv2.blur(s, (31, 31), dst=first(o)), 2 * px, 0),
        ("median", "u8 3x3", u8, lambda s, o: cv2.medianBlur(s, 3, dst=first(o)), 2 * px, 0),
        ("median", "u8 5x5", u8, lambda s, o: cv2.medianBlur(s, 5, dst=first(o)), 2 * px, 0),
        ("median", "u8 7x7", u8, lambda s, o: cv2.medianBlur(s, 7, dst=first(o)), 2 * px, 0),
        ("sep_filter", "f32 31-tap", f32, lambda s, o: cv2.sepFilter2D(s, cv2.CV_32F, taps, taps, dst=first(o)), 8 * px, 1e-5),
        ("gaussian_blur", "u8 5x5", u8, lambda s, o: cv2.GaussianBlur(s, (5, 5), 0, dst=first(o)), 2 * px, 0),
        ("pyramid", "u8 down", u8, lambda s, o: cv2.pyrDown(s, dst=first(o)), px + px / 4, 0),
        ("pyramid", "u8 up", u8, lambda s, o: cv2.pyrUp(s, dst=first(o)), px + 4 * px, 0),
        ("cvt_color", "u8 bgr -> gray", lambda rng: u8(rng, (h, w, 3)),
         lambda s, o: cv2.cvtColor(s, cv2.COLOR_BGR2GRAY, dst=first(o)), 4 * px, 0),
    ]
    if w % 2 == 0 and h % 2 == 0:
        cases.append(("cvt_color", "u8 nv12 -> bgr", lambda rng: u8(rng, (h * 3 // 2, w)),
                      lambda s, o: cv2.cvtColor(s, cv2.COLOR_YUV2BGR_NV12, dst=first(o)), 1.5 * px + 3 * px, 0))
    return cases


def as_list(result):
    return list(result) if isinstance(result, tuple) else [result]


def check(cv2, np, call, host_input, device_input, tolerance):
    """Compares the OpenCL result with OpenCV's CPU path on the same input. Returns (problem, remark):
    a problem is a difference beyond `tolerance` (relative, floats) or 1 (integers: OpenCV's OpenCL
    kernels round some results differently from its CPU code, which is worth knowing, not fatal)."""
    cv2.ocl.setUseOpenCL(False)
    try:
        want = [np.asarray(x) for x in as_list(call(host_input, None))]
    finally:
        cv2.ocl.setUseOpenCL(True)
    got = [x.get() if hasattr(x, "get") else np.asarray(x) for x in as_list(call(device_input, None))]
    remark = "output equal to OpenCV's CPU path"
    for i, (g, e) in enumerate(zip(got, want)):
        if g.shape != e.shape:
            return f"output {i}: shape {g.shape} vs {e.shape}", ""
        diff = np.abs(g.astype(np.float64) - e.astype(np.float64))
        if np.issubdtype(e.dtype, np.floating):
            worst = float(np.max(diff / np.maximum(np.abs(e.astype(np.float64)), 1.0))) if diff.size else 0.0
            if worst > tolerance:
                return f"output {i}: differs from OpenCV's CPU path by up to {worst:g} (relative)", ""
        else:
            worst = float(np.max(diff)) if diff.size else 0.0
            if worst > 1:
                return f"output {i}: differs from OpenCV's CPU path by up to {worst:g}", ""
            if worst > 0:
                count = int(np.count_nonzero(diff))
                remark = f"output within 1 of OpenCV's CPU path ({count} of {diff.size} values differ)"
    return "", remark


def time_case(cv2, np, case, size, args, rng):
    op, config, make_input, call, nbytes, tolerance = case
    w, h = size
    sets = input_sets(w, h, args.warmup, args.runs, args.sets)
    hosts = [make_input(rng) for _ in range(sets)]
    devices = [cv2.UMat(x) for x in hosts]
    cv2.ocl.finish()
    result = {"op": op, "variant": "opencv_ocl", "config": config, "width": w, "height": h, "bytes": nbytes,
              "timing": "host_clock"}
    try:
        problem, remark = check(cv2, np, call, hosts[0], devices[0], tolerance)
        note = "host clock around call + cv2.ocl.finish() (includes launch overhead)"
        note += "; OUTPUT CHECK FAILED (" + problem + ")" if problem else "; " + remark
        result["note"] = note
        out = as_list(call(devices[0], None))
        index = 1
        for _ in range(args.warmup):
            out = as_list(call(devices[index % sets], out))
            index += 1
        cv2.ocl.finish()
        times = []
        for _ in range(args.runs):
            src = devices[index % sets]
            index += 1
            cv2.ocl.finish()
            t0 = time.perf_counter()
            call(src, out)
            cv2.ocl.finish()
            times.append((time.perf_counter() - t0) * 1e6)
        stats = summarize(times)
        result["stats"] = stats
        result["gpx_per_s"] = w * h / (stats["median_us"] * 1e3)
        result["gb_per_s"] = nbytes / (stats["median_us"] * 1e3)
        result["times_us"] = times
    except Exception as e:  # cv2.error and friends: one error row, the run goes on
        result["error"] = f"{type(e).__name__}: {e}".strip().replace("\n", " ")
    return result


def measure_copy(cv2, np, args):
    nbytes = 256 * 2**20
    try:
        src = cv2.UMat(np.full((nbytes // 16384, 16384), 0x5A, dtype=np.uint8))
        dst = cv2.UMat(np.zeros((nbytes // 16384, 16384), dtype=np.uint8))
        for _ in range(3):
            cv2.copyTo(src, None, dst=dst)
        cv2.ocl.finish()
        times = []
        for _ in range(max(5, min(args.runs, 20))):
            t0 = time.perf_counter()
            cv2.copyTo(src, None, dst=dst)
            cv2.ocl.finish()
            times.append((time.perf_counter() - t0) * 1e6)
    except Exception as e:
        return {"bytes": nbytes, "gb_per_s": 0, "error": f"{type(e).__name__}: {e}"}
    stats = summarize(times)
    return {"bytes": nbytes, "gb_per_s": 2 * nbytes / (stats["median_us"] * 1e3), "stats": stats,
            "note": "cv2.copyTo of UMats timed by the host clock"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ops", nargs="*", help="ops to time (default: all)")
    parser.add_argument("--sizes", default="3840x2160", help="comma-separated WxH list")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--sets", type=int, default=0, help="input sets rotated (default: enough to outgrow the cache)")
    parser.add_argument("--json", default="", help="write the JSON here ('-' for stdout); rewritten after every case")
    parser.add_argument("--max-seconds", type=float, default=0, help="stop starting new cases after this long (0: no limit)")
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    if args.runs < 1 or args.warmup < 0 or args.sets < 0:
        parser.error("--runs must be at least 1, --warmup and --sets not negative")
    out = sys.stderr if args.json == "-" else sys.stdout

    doc = {"schema": SCHEMA, "tool": "opencv_ocl",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "command": " ".join(sys.argv), "device": {}, "settings": {
               "warmup": args.warmup, "runs": args.runs,
               "sizes": [{"width": w, "height": h} for w, h in sizes],
               "timing": "host clock around (call + cv2.ocl.finish()); includes launch overhead"},
           "copy": {}, "cases": []}
    try:
        import cv2
        import numpy as np
    except ImportError as e:
        print(f"opencv_ocl_peer: OpenCV or NumPy missing ({e}); no cases", file=out)
        cv2 = None
    if cv2 is not None:
        doc["opencv"] = cv2.__version__
        cv2.ocl.setUseOpenCL(True)
        if not cv2.ocl.haveOpenCL() or not cv2.ocl.useOpenCL():
            print(f"opencv_ocl_peer: OpenCL is unavailable to OpenCV {cv2.__version__}; no cases", file=out)
            cv2 = None
    if cv2 is not None:
        dev = cv2.ocl.Device.getDefault()
        doc["device"] = {"name": dev.name(), "vendor": dev.vendorName(), "driver_version": dev.driverVersion(),
                         "device_version": dev.version(), "compute_units": dev.maxComputeUnits(),
                         "global_memory": dev.globalMemSize(), "host": platform.node()}
        print(f"opencv_ocl_peer: OpenCV {cv2.__version__} on {dev.name()} ({dev.version()})", file=out)
        doc["copy"]["before"] = measure_copy(cv2, np, args)
        rng = np.random.default_rng(0x0C1)
        started = time.monotonic()
        for size in sizes:
            for case in make_cases(cv2, np, *size):
                if args.ops and case[0] not in args.ops:
                    continue
                if args.max_seconds and time.monotonic() - started > args.max_seconds:
                    doc.setdefault("skipped", []).append(f"{case[0]} | {case[1]} | {size[0]}x{size[1]}")
                    continue
                r = time_case(cv2, np, case, size, args, rng)
                doc["cases"].append(r)
                shown = f"{r['stats']['median_us']:.2f} us" if "stats" in r else "ERROR: " + r["error"]
                print(f"opencv_ocl_peer: {r['op']} | {r['config']} | {size[0]}x{size[1]}: {shown}", file=out, flush=True)
                copy = doc["copy"]["before"]["gb_per_s"]
                if "gb_per_s" in r and copy > 0:
                    r["copy_fraction"] = r["gb_per_s"] / copy
                if args.json and args.json != "-":
                    write(doc, args.json)  # so that a run stopped from outside keeps what it measured
        if doc.get("skipped"):
            print(f"opencv_ocl_peer: {len(doc['skipped'])} cases skipped after --max-seconds {args.max_seconds:g}", file=out)
    if args.json == "-":
        print(json.dumps(doc, indent=1))
    elif args.json:
        write(doc, args.json)
        print(f"opencv_ocl_peer: wrote {args.json}", file=out)
    return 0


def write(doc, path):
    with open(path + ".tmp", "w") as f:
        f.write(json.dumps(doc, indent=1) + "\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    sys.exit(main())
