#!/usr/bin/env bash
# Runs THERE, on the GPU machine, from the repository root, with .carry/device/ made by
# scripts/device/prepare.sh: builds the CLI with the NPP peers, lists the devices, runs the carried
# test binary on the GPU, runs the benchmark (plinth + NPP) and OpenCV's OpenCL peer, dumps the
# integral program's PTX, and prints the merged table last. A failing stage is logged and the
# script goes on; every stage has a time limit so that the whole run ends well inside 10 minutes.
#
# Files written to $OUT (the device tool brings back at most 8): run.log, gtest.json, tests.log,
# bench_<group>.json, opencv_ocl.json, opencv_cascade_cpu.json, opencv_pyr_lk.json (tracking group),
# opencv_corners_cpu.json (corners group), torch_sort.json (sort group), torch_bow.json (bow group),
# peer_kmeans.json (kmeans group), peer_bf_match.json (bf_match group), merged.txt; build.log when the
# build stage runs.
#
# Knobs (environment): PLINTH_BENCH_SIZES, PLINTH_BENCH_RUNS, PLINTH_BENCH_OPS (default: all),
# PLINTH_RUN_BUDGET (seconds, default 540), PLINTH_SKIP_TESTS=1, PLINTH_TEST_FILTER (gtest filter),
# PLINTH_BUILD_JOBS (default 16), PLINTH_DEVICE (default gpu), PLINTH_TEST_SECONDS (per shard, default
# 200), PLINTH_BENCH_GROUPS, PLINTH_SKIP_OPENCV=1, PLINTH_CARRY (default .carry/device).
set -u
root=$(pwd)
carry=$root/${PLINTH_CARRY:-.carry/device}
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1

budget=${PLINTH_RUN_BUDGET:-540}
sizes=${PLINTH_BENCH_SIZES:-3840x2160,7680x4320,1920x1080,640x480}
runs=${PLINTH_BENCH_RUNS:-50}
export PLINTH_DEVICE=${PLINTH_DEVICE:-gpu}
work=$(mktemp -d /tmp/plinth-run.XXXXXX)
failed=()

stage() { echo; echo "=== [$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
# Seconds a stage may take: its own cap, but never so long that less than `reserve` seconds of
# the overall budget are left for the stages after it.
allow() {
  local cap=$1 left=$(( budget - SECONDS - $2 ))
  (( left < 5 )) && left=5
  echo $(( cap < left ? cap : left ))
}
# run NAME CAP RESERVE COMMAND...: runs with a time limit, logs the outcome, never stops the script.
run() {
  local name=$1 cap; cap=$(allow "$2" "$3"); shift 3
  timeout -k 10 "$cap" "$@"
  local rc=$?
  if (( rc == 124 || rc == 137 )); then echo "!!! $name: stopped after ${cap}s"; failed+=("$name(timeout)")
  elif (( rc != 0 )); then echo "!!! $name: exit $rc"; failed+=("$name(rc=$rc)")
  else echo "--- $name: ok"; fi
  return $rc
}

stage "environment"
[ -f "$carry/MANIFEST" ] || echo "!!! $carry/MANIFEST missing: was .carry/device carried? (scripts/device/prepare.sh)"
cat "$carry/MANIFEST" 2>/dev/null
echo "repo $(git rev-parse --short HEAD 2>/dev/null || echo '?') at $root; $(. /etc/os-release && echo "$PRETTY_NAME"); $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | head -3
cmake --version | head -1; g++ --version | head -1; python3 --version

# The carried libraries serve the test binary alone (given to its processes only: Debian's older
# zlib and friends must not replace Ubuntu's under cmake or python); Debian's OpenCL loader is used
# only if the system has none.
tests_libs=$carry/lib
opencl_lib=$(ldconfig -p | awk '/libOpenCL\.so\.1 / && /x86-64/ {print $NF; exit}')
if [ -z "$opencl_lib" ]; then
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -e "$d/libOpenCL.so.1" ] && opencl_lib=$d/libOpenCL.so.1 && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$d && break
  done
