#!/usr/bin/env python3
"""faiss, scikit-learn and PyTorch k-means as the benchmark peers of `plinth bench kmeans`.

The same work as bench/kmeans_bench.cpp: N 64-d float32 samples, uniform in [-0.5, 0.5), into
K = 256 and 1024 clusters, 20 iterations (assignment + update), config names as plinth's:

- faiss_cpu, faiss_gpu: faiss.Kmeans(niter=20) on all N samples (max_points_per_centroid raised so
  that faiss does not subsample to 256 K points); its start is K random samples. Host clock
  around train() (the GPU index synchronises before returning).
- sklearn_cpu: only where faiss is not importable (labelled so): sklearn.cluster.KMeans with
  init="random", n_init=1, max_iter=20, tol=0, algorithm="lloyd". Host clock.
- torch_lloyd: a plain Lloyd loop on CUDA (addmm scores, argmin, index_add_ sums, bincount counts;
  float atomics, so not deterministic; empty clusters keep their centre). CUDA events around the
  20 iterations.

Writes the plinth-bench/1 JSON schema, so that bench/merge_results.py prints it beside plinth's rows:

    python3 bench/peers/faiss_kmeans_peer.py --json kmeans_peers.json

What is not importable is skipped with a line on stderr; with nothing importable the document has
no cases and the exit status is 0.
"""

import argparse
import datetime
import json
import sys
import time

from opencv_ocl_peer import SCHEMA, summarize, write  # the same folder: one schema, one summary
from torch_sort_peer import time_runs


def host_times(run, warmup, runs):
    """Host-clock microseconds of `runs` calls of run(i), after `warmup` untimed ones."""
    for i in range(warmup):
        run(i)
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        run(i)
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def timed_case(op, variant, config, n, nbytes, timing, note, run):
    """A plinth-bench/1 case from run() -> list of microseconds; an error row if it raises."""
    case = {"op": op, "variant": variant, "config": config, "width": n, "height": 1, "bytes": nbytes,
            "timing": timing, "note": note}
    try:
        stats = summarize(run())
        case.update(stats=stats, gb_per_s=nbytes / (stats["median_us"] * 1e3), gpx_per_s=n / (stats["median_us"] * 1e3))
    except Exception as e:  # one failing peer is a row, not the end of the run
        case["error"] = f"{type(e).__name__}: {e}"
    shown = f"{case['stats']['median_us']:12.1f} us" if "stats" in case else "error: " + case["error"]
    print(f"{op:9s} {variant:14s} {config:32s} {shown}", file=sys.stderr, flush=True)
    return case


def save(doc, path, final=False):
    """The document to `path`, rewritten after every case ('-': printed once, at the end)."""
    if path == "-" and final:
        print(json.dumps(doc, indent=1))
    elif path and path != "-":
        write(doc, path)


def optional(name):
    try:
        return __import__(name)
    except Exception as e:
        print(f"{name} not importable ({e}); its rows are skipped", file=sys.stderr)
        return None


def torch_lloyd(torch, x, k, iterations, seed):
    gen = torch.Generator(device=x.device).manual_seed(seed)
    c = x[torch.randperm(x.shape[0], device=x.device, generator=gen)[:k]].clone()
    for _ in range(iterations):
        scores = torch.addmm((c * c).sum(1), x, c.t(), beta=1.0, alpha=-2.0)
        labels = scores.argmin(1)
        sums = torch.zeros_like(c).index_add_(0, labels, x)
        counts = torch.bincount(labels, minlength=k).unsqueeze(1)
        c = torch.where(counts > 0, sums / counts.clamp(min=1), c)
    return c


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--ks", default="256,1024")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--json", default="", help="write the JSON here ('-' for stdout)")
    args = parser.parse_args()
    np = optional("numpy")
    faiss = optional("faiss")
    torch = optional("torch")
    sklearn_cluster = None
    if faiss is None:
        sklearn = optional("sklearn.cluster")
        sklearn_cluster = sys.modules.get("sklearn.cluster") if sklearn is not None else None
    doc = {"schema": SCHEMA, "tool": "kmeans_peers",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": " ".join(sys.argv), "device": {},
           "settings": {"warmup": args.warmup, "runs": args.runs, "iterations": args.iterations}, "cases": []}
    cases = doc["cases"]
    x = np.random.default_rng(0x6B6D).random((args.n, args.dim), dtype=np.float32) - np.float32(0.5) if np else None
    n, it = args.n, args.iterations
    nbytes = float(n) * args.dim * 4 * it  # as plinth's case: the samples read once per iteration
    for k in [int(v) for v in args.ks.split(",")]:
        config = f"{n} x {args.dim}, k={k}, {it} iterations"
        if faiss is not None and x is not None:
            gpus = faiss.get_num_gpus() if hasattr(faiss, "get_num_gpus") else 0
            for variant, gpu in (("faiss_cpu", False), ("faiss_gpu", True)):
                if gpu and gpus == 0:
                    print("faiss has no GPU here; faiss_gpu skipped", file=sys.stderr)
                    continue

                def train(i, gpu=gpu, k=k):
                    km = faiss.Kmeans(args.dim, k, niter=it, seed=1 + i, gpu=gpu, verbose=False,
                                      max_points_per_centroid=n // k + 1)
                    km.train(x)

                cases.append(timed_case("kmeans", variant, config, n, nbytes, "host_clock",
                                        f"faiss {getattr(faiss, '__version__', '?')}; start: {k} random samples; all {n} samples",
                                        lambda: host_times(train, args.warmup, args.runs)))
                save(doc, args.json)
        if sklearn_cluster is not None and x is not None:
            def fit(i, k=k):
                sklearn_cluster.KMeans(n_clusters=k, init="random", n_init=1, max_iter=it, tol=0.0, algorithm="lloyd",
                                       random_state=1 + i).fit(x)

            cases.append(timed_case("kmeans", "sklearn_cpu", config, n, nbytes, "host_clock",
                                    "scikit-learn KMeans, used because faiss is not importable; init random, n_init 1",
                                    lambda: host_times(fit, args.warmup, args.runs)))
            save(doc, args.json)
        if torch is not None and x is not None and torch.cuda.is_available():
            xt = torch.from_numpy(x).cuda()
            doc["device"] = {"name": torch.cuda.get_device_name(), "platform": f"CUDA {torch.version.cuda}"}
            cases.append(timed_case("kmeans", "torch_lloyd", config, n, nbytes, "peer_events",
                                    f"torch {torch.__version__}: addmm + argmin + index_add_ + bincount, float32",
                                    lambda: time_runs(torch, lambda s, k=k: torch_lloyd(torch, xt, k, it, s), 1,
                                                      args.warmup, args.runs)))
            save(doc, args.json)
    save(doc, args.json, final=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
