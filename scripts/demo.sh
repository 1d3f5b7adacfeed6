#!/usr/bin/env bash
# The main job on the bundled photo: set up and build, detect faces (frontal-face cascade) and
# draw them, compute its integral images, and print a short benchmark table, on the default
# device (the first GPU, else the CPU through PoCL). Results go to out/demo/, re-created each run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
plinth=build/tools/plinth/plinth
rm -rf out/demo && mkdir -p out/demo
"$plinth" devices | tee out/demo/devices.txt
"$plinth" detect data/astronaut.png --draw out/demo/astronaut_faces.png
"$plinth" integral data/astronaut.png --sq --tilted -o out/demo/astronaut_integral.npy
# A short benchmark: full HD on a GPU; a smaller image on a CPU device, where it takes ~30 s.
if grep -q '^\* .*' out/demo/devices.txt && grep -A1 '^\* ' out/demo/devices.txt | grep -q ' gpu,'; then
  "$plinth" bench integral --size 1920x1080 --runs 20 --warmup 3
else
  "$plinth" bench integral --size 640x480 --runs 10 --warmup 2
fi
