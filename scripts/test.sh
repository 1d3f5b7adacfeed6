#!/usr/bin/env bash
# Sets up, builds and runs every test (GoogleTest through ctest) on the default device: PoCL on
# machines without a GPU. PLINTH_DEVICE picks another device (see `plinth devices`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Every test, the NVRTC compile of every kernel program the CUDA backend builds included (label
# cuda, tools/cuda_check: 953 programs, 10-20 minutes on 2 cores beside the other tests; skipped
# where NVRTC is absent).
# On PoCL (machines without a GPU, CI) most of the tests' time is PoCL compiling kernels with LLVM
# at -O3. The C++ tests ask it for -O0 (-cl-opt-disable through PoCL's own POCL_EXTRA_BUILD_FLAGS;
# other devices ignore it): the same OpenCL C semantics, results that must still match OpenCV
# bit for bit, in a third to a sixth of the compile time. Set POCL_EXTRA_BUILD_FLAGS (even empty)
# to choose otherwise. The tests whose time goes to running kernels (tests/labels.cmake: their
# ctest ENVIRONMENT empties the variable, whatever it was) and the Python tests below always build
# at PoCL's default, so optimised CPU code is still run and checked.
POCL_EXTRA_BUILD_FLAGS=${POCL_EXTRA_BUILD_FLAGS--cl-opt-disable} \
  ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900
# The Python package (python/): its venv, `pip install .` and pytest (scripts/python_test.sh).
bash scripts/python_test.sh
