"""Face detection over a folder of photos and videos with Ray Data: decode on CPU workers, detect in one
plinth actor per GPU, results as JSON lines. The same as `python -m plinth.ray detect`.

    python examples/ray_detect.py INPUT... [--out faces.jsonl]

On a machine without a GPU (PoCL) it declares one logical GPU for the local Ray.
"""
import argparse
import json

import ray

import plinth.ray

parser = argparse.ArgumentParser()
parser.add_argument("inputs", nargs="+", help="files, directories or glob patterns")
parser.add_argument("--out", default="faces.jsonl")
args = parser.parse_args()

has_gpu = any(d["type"] == "gpu" for d in plinth.list_devices())
ray.init(num_gpus=None if has_gpu else 1)  # a logical GPU for PoCL on a CPU-only machine
job = plinth.ray.detect(args.inputs, "frontalface_alt2", args.out, batch_size=16, force=True)
print(job.summary())
with open(args.out) as results:
    for line in results:
        row = json.loads(line)
        where = row["path"] if row["frame"] is None else f"{row['path']}#{row['frame']}"
        print(where, row["error"] or row["objects"])
