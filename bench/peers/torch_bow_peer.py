#!/usr/bin/env python3
"""PyTorch on the GPU as the benchmark peer of `plinth bench bow_assign`.

Assigns N 64-d float32 descriptors to the nearest of K centroids and counts them, as
bench/bow_assign_bench.cpp does, with the issue's formulation: scores = |c|^2 - 2 x c^T by one
matmul (torch.addmm), labels = argmin over the words, histogram = bincount / N. K = 256 and 1024,
N = 1,000,000 by default. Writes the JSON case schema of `plinth bench --json` (schema
plinth-bench/1, op "bow_assign", variant "torch" (full float32 matmul) and "torch_tf32" (TF32
tensor cores, fewer mantissa bits: labels may differ), timing "peer_events").

Timing: CUDA events around one complete run (addmm, argmin, bincount, the division), inputs
rotated over two sets, warm-up, then the median of the timed runs. Also reports how many labels
agree with a float64 CPU check on the first 2,000 descriptors.

Needs torch with CUDA: pip install torch.
"""

import argparse
import datetime
import json
import math
import sys

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--ks", default="256,1024")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("-o", "--output", help="write the JSON here (default: stdout)")
    args = parser.parse_args()
    try:
        import torch
    except ImportError as e:
        sys.exit(f"torch_bow_peer: {e} (pip install torch)")
    if not torch.cuda.is_available():
        sys.exit("torch_bow_peer: torch sees no CUDA device")
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(1234)
    sets = [torch.rand(args.n, args.dim, device=dev, generator=gen) - 0.5 for _ in range(2)]

    cases = []
    for k in [int(v) for v in args.ks.split(",")]:
        vocab = torch.rand(k, args.dim, device=dev, generator=gen) - 0.5
        for variant, tf32 in (("torch", False), ("torch_tf32", True)):
            torch.backends.cuda.matmul.allow_tf32 = tf32

            def run(x):
                norms = (vocab * vocab).sum(1)
                scores = torch.addmm(norms, x, vocab.t(), beta=1.0, alpha=-2.0)
                labels = scores.argmin(1)
                return labels, torch.bincount(labels, minlength=k).float() / x.shape[0]

            times = []
            for i in range(args.warmup + args.runs):
                x = sets[i % 2]
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                labels, hist = run(x)
                end.record()
                end.synchronize()
                if i >= args.warmup:
                    times.append(start.elapsed_time(end) * 1e3)
            # Labels of the first descriptors against float64 distances on the CPU.
            x = sets[(args.warmup + args.runs - 1) % 2][:2000].double().cpu()
            ref = torch.cdist(x, vocab.double().cpu()).argmin(1)
            agree = int((ref == labels[:2000].cpu()).sum())
            stats = summarize(times)
            n_bytes = args.n * args.dim * 4 + k * args.dim * 4 + 8 * k
            cases.append({
                "op": "bow_assign", "variant": variant, "config": f"{args.n} x {args.dim}, k={k}",
                "width": args.n, "height": 1, "bytes": n_bytes, "timing": "peer_events",
                "note": f"torch {torch.__version__}, {torch.cuda.get_device_name()}, allow_tf32={tf32}; "
                        f"{agree}/2000 labels equal float64's",
                "stats": stats, "gpx_per_s": args.n / (stats["median_us"] * 1e3),
                "gb_per_s": n_bytes / (stats["median_us"] * 1e3), "times_us": times,
            })
    torch.backends.cuda.matmul.allow_tf32 = False
    doc = {
        "schema": SCHEMA, "tool": "torch_bow_peer",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "device": {"name": torch.cuda.get_device_name(), "type": "gpu"},
        "settings": {"warmup": args.warmup, "runs": args.runs,
                     "timing": "CUDA events around one run; median of the timed runs"},
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
