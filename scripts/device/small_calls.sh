#!/usr/bin/env bash
# Runs THERE, after scripts/device/run.sh in the same call (it uses the CLI run.sh built with the
# NPP peers in build-device/, else the carried one): issue 18's small calls on both backends.
#   1. the driver's launch floor (launch_floor.cpp) and `plinth calls` (host clock, back-to-back
#      1x1 conversions and 640x480 integrals), alternating backends, the floor again at the end;
#   2. `plinth bench integral convert` at 640x480 and 1920x1080 on CUDA with the keep-busy filler
#      (the default) and with --no-filler, and on NVIDIA OpenCL with the filler: NPP's rows are in
#      the CUDA runs (NPP is timed with its stream kept busy; the filler does the same for plinth);
#   3. `plinth bench cascade` at 640x480 on CUDA (the end-to-end row: upload to grouped results).
# Into $OUT: small_calls.txt (everything) and bench_small_{cuda,cuda_nofiller,opencl}.json.
# Knobs: CUDA_DEVICE (default cuda:0), OPENCL_DEVICE (default: the first NVIDIA OpenCL device that
# `plinth devices` lists), RUNS (default 50).
set -u
root=$(pwd)
carry=$root/.carry/device
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/small_calls.txt") 2>&1
plinth=$root/build-device/tools/plinth/plinth
if [ ! -x "$plinth" ]; then  # the carried CLI (no NPP) needs the carried libraries
  plinth=$carry/bin/plinth
  export LD_LIBRARY_PATH=$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export PLINTH_CASCADE_DIR=${PLINTH_CASCADE_DIR:-$carry/prefix/share/cascades}
cuda=${CUDA_DEVICE:-cuda:0}
opencl=${OPENCL_DEVICE:-$("$plinth" devices 2>/dev/null | grep -i 'opencl' | grep -i nvidia | grep -o 'opencl:[0-9]*' | head -1)}
runs=${RUNS:-50}
echo "=== $(date -u +%H:%M:%S) small calls: $plinth; CUDA $cuda, OpenCL ${opencl:-none found}"
"$plinth" devices

floor=""
if g++ -O2 -std=c++17 -I/usr/local/cuda/include scripts/device/launch_floor.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o /tmp/launch_floor 2>&1; then
  floor=/tmp/launch_floor
fi
echo "=== $(date -u +%H:%M:%S) launch floor, then plinth calls alternating backends"
[ -n "$floor" ] && timeout 60 "$floor" 1000
for round in 1 2; do
  timeout 60 "$plinth" --device "$cuda" calls
  [ -n "$opencl" ] && timeout 60 "$plinth" --device "$opencl" calls
done
[ -n "$floor" ] && timeout 60 "$floor" 1000

bench() {  # bench TAG DEVICE [options...]
  local tag=$1 device=$2; shift 2
  echo "=== $(date -u +%H:%M:%S) bench $tag ($device $*)"
  timeout -k 5 150 "$plinth" --device "$device" bench integral convert --sizes 640x480,1920x1080 --runs "$runs" \
    --max-case-seconds 2 --max-seconds 120 "$@" --json "$OUT/bench_small_$tag.json"
}
bench cuda "$cuda"
bench cuda_nofiller "$cuda" --no-filler
[ -n "$opencl" ] && bench opencl "$opencl"
echo "=== $(date -u +%H:%M:%S) cascade at 640x480 on $cuda"
timeout -k 5 90 "$plinth" --device "$cuda" bench cascade --sizes 640x480 --runs "$runs" --max-case-seconds 2 \
  --max-seconds 60 --json "$OUT/bench_small_cascade.json"
echo "=== $(date -u +%H:%M:%S) done"
