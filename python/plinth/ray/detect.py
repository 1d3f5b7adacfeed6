"""The detection job: decode (CPU tasks) -> detect (one actor per GPU) -> JSON lines or Parquet."""
import contextlib
import json
import os
import sys
import tempfile
import time

import numpy as np

from .inputs import expand_inputs

ENGINES = ("plinth", "cv2", "decode")  # plinth on GPUs; cv2's CPU CascadeClassifier; decoding only (rates)


def _row(path, frame, image, error="", decode_ms=0.0):
    return {"path": path, "frame": frame, "image": image, "error": error, "decode_ms": decode_ms}


def decode(item, frame_step=1, max_frames=0):
    """One image, or the frames of one video, as grey uint8 rows; a file that cannot be decoded gives one
    row with its error (and a 1x1 placeholder image), so the job goes on."""
    import cv2

    path, start, rows = item["path"], time.perf_counter(), []
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            # A FIFO would keep the decoder (and so the job) waiting for a writer for ever.
            raise ValueError("not a regular file (a directory, FIFO or device)")
        if item["kind"] == "image":
            image = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
            if image is None:
                raise ValueError("cannot decode the image (missing, unreadable or not an image)")
            rows.append(_row(path, -1, image))
        else:
            capture = cv2.VideoCapture(path)
            if not capture.isOpened():
                raise ValueError("cannot open the video")
            index = 0
            while not max_frames or len(rows) < max_frames:
                ok, frame = capture.read()
                if not ok:
                    break
                if index % frame_step == 0:
                    rows.append(_row(path, index, cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)))
                index += 1
            capture.release()
            if not rows:
                raise ValueError("the video has no frame that can be decoded")
    except Exception as error:  # noqa: BLE001  (any failure of one file is that file's result)
        return [_row(path, -1, np.zeros((1, 1), np.uint8), f"{type(error).__name__}: {error}")]
    spent = (time.perf_counter() - start) * 1000 / len(rows)
    for r in rows:
        r["decode_ms"] = spent
    return rows


def decode_unit(unit, frame_step=1, max_frames=0):
    """The rows of one Ray task's work unit (see _work_units): its items decoded in turn."""
    return [row for item in unit["items"] for row in decode(item, frame_step, max_frames)]


