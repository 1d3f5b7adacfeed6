#!/usr/bin/env bash
# Runs THERE, on the GPU machine, from the repository root, in the second of two calls to one warm
# machine (scripts/device/prepare_ray.sh made .carry/ray1 and ray2; the first call copied ray1 to
# /tmp/plinth-ray-stage; this one carries ray2). Installs Ray and OpenCV 4 into /tmp, builds
# the module (python_module.sh), then runs the same Ray Data detection job (plinth.ray.detect) over
# opencv-doc's sample images and every frame of its videos (four; three where prepare_ray.sh
# left vtest.avi out for the call's size), each video listed
# ${PLINTH_RAY_VIDEO_COPIES:-2} times, with each engine on all the machine's cores:
#   decode  decoding only (the job's ceiling), plinth (one actor on the GPU; run twice, the first
#   fills the program cache), cv2 (OpenCV 4's CPU CascadeClassifier, one actor per core but one).
# Decoding is OpenCV 4's in all three. Writes $OUT/ray_detect.log and $OUT/ray_detect.json.
set -u
ray_log=ray_detect.log
source scripts/device/ray_setup.sh  # Ray, OpenCV 4 and the module; root, ray2, work, OUT

data=$work/data
mkdir -p "$data"
cp -r "$ray2/images" "$data/images"
for copy in $(seq 1 "${PLINTH_RAY_VIDEO_COPIES:-2}"); do
  mkdir -p "$data/videos$copy" && cp "$stage"/videos/*.avi "$data/videos$copy/"
done
python3 - "$data" "$ray2/haarcascade_frontalface_alt2.xml" "$OUT/ray_detect.json" <<'EOF'
import json, os, sys, time
import cv2, ray
import plinth
from plinth.ray.detect import detect

data, cascade, out = sys.argv[1:]
print("cv2", cv2.__version__, "ray", ray.__version__, "plinth devices:", plinth.list_devices())
cpus = os.cpu_count()
ray.init(num_cpus=cpus, num_gpus=1, include_dashboard=False, log_to_driver=False)
inputs = [os.path.join(data, d) for d in sorted(os.listdir(data))]
runs = []
# The cold run first also starts Ray's workers; cv2 in batches of 4, so that its 15 actors share the
# work evenly (a batch is one actor's unit of work).
for engine, label, batch in (("plinth", "plinth (cold program cache)", 32), ("decode", "decode only", 32),
                             ("plinth", "plinth", 32), ("cv2", "cv2 CPU", 4)):
    path = os.path.join(os.path.dirname(out), f"ray_{engine}.jsonl")
    job = detect(inputs, cascade, path, engine=engine, batch_size=batch, scale_factor=1.1, min_neighbors=3,
                 force=True, progress=False)
    row = {"engine": label, "batch_size": batch, "images": job.images, "errors": job.errors, "objects": job.objects,
           "seconds": job.seconds, "images_per_s": job.images / job.seconds,
           "decode_s": job.decode_ms / 1000, "upload_s": job.upload_ms / 1000, "detect_s": job.detect_ms / 1000}
    runs.append(row)
    print(label + ":", job.summary(), flush=True)
    os.unlink(path)
with open(out, "w") as f:
    json.dump({"cpus": cpus, "runs": runs}, f, indent=1)
base = {r["engine"]: r["images_per_s"] for r in runs}
print(f"plinth / cv2 CPU: {base['plinth'] / base['cv2 CPU']:.2f}x; plinth / decode only: "
      f"{base['plinth'] / base['decode only']:.2f}")
EOF
