#!/usr/bin/env bash
# Runs THERE, with .carry/device from scripts/device/prepare.sh: every op of `plinth bench` on one
# backend, for the CUDA / NVIDIA OpenCL table of docs/PERFORMANCE.md (issue 18). One backend per
# call (each takes 4-6 minutes at two sizes); compare the two JSON files afterwards. The program
# caches of the run are kept in $OUT/program_cache.tgz, so that NVIDIA OpenCL's PTX can be compared
# with NVRTC's (docs/backends.md, "The dialect").
#
#   D=cuda:0 bash scripts/device/backend_compare.sh       (then D=opencl:1)
# Knobs: SIZES (default 1920x1080,3840x2160), OPS (default: all), MAX_SECONDS (default 500).
set -u
root=$(pwd)
carry=$root/.carry/device
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
device=${D:?set D to the device, e.g. cuda:0 or opencl:1}
tag=${device%%:*}
# NVIDIA's OpenCL is installed there but not registered (plinth registers it itself; kept here for
# a loader that looks only at OCL_ICD_VENDORS).
vendors=$(mktemp -d /tmp/plinth-vendors.XXXXXX)
cp /etc/OpenCL/vendors/*.icd "$vendors/" 2>/dev/null
echo libnvidia-opencl.so.1 > "$vendors/nvidia.icd"
export OCL_ICD_VENDORS=$vendors
export LD_LIBRARY_PATH=$carry/lib PLINTH_CASCADE_DIR=$carry/prefix/share/cascades
export PLINTH_CACHE_DIR=/tmp/plinth-cache-$tag
src_dir=$(sed -n 's/^source_dir=//p' "$carry/MANIFEST" 2>/dev/null)
if [ -n "$src_dir" ] && [ ! -e "$src_dir" ]; then mkdir -p "$(dirname "$src_dir")" && ln -s "$root" "$src_dir"; fi
# shellcheck disable=SC2086
timeout -k 5 540 "$carry/bin/plinth" --device "$device" bench ${OPS:-} --sizes "${SIZES:-1920x1080,3840x2160}" \
  --runs 10 --warmup 2 --max-case-seconds 0.4 --max-seconds "${MAX_SECONDS:-500}" \
  --json "$OUT/bench_$tag.json" > "$OUT/bench_$tag.txt" 2>&1
echo "bench exit $?; $(grep -c ERROR "$OUT/bench_$tag.txt") error rows"
grep ERROR "$OUT/bench_$tag.txt" | head -5
tar czf "$OUT/program_cache_$tag.tgz" -C /tmp "plinth-cache-$tag" 2>/dev/null
