#!/usr/bin/env bash
# Runs THERE, from the repository root, with .carry/device from scripts/device/prepare.sh: Nsight
# Compute on one launch of each u8 filter kernel at 7680x4320 (issue 20's "what limits each
# kernel"; docs/filters.md), through the CLI on a random .npy image, `automatic` methods.
# Prints the lines that matter; the whole report goes to $OUT/ncu_filters.txt.
set -u
root=$PWD; c=$root/.carry/device; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$c/lib
p=${PLINTH_CLI:-$c/bin/plinth}
python3 -c "import numpy as np; np.save('/tmp/in8k.npy', np.random.default_rng(1).integers(0, 256, (4320, 7680), dtype=np.uint8))"
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
  --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio')  # why warps wait, per issue
profile() {  # name, kernel-name regex, CLI arguments...  (ONLY="box3 gauss5": just those)
  local name=$1 kernel=$2; shift 2
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && return
  echo "######## $name"
  timeout 60 ncu --kernel-name "regex:$kernel" --launch-count 1 "${sections[@]}" "$p" --device cuda:0 -f "$@" 2>&1
}
{
  profile box3 box filter box /tmp/in8k.npy /tmp/o.npy --ksize 3x3
  profile box8 box filter box /tmp/in8k.npy /tmp/o.npy --ksize 8x8
  profile box15 box filter box /tmp/in8k.npy /tmp/o.npy --ksize 15x15
  profile median3 median filter median /tmp/in8k.npy /tmp/o.npy -k 3
  profile median5 median filter median /tmp/in8k.npy /tmp/o.npy -k 5
  profile gauss3 "gauss|sep|fused" filter gaussian /tmp/in8k.npy /tmp/o.npy --ksize 3x3
  profile gauss5 "gauss|sep|fused" filter gaussian /tmp/in8k.npy /tmp/o.npy --ksize 5x5
  profile pyrdown pyr pyramid /tmp/in8k.npy /tmp/pd --levels 2
  profile pyrup pyr pyramid /tmp/in8k.npy /tmp/pu --levels 2 --up
} > "$OUT/ncu_filters.txt"
grep -E "stalled_|########|\(.*\)x\(|Duration|DRAM Throughput|L1/TEX Cache Throughput|Issue Slots Busy|highest-utilized|Eligible Warps|Registers Per|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Block Limit|tail|Tail" "$OUT/ncu_filters.txt"
