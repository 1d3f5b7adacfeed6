#!/usr/bin/env python3
"""PyTorch's torch.sort and torch.topk on the GPU as benchmark peers of `plinth bench sort top_k`.

Times the same work as bench/sort_bench.cpp and bench/top_k_bench.cpp on random inputs of the
same sizes: a stable ascending sort of f32 keys carrying 4-byte values (torch.sort(stable=True)
returns the permutation; gathering the values with it is part of the case, as plinth moves the
values itself), a stable sort of keys alone, and torch.topk(k) of f32 keys (largest, sorted).
Device time from CUDA events around each run (warm-up, then the median), inputs rotated over
several sets. Writes the plinth-bench/1 JSON schema (tool "torch", timing "peer_events"), so that
bench/merge_results.py prints it beside plinth's rows:

    python3 bench/peers/torch_sort_peer.py --sizes 4096x4096 --runs 30 --json torch_sort.json

Without PyTorch or CUDA it says so, writes a document with no cases and exits 0.
"""

import argparse
import datetime
import json
import sys

from opencv_ocl_peer import SCHEMA, parse_size, summarize  # the same folder: one schema, one summary


def time_runs(torch, run, sets, warmup, runs):
    for i in range(warmup):
        run(i % sets)
    torch.cuda.synchronize()
    times = []
    for i in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run(i % sets)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="4096x4096", help="comma-separated WxH (elements = W * H)")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--sets", type=int, default=3, help="input sets rotated between runs")
    parser.add_argument("--json", default="", help="write the JSON here ('-' for stdout)")
    args = parser.parse_args()
    sizes = [parse_size(s) for s in args.sizes.split(",")]

    doc = {"schema": SCHEMA, "tool": "torch", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
           "command": " ".join(sys.argv), "settings": {"warmup": args.warmup, "runs": args.runs,
           "sizes": [{"width": w, "height": h, "input_sets": args.sets} for w, h in sizes]}, "cases": []}
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA is not available to PyTorch")
    except Exception as e:  # no torch, or no GPU: an empty document, as the other peers do
        print(f"torch_sort_peer: {e}; no cases", file=sys.stderr)
        torch = None
    if torch is not None:
        props = torch.cuda.get_device_properties(0)
        doc["device"] = {"name": props.name, "platform": f"CUDA {torch.version.cuda}", "driver_version": "",
                         "device_version": f"torch {torch.__version__}"}
        for w, h in sizes:
            n = w * h
            gen = torch.Generator(device="cuda").manual_seed(0x5047)
            keys = [torch.rand(n, device="cuda", generator=gen) * 2 - 1 for _ in range(args.sets)]
            values = [torch.randint(0, 2**31 - 1, (n,), device="cuda", dtype=torch.int32, generator=gen)
                      for _ in range(args.sets)]

            def pairs(s):
                sorted_keys, order = torch.sort(keys[s], stable=True)
                return sorted_keys, values[s][order]

            def keys_only(s):
                return torch.sort(keys[s], stable=True)[0]

            cases = [("sort", "torch", "f32 -> u32 pairs", 16.0 * n, pairs),
                     ("sort", "torch", "f32 keys", 8.0 * n, keys_only)]
            for k in (1000, 1):
                if k <= n:
                    cases.append(("top_k", "torch", f"f32 k={k}", 4.0 * n,
                                  lambda s, k=k: torch.topk(keys[s], k, largest=True, sorted=True)))
            for op, variant, config, nbytes, run in cases:
                try:
                    stats = summarize(time_runs(torch, run, args.sets, args.warmup, args.runs))
                    case = {"op": op, "variant": variant, "config": config, "width": w, "height": h, "bytes": nbytes,
                            "timing": "peer_events", "note": f"torch {torch.__version__}", "stats": stats,
                            "gb_per_s": nbytes / (stats["median_us"] * 1e3),
                            "gpx_per_s": n / (stats["median_us"] * 1e3)}
                except Exception as e:
                    case = {"op": op, "variant": variant, "config": config, "width": w, "height": h, "bytes": nbytes,
                            "timing": "peer_events", "error": str(e)}
                doc["cases"].append(case)
                shown = f"{case['stats']['median_us']:10.1f} us" if "stats" in case else "error: " + case["error"]
                print(f"{op:8s} {config:18s} {w}x{h} torch {shown}", flush=True)
    if args.json:
        text = json.dumps(doc, indent=1)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