def _work_units(items, decode_cpus):
    """The items grouped into Ray tasks: each video alone (one task decodes all its frames), images in runs
    of up to 64, about four runs per decoding CPU. Ray Data starts a few hundred tasks a second, so a task
    per image (a few milliseconds of decoding) would bound the job by task dispatch, not by the CPUs: on
    32 CPUs that job decoded 176 images/s."""
    videos = [{"items": [i]} for i in items if i["kind"] == "video"]
    images = [i for i in items if i["kind"] != "video"]
    per_task = min(64, max(1, -(-len(images) // (4 * max(1, decode_cpus)))))
    return videos + [{"items": images[k:k + per_task]} for k in range(0, len(images), per_task)]


PIXELS_PER_CALL = 1 << 24  # source pixels per detectMultiScaleBatch call (its atlas holds 2^28 scaled pixels)


def device_calls(shapes, budget=PIXELS_PER_CALL):
    """The images of a batch split into runs [begin, end) for one detection call each: consecutive images
    of at most `budget` pixels together (an image larger than that alone). A Ray batch can then be large,
    which keeps Ray's per-task cost small, without one device call outgrowing its atlas (which fails the
    call and, before this, sent every image of the batch through a call of its own)."""
    runs, begin, pixels = [], 0, 0
    for k, shape in enumerate(shapes):
        size = int(shape[0]) * int(shape[1])
        if k > begin and pixels + size > budget:
            runs.append((begin, k))
            begin, pixels = k, 0
        pixels += size
    if begin < len(shapes):
        runs.append((begin, len(shapes)))
    return runs


class Detector:
    """A Ray Data actor: detects a batch of decoded images with one engine."""

    def __init__(self, engine, cascade, device, options):
        self.engine, self.options = engine, options
        # The GPU Ray gave this actor (it sets CUDA_VISIBLE_DEVICES to it alone, so the actor's first GPU,
        # on CUDA and on NVIDIA's OpenCL, is that one); -1 for the CPU engines.
        self.gpu = -1
        if engine == "plinth":
            import ray

            ids = ray.get_gpu_ids()
            self.gpu = int(ids[0]) if ids else -1
            import plinth

            self.queue = plinth.Queue(plinth.Context(device))
            self.cascade = plinth.CascadeClassifier(cascade)
        elif engine == "cv2":
            import cv2

            import plinth

            cv2.setNumThreads(1)  # one actor per core: OpenCV's own threads would only oversubscribe them
            self.cascade = cv2.CascadeClassifier(plinth.find_cascade(cascade))

    def _detect(self, images):
        """Rectangles per image, and the upload and detection times (ms) of the batch."""
        o = self.options
        if self.engine == "decode":
            return [np.zeros((0, 4), np.int32)] * len(images), 0.0, 0.0
        start = time.perf_counter()
        if self.engine == "cv2":
            found = [self.cascade.detectMultiScale(i, o["scale_factor"], o["min_neighbors"], minSize=o["min_size"],
                                                   maxSize=o["max_size"]) for i in images]
            return found, 0.0, (time.perf_counter() - start) * 1000
        found, upload_ms, detect_ms = [], 0.0, 0.0
        for begin, end in device_calls([np.shape(i) for i in images]):
            f, u, d = self._detect_on_device(images[begin:end])
            found, upload_ms, detect_ms = found + f, upload_ms + u, detect_ms + d
        return found, upload_ms, detect_ms

    def _detect_on_device(self, images):
        """One detectMultiScaleBatch call, halved (and so on) where its scaled images overflow one call's
        atlas, which a scale factor near 1 can make happen within the pixel budget."""
        start = time.perf_counter()
        device = [self.queue.upload(np.ascontiguousarray(i)) for i in images]
        upload_ms = (time.perf_counter() - start) * 1000
        found, detect_ms = self._detect_uploaded(device)
        return found, upload_ms, detect_ms

    def _detect_uploaded(self, device):
        import plinth

        o, start = self.options, time.perf_counter()
        try:
            found = self.cascade.detectMultiScaleBatch(device, o["scale_factor"], o["min_neighbors"], o["min_size"],
                                                       o["max_size"], queue=self.queue)
            return list(found), (time.perf_counter() - start) * 1000
        except plinth.RangeError:
            if len(device) == 1:
                raise
        half = len(device) // 2
        found = self._detect_uploaded(device[:half])[0] + self._detect_uploaded(device[half:])[0]
        return found, (time.perf_counter() - start) * 1000  # the failed call's time included

    def __call__(self, batch):
        n = len(batch["path"])
        errors = [str(e) for e in batch["error"]]
        objects, upload_ms, detect_ms = [""] * n, np.zeros(n), np.zeros(n)
        good = [i for i in range(n) if not errors[i]]
        images = [batch["image"][i] for i in good]
        try:
            found, up, det = self._detect(images)
            results = list(zip(good, found))
        except Exception:  # noqa: BLE001  one bad image must not lose the batch: image by image
            results, up, det = [], 0.0, 0.0
            for i in good:
                try:
                    f, u, d = self._detect([batch["image"][i]])
                    results.append((i, f[0]))
                    up, det = up + u, det + d
                except Exception as error:  # noqa: BLE001
                    errors[i] = f"{type(error).__name__}: {error}"
        for i, rects in results:
            objects[i] = json.dumps(np.asarray(rects).reshape(-1, 4).tolist())
        if good:
            upload_ms[good], detect_ms[good] = up / len(good), det / len(good)
        shapes = [np.shape(batch["image"][i]) for i in range(n)]
        return {
            "path": batch["path"], "frame": batch["frame"],
            "width": np.array([s[1] if not errors[i] else 0 for i, s in enumerate(shapes)], np.int32),
            "height": np.array([s[0] if not errors[i] else 0 for i, s in enumerate(shapes)], np.int32),
            "objects": np.array(objects, dtype=object), "error": np.array(errors, dtype=object),
            "decode_ms": batch["decode_ms"], "upload_ms": upload_ms, "detect_ms": detect_ms,
            "gpu": np.full(n, self.gpu, np.int32),
        }


def _result(row):
    error = str(row["error"]) or None
    return {
        "path": str(row["path"]),
        "frame": None if int(row["frame"]) < 0 else int(row["frame"]),
        "width": int(row["width"]), "height": int(row["height"]),
        "objects": json.loads(row["objects"]) if not error else [],
        "error": error,
    }


class DetectJob:
    """Totals of a finished job: counts and where the time went."""

    def __init__(self):
        self.images = self.errors = self.objects = 0
        self.decode_ms = self.upload_ms = self.detect_ms = 0.0
        self.seconds = 0.0
        self.first_seconds = None  # from the start to the first results (the actors' start, the first decodes)
        self.per_gpu = {}  # GPU id (Ray's) -> images it detected, for the plinth engine

    def add(self, row, result):
        self.images += result["error"] is None
        self.errors += result["error"] is not None
        gpu = int(row["gpu"])
        if gpu >= 0 and result["error"] is None:
            self.per_gpu[gpu] = self.per_gpu.get(gpu, 0) + 1
        self.objects += len(result["objects"])
        self.decode_ms += float(row["decode_ms"])
        self.upload_ms += float(row["upload_ms"])
        self.detect_ms += float(row["detect_ms"])

    def summary(self):
        rate = self.images / self.seconds if self.seconds > 0 else 0.0
        text = (f"{self.images} images, {self.errors} errors, {self.objects} objects in {self.seconds:.1f} s: "
                f"{rate:.1f} images/s; summed over workers: decode {self.decode_ms / 1000:.1f} s, "
                f"upload {self.upload_ms / 1000:.1f} s, detect {self.detect_ms / 1000:.1f} s")
        if self.first_seconds is not None:
            text += f"; first results after {self.first_seconds:.1f} s"
        if len(self.per_gpu) > 1:
            text += "; images per GPU: " + ", ".join(f"{g}: {n}" for g, n in sorted(self.per_gpu.items()))
        return text


def _output_format(out):
    ext = os.path.splitext(out)[1].lower()
    if ext in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if ext == ".parquet":
        return "parquet"
    raise ValueError(f"plinth.ray: --out must end in .jsonl or .parquet: {out}")


def detect(inputs, cascade, out, *, engine="plinth", batch_size=128, in_flight=4, actors=None, device="",
           scale_factor=1.1, min_neighbors=3, min_size=(0, 0), max_size=(0, 0), frame_step=1, max_frames=0, force=False,
           progress=True, address=None, init_kwargs=None, decoder=None):
    """Runs the job and writes one result per image or video frame to `out` (.jsonl or .parquet; written
    to a temporary file beside it and renamed when complete). Results come in completion order. Returns
    a DetectJob with the totals. Ray is initialised (address, init_kwargs) unless it already is. `decoder`
    maps a work unit ({"items": [{"path", "kind"}, ...]}) to rows; decode_unit when None (benchmarks replace it).
    `batch_size` images go to an actor per Ray task (detected in calls of at most 16 Mpx), `in_flight` tasks
    are queued per actor (Ray's own default is 2): 128 and 4 scaled best on two H200s (docs/PERFORMANCE.md)."""
    import ray

    if engine not in ENGINES:
        raise ValueError(f"plinth.ray: engine must be one of {', '.join(ENGINES)}: {engine}")
    if batch_size < 1 or in_flight < 1 or frame_step < 1:
        raise ValueError("plinth.ray: batch_size, in_flight and frame_step must be positive")
    fmt = _output_format(out)
    if os.path.exists(out) and not force:
        raise FileExistsError(f"plinth.ray: {out} exists (pass force=True / --force to replace it)")
    items = expand_inputs(inputs)
    if not items:
        raise FileNotFoundError("plinth.ray: the inputs hold no image or video file")
    if engine == "plinth":
        import plinth

        plinth.find_cascade(cascade)  # a missing cascade fails here, once, not in every actor
    if not ray.is_initialized():
        ray.init(address=address, **(init_kwargs or {}))
    if actors is None:
        resources = ray.cluster_resources()
        actors = int(resources.get("GPU", 0)) if engine == "plinth" else max(1, int(resources.get("CPU", 1)) - 1)
    if actors < 1:
        raise RuntimeError("plinth.ray: the Ray cluster has no GPU (on a machine without one, ray.init(num_gpus=1) "
                           "or --local-gpus 1 makes a logical GPU for PoCL)")
    # Each detection actor holds a CPU while it lives; decoding needs at least one more, or the job waits
    # for ever.
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if actors >= cpus:
        raise RuntimeError(f"plinth.ray: {actors} detection actor(s) would hold all {cpus} of the Ray cluster's "
                           "CPUs and leave none for decoding: give Ray more CPUs (num_cpus, --local-cpus) or use "
                           "fewer actors")
    options = {"scale_factor": scale_factor, "min_neighbors": min_neighbors, "min_size": tuple(min_size),
               "max_size": tuple(max_size)}
    with _job_settings(ray, progress):
        job, start = DetectJob(), time.perf_counter()
        units = _work_units(items, cpus - actors)
        dataset = ray.data.from_items(units, override_num_blocks=len(units))
        dataset = dataset.flat_map(decoder or decode_unit,
                                   fn_kwargs={"frame_step": frame_step, "max_frames": max_frames})
        dataset = dataset.map_batches(
            Detector,
            fn_constructor_kwargs={"engine": engine, "cascade": cascade, "device": device, "options": options},
            batch_size=batch_size, batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=actors, max_tasks_in_flight_per_actor=in_flight),
            num_gpus=1 if engine == "plinth" else 0)

        directory = os.path.dirname(os.path.abspath(out))
        fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(out)}.", suffix=".tmp", dir=directory)
        try:
            rows, last_report = [], time.monotonic()
            with os.fdopen(fd, "w") as stream:
                for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
                    if job.first_seconds is None:
                        job.first_seconds = time.perf_counter() - start
                    for i in range(len(batch["path"])):
                        row = {k: v[i] for k, v in batch.items()}
                        result = _result(row)
                        job.add(row, result)
                        if fmt == "jsonl":
                            stream.write(json.dumps(result) + "\n")
                        else:
                            rows.append(result)
                        if result["error"]:
                            print(f"plinth.ray: {result['path']}: {result['error']}", file=sys.stderr)
                    if progress and time.monotonic() - last_report > 5:
                        print(f"plinth.ray: {job.images + job.errors} results so far", file=sys.stderr)
                        last_report = time.monotonic()
            if fmt == "parquet":
                import pyarrow as pa
                import pyarrow.parquet as pq

                pq.write_table(pa.Table.from_pylist(rows), temp)
            os.replace(temp, out)
        except BaseException:
            if os.path.exists(temp):
                os.unlink(temp)
            raise
        job.seconds = time.perf_counter() - start
        return job


@contextlib.contextmanager
def _job_settings(ray, progress):
    """Ray Data's settings for one job, restored afterwards: progress bars as asked, and the pool starts
    every actor (one per GPU) before the first batch, so that the first batches are spread over all the
    GPUs rather than queued on the first actor that happens to be ready. Older Rays lack
    wait_for_min_actors_s and start the actors as they come."""
    context = ray.data.DataContext.get_current()
    saved = {name: getattr(context, name) for name in ("enable_progress_bars", "wait_for_min_actors_s")
             if hasattr(context, name)}
    context.enable_progress_bars = progress
    if saved.get("wait_for_min_actors_s", 1) <= 0:
        context.wait_for_min_actors_s = 600
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(context, name, value)
