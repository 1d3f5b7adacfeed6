#!/usr/bin/env python3
"""PyTorch on CUDA and OpenCV's CPU BFMatcher as the benchmark peers of `plinth bench bf_match`.

The same work as bench/bf_match_bench.cpp: the 2 nearest train descriptors of 5,000 queries
against 5,000 and 50,000 train descriptors, L2 on 64-d float32 (uniform in [0, 1)) and Hamming on
32-byte descriptors, config names as plinth's:

- torch: L2 as torch.cdist + topk(2, largest=False); Hamming as cdist(p=0) of the descriptors'
  bits unpacked to floats (the unpacking is setup, not timed). CUDA events around one run.
- opencv_cpu: cv2.BFMatcher(NORM_L2 or NORM_HAMMING).knnMatch(k=2), host clock.

    python3 bench/peers/bf_match_peer.py --json bf_match_peers.json

What is not importable is skipped with a line on stderr; the exit status is 0.
"""

import argparse
import datetime
import sys

from faiss_kmeans_peer import host_times, optional, save, timed_case  # the same folder
from opencv_ocl_peer import SCHEMA
from torch_sort_peer import time_runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=5000)
    parser.add_argument("--trains", default="5000,50000")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--sets", type=int, default=4, help="input sets rotated between runs")
    parser.add_argument("--json", default="", help="write the JSON here ('-' for stdout)")
    args = parser.parse_args()
    np, cv2, torch = optional("numpy"), optional("cv2"), optional("torch")
    if torch is not None and not torch.cuda.is_available():
        print("torch sees no CUDA device; its rows are skipped", file=sys.stderr)
        torch = None
    doc = {"schema": SCHEMA, "tool": "bf_match_peers",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": " ".join(sys.argv), "device": {},
           "settings": {"warmup": args.warmup, "runs": args.runs, "input_sets": args.sets}, "cases": []}
    if torch is not None:
        doc["device"] = {"name": torch.cuda.get_device_name(), "platform": f"CUDA {torch.version.cuda}"}
    rng = np.random.default_rng(0xBF) if np else None
    q_n, sets = args.queries, args.sets
    for binary in (False, True):
        dim = 32 if binary else 64
        for t_n in [int(v) for v in args.trains.split(",")]:
            if rng is None:
                break
            if binary:
                query = [rng.integers(0, 256, (q_n, dim), dtype=np.uint8) for _ in range(sets)]
                train = [rng.integers(0, 256, (t_n, dim), dtype=np.uint8) for _ in range(sets)]
            else:
                query = [rng.random((q_n, dim), dtype=np.float32) for _ in range(sets)]
                train = [rng.random((t_n, dim), dtype=np.float32) for _ in range(sets)]
            config = f"{q_n} x {'32 B' if binary else '64 f32'} vs {t_n}, k=2"
            nbytes = float(q_n + t_n) * dim * (1 if binary else 4) + 16.0 * q_n
            variant_norm = "hamming" if binary else "l2"
            if torch is not None:
                def device(a):
                    x = torch.from_numpy(np.unpackbits(a, axis=1) if binary else a).cuda()
                    return x.float()

                qd, td = [device(a) for a in query], [device(a) for a in train]
                p = 0.0 if binary else 2.0

                def run(s):
                    return torch.cdist(qd[s], td[s], p=p).topk(2, dim=1, largest=False)

                note = f"torch {torch.__version__}: cdist(p={p:g}) + topk" + (" on unpacked bits" if binary else "")
                doc["cases"].append(timed_case("bf_match", f"torch_{variant_norm}", config, q_n, nbytes, "peer_events", note,
                                               lambda: time_runs(torch, run, sets, args.warmup, args.runs)))
                save(doc, args.json)
            if cv2 is not None:
                matcher = cv2.BFMatcher(cv2.NORM_HAMMING if binary else cv2.NORM_L2)

                def knn(i):
                    matcher.knnMatch(query[i % sets], train[i % sets], k=2)

                doc["cases"].append(timed_case("bf_match", f"opencv_cpu_{variant_norm}", config, q_n, nbytes, "host_clock",
                                               f"OpenCV {cv2.__version__} BFMatcher.knnMatch, CPU",
                                               lambda: host_times(knn, args.warmup, args.runs)))
                save(doc, args.json)
    save(doc, args.json, final=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
