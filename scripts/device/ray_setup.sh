# Sourced THERE, from the repository root, by ray_detect.sh and ray_scale.sh (the second of two calls
# to one warm machine; the first copied .carry/ray1 to /tmp/plinth-ray-stage; this one carries
# .carry/ray2): logs everything to $OUT/$ray_log too, installs Ray and OpenCV 4 into /tmp, builds the
# module (python_module.sh, into $work/site) and exports PYTHONPATH for the three. Sets root, ray2,
# work, stage and OUT; prints the GPUs and the CPU count.
root=$(pwd)
stage=/tmp/plinth-ray-stage
carry=$stage  # prefix/ and fallback/ for python_module.sh
ray2=$root/.carry/ray2
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/$ray_log") 2>&1
work=$(mktemp -d /tmp/plinth-ray.XXXXXX)
ls "$stage"/ray-*-stripped.zip "$ray2"/opencv_python_headless-4*.whl >/dev/null ||
  { echo "!!! no Ray in $stage (the staging call did not run on this machine) or no .carry/ray2"; exit 1; }
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "CPUs: $(nproc)"

deps=/tmp/plinth-ray-site
opencv4=/tmp/plinth-opencv4
rm -rf "$deps" "$opencv4"
python3 -m zipfile -e "$stage"/ray-*-stripped.zip "$deps" || exit 1  # no unzip there
chmod -R +x "$deps/ray/core"  # zipfile drops the mode bits: raylet, gcs_server
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$deps" \
  "$stage"/jsonschema*.whl "$stage"/referencing*.whl "$stage"/rpds_py*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$opencv4" \
  "$ray2"/opencv_python_headless-4*.whl || exit 1
source scripts/device/python_module.sh  # the module, in $work/site
export PYTHONPATH=$opencv4:$work/site:$deps PYTHONUNBUFFERED=1 RAY_USAGE_STATS_ENABLED=0
