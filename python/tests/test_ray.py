"""plinth.ray on a local Ray with one logical GPU (PoCL): a few small images, a broken file and a short
video; results equal cv2's CascadeClassifier on the same decoded pixels; the broken file is reported
and the rest go on."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import PHOTO, cv2

pytestmark = pytest.mark.ray
ray = pytest.importorskip("ray")

CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    photo = cv2.imread(str(PHOTO))
    cv2.imwrite(str(root / "a.png"), cv2.resize(photo, (200, 200)))
    (root / "nested").mkdir()
    cv2.imwrite(str(root / "nested" / "b.jpg"), cv2.resize(photo, (160, 120)))
    (root / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot an image")
    video = cv2.VideoWriter(str(root / "clip.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 5, (128, 128))
    for i in range(3):
        video.write(cv2.resize(np.roll(photo, 12 * i, axis=1), (128, 128)))
    video.release()
    return root


def reference(path, frame):
    detector = cv2.CascadeClassifier(CASCADE)
    if frame is None:
        gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    else:
        capture = cv2.VideoCapture(path)
        for _ in range(frame + 1):
            ok, image = capture.read()
            assert ok
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return sorted(np.asarray(detector.detectMultiScale(gray)).reshape(-1, 4).tolist())


def check(results, root):
    by_key = {(r["path"], r["frame"]): r for r in results}
    assert sorted(by_key) == sorted([(str(root / "a.png"), None), (str(root / "nested" / "b.jpg"), None),
                                     (str(root / "broken.png"), None)] + [(str(root / "clip.avi"), i) for i in range(3)])
    broken = by_key[(str(root / "broken.png"), None)]
    assert broken["error"] and broken["objects"] == []
    found = 0
    for (path, frame), r in by_key.items():
        if path.endswith("broken.png"):
            continue
        assert r["error"] is None
        assert sorted(r["objects"]) == reference(path, frame), (path, frame)
        found += len(r["objects"])
    assert found > 0


def test_command_writes_json_lines(inputs, tmp_path):
    out = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "plinth.ray", "detect", str(inputs), "--cascade", "frontalface_alt2",
               "--out", str(out), "--local-gpus", "1", "--local-cpus", "2", "--batch-size", "2", "--no-progress"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})
    assert run.returncode == 0, run.stderr[-3000:]
    assert "broken.png" in run.stderr and "5 images, 1 errors" in run.stderr
    check([json.loads(line) for line in out.read_text().splitlines()], inputs)
    again = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "exists" in again.stderr  # refused before Ray starts; the results stay
    assert len(out.read_text().splitlines()) == 6


def test_job_api_writes_parquet(inputs, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import plinth.ray

    out = tmp_path / "results.parquet"
    try:
        job = plinth.ray.detect([str(inputs / "*.png"), str(inputs / "nested" / "b.jpg"), str(inputs / "clip.avi")],
                                "frontalface_alt2", str(out), batch_size=4, progress=False,
                                init_kwargs={"num_gpus": 1, "num_cpus": 2, "include_dashboard": False})
    finally:
        ray.shutdown()
    assert (job.images, job.errors) == (5, 1)
    rows = pq.read_table(str(out)).to_pylist()
    check(rows, inputs)


def test_bad_job_arguments_fail_before_ray_starts(tmp_path):
    import plinth.ray

    with pytest.raises(FileNotFoundError):
        plinth.ray.detect([str(tmp_path / "missing" / "*.png")], "frontalface_alt2", str(tmp_path / "r.jsonl"))
    with pytest.raises(ValueError):
        plinth.ray.detect([str(PHOTO)], "frontalface_alt2", str(tmp_path / "r.csv"))
    with pytest.raises(OSError):
        plinth.ray.detect([str(PHOTO)], "no_such_cascade", str(tmp_path / "r.jsonl"))
    for bad in ({"batch_size": 0}, {"in_flight": 0}, {"frame_step": 0}):
        with pytest.raises(ValueError):
            plinth.ray.detect([str(PHOTO)], "frontalface_alt2", str(tmp_path / "r.jsonl"), **bad)
    assert not ray.is_initialized()


def test_two_logical_gpus_get_an_actor_each(tmp_path):
    # The actor-per-GPU logic of a multi-GPU host, on PoCL: two logical GPUs, so two actors, each with
    # the one GPU Ray gave it (CUDA_VISIBLE_DEVICES), both started before the first batch; twelve images
    # in batches of one keep both busy (6 decoding CPUs: a decoding task per image, as the job groups
    # them; with 2, two images a task, one actor once took every batch). Every result is that of one actor.
    import plinth.ray

    photo = cv2.resize(cv2.imread(str(PHOTO)), (200, 200))
    folder = tmp_path / "images"
    folder.mkdir()
    for i in range(12):
        cv2.imwrite(str(folder / f"{i:02d}.png"), photo)
    out = tmp_path / "results.jsonl"
    context = ray.data.DataContext.get_current()
    before = context.wait_for_min_actors_s, context.enable_progress_bars
    try:
        job = plinth.ray.detect([str(folder)], "frontalface_alt2", str(out), batch_size=1, progress=False,
                                init_kwargs={"num_gpus": 2, "num_cpus": 8, "include_dashboard": False})
    finally:
        ray.shutdown()
    assert (context.wait_for_min_actors_s, context.enable_progress_bars) == before  # the job's settings undone
    assert (job.images, job.errors) == (12, 0)
    assert sorted(job.per_gpu) == [0, 1], job.per_gpu
    assert "images per GPU: 0: " in job.summary()
    expected = reference(str(folder / "00.png"), None)
    assert expected
    for line in out.read_text().splitlines():
        assert sorted(json.loads(line)["objects"]) == expected


def test_actors_that_would_hold_every_cpu_are_refused(tmp_path):
    # Two GPU actors on a two-CPU cluster would leave no CPU for decoding: the job would wait for ever.
    import plinth.ray

    try:
        with pytest.raises(RuntimeError, match="leave none for decoding"):
            plinth.ray.detect([str(PHOTO)], "frontalface_alt2", str(tmp_path / "r.jsonl"), progress=False,
                              init_kwargs={"num_gpus": 2, "num_cpus": 2, "include_dashboard": False})
    finally:
        ray.shutdown()
    assert not (tmp_path / "r.jsonl").exists()


def test_a_fifo_among_the_inputs_is_that_file_s_error(tmp_path):
    # cv2.imread on a FIFO without a writer waited for ever, and the job with it.
    from plinth.ray.detect import decode

    os.mkfifo(tmp_path / "fifo.png")
    for kind in ("image", "video"):
        (row,) = decode({"path": str(tmp_path / "fifo.png"), "kind": kind})
        assert "not a regular file" in row["error"] and row["frame"] == -1


def test_device_calls_split_a_batch_by_pixels():
    from plinth.ray.detect import device_calls

    assert device_calls([]) == []
    assert device_calls([(10, 10)] * 5, budget=250) == [(0, 2), (2, 4), (4, 5)]
    # An image over the budget gets a call of its own; the runs cover every image once, in order.
    assert device_calls([(10, 10), (100, 100), (5, 5), (5, 5)], budget=1000) == [(0, 1), (1, 2), (2, 4)]
    assert device_calls([(480, 640)] * 100) == [(0, 54), (54, 100)]


def test_work_units_group_images_and_keep_videos_alone():
    from plinth.ray.detect import _work_units

    items = [{"path": f"{i}.png", "kind": "image"} for i in range(10)] + [{"path": "v.avi", "kind": "video"}]
    units = _work_units(items, decode_cpus=1)  # four units a CPU: images in runs of 3
    assert units[0] == {"items": [items[10]]}
    assert [len(u["items"]) for u in units[1:]] == [3, 3, 3, 1]
    assert [i for u in units[1:] for i in u["items"]] == items[:10]
    assert max(len(u["items"]) for u in _work_units(items[:1] * 10000, decode_cpus=2)) == 64


def test_a_detection_call_that_overflows_its_atlas_is_halved():
    # Within the pixel budget, a scale factor near 1 can still overflow one call's atlas (RangeError):
    # the actor halves the call until each part fits, and keeps the images' order.
    import plinth
    from plinth.ray.detect import Detector

    class Cascade:
        calls, limit = [], 2

        def detectMultiScaleBatch(self, images, *args, queue=None):
            Cascade.calls.append(len(images))
            if len(images) > Cascade.limit:
                raise plinth.RangeError("the scaled images need a larger atlas")
            return [np.full((1, 4), i.width, np.int32) for i in images]

    detector = Detector.__new__(Detector)
    detector.engine, detector.options, detector.gpu = "plinth", {"scale_factor": 1.01, "min_neighbors": 3,
                                                                 "min_size": (0, 0), "max_size": (0, 0)}, -1
    detector.queue, detector.cascade = plinth.Queue(plinth.Context("")), Cascade()
    images = [np.zeros((2, k + 1), np.uint8) for k in range(5)]  # told apart by their widths
    found, _, _ = detector._detect(images)
    assert [int(f[0, 0]) for f in found] == [1, 2, 3, 4, 5]
    assert Cascade.calls == [5, 2, 3, 1, 2]
    Cascade.limit = 0  # a single image that does not fit: its error (the batch then goes image by image)
    with pytest.raises(plinth.RangeError):
        detector._detect(images[:1])
