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

opencl_lib=$(ldconfig -p | awk '/libOpenCL\.so\.1 / && /x86-64/ {print $NF; exit}')
[ -n "$opencl_lib" ] || { opencl_lib=$carry/fallback/libOpenCL.so.1; export LD_LIBRARY_PATH=$carry/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; }
echo "OpenCL loader: $opencl_lib"
defines=("-DCMAKE_BUILD_TYPE=Release" "-DCMAKE_PREFIX_PATH=$carry/prefix" "-DCMAKE_CXX_FLAGS=-isystem $carry/prefix/include/stb"
  "-DOpenCL_LIBRARY=$opencl_lib" "-DOpenCL_INCLUDE_DIR=/usr/include" "-DPLINTH_BUILD_TESTS=OFF" "-DPLINTH_BUILD_BENCH=OFF"
  "-DPLINTH_WITH_VIDEO=OFF" "-DPLINTH_WITH_NPP=OFF")
cmake -S . -B build-device -G Ninja "${defines[@]}" > "$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; exit 1; }
timeout 300 ninja -C build-device -j"${PLINTH_BUILD_JOBS:-16}" plinth plinth_cli | tail -2

library=$root/build-device/src/libplinth.a
settings=(--config-settings=build-dir=build-device-python)
for d in "${defines[@]}" "-DPLINTH_PREBUILT_LIBRARY=$library"; do settings+=("--config-settings=cmake.define.${d#-D}"); done
if ! timeout 300 python3 -m pip install --no-index --no-deps --no-build-isolation --break-system-packages \
    --target "$work/site" "${settings[@]}" .; then
  echo "!!! pip install failed: building the module with CMake alone"
  cmake -S . -B build-device-cmake -G Ninja "${defines[@]}" -DPLINTH_BUILD_PYTHON=ON -DPLINTH_BUILD_TOOLS=OFF \
    "-DPLINTH_PREBUILT_LIBRARY=$library" -DPython_EXECUTABLE="$(command -v python3)" > "$work/configure_py.log" 2>&1 &&
    timeout 300 ninja -C build-device-cmake plinth_python | tail -2 &&
    mkdir -p "$work/site" && cp -r python/plinth "$work/site/" && cp build-device-cmake/python/_plinth*.so "$work/site/plinth/" ||
    { tail -20 "$work/configure_py.log"; exit 1; }
fi
PYTHONPATH=$work/site timeout 240 python3 python/bench/calls.py --cli build-device/tools/plinth/plinth \
  --count "${PLINTH_CALLS_COUNT:-10000}" --json "$OUT/python_calls.json"
# DeviceImages to and from PyTorch on the CUDA backend, where torch is installed.
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  PYTHONPATH=$work/site timeout 120 python3 python/bench/cuda_interop_check.py
fi
