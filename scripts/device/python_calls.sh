#!/usr/bin/env bash
# Runs THERE, on the GPU machine, from the repository root, with .carry/device made by
# scripts/device/prepare.sh: builds the library and the CLI in build-device/, the Python module
# against that library (pip install --no-build-isolation --target: the machine's own nanobind and
# scikit-build-core, nothing downloaded; plain CMake where pip cannot), then python/bench/calls.py:
# the host cost per call of a 1x1 operation from Python against the C++ `plinth calls`.
# Writes $OUT/python_calls.log and $OUT/python_calls.json.
set -u
root=$(pwd)
carry=$root/${PLINTH_CARRY:-.carry/device}
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/python_calls.log") 2>&1
export PLINTH_DEVICE=${PLINTH_DEVICE:-gpu}
work=$(mktemp -d /tmp/plinth-python.XXXXXX)
python3 --version; python3 -c 'import nanobind, numpy; print("nanobind", nanobind.__version__, "numpy", numpy.__version__)'
python3 -c 'import scikit_build_core; print("scikit-build-core", scikit_build_core.__version__)'

source scripts/device/python_module.sh  # the module, in $work/site
PYTHONPATH=$work/site timeout 240 python3 python/bench/calls.py --cli build-device/tools/plinth/plinth \
  --count "${PLINTH_CALLS_COUNT:-10000}" --json "$OUT/python_calls.json"
# DeviceImages to and from PyTorch on the CUDA backend, where torch is installed.
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  PYTHONPATH=$work/site timeout 120 python3 python/bench/cuda_interop_check.py
fi
