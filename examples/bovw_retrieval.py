"""Visual-word retrieval from pixels to histograms with plinth, on offline data: frames of the three
videos Debian's opencv-doc ships (vtest.avi, Megamind.avi, tree.avi) are three classes. SURF
descriptors (plinth.SURF_create), a k-means vocabulary of the training frames' descriptors
(plinth.kmeans), one bag-of-words histogram per frame (plinth.bow_assign), then each test frame
retrieves the training frames by Hellinger distance between histograms: top-1 accuracy and mean
average precision (a training frame is relevant when it comes from the query's video).

The split is temporal: of the frames sampled evenly from each video, the first half trains (the
vocabulary and the retrieval database), the second half queries, so no query has a near-copy
neighbour in the database. Frames are decoded by cv2 and converted and resized by plinth on the device.

    python examples/bovw_retrieval.py [--frames 40] [--k 64] [--width 320] [--videos DIR]
"""
import argparse
import pathlib
import sys
import time

import numpy as np

import plinth

VIDEOS = ("vtest.avi", "Megamind.avi", "tree.avi")
DEFAULT_DIR = "/usr/share/doc/opencv-doc/examples/data"


def sample_frames(path, count, cv2):
    """`count` frames evenly spaced over the video (BGR uint8), the video's frame count and the step
    between them. Frames are counted by decoding (tree.avi's header says 444, 68 decode)."""
    capture = cv2.VideoCapture(str(path))
    total = 0
    while capture.isOpened() and capture.grab():
        total += 1
    if total < 2:
        sys.exit(f"Error: {path}: fewer than 2 frames decode")
    step = max(1, total // count)
    capture = cv2.VideoCapture(str(path))
    frames = []
    for index in range(total):
        if len(frames) == count or not capture.grab():
            break
        if index % step == 0:
            ok, frame = capture.retrieve()
            if ok:
                frames.append(frame)
    return frames, total, step


def describe(frames, width, surf, queue):
    """The SURF descriptors of each frame, grey and resized to `width` on the device."""
    out = []
    for bgr in frames:
        height = round(bgr.shape[0] * width / bgr.shape[1])
        gray = plinth.cvtColor(queue.upload(bgr), plinth.COLOR_BGR2GRAY, queue=queue)
        small = plinth.resize(gray, (width, height), queue=queue)
        _, descriptors = surf.detectAndCompute(small, queue=queue)
        out.append(descriptors)
    return out


def average_precision(relevant_in_rank_order):
    hits = np.cumsum(relevant_in_rank_order)
    ranks = np.arange(1, len(relevant_in_rank_order) + 1)
    total = hits[-1]
    return float((relevant_in_rank_order * hits / ranks).sum() / total) if total else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=40, help="frames sampled per video (half train, half query)")
    parser.add_argument("--k", type=int, default=64, help="vocabulary size")
    parser.add_argument("--width", type=int, default=320, help="frames are resized to this width before SURF")
    parser.add_argument("--hessian", type=float, default=400.0, help="SURF hessianThreshold")
    parser.add_argument("--seed", type=int, default=0, help="k-means seed")
    parser.add_argument("--videos", default=DEFAULT_DIR, help="folder of vtest.avi, Megamind.avi, tree.avi")
    args = parser.parse_args()
    if args.frames < 4:
        sys.exit("Error: --frames: at least 4 per video (2 train, 2 query)")
    try:
        import cv2
    except ImportError:
        sys.exit("Error: cv2 (python3-opencv) decodes the videos; install it")

    started = time.perf_counter()
    queue = plinth.default_queue()
    surf = plinth.SURF_create(hessianThreshold=args.hessian)
    print("device:", queue.context.device["name"])

    descriptors, classes, is_query, sampled = [], [], [], []
    for label, name in enumerate(VIDEOS):
        path = pathlib.Path(args.videos) / name
        if not path.is_file():
            sys.exit(f"Error: {path} not found (Debian's opencv-doc package ships it)")
        frames, total, step = sample_frames(path, args.frames, cv2)
        sampled.append(f"{name} {len(frames)} of {total} (step {step})")
        descriptors += describe(frames, args.width, surf, queue)
        classes += [label] * len(frames)
        half = len(frames) // 2
        is_query += [False] * half + [True] * (len(frames) - half)
    classes, is_query = np.array(classes), np.array(is_query)
    counts = np.array([len(d) for d in descriptors])
    print(f"frames: {', '.join(sampled)}, {args.width} px wide; first half of each video trains, second half queries")
    print(f"SURF (hessianThreshold {args.hessian:g}): {counts.sum()} descriptors, {counts.min()} to {counts.max()} per frame"
          f" ({np.sum(counts == 0)} frames without keypoints)")

    train_descriptors = np.concatenate([d for d, q in zip(descriptors, is_query) if not q])
    if len(train_descriptors) < args.k:
        sys.exit(f"Error: --k {args.k}: only {len(train_descriptors)} training descriptors")
    criteria = (plinth.TERM_CRITERIA_EPS + plinth.TERM_CRITERIA_MAX_ITER, 30, 1e-4)
    compactness, _, vocabulary = plinth.kmeans(train_descriptors, args.k, None, criteria, 1, plinth.KMEANS_PP_CENTERS,
                                               seed=args.seed)
    print(f"vocabulary: k-means++ K={args.k} of {len(train_descriptors)} training descriptors, compactness {compactness:.1f}")

    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    histograms, _ = plinth.bow_assign(np.concatenate(descriptors), vocabulary, starts)
    # A frame without keypoints has an empty histogram: it retrieves nothing (counted as a miss).
    features = np.zeros((len(histograms), args.k), np.float32)
    for i, h in enumerate(histograms):
        if len(h):
            features[i] = np.sqrt(h)  # Hellinger distance = Euclidean distance of the square roots
    train, query = np.flatnonzero(~is_query), np.flatnonzero(is_query)
    distances = np.linalg.norm(features[query][:, None, :] - features[train][None, :, :], axis=2)
    order = np.argsort(distances, axis=1, kind="stable")
    retrieved = classes[train][order]  # classes of the training frames, nearest first
    top1 = retrieved[:, 0] == classes[query]
    ap = [average_precision((row == c).astype(np.float64)) for row, c in zip(retrieved, classes[query])]

    print(f"retrieval: {len(query)} query frames against {len(train)} training frames, Hellinger distance of histograms")
    chance = np.mean([np.mean(classes[train] == c) for c in classes[query]])
    print(f"top-1 accuracy {top1.mean():.3f}, mean average precision {np.mean(ap):.3f} (random ranking: top-1 {chance:.3f})")
    width = max(len(v) for v in VIDEOS)
    print("confusion (rows: the query's video, columns: its nearest training frame's):")
    print(" " * (width + 2) + "  ".join(f"{v:>{width}}" for v in VIDEOS))
    for c, name in enumerate(VIDEOS):
        row = [int(np.sum(retrieved[classes[query] == c, 0] == o)) for o in range(len(VIDEOS))]
        print(f"{name:>{width}}  " + "  ".join(f"{n:>{width}}" for n in row))
    print(f"ran in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
