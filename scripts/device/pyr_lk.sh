#!/usr/bin/env bash
# Runs THERE (issue 16), from the repository root with .carry/device from
# `PLINTH_CARRY_KLT_TESTS=1 bash scripts/device/prepare.sh`: plinth_klt_tests (bit-exactness against
# cv::calcOpticalFlowPyrLK of OpenCV 4.6) on cuda:0 and on NVIDIA OpenCL at once, then
# `plinth bench pyr_lk` at 1920x1080 on each backend. Test summaries go to $OUT/klt_<backend>.txt,
# benchmarks to $OUT/pyr_lk_<backend><tag>.json. Knobs: BACKENDS (default "cuda:0
# opencl,platform:nvidia"), BENCH_BACKENDS (default: cuda:0; empty: no bench), RUNS (default 30), SKIP_TESTS=1,
# VARIANTS: space-separated NAME=VALUE environment settings, one bench per entry (tag: the value's
# last path component), for experiments, e.g. PLINTH_KERNEL_DIR=$PWD/.carry/other_kernels (none=:
# as built); EXTRA: a command run at the end (its output logged).
set -u
. scripts/device/carried_env.sh
backends=${BACKENDS:-cuda:0 opencl,platform:nvidia}
if [ -z "${SKIP_TESTS:-}" ]; then
  pids=()
  for d in $backends; do
    n=${d%%[:,]*}
    PLINTH_CACHE_DIR=$work/cache_$n PLINTH_DEVICE=$d timeout -k 5 240 "$c/bin/plinth_klt_tests" \
      > "$work/klt_$n.log" 2>&1 &
    pids+=("$n $!")
  done
  for p in "${pids[@]}"; do
    set -- $p; wait "$2"; rc=$?
    { echo "plinth_klt_tests on $1: rc $rc"; grep -E "^\[  (PASSED|FAILED)  \]|Failure$|^\[==========\]" "$work/klt_$1.log" | head -40
      grep -A6 "Failure$" "$work/klt_$1.log" | head -60; } > "$OUT/klt_$1.txt"
    cat "$OUT/klt_$1.txt"
  done
fi
for d in ${BENCH_BACKENDS-cuda:0}; do
  n=${d%%[:,]*}
  for v in ${VARIANTS:-none=}; do
    tag=; [ "$v" != none= ] && tag=_${v##*/}
    echo "== bench pyr_lk on $d ${v}"
    env ${v/none=/PLINTH_NO_VARIANT=} timeout -k 5 200 "$c/bin/plinth" --device "$d" bench pyr_lk --sizes 1920x1080 \
      --runs "${RUNS:-30}" --max-case-seconds 2 --json "$OUT/pyr_lk_$n$tag.json" > "$work/bench_$n$tag.log" 2>&1
    echo "rc $?"
    grep -E "opencv|auto|seed" "$work/bench_$n$tag.log" | head -30
  done
done
if [ -n "${EXTRA:-}" ]; then
  echo "== extra: $EXTRA"
  bash -c "$EXTRA" 2>&1 | tail -60
fi
