"""Host cost per call from Python against the C++ library (issue 19's target: Python adds <= 5 us per
call of a 1x1 operation). The same cases as the CLI's `plinth calls` (tools/plinth/calls_cmd.cpp):
back-to-back asynchronous calls on one queue into preallocated outputs, finished once, timed by the
host clock, with the queue's timing (device events) off and on; then runs that command (--cli) and
prints both and the difference.

    python python/bench/calls.py --cli build/tools/plinth/plinth [--count 10000] [--json out.json]

The device is PLINTH_DEVICE's (default: the first GPU), for both."""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

import plinth


def per_call_us(queue, count, call):
    for _ in range(20):  # programs built, scratch allocated
        call()
    queue.finish()
    start = time.perf_counter()
    for _ in range(count):
        call()
    queue.finish()
    return (time.perf_counter() - start) * 1e6 / count


def python_cases(count, timing):
    q = plinth.Queue(timing=timing)
    one = q.upload(np.full((1, 1), 7, np.uint8))
    one_out = plinth.DeviceImage(1, 1, np.float32)
    vga = q.upload(np.ones((480, 640), np.uint8))
    vga_sum = plinth.DeviceImage(641, 481, np.int32)
    host_one = np.full((1, 1), 7, np.uint8)
    host_out = np.empty((1, 1), np.float32)
    t = "on" if timing else "off"
    return q.context.device, {
        f"convert 1x1 u8->f32, timing {t}": per_call_us(q, count, lambda: plinth.convertTo(one, plinth.CV_32F, dst=one_out, queue=q)),
        f"integral 640x480 u8->s32, timing {t}": per_call_us(q, count, lambda: plinth.integral(vga, dst=vga_sum, queue=q)),
        # Synchronous NumPy in and out (upload, convert, download, wait): no C++ counterpart, for scale.
        f"convert 1x1 numpy round trip, timing {t}": per_call_us(
            q, max(count // 10, 100), lambda: plinth.convertTo(host_one, plinth.CV_32F, dst=host_out, queue=q)),
    }


def cpp_cases(cli, count):
    run = subprocess.run([cli, "calls", "--count", str(count)], capture_output=True, text=True, check=True)
    found = re.findall(r"timing (on|off) ?: convert 1x1 u8->f32 ([\d.]+) us/call, integral 640x480 u8->s32 ([\d.]+) us/call",
                       run.stdout)
    if len(found) != 2:
        raise RuntimeError(f"unexpected output of `plinth calls`: {run.stdout!r}")
    cases = {}
    for t, convert, integral in found:
        cases[f"convert 1x1 u8->f32, timing {t}"] = float(convert)
        cases[f"integral 640x480 u8->s32, timing {t}"] = float(integral)
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", help="the plinth CLI, for `plinth calls` (without it: Python only)")
    parser.add_argument("--count", type=int, default=10000, help="calls per case (default 10000)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per side (default 3)")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()

    device, python_us = None, {}
    for _ in range(args.repeats):
        for timing in (False, True):  # as `plinth calls`: without device events (a queue's default), then with
            device, run = python_cases(args.count, timing)
            python_us = {**python_us, **{k: min(v, python_us.get(k, v)) for k, v in run.items()}}
    cpp_us = {}
    if args.cli:
        for _ in range(args.repeats):
            run = cpp_cases(args.cli, args.count)
            cpp_us = {k: min(v, cpp_us.get(k, v)) for k, v in run.items()}
    print(f"{device['backend']}:{device['index']} {device['name']} (PLINTH_DEVICE={os.environ.get('PLINTH_DEVICE', '')!r}), "
          f"{args.count} calls per case, best of {args.repeats}")
    print(f"{'case':44} {'python us/call':>15} {'C++ us/call':>12} {'python - C++':>13}")
    overhead = {}
    for case, us in python_us.items():
        cpp = cpp_us.get(case)
        if cpp is not None:
            overhead[case] = us - cpp
        print(f"{case:44} {us:15.2f} {cpp if cpp is not None else float('nan'):12.2f} "
              f"{overhead.get(case, float('nan')):13.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "count": args.count, "python_us": python_us, "cpp_us": cpp_us,
                       "overhead_us": overhead}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
