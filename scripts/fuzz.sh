#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang) in build-fuzz/ and runs each for SECONDS (default 60)
# from its seed corpus; fails when a target finds a crash, a sanitizer report, a leak, a hang or
# an input that needs more memory than the limits below. docs/RELIABILITY.md ("Fuzzing") says
# how to run for longer and what to do with a find.
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]      targets: cascade image npy nv12 video (default all;
#                                                   video where FFmpeg's development files are installed)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")

cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER="${PLINTH_FUZZ_CXX:-clang++-14}" >/dev/null
cmake --build build-fuzz -j "$(nproc)"
if ((${#targets[@]} == 0)); then
  targets=(cascade image npy nv12)
  if [[ -x build-fuzz/fuzz_video ]]; then targets+=(video); fi
fi

# One target per core at a time; each writes new inputs to a scratch corpus (the seeds in
# fuzz/corpus/ stay as committed) and what it finds to build-fuzz/crashes/<target>/.
run_one() {
  local t=$1 work=build-fuzz/corpus/$1 crashes=build-fuzz/crashes/$1
  mkdir -p "$work" "$crashes"
  # -timeout: seconds one input may take (a legal 2^28-pixel image decodes in seconds under ASan);
  # -rss_limit_mb / -malloc_limit_mb: the most memory one input may use or ask for at once.
  build-fuzz/fuzz_"$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=3072 -malloc_limit_mb=3072 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$work" fuzz/corpus/"$t" >"build-fuzz/$t.log" 2>&1
}
status=0
parallel=$(nproc)
for ((i = 0; i < ${#targets[@]}; i += parallel)); do
  batch=("${targets[@]:i:parallel}")
  pids=()
  for t in "${batch[@]}"; do
    echo "fuzz: $t for ${seconds}s"
    run_one "$t" &
    pids+=($!)
  done
  for k in "${!batch[@]}"; do
    t=${batch[$k]}
    if wait "${pids[$k]}"; then
      echo "fuzz: $t: $(grep -E '^stat::number_of_executed_units' "build-fuzz/$t.log" | awk '{print $2}') inputs, no defect"
    else
      echo "fuzz: $t FOUND A DEFECT; the input is in build-fuzz/crashes/$t/, the report in build-fuzz/$t.log:"
      grep -E "ERROR|runtime error|SUMMARY|Test unit written" "build-fuzz/$t.log" | head -20
      status=1
    fi
  done
done
exit $status
