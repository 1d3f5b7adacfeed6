#!/usr/bin/env bash
# Runs THERE (issue 20), from the repository root with .carry/device from scripts/device/prepare.sh:
# the box, Gaussian and separable filter tests on cuda:0 and on NVIDIA OpenCL (OpenCV 4.6 as the
# reference), then `plinth bench` of those ops at 7680x4320 and 3840x2160 on both. Each test run's
# summary goes to $OUT/tests_<backend>.txt and each bench to $OUT/bench_<backend>.json, so that
# neither depends on the tail of the log. Knobs: FILTER (gtest filter), OPS, SIZES, RUNS,
# TEST_SECONDS (per backend, default 240), SKIP_BENCH=1.
set -u
c=$(pwd)/.carry/device
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
work=$(mktemp -d); export PLINTH_CACHE_DIR=$work/cache
export LD_LIBRARY_PATH=$c/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ldconfig -p | grep -q libnvidia-opencl.so.1; then  # NVIDIA's OpenCL is installed but not registered
  mkdir -p "$work/vendors"; cp /etc/OpenCL/vendors/*.icd "$work/vendors/" 2>/dev/null
  echo libnvidia-opencl.so.1 > "$work/vendors/nvidia.icd"; export OCL_ICD_VENDORS=$work/vendors
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$c/bin/plinth" devices
filter=${FILTER:-'BoxFilter.*:GaussianBlur.*:SepFilter.*'}
for d in cuda:0 opencl,platform:nvidia; do
  n=${d%%[:,]*}
  PLINTH_DEVICE=$d timeout -k 5 "${TEST_SECONDS:-240}" "$c/bin/plinth_tests" --gtest_brief=1 "--gtest_filter=$filter" \
    > "$work/tests_$n.log" 2>&1
  rc=$?
  { echo "tests on $d: rc $rc"; grep -E "^\[  (PASSED|FAILED) |tests ran|Failure|error" "$work/tests_$n.log" | head -40; } \
    | tee "$OUT/tests_$n.txt"
done
[ -n "${SKIP_BENCH:-}" ] && exit 0
for d in cuda:0 opencl,platform:nvidia; do
  n=${d%%[:,]*}
  echo "== bench on $d"
  timeout -k 5 200 "$c/bin/plinth" --device "$d" bench ${OPS:-box_filter gaussian_blur sep_filter} \
    --sizes "${SIZES:-7680x4320,3840x2160}" --runs "${RUNS:-15}" --max-case-seconds 1.5 --json "$OUT/bench_$n.json" \
    > "$work/bench_$n.log" 2>&1
  echo "rc $?"
done
