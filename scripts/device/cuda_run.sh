#!/usr/bin/env bash
# One device call for the CUDA backend (issue 18): runs from a folder holding the carried binaries
# (bin/, lib/, fallback/ from scripts/device/prepare.sh, plus bin/plinth_cuda_check) beside a
# source tree (src/, for the tests' data). Stages, each cut to its time:
#   env      GPU, driver, `plinth devices`, plinth_cuda_check
#   tests    the whole suite on cuda:0 and on opencl:0 (8 shards each), recording the programs
#            built (PLINTH_RECORD_PROGRAMS) and a hash of every compared output
#            (PLINTH_RECORD_OUTPUTS); then the outputs compared between the backends
#   calls    back-to-back small calls by the host clock (`plinth calls`) on both backends
#   bench    `plinth bench` at 1920x1080 and 3840x2160 on both backends (JSON; SIZES, OPS)
#   klt      plinth_klt_tests (carried with PLINTH_CARRY_KLT_TESTS=1) on both backends, then the
#            fused multiply-adds in the PTX NVIDIA's OpenCL made of each cached program (kernels
#            are written for FP_CONTRACT OFF: any fma.rn.f32 there that the source does not ask
#            for is a contraction)
# Usage: CARRY=.carry/cuda STAGES="env tests calls bench" bash $CARRY/src/scripts/device/cuda_run.sh
# or, with prepare.sh's .carry/device and the checkout itself as the source tree (the run tool's
# working copy): CARRY=.carry STAGES="env klt" bash scripts/device/cuda_run.sh
# (BACKENDS="cuda" runs the suite on CUDA only; the outputs then compare with an earlier run's.)
set -uo pipefail
carry=$(cd "${CARRY:-.carry/cuda}" && pwd)
stages=${STAGES:-env tests calls bench}
OUT=${OUT:-/tmp/out}
work=$(mktemp -d)
export PLINTH_CACHE_DIR=$work/cache
start=$(date +%s)
echo "carry $carry, stages: $stages"
cat "$carry/device/MANIFEST" 2>/dev/null

