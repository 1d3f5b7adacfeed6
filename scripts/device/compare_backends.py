#!/usr/bin/env python3
"""Compares two `plinth bench --json` files of the same cases on two backends (CUDA / OpenCL):
median ratio, cases slower or faster by more than 5%, per op and the worst cases.

    python3 scripts/device/compare_backends.py out/bench_cuda.json out/bench_opencl.json
"""
import json
import statistics
import sys


def medians(path):
    out = {}
    for case in json.load(open(path))["cases"]:
        if case.get("error") or "stats" not in case:
            continue
        key = (case["op"], case["config"], case["variant"], "%dx%d" % (case["width"], case["height"]))
        out[key] = case["stats"]["median_us"]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare_backends.py A.json B.json")
    a, b = medians(sys.argv[1]), medians(sys.argv[2])
    rows = sorted(((a[k] / b[k], k, a[k], b[k]) for k in a if k in b), reverse=True)
    if not rows:
        sys.exit("no case in both files")
    ratios = [r[0] for r in rows]
    print("%d cases in both; median A/B %.3f; A slower by >5%%: %d; faster by >5%%: %d"
          % (len(rows), statistics.median(ratios), sum(r > 1.05 for r in ratios), sum(r < 0.95 for r in ratios)))
    print("\n| op | cases | median A/B | slower by >5% | faster by >5% |\n| --- | ---: | ---: | ---: | ---: |")
    for op in sorted({k[0] for _, k, _, _ in rows}):
        v = [r for r, k, _, _ in rows if k[0] == op]
        print("| %s | %d | %.2f | %d | %d |" % (op, len(v), statistics.median(v), sum(x > 1.05 for x in v),
                                                sum(x < 0.95 for x in v)))
    print("\n| op | case | method | size | A us | B us | A/B |\n| --- | --- | --- | --- | ---: | ---: | ---: |")
    for r, k, x, y in rows[:16]:
        print("| %s | %s | %s | %s | %.2f | %.2f | %.2f |" % (k + (x, y, r)))


if __name__ == "__main__":
    main()
