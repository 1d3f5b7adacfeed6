"""python -m plinth.ray detect INPUTS... --cascade NAME --out results.jsonl"""
import argparse
import sys

from .detect import ENGINES, detect


def size(text):
    try:
        width, height = (int(v) for v in text.lower().split("x"))
        return width, height
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}") from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m plinth.ray", description="plinth jobs on Ray Data")
    commands = parser.add_subparsers(dest="command", required=True)
    d = commands.add_parser("detect", help="cascade detection over images and videos")
    d.add_argument("inputs", nargs="+", help="files, directories (searched recursively) or glob patterns")
    d.add_argument("--cascade", required=True, help="cascade XML file or opencv-data name (frontalface_alt2, ...)")
    d.add_argument("--out", required=True, help="results: .jsonl (one JSON object per image or frame) or .parquet")
    d.add_argument("--force", action="store_true", help="replace --out if it exists")
    d.add_argument("--engine", choices=ENGINES, default="plinth",
                   help="plinth on GPUs (default); cv2's CPU CascadeClassifier; decode only (for rates)")
    d.add_argument("--batch-size", type=int, default=128,
                   help="images per actor task, detected in calls of at most 16 Mpx (default 128)")
    d.add_argument("--in-flight", type=int, default=4, help="tasks queued per detection actor (default 4)")
    d.add_argument("--actors", type=int, help="detection actors (default: the cluster's GPUs; CPUs - 1 for cv2)")
    d.add_argument("--device", default="", help="plinth device selector in each actor (default: the first GPU)")
    d.add_argument("--scale-factor", type=float, default=1.1)
    d.add_argument("--min-neighbors", type=int, default=3)
    d.add_argument("--min-size", type=size, default=(0, 0), metavar="WxH")
    d.add_argument("--max-size", type=size, default=(0, 0), metavar="WxH")
    d.add_argument("--frame-step", type=int, default=1, help="every Nth video frame (default 1)")
    d.add_argument("--max-frames", type=int, default=0, help="at most N frames per video (0: all)")
    d.add_argument("--address", help="Ray cluster address (default: a local Ray, or RAY_ADDRESS)")
    d.add_argument("--local-gpus", type=int, help="local Ray only: logical GPUs to declare (1 for PoCL on a CPU)")
    d.add_argument("--local-cpus", type=int, help="local Ray only: CPUs to use")
    d.add_argument("--no-progress", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)

    init = {}
    if args.local_gpus is not None:
        init["num_gpus"] = args.local_gpus
    if args.local_cpus is not None:
        init["num_cpus"] = args.local_cpus
    try:
        job = detect(args.inputs, args.cascade, args.out, engine=args.engine, batch_size=args.batch_size,
                     in_flight=args.in_flight, actors=args.actors, device=args.device,
                     scale_factor=args.scale_factor, min_neighbors=args.min_neighbors, min_size=args.min_size,
                     max_size=args.max_size,
                     frame_step=args.frame_step, max_frames=args.max_frames, force=args.force,
                     progress=not args.no_progress, address=args.address, init_kwargs=init)
    except (OSError, ValueError, RuntimeError) as error:  # plinth.Error is one of these too
        print(f"plinth.ray: {error}" if not str(error).startswith("plinth.ray") else str(error), file=sys.stderr)
        return 1
    print(f"plinth.ray: {job.summary()}; results in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