tests_libs=$carry/device/lib
opencl_lib=$(ldconfig -p | awk '/libOpenCL\.so\.1 / && /x86-64/ {print $NF; exit}')
[ -z "$opencl_lib" ] && export LD_LIBRARY_PATH=$carry/device/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! grep -qsil nvidia /etc/OpenCL/vendors/*.icd 2>/dev/null && ldconfig -p | grep -q libnvidia-opencl.so.1; then
  mkdir -p "$work/vendors" && cp /etc/OpenCL/vendors/*.icd "$work/vendors/" 2>/dev/null
  echo libnvidia-opencl.so.1 > "$work/vendors/nvidia.icd" && export OCL_ICD_VENDORS=$work/vendors
fi
src_dir=$(sed -n 's/^source_dir=//p' "$carry/device/MANIFEST" 2>/dev/null)
src_tree=$carry/src
[ -d "$src_tree" ] || src_tree=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -n "$src_dir" ] && [ ! -e "$src_dir" ]; then mkdir -p "$(dirname "$src_dir")" && ln -s "$src_tree" "$src_dir"; fi
export LD_LIBRARY_PATH=$tests_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$carry/device/bin

has() { [[ " $stages " == *" $1 "* ]]; }
# NVIDIA's OpenCL, not PoCL (which the device machine also has).
declare -A selector=([cuda]=cuda:0 [opencl]=opencl,platform:nvidia)

if has env; then
  echo "===== env"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv 2>&1 | head -3
  ls /usr/local/cuda/lib64/libnvrtc* 2>/dev/null | head -3
  timeout 60 "$bin/plinth" devices
  timeout 120 "$bin/plinth_cuda_check" --quiet > "$OUT/cuda_check.txt" 2>&1; echo "cuda_check rc $?"; tail -3 "$OUT/cuda_check.txt"
fi

run_suite() {  # backend shards seconds
  local backend=$1 shards=$2 cap=$3 pids=()
  for i in $(seq 0 $((shards - 1))); do
    PLINTH_DEVICE=${selector[$backend]} PLINTH_RECORD_PROGRAMS=$work/programs_$backend.txt \
      PLINTH_RECORD_OUTPUTS=$work/out_${backend}_$i.txt GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
      timeout -k 5 "$cap" "$bin/plinth_tests" --gtest_brief=1 "--gtest_filter=${FILTER:-*}" > "$work/t_${backend}_$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"; echo "$backend shard $i: exit $?"
    grep -E "^\[  FAILED|tests ran|PASSED" "$work/t_${backend}_$i.log" | head -30
    cat "$work/t_${backend}_$i.log" >> "$OUT/tests_$backend.log"
  done
  LC_ALL=C sort -u "$work"/out_${backend}_*.txt > "$work/out_$backend.txt" 2>/dev/null
}

if has tests; then
  for backend in ${BACKENDS:-cuda opencl}; do
    echo "===== tests on ${selector[$backend]}"
    run_suite "$backend" 8 "$( [ "$backend" = cuda ] && echo "${CUDA_SECONDS:-240}" || echo "${OPENCL_SECONDS:-200}")"
  done
  cat "$work"/programs_*.txt 2>/dev/null | sort -u > "$OUT/programs.txt"
  echo "programs recorded: $(wc -l < "$OUT/programs.txt")"
  echo "===== outputs: cuda:0 against opencl:0"
  cp "$work/out_cuda.txt" "$work/out_opencl.txt" "$OUT/" 2>/dev/null
  LC_ALL=C join -j1 -t $'\t' <(sed 's/ /\t/' "$work/out_cuda.txt" | LC_ALL=C sort -t $'\t' -k1,1) \
    <(sed 's/ /\t/' "$work/out_opencl.txt" | LC_ALL=C sort -t $'\t' -k1,1) > "$work/joined.txt"
  echo "only on one side: $(LC_ALL=C join -v1 -v2 -j1 -t $'\t' <(sed 's/ /\t/' "$work/out_cuda.txt" | LC_ALL=C sort -t $'\t' -k1,1) <(sed 's/ /\t/' "$work/out_opencl.txt" | LC_ALL=C sort -t $'\t' -k1,1) | wc -l)"
  echo "compared outputs: $(wc -l < "$work/joined.txt"), differing: $(awk -F'\t' '$2 != $3' "$work/joined.txt" | wc -l)"
  awk -F'\t' '$2 != $3 {print "  differs: " $1}' "$work/joined.txt" | head -40
  echo "floating-point instructions in NVIDIA OpenCL's PTX (cached programs) and in NVRTC's (none: cubins):"
  grep -aoh "div\.[a-z0-9.]*f32\|sqrt\.[a-z.]*f32\|rcp\.[a-z.]*f32\|div\.[a-z0-9.]*f64\|sqrt\.[a-z.]*f64" "$work"/cache/*.bin 2>/dev/null | sort | uniq -c
fi

if has calls; then
  echo "===== back-to-back calls"
  for b in cuda opencl; do timeout 60 "$bin/plinth" --device "${selector[$b]}" calls --count 1000; done
fi

if has bench; then
  echo "===== bench"
  left=$((540 - ($(date +%s) - start)))
  for b in cuda opencl; do
    secs=$(( left / 2 - 10 )); (( secs < 30 )) && secs=30
    # shellcheck disable=SC2086  # OPS: op names, split on purpose
    timeout -k 5 "$secs" "$bin/plinth" --device "${selector[$b]}" bench --sizes "${SIZES:-1920x1080,3840x2160}" --runs 20 \
      --max-case-seconds 2 --max-seconds $((secs - 15)) --json "$OUT/bench_$b.json" ${OPS:-} > "$OUT/bench_$b.txt" 2>&1
    echo "bench $b: exit $?"; tail -60 "$OUT/bench_$b.txt"
  done
fi
if has klt; then
  for backend in ${BACKENDS:-cuda opencl}; do
    echo "===== klt tests on ${selector[$backend]}"
    PLINTH_DEVICE=${selector[$backend]} timeout -k 5 "${KLT_SECONDS:-150}" "$bin/plinth_klt_tests" --gtest_brief=1 \
      > "$OUT/klt_$backend.log" 2>&1
    echo "exit $?"; grep -E "^\[  FAILED|tests ran|PASSED|rror" "$OUT/klt_$backend.log" | head -20
  done
  echo "fma.rn.f32 in NVIDIA OpenCL's PTX, per cached program (first kernel named):"
  for f in "$work"/cache/*.bin; do
    [ -e "$f" ] || continue
    n=$(grep -ac 'fma\.rn\.f32' "$f"); name=$(grep -ao '\.entry [A-Za-z0-9_]*' "$f" | head -1)
    [ -n "$name" ] && echo "  $n ${name#.entry }"
  done | sort -k2 | uniq
fi
echo "done in $(( $(date +%s) - start )) s"
