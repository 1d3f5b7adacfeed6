#!/usr/bin/env bash
# Installs what plinth needs from Debian's packages (when missing), then configures and builds it
# in build/. Run as root on Debian 12 (or with sudo available). Re-running is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libstb-dev libjpeg62-turbo-dev libcli11-dev libpugixml-dev nlohmann-json3-dev
  libgtest-dev libopencv-dev opencv-data opencv-doc
  clang-14 libclang-rt-14-dev
  libavformat-dev libavcodec-dev libswscale-dev libavutil-dev
  python3-dev python3-venv python3-opencv
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$jobs"