fi
if [ -z "$opencl_lib" ]; then
  echo "no OpenCL loader installed: using Debian's from the carry"
  opencl_lib=$carry/fallback/libOpenCL.so.1
  export LD_LIBRARY_PATH=$carry/fallback${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
echo "OpenCL loader: $opencl_lib"
# NVIDIA's OpenCL driver is installed but not registered: register it for every process here
# (plinth does this itself; OpenCV's Python process needs it too).
if ! grep -qsil nvidia /etc/OpenCL/vendors/*.icd 2>/dev/null && [ -z "${OCL_ICD_VENDORS:-}" ] &&
  ldconfig -p | grep -q libnvidia-opencl.so.1; then
  mkdir -p "$work/vendors"
  cp /etc/OpenCL/vendors/*.icd "$work/vendors/" 2>/dev/null
  echo libnvidia-opencl.so.1 > "$work/vendors/nvidia.icd"
  export OCL_ICD_VENDORS=$work/vendors
  echo "registered libnvidia-opencl.so.1 through OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
fi
# The tests were built with their source folder baked in (PLINTH_SOURCE_DIR): point it here.
src_dir=$(sed -n 's/^source_dir=//p' "$carry/MANIFEST" 2>/dev/null)
if [ -n "$src_dir" ] && [ ! -e "$src_dir" ]; then
  mkdir -p "$(dirname "$src_dir")" && ln -s "$root" "$src_dir" && echo "linked $src_dir -> $root"
fi

stage "build the CLI with NPP peers"
npp_root=""
for d in /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include /usr/include; do
  [ -e "$d/npp.h" ] && { echo "npp.h in $d (CUDA toolkit)"; break; }
done
if ! ls /usr/local/cuda/include/npp.h /usr/local/cuda/targets/x86_64-linux/include/npp.h >/dev/null 2>&1; then
  h=$(find /usr /opt -name npp.h -path '*include*' 2>/dev/null | head -1)
  [ -n "$h" ] && npp_root=$(dirname "$(dirname "$h")") && echo "NPP found at $npp_root"
fi
configure=(cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLINTH_BUILD_TESTS=OFF
  "-DCMAKE_PREFIX_PATH=$carry/prefix" "-DCMAKE_CXX_FLAGS=-isystem $carry/prefix/include/stb"
  "-DCMAKE_CXX_COMPILER_LAUNCHER=$root/scripts/device/no_werror.sh")
[ -d /usr/local/cuda ] && configure+=("-DCUDAToolkit_ROOT=/usr/local/cuda")
[ -n "$npp_root" ] && configure+=("-DPLINTH_NPP_ROOT=$npp_root")
plinth=$root/build-device/tools/plinth/plinth
{
  run configure 120 300 "${configure[@]}" ||
    { echo "retrying with OpenCL_LIBRARY=$opencl_lib"; rm -rf build-device;
      run configure-retry 120 300 "${configure[@]}" "-DOpenCL_LIBRARY=$opencl_lib" "-DOpenCL_INCLUDE_DIR=/usr/include"; }
  run build 240 300 ninja -C build-device -j"${PLINTH_BUILD_JOBS:-16}" plinth_cli
} > "$OUT/build.log" 2>&1
tail -25 "$OUT/build.log"
grep -E "bench: NPP" "$OUT/build.log"
echo "compiler warnings on this machine: $(grep -c 'warning:' "$OUT/build.log")"
if [ ! -x "$plinth" ]; then
  echo "!!! the CLI did not build here: using the carried one (no NPP peers)"
  failed+=("build")
  plinth=$carry/bin/plinth
fi

stage "devices"
run devices 30 300 "$plinth" devices

if [ "${PLINTH_SKIP_TESTS:-0}" != 1 ]; then
  stage "tests on $PLINTH_DEVICE (4 shards in parallel)"
  shards=4
  cap=$(allow "${PLINTH_TEST_SECONDS:-200}" 60)
  pids=()
  for i in $(seq 0 $((shards - 1))); do
    LD_LIBRARY_PATH=$tests_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
      timeout -k 10 "$cap" "$carry/bin/plinth_tests" --gtest_brief=1 \
      "--gtest_filter=${PLINTH_TEST_FILTER:-*}" "--gtest_output=json:$work/gtest_$i.json" > "$work/gtest_$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}"; rc=$?
    echo "shard $i: exit $rc$( ((rc == 124)) && echo ' (stopped after '"$cap"'s)')"
    (( rc != 0 )) && failed+=("tests-shard$i(rc=$rc)")
    grep -E "FAILED|Failure|error:|PASSED|tests ran" "$work/gtest_$i.log" | head -40
    { echo "===== shard $i: exit $rc"; cat "$work/gtest_$i.log"; } >> "$OUT/tests.log"
  done
  if [ -x "$carry/bin/plinth_klt_tests" ]; then  # carried with PLINTH_CARRY_KLT_TESTS=1 (prepare.sh)
    LD_LIBRARY_PATH=$tests_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run klt-tests 150 60 "$carry/bin/plinth_klt_tests" \
      --gtest_brief=1 > "$work/klt_tests.log" 2>&1
    grep -E "FAILED|Failure|differ|PASSED|tests ran" "$work/klt_tests.log" | head -40
    { echo "===== plinth_klt_tests"; cat "$work/klt_tests.log"; } >> "$OUT/tests.log"
  fi
  python3 - "$work" "$OUT/gtest.json" <<'EOF'
import glob, json, sys
merged = {"tests": 0, "failures": 0, "disabled": 0, "errors": 0, "testsuites": []}
for path in sorted(glob.glob(sys.argv[1] + "/gtest_*.json")):
    with open(path) as f:
        doc = json.load(f)
    for key in ("tests", "failures", "disabled", "errors"):
        merged[key] += doc.get(key, 0)
    merged["testsuites"] += doc.get("testsuites", [])
with open(sys.argv[2], "w") as f:
    json.dump(merged, f, indent=1)
print(f"gtest: {merged['tests']} tests, {merged['failures']} failures, {merged['errors']} errors (shards that finished)")
EOF
fi

stage "detections on the bundled photo (compare with the CPU run in docs/PERFORMANCE.md)"
export PLINTH_CASCADE_DIR=${PLINTH_CASCADE_DIR:-$carry/prefix/share/cascades}
for c in frontalface_default frontalface_alt2 lbpcascade_frontalface_improved; do
  run "detect-$c" 30 200 "$plinth" detect data/astronaut.png --cascade "$c" --json
done

# Benchmark groups (PLINTH_BENCH_GROUPS, default all three), each with the sizes its issue names.
for group in ${PLINTH_BENCH_GROUPS:-integral cascade filters}; do
  case $group in
    integral) ops=(integral); group_sizes=$sizes; cap=170 ;;
    cascade) ops=(cascade resize); group_sizes=640x480,1920x1080; cap=90 ;;
    filters) ops=(box_filter sep_filter filter2d gaussian_blur median epsilon pyramid arithm convert color);
             group_sizes=3840x2160; cap=240 ;;
    sort) ops=(sort top_k compact); group_sizes=4096x4096; cap=90 ;;  # opt-in: PLINTH_BENCH_GROUPS=sort
    tracking) ops=(pyr_lk); group_sizes=1920x1080,640x480; cap=150 ;;   # opt-in, as the groups below
    corners) ops=(corners); group_sizes=1920x1080; cap=60 ;;
    bow) ops=(bow_assign); group_sizes=3840x2160; cap=90 ;;
    surf) ops=(surf); group_sizes=1920x1080; cap=60 ;;               # opt-in: detect + describe (issue 17)
    kmeans) ops=(kmeans); group_sizes=3840x2160; cap=100 ;;           # opt-in (issue 17): 1M x 64, k=256/1024
    bf_match) ops=(bf_match); group_sizes=3840x2160; cap=40 ;;        # opt-in (issue 17): knn k=2
    *) echo "unknown benchmark group $group"; continue ;;
  esac
  stage "benchmark $group at $group_sizes"
  run "bench-$group" "$cap" 30 "$plinth" bench "${ops[@]}" --sizes "$group_sizes" --runs "$runs" --max-case-seconds 4 \
    --max-seconds $((cap - 20)) --json "$OUT/bench_$group.json"
done

case " ${PLINTH_BENCH_GROUPS:-} " in *" bow "*)
  stage "torch peer of bow_assign (bench/peers/torch_bow_peer.py)"
  PYTHONUNBUFFERED=1 run torch-bow 60 10 python3 bench/peers/torch_bow_peer.py -o "$OUT/torch_bow.json" ;;
esac
case " ${PLINTH_BENCH_GROUPS:-} " in *" kmeans "*)
  stage "faiss / scikit-learn / torch peers of kmeans (bench/peers/faiss_kmeans_peer.py)"
  PYTHONUNBUFFERED=1 run kmeans-peers 150 10 python3 bench/peers/faiss_kmeans_peer.py --runs 3 --json "$OUT/peer_kmeans.json" ;;
esac
case " ${PLINTH_BENCH_GROUPS:-} " in *" bf_match "*)
  stage "torch / OpenCV CPU peers of bf_match (bench/peers/bf_match_peer.py)"
  PYTHONUNBUFFERED=1 run bf-match-peers 90 10 python3 bench/peers/bf_match_peer.py --runs 10 --json "$OUT/peer_bf_match.json" ;;
esac
case " ${PLINTH_BENCH_GROUPS:-} " in *" sort "*)
  stage "torch.sort / torch.topk peer (bench/peers/torch_sort_peer.py)"
  PYTHONUNBUFFERED=1 run torch-sort 60 10 python3 bench/peers/torch_sort_peer.py --sizes 4096x4096 --runs 30 --json "$OUT/torch_sort.json" ;;
esac

if [ "${PLINTH_SKIP_OPENCV:-0}" != 1 ]; then
  stage "OpenCV OpenCL peer"
  export OPENCV_OPENCL_DEVICE=${OPENCV_OPENCL_DEVICE:-:GPU:}
  [ -n "$opencl_lib" ] && export OPENCV_OPENCL_RUNTIME=${OPENCV_OPENCL_RUNTIME:-$opencl_lib}
  PYTHONUNBUFFERED=1 run opencv 110 25 python3 bench/peers/opencv_ocl_peer.py --sizes 3840x2160 --runs 30 --max-seconds 90 --json "$OUT/opencv_ocl.json"
fi

# OpenCV's calcOpticalFlowPyrLK (CPU with 16 threads, and UMat) when the tracking group is asked for.
if [ "${PLINTH_SKIP_OPENCV:-0}" != 1 ] && [[ " ${PLINTH_BENCH_GROUPS:-} " == *" tracking "* ]]; then
  stage "OpenCV pyrLK peer"
  export OPENCV_OPENCL_DEVICE=${OPENCV_OPENCL_DEVICE:-:GPU:}
  PYTHONUNBUFFERED=1 run opencv-pyr-lk 150 10 python3 bench/peers/opencv_pyr_lk_peer.py --sizes 1920x1080,640x480 \
    --threads 16 --runs 20 -o "$OUT/opencv_pyr_lk.json"
fi

# OpenCV 4.x on the CPU (16 threads) for the cascade, where its wheel was carried.
wheel=$(ls "$carry"/wheels/opencv_python_headless-4*.whl 2>/dev/null | head -1)
if [ -n "$wheel" ]; then
  stage "OpenCV 4 CascadeClassifier on the CPU"
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$work/site" "$wheel" &&
    PYTHONPATH=$work/site PYTHONUNBUFFERED=1 run opencv-cascade 120 10 python3 bench/peers/opencv_cascade_cpu.py \
      --threads 16 --cascade "$PLINTH_CASCADE_DIR/haarcascade_frontalface_default.xml" -o "$OUT/opencv_cascade_cpu.json"
fi

# OpenCV's CPU goodFeaturesToTrack and corner responses (16 threads) beside `plinth bench corners`.
if [ "${PLINTH_SKIP_OPENCV:-0}" != 1 ] && [[ " ${PLINTH_BENCH_GROUPS:-} " == *" corners "* ]]; then
  stage "OpenCV corners on the CPU"
  PYTHONUNBUFFERED=1 run opencv-corners 90 10 python3 bench/peers/opencv_corners_cpu.py --sizes 1920x1080 \
    --threads 16 -o "$OUT/opencv_corners_cpu.json"
fi

stage "summary"
echo "failed stages: ${failed[*]:-none}"
ls -la "$OUT"
python3 bench/merge_results.py $(ls "$OUT"/bench_*.json "$OUT"/opencv_*.json "$OUT"/torch_*.json "$OUT"/peer_*.json 2>/dev/null) > "$OUT/merged.txt" 2>&1
cat "$OUT/merged.txt"
# The device tool brings back at most 8 files: the JSON documents travel as one archive.
(cd "$OUT" && ls *.json >/dev/null 2>&1 && tar czf results_json.tar.gz *.json && rm -f *.json)
rm -rf "$work"
exit 0
