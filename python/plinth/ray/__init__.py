"""Scale-out on Ray: detection over photos and videos as a Ray Data job.

Decoding runs in CPU tasks (cv2), detection in one actor per GPU (``num_gpus=1``; each actor opens
its own plinth context and queue and detects a batch of images in one device pass), results stream
back to the driver, which writes JSON lines or Parquet. A file that cannot be read gives a result
row carrying its error; the job goes on. The same job runs on a local Ray (``ray.init()``), a
multi-GPU host and a cluster (``address``). Command line: ``python -m plinth.ray detect --help``.
"""

from .detect import DetectJob, detect, expand_inputs  # noqa: F401
