#!/usr/bin/env bash
# Runs HERE: fills .carry/ray1 and .carry/ray2 (ignored by git) for the Ray detection job on the GPU
# machine (scripts/device/ray_detect.sh), which has no Ray and no OpenCV with CascadeClassifier. The
# pieces exceed the device tool's 64 MiB per call, so they travel in two calls to one warm machine
# (the first only copies its folder to /tmp/plinth-ray-stage there; the second runs the job):
#   ray1  Ray (its wheel unpacked and zipped again without the Java jars and source maps the job
#         never loads: 45 MB instead of 79), the jsonschema wheels Ray needs that the machine lacks,
#         the opencv-doc videos (Megamind, Megamind_bugy, tree; vtest too where it fits), and
#         .carry/device's prefix and fallback (stb, pugixml, CLI11, nlohmann-json, an OpenCL loader)
#         to build the module
#   ray2  opencv-python-headless 4.x (the CPU peer: OpenCV 5.0 there has no CascadeClassifier),
#         opencv-doc's sample images and the face cascade
# Usage: bash scripts/device/prepare_ray.sh      (after scripts/device/prepare.sh; needs the network)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
ray_version=${PLINTH_RAY_VERSION:-2.60.0}
opencv_version=${PLINTH_OPENCV4_VERSION:-4.10.0.84}
data=/usr/share/doc/opencv-doc/examples/data
[ -d .carry/device/prefix ] || { echo "prepare_ray: run scripts/device/prepare.sh first (.carry/device/prefix)" >&2; exit 1; }
git check-ignore -q .carry/ || { echo "prepare_ray: .carry/ is not ignored by git" >&2; exit 1; }

download() {  # WHEEL-SPEC... into $dir: CPython 3.12, manylinux x86-64 (the GPU machine's Python)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$dir" "$@"
}
rm -rf .carry/ray1 .carry/ray2
mkdir -p .carry/ray1/videos .carry/ray2/images
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dir=$work download "ray==$ray_version"
mkdir "$work/ray" && (cd "$work/ray" && unzip -q "$work"/ray-*.whl && rm -rf ray/jars && find . -name '*.map' -delete &&
  zip -q -9 -r "$root/.carry/ray1/ray-$ray_version-stripped.zip" .)
dir=.carry/ray1 download jsonschema jsonschema-specifications referencing rpds-py
cp "$data"/Megamind.avi "$data"/Megamind_bugy.avi "$data"/tree.avi .carry/ray1/videos/

dir=.carry/ray2 download "opencv-python-headless==$opencv_version"

cp -r .carry/device/prefix .carry/device/fallback .carry/ray1/
cp "$data"/*.jpg "$data"/*.png .carry/ray2/images/
cp /usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml .carry/ray2/

# The device tool refused a call of 66.9 MB (63.8 MiB by this count) and took one of 64.7 MB: stay
# under 65,000,000 bytes a call, the working tree included. vtest.avi (8 MB) travels where it fits.
limit=65000000
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
size_of() { echo $(( $(du -sb ".carry/$1" | cut -f1) + tree )); }
if (( $(size_of ray1) + $(stat -c %s "$data/vtest.avi") < limit )); then
  cp "$data/vtest.avi" .carry/ray1/videos/
else
  echo "prepare_ray: vtest.avi left out (.carry/ray1 would exceed $limit bytes with the working tree)"
fi
for part in ray1 ray2; do
  echo "prepare_ray: .carry/$part $(size_of $part) bytes with the working tree"
  (( $(size_of $part) < limit )) || { echo "prepare_ray: .carry/$part is too large for one call" >&2; exit 1; }
done
echo "prepare_ray: done. Two calls, the second within 30 s of the first (scripts/device/README.md)"
