#!/usr/bin/env bash
# Runs THERE, on a GPU machine of one or more GPUs (issue 21: nvidia-h200-x2 or larger), from the
# repository root, in the second of two calls to one warm machine, exactly as ray_detect.sh (the
# first call copied .carry/ray1 to /tmp/plinth-ray-stage; this one carries .carry/ray2). Installs Ray
# and OpenCV 4 into /tmp, builds the module (python_module.sh), then runs python/bench/ray_scale.py:
# the Ray Data detection job on opencv-doc's sample images, each listed ${PLINTH_RAY_COPIES:-240}
# times, on one GPU and on every GPU of the machine in one Ray instance, alternately for
# ${PLINTH_RAY_ROUNDS:-3} rounds, with decoding only as the ceiling (PLINTH_RAY_BATCH, PLINTH_RAY_IN_FLIGHT:
# the job's batching, detect()'s defaults 128 and 4; PLINTH_RAY_DECODED=1 leaves out the rounds without
# decoding). Writes $OUT/ray_scale.log and
# $OUT/ray_scale.json.
set -u
ray_log=ray_scale.log
source scripts/device/ray_setup.sh  # Ray, OpenCV 4 and the module; root, ray2, work, OUT
python3 python/bench/ray_scale.py "$ray2/images" "$ray2/haarcascade_frontalface_alt2.xml" "$OUT/ray_scale.json" \
  --copies "${PLINTH_RAY_COPIES:-240}" --rounds "${PLINTH_RAY_ROUNDS:-3}" --batch-size "${PLINTH_RAY_BATCH:-128}" \
  --in-flight "${PLINTH_RAY_IN_FLIGHT:-4}" ${PLINTH_RAY_DECODED:+--decoded}
