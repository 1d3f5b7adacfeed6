#!/usr/bin/env bash
# The main job on the bundled photo: set up and build, detect faces (frontal-face cascade) and
# draw them, compute its integral images, and print a short benchmark table, on the default
# device (the first GPU, else the CPU through PoCL). Results go to out/demo/, re-created each run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
plinth=build/tools/plinth/plinth
rm -rf out/demo && mkdir -p out/demo
"$plinth" devices
"$plinth" detect data/astronaut.png --draw out/demo/astronaut_faces.png
"$plinth" integral data/astronaut.png --sq --tilted -o out/demo/astronaut_integral.npy
"$plinth" bench integral --size 1920x1080 --runs 20 --warmup 3
