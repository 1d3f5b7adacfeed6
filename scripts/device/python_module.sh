# Sourced THERE (scripts/device/python_calls.sh, ray_detect.sh) from the repository root, with
# $carry (a folder holding prefix/ and fallback/ as scripts/device/prepare.sh makes them) and $work
# (a scratch folder) set: builds the library and CLI in build-device/ and the Python module against
# that library with the machine's own nanobind and scikit-build-core (pip install --no-build-isolation
# --target: nothing downloaded; plain CMake where pip cannot), into $work/site.
opencl_lib=$(ldconfig -p | awk '/libOpenCL\.so\.1 / && /x86-64/ {print $NF; exit}')
[ -n "$opencl_lib" ] || { opencl_lib=$carry/fallback/libOpenCL.so.1; export LD_LIBRARY_PATH=$carry/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; }
echo "OpenCL loader: $opencl_lib"
defines=("-DCMAKE_BUILD_TYPE=Release" "-DCMAKE_PREFIX_PATH=$carry/prefix" "-DCMAKE_CXX_FLAGS=-isystem $carry/prefix/include/stb"
  "-DOpenCL_LIBRARY=$opencl_lib" "-DOpenCL_INCLUDE_DIR=/usr/include" "-DPLINTH_BUILD_TESTS=OFF" "-DPLINTH_BUILD_BENCH=OFF"
  "-DPLINTH_WITH_VIDEO=OFF" "-DPLINTH_WITH_NPP=OFF" "-DCMAKE_CXX_COMPILER_LAUNCHER=$root/scripts/device/no_werror.sh")
cmake -S . -B build-device -G Ninja "${defines[@]}" > "$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; exit 1; }
timeout 300 ninja -C build-device -j"${PLINTH_BUILD_JOBS:-16}" plinth plinth_cli > "$work/build.log" 2>&1 ||
  { grep -E -A5 "error|FAILED" "$work/build.log" | head -40; echo "!!! the library did not build"; exit 1; }
tail -2 "$work/build.log"

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
