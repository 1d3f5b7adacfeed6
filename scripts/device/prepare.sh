#!/usr/bin/env bash
# Runs HERE (Debian 12, no GPU): builds plinth in Release and fills .carry/device/ (ignored by git)
# with what scripts/device/run.sh needs on the GPU machine (Ubuntu 24.04, no network):
#   bin/plinth_tests   the GoogleTest binary (built here: the GPU machine has no OpenCV C++ libraries)
#   bin/plinth         the CLI built here, without NPP and without video (FFmpeg's libraries would
#                      not fit): run.sh's fallback if the build there fails
#   lib/               the shared libraries those need that Ubuntu 24.04 may lack (ldd; glibc,
#                      libstdc++, libgcc and the OpenCL loader left out)
#   fallback/          Debian's OpenCL ICD loader, used there only if none is installed
#   prefix/            stb headers, pugixml (static library, headers, CMake package), libjpeg
#                      (static library, headers), CLI11 and
#                      nlohmann-json (headers, CMake packages): what configuring plinth there needs
#   MANIFEST           commit, date, the source folder the tests were built in, sizes
# Then prints the total size: the working tree plus the carried folder must stay under 64 MiB.
#
# Usage: bash scripts/device/prepare.sh [BUILD_DIR]     (default build/, configured if needed)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
build=${1:-build}
out=.carry/device
limit_mib=${PLINTH_CARRY_LIMIT_MIB:-56}  # leaves room for the working tree itself under the 64 MiB

echo "prepare: building $build (Release)"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
if ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt"; then
  echo "prepare: $build is not a Release build; reconfigure it or pass another folder" >&2
  exit 1
fi
ninja -C "$build" -j"${JOBS:-2}" plinth_tests plinth_cli

git check-ignore -q .carry/ || { echo "prepare: .carry/ is not ignored by git; refusing to fill it" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/fallback" "$out/prefix/include/stb" "$out/prefix/lib/x86_64-linux-gnu/cmake" \
  "$out/prefix/share/cmake"
cp "$build/tests/plinth_tests" "$build/tools/plinth/plinth" "$out/bin/"
# A CLI linked with FFmpeg (video support, src/video/) would drag in some 170 MB of codec
# libraries: carry one built without video instead, from a second build folder.
if ldd "$build/tools/plinth/plinth" | grep 'libavcodec' >/dev/null; then  # not grep -q: no SIGPIPE under pipefail
  novideo=$build-novideo
  echo "prepare: $build's CLI links FFmpeg; building one without video in $novideo"
  launcher=$(sed -n 's/^CMAKE_CXX_COMPILER_LAUNCHER:[A-Z]*=//p' "$build/CMakeCache.txt")
  cmake -S . -B "$novideo" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLINTH_WITH_VIDEO=OFF -DPLINTH_BUILD_TESTS=OFF \
    ${launcher:+"-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher"} >/dev/null
  ninja -C "$novideo" -j"${JOBS:-2}" plinth_cli
  cp "$novideo/tools/plinth/plinth" "$out/bin/plinth"
fi
strip --strip-unneeded "$out/bin/plinth_tests" "$out/bin/plinth"
# Opt-in: plinth_klt_tests (cv::calcOpticalFlowPyrLK; OpenCV's video module adds about 23 MB).
if [ "${PLINTH_CARRY_KLT_TESTS:-0}" = 1 ]; then
  ninja -C "$build" -j"${JOBS:-2}" plinth_klt_tests
  cp "$build/tests/plinth_klt_tests" "$out/bin/" && strip --strip-unneeded "$out/bin/plinth_klt_tests"
fi

# Shared libraries: everything the binaries resolve here except the C/C++ runtime (newer on Ubuntu
# 24.04, and it must match the system's loader) and the OpenCL ICD loader (the system's one knows
# the NVIDIA driver).
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libresolv|libstdc\+\+|libgcc_s|libOpenCL)'
for binary in "$out/bin/"*; do
  ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ $name =~ $skip ]]; then continue; fi
  cp -L "$path" "$out/lib/$name"
