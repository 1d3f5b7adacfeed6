#!/usr/bin/env bash
# Runs THERE (issue 20), from the repository root with .carry/device from scripts/device/prepare.sh:
# the box, Gaussian and separable filter tests on cuda:0 and on NVIDIA OpenCL (OpenCV 4.6 as the
# reference), then `plinth bench` of those ops at 7680x4320 and 3840x2160 on both. Each test run's
# summary goes to $OUT/tests_<backend>.txt and each bench to $OUT/bench_<backend>.json, so that
# neither depends on the tail of the log. Knobs: FILTER (gtest filter), OPS, SIZES, RUNS,
# TEST_SECONDS (per shard, default 240), SHARDS (per backend, default 8), SKIP_BENCH=1, SKIP_TESTS=1,
# BACKENDS (default "cuda:0 opencl,platform:nvidia"). The whole
# suite: FILTER='*'. All test logs: $OUT/tests_logs.tgz.
set -u
. scripts/device/carried_env.sh
filter=${FILTER:-'BoxFilter.*:GaussianBlur.*:SepFilter.*'}
shards=${SHARDS:-8}
# The backends at once, each in $shards gtest shards (the cold program cache makes the tests
# compile-bound: NVRTC and NVIDIA's OpenCL compiler use one CPU each); one cache per backend.
backends=${BACKENDS:-cuda:0 opencl,platform:nvidia}
if [ -z "${SKIP_TESTS:-}" ]; then
  pids=()
  for d in $backends; do
    n=${d%%[:,]*}
    for i in $(seq 0 $((shards - 1))); do
      PLINTH_CACHE_DIR=$work/cache_$n PLINTH_DEVICE=$d GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
        timeout -k 5 "${TEST_SECONDS:-240}" "$c/bin/plinth_tests" "--gtest_filter=$filter" \
        "--gtest_output=json:$work/gtest_${n}_$i.json" > "$work/tests_${n}_$i.log" 2>&1 &
      pids+=("$n $i $!")
    done
  done
  for p in "${pids[@]}"; do
    set -- $p; wait "$3"; echo "$1 shard $2: rc $?" >> "$work/rc_$1.txt"
  done
  for d in $backends; do
    n=${d%%[:,]*}
    { echo "tests on $n, $shards shards, filter $filter"; cat "$work/rc_$n.txt"
      echo "tests finished OK: $(cat "$work"/tests_${n}_*.log | grep -c '^\[       OK \]')"
      echo "tests FAILED: $(cat "$work"/tests_${n}_*.log | grep -c '^\[  FAILED  \] [A-Za-z].*(')"
      grep -hE "^\[  FAILED  \] [A-Za-z].*\(|Failure$" "$work"/tests_${n}_*.log | head -40
      for f in "$work"/tests_${n}_*.log; do  # a shard stopped by the limit: its last test started
        grep -qE "^\[==========\] .* ran\." "$f" || echo "unfinished: $(basename "$f"): $(grep '^\[ RUN' "$f" | tail -1)"
      done; } > "$OUT/tests_$n.txt"
    cat "$OUT/tests_$n.txt"
  done
  tar -czf "$OUT/tests_logs.tgz" -C "$work" $(cd "$work" && ls tests_*.log)
fi
[ -n "${SKIP_BENCH:-}" ] && exit 0
for d in $backends; do
  n=${d%%[:,]*}
  echo "== bench on $d"
  timeout -k 5 200 "$c/bin/plinth" --device "$d" bench ${OPS:-box_filter gaussian_blur sep_filter} \
    --sizes "${SIZES:-7680x4320,3840x2160}" --runs "${RUNS:-15}" --max-case-seconds 1.5 --json "$OUT/bench_$n.json" \
    > "$work/bench_$n.log" 2>&1
  echo "rc $?"
done
