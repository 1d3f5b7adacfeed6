#!/usr/bin/env bash
# Sets up, builds and runs every test (GoogleTest through ctest) on the default device: PoCL on
# machines without a GPU. PLINTH_DEVICE picks another device (see `plinth devices`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The NVRTC compile of every program (label cuda, tools/cuda_check) is left out: on 2 cores it
# outlasts 15 minutes. Run it with `ctest --test-dir build -L cuda --timeout 3600`.
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900 -LE cuda
# The Python package (python/): its venv, `pip install .` and pytest (scripts/python_test.sh).
bash scripts/python_test.sh