done
if ldd "$out/bin/plinth_tests" | grep -q 'not found'; then
  echo "prepare: unresolved libraries:" >&2
  ldd "$out/bin/plinth_tests" | grep 'not found' >&2
  exit 1
fi
# awk reads to the end: an early exit would kill ldconfig with SIGPIPE, which pipefail and set -e
# turn into the script's silent end.
opencl=$(ldconfig -p | awk '!found && /libOpenCL\.so\.1 / && /x86-64/ {print $NF; found = 1}')
[ -n "$opencl" ] && cp -L "$opencl" "$out/fallback/libOpenCL.so.1"

# Headers and CMake packages for configuring plinth on the device.
cp /usr/include/stb/stb_image.h /usr/include/stb/stb_image_write.h "$out/prefix/include/stb/"
cp /usr/include/pugixml.hpp /usr/include/pugiconfig.hpp "$out/prefix/include/"
# libjpeg-turbo (static, as the library links it here) for read_image's JPEG reader.
cp /usr/include/jpeglib.h /usr/include/jerror.h /usr/include/jmorecfg.h /usr/include/x86_64-linux-gnu/jconfig.h \
  "$out/prefix/include/"
cp -L /usr/lib/x86_64-linux-gnu/libjpeg.a "$out/prefix/lib/x86_64-linux-gnu/"
cp -L /usr/lib/x86_64-linux-gnu/libpugixml.a /usr/lib/x86_64-linux-gnu/libpugixml.so.1.13 "$out/prefix/lib/x86_64-linux-gnu/"
cp -r /usr/lib/x86_64-linux-gnu/cmake/pugixml "$out/prefix/lib/x86_64-linux-gnu/cmake/"
cp -r /usr/include/CLI "$out/prefix/include/"
cp -r /usr/share/cmake/CLI11 "$out/prefix/share/cmake/"
cp -r /usr/include/nlohmann "$out/prefix/include/"
cp -r /usr/share/cmake/nlohmann_json "$out/prefix/share/cmake/"
# The cascades the benchmarks and the detection check use (opencv-data is not on the device).
mkdir -p "$out/prefix/share/cascades"
for c in haarcascades/haarcascade_frontalface_default haarcascades/haarcascade_frontalface_alt2 \
         lbpcascades/lbpcascade_frontalface_improved; do
  cp "/usr/share/opencv4/$c.xml" "$out/prefix/share/cascades/"
done
# opencv-python-headless 4.x (it still has CascadeClassifier), for the CPU peer of the cascade,
# when downloaded beforehand into .carry/wheels (see scripts/device/README.md).
if ls .carry/wheels/opencv_python_headless-4*.whl >/dev/null 2>&1 && [ "${PLINTH_CARRY_WHEEL:-0}" = 1 ]; then
  mkdir -p "$out/wheels" && cp .carry/wheels/opencv_python_headless-4*.whl "$out/wheels/"
fi

{
  echo "commit=$(git rev-parse HEAD)$(git diff --quiet HEAD || echo '+dirty')"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "source_dir=$root"  # PLINTH_SOURCE_DIR baked into plinth_tests; run.sh links it there
  echo "built_on=$(. /etc/os-release && echo "$PRETTY_NAME"), $(g++ --version | head -1)"
} > "$out/MANIFEST"

carried=$(du -sb "$out" | cut -f1)
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
echo "prepare: $out holds $(du -sh "$out" | cut -f1) ($carried bytes):"
du -sh "$out"/* | sed 's/^/  /'
echo "prepare: working tree $tree bytes; together $(( (carried + tree) / 1048576 )) MiB of the tool's 64 MiB"
if [ $(( carried / 1048576 )) -ge "$limit_mib" ]; then
  echo "prepare: $out is over ${limit_mib} MiB; the device tool would refuse it" >&2
  exit 1
fi
echo "prepare: done. Device call: command 'bash scripts/device/run.sh', carry [\".carry/device\"]"
