#!/usr/bin/env bash
# Sets up, builds and runs every test (GoogleTest through ctest) on the default device: PoCL on
# machines without a GPU. PLINTH_DEVICE picks another device (see `plinth devices`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Every test, the NVRTC compile of every kernel program the CUDA backend builds included (label
# cuda, tools/cuda_check: 953 programs, 10-20 minutes on 2 cores beside the other tests; skipped
# where NVRTC is absent).
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900
# The Python package (python/): its venv, `pip install .` and pytest (scripts/python_test.sh).
bash scripts/python_test.sh
