#!/usr/bin/env bash
# The Python package's tests (python/tests), run by scripts/test.sh after the C++ tests: a venv in
# build-python/venv on Debian's python3 with its NumPy and OpenCV (python3-opencv: the same OpenCV
# 4.6 the C++ tests compare with, no IPP), nanobind, scikit-build-core, pytest and Ray from PyPI,
# then `pip install .` linking the library scripts/setup.sh built in build/ (compiled once), then
# pytest on the default device. PLINTH_PYTHON_NO_RAY=1 skips installing Ray (its tests then skip).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build-python/venv
[[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv --system-site-packages "$venv"
# NumPy stays Debian's (python3-opencv is built against it): pinned, so that Ray's dependencies do not
# bring a NumPy 2 into the venv.
numpy_version=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')
tools=("numpy==$numpy_version" "nanobind>=2.0" "scikit-build-core>=0.8" "pytest>=7")
# pyarrow 20 and later need NumPy 2.
[[ ${PLINTH_PYTHON_NO_RAY:-0} == 1 ]] || tools+=("ray[data]>=2.9" "pyarrow<20")
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${tools[@]}"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation \
  --config-settings=build-dir=build-python/wheel \
  --config-settings=cmake.define.PLINTH_PREBUILT_LIBRARY="$PWD/build/src/libplinth.a" .
# From python/tests, so that `import plinth` is the installed package, not the source folder.
cd python/tests && "../../$venv/bin/python" -m pytest -q -p no:cacheprovider .
