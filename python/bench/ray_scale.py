"""Scale-out of the Ray detection job across the GPUs of one host (issue 21).

The job of `python -m plinth.ray detect` (plinth.ray.detect), unchanged, in one local Ray instance that
declares every GPU: plinth with one actor (one GPU) and with one actor per GPU, alternately for a few
rounds, after a warm-up that fills every actor's program cache, and decoding only (the pipeline with no
detection: the ceiling the CPUs set). The inputs are the images of a folder (videos there are left
out: one Ray task decodes a whole video, so a few long videos decide the time, not the GPUs), each
listed --copies times through symbolic links in a temporary folder, so that there is enough work.

Each round also runs both without decoding's cost (each distinct image decoded once into Ray's object
store and handed out for every copy; --decoded leaves these out), which shows what the GPUs and Ray's
plumbing alone allow. The warm-up job lists each image --warm-up-copies times only.

Prints a line per job and the scaling factors (median images/s on N GPUs over the median on one, of
the whole jobs and of their rates after the first results, which leave out the actors' start);
writes every job's figures to OUT (JSON): images/s, job seconds, decode / upload / detect seconds
summed over workers, images per GPU, and the detection actors' busy fraction (detect time over
actors x job time), which says whether the GPUs or the decoding bound the job.

On a machine without a GPU, --gpus N declares N logical GPUs and plinth runs on PoCL: that checks the
actor-per-GPU logic, not the figure.

    python ray_scale.py IMAGES CASCADE OUT.json [--gpus N] [--cpus C] [--copies K] [--rounds R]
        [--batch-size B] [--in-flight T] [--warm-up-copies W] [--decoded]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import ray

from plinth.ray.detect import decode, detect
from plinth.ray.inputs import IMAGE_EXTENSIONS


def gpu_count():
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(line.startswith("GPU ") for line in listing.splitlines())


def linked_copies(source, copies, into):
    """`copies` folders of symbolic links to the images of `source`; returns the number of images."""
    names = sorted(n for n in os.listdir(source) if os.path.splitext(n)[1].lower() in IMAGE_EXTENSIONS)
    if not names:
        raise SystemExit(f"ray_scale: no images in {source}")
    for c in range(copies):
        folder = os.path.join(into, f"copy{c:03d}")
        os.makedirs(folder)
        for n in names:
            os.symlink(os.path.abspath(os.path.join(source, n)), os.path.join(folder, n))
    return len(names) * copies


def decoded_in_store(source):
    """A decoder for detect() without decoding's cost: each image of `source` decoded once, here, into Ray's
    object store, and its rows handed out for every copy (the copies link to it). A cache inside the
    decoder would not do: Ray ships a function of this script with each task, so it would last one task."""
    names = sorted(n for n in os.listdir(source) if os.path.splitext(n)[1].lower() in IMAGE_EXTENSIONS)
    refs = {}
    for n in names:
        path = os.path.realpath(os.path.join(source, n))
        refs[path] = ray.put(decode({"path": path, "kind": "image"}))

    def from_store(unit, frame_step=1, max_frames=0):
        items = unit["items"]
        decoded = ray.get([refs[os.path.realpath(i["path"])] for i in items])
        return [dict(r, path=i["path"], decode_ms=0.0) for i, rows in zip(items, decoded) for r in rows]

    return from_store


def scaling(jobs, gpus, quiet):
    """Median images/s on N GPUs over the median on one, of the whole jobs and of their rates after the first
    results (the actors' start, a fixed cost of a few seconds, left out), with and without decoding."""
    rounds, factors = [j for j in jobs if j["job"].startswith("round")], {}
    for decoding, name in ((True, "the job"), (False, "without decoding")):
        for rate, what in (("images_per_s", ""), ("images_per_s_after_first", " after the first results")):
            one = [j[rate] for j in rounds if j["actors"] == 1 and j["decoding"] == decoding and j[rate]]
            many = [j[rate] for j in rounds if j["actors"] == gpus and j["decoding"] == decoding and j[rate]]
            if not one or not many:
                continue
            one, many = statistics.median(one), statistics.median(many)
            factors[("job" if decoding else "without_decoding") + ("_after_first" if what else "")] = many / one
            if not quiet:
                print(f"{name}{what}: 1 GPU: {one:.1f} images/s; {gpus} GPUs: {many:.1f} images/s; "
                      f"scaling {many / one:.2f} ({many / one / gpus:.2f} x N)", flush=True)
    return factors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("images", help="folder of images")
    parser.add_argument("cascade", help="cascade XML file or opencv-data name")
    parser.add_argument("out", help="JSON file for the figures")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs to declare (default: nvidia-smi's count)")
    parser.add_argument("--cpus", type=int, default=os.cpu_count(), help="CPUs to declare (default: all)")
    parser.add_argument("--copies", type=int, default=20, help="times each image is listed (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of 1 GPU and N GPUs (default 3)")
    parser.add_argument("--batch-size", type=int, default=128, help="images per actor task (detect()'s default)")
    parser.add_argument("--in-flight", type=int, default=4, help="tasks queued per actor (detect()'s default)")
    parser.add_argument("--warm-up-copies", type=int, default=2,
                        help="copies of each image in the warm-up job, which only fills the program caches")
    parser.add_argument("--decoded", action="store_true",
                        help="leave out the rounds without decoding (images decoded into the object store)")
    parser.add_argument("--scale-factor", type=float, default=1.1)
    parser.add_argument("--min-neighbors", type=int, default=3)
    args = parser.parse_args()
    if args.gpus < 0:
        raise SystemExit("ray_scale: --gpus must be 0 (count them with nvidia-smi) or more")
    gpus = args.gpus or gpu_count()
    if gpus < 1:
        raise SystemExit("ray_scale: no GPU found; --gpus N declares N logical GPUs (PoCL)")
    if min(args.copies, args.rounds, args.batch_size, args.in_flight, args.warm_up_copies) < 1:
        raise SystemExit("ray_scale: --copies, --rounds, --batch-size, --in-flight and --warm-up-copies must be "
                         "positive")

    work = tempfile.mkdtemp(prefix="plinth-ray-scale.")
    try:
        images = linked_copies(args.images, args.copies, os.path.join(work, "job"))
        linked_copies(args.images, args.warm_up_copies, os.path.join(work, "warm-up"))
        cpus = args.cpus
        ray.init(num_cpus=cpus, num_gpus=gpus, include_dashboard=False, log_to_driver=False)
        print(f"ray {ray.__version__}: {cpus} CPUs, {gpus} GPUs; {images} images "
              f"({images // args.copies} x {args.copies})", flush=True)
        # Decoding only with as many (idle) actors as GPUs: the CPUs left to decoding are those of the N-GPU job.
        # Then, each round, the job on 1 GPU and on every GPU, and the same without decoding's cost.
        plan = [("warm-up", "plinth", gpus, True), ("decode only", "decode", gpus, True)]
        for r in range(args.rounds):
            for decoding in (True,) if args.decoded else (True, False):
                plan += [(f"round {r + 1}", "plinth", n, decoding) for n in sorted({1, gpus})]
        from_store, jobs = None if args.decoded else decoded_in_store(args.images), []
        for label, engine, actors, decoding in plan:
            path = os.path.join(work, "results.jsonl")
            folder = os.path.join(work, "warm-up" if label == "warm-up" else "job")
            job = detect([folder], args.cascade, path, engine=engine, batch_size=args.batch_size,
                         in_flight=args.in_flight, actors=actors, scale_factor=args.scale_factor,
                         min_neighbors=args.min_neighbors, force=True, progress=False,
                         decoder=None if decoding else from_store)
            os.unlink(path)
            busy = job.detect_ms / 1000 / (actors * job.seconds) if engine == "plinth" else None
            first = job.first_seconds or 0.0
            row = {"job": label, "engine": engine, "actors": actors, "decoding": decoding, "images": job.images,
                   "errors": job.errors, "objects": job.objects, "seconds": job.seconds,
                   "images_per_s": job.images / job.seconds, "first_results_s": first,
                   "images_per_s_after_first": job.images / (job.seconds - first) if job.seconds > first else None,
                   "decode_s": job.decode_ms / 1000, "upload_s": job.upload_ms / 1000,
                   "detect_s": job.detect_ms / 1000, "per_gpu": {str(g): n for g, n in sorted(job.per_gpu.items())},
                   "detect_busy": busy}
            jobs.append(row)
            print(f"{label}, {engine}{'' if decoding else ' without decoding'}, {actors} actor(s): {job.summary()}"
                  + (f"; detection actors busy {busy:.0%}" if busy is not None else ""), flush=True)
            # After every job, so that a run cut short by its time limit keeps what it measured.
            with open(args.out, "w") as f:
                json.dump({"cpus": cpus, "gpus": gpus, "images": images, "batch_size": args.batch_size,
                           "in_flight": args.in_flight, "scaling": scaling(jobs, gpus, quiet=True), "jobs": jobs},
                          f, indent=1)
        scaling(jobs, gpus, quiet=False)
    finally:
        ray.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError, RuntimeError) as error:  # a missing folder, too few CPUs, ...
        sys.exit(f"ray_scale: {error}")
