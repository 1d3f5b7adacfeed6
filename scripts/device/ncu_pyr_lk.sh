#!/usr/bin/env bash
# Runs THERE, from the repository root, with .carry/device from scripts/device/prepare.sh: Nsight
# Compute on the four level launches of pyr_lk_level_int_sums in the first benchmark case that
# launches it (`plinth bench pyr_lk` at 1920x1080: auto at 100k points; docs/tracking.md), with the
# stall reasons per issue and the source counters (where the warps wait, by SASS instruction).
# Prints the lines that matter; the whole report goes to $OUT/ncu_pyr_lk.txt. KERNEL overrides the
# kernel-name regex, SKIP the launches skipped first.
set -u
root=$PWD; c=$root/.carry/device; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$c/lib PLINTH_CACHE_DIR=$(mktemp -d)
timeout 300 ncu --kernel-name "regex:${KERNEL:-pyr_lk_level_int_sums}" --launch-skip "${SKIP:-0}" --launch-count 4 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
  "$c/bin/plinth" --device cuda:0 bench pyr_lk --sizes 1920x1080 --runs 1 --warmup 0 --no-filler --max-seconds 20 \
  > "$OUT/ncu_pyr_lk.txt" 2>&1
echo "ncu rc $?"
grep -E "stalled_.*[0-9]\.[0-9]|pyr_lk_level|Duration|L1/TEX Cache Throughput|Issue Slots Busy|Executed Ipc A|Eligible Warps|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Executed Instructions  |Shared Memory Configuration Size|Dynamic Shared|Static Shared|Avg. Active Threads|Branch Efficiency|Warp Cycles Per Issued" "$OUT/ncu_pyr_lk.txt" | head -150
