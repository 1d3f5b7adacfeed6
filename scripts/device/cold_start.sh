#!/usr/bin/env bash
# Cold start on the GPU machine (issue 18, item 6): the first `plinth detect` on the bundled photo
# (the README's main command: data/astronaut.png, the default cascade frontalface_default) by the
# host clock, with an empty per-user program cache each time, in three cases:
#   (a) no cubin store: every program compiled by NVRTC (PLINTH_CUBIN_DIR=off)
#   (b) the cubin store carried beside the CLI (share/plinth/cubins/sm_90, found relative to
#       bin/plinth: no PLINTH_CUBIN_DIR)
#   (c) a warm per-user cache (filled by one untimed run first, store off)
# 3 repetitions each (REPS), each (a) and (b) with a fresh empty PLINTH_CACHE_DIR; WARM=1 also
# times `plinth cache warm` into an empty cache with the store. Each line gives where the programs
# came from (--program-origins). Results: $OUT/cold_start.txt.
#
# Carry .carry/coldstart, made here by `bash scripts/device/cold_start.sh --prepare`:
#   bin/plinth                      the CLI (built without video: no FFmpeg there)
#   share/plinth/cubins/sm_90/      the store, `plinth_cuda_check --arch 90 --store` (all of
#                                   kernels/programs.list's CUDA programs, or STORE_LIST's)
#   cascades/                       the default cascade (opencv-data is not on the GPU machine)
# Device call: command `bash scripts/device/cold_start.sh`, carry [".carry/coldstart"].
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
carry=$root/.carry/coldstart

if [ "${1:-}" = --prepare ]; then
  set -e
  cd "$root"
  build=${BUILD:-build-novideo}
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLINTH_WITH_VIDEO=OFF \
    -DPLINTH_BUILD_TESTS=OFF >/dev/null
  ninja -C "$build" -j"${JOBS:-2}" plinth_cli plinth_cuda_check
  if ldd "$build/tools/plinth/plinth" | grep libavcodec >/dev/null; then
    echo "cold_start: $build's CLI links FFmpeg; configure it with -DPLINTH_WITH_VIDEO=OFF" >&2
    exit 1
  fi
  rm -rf "$carry/bin" "$carry/cascades"
  mkdir -p "$carry/bin" "$carry/cascades"
  cp "$build/tools/plinth/plinth" "$carry/bin/" && strip --strip-unneeded "$carry/bin/plinth"
  cp /usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml "$carry/cascades/"
  # STORE_LIST: a program list (kernels/programs.list's format) to store instead of the whole
  # embedded list, e.g. only what `plinth detect` builds, to keep the carry small.
  "$build/tools/cuda_check/plinth_cuda_check" --arch 90 --store "$carry/share/plinth/cubins" \
    ${STORE_LIST:+--list "$STORE_LIST"}
  echo "cold_start: $(du -sh "$carry" | cut -f1) in $carry:"
  du -sh "$carry"/* "$carry/share/plinth/cubins/sm_90" | sed 's/^/  /'
  echo "cold_start: device call: command 'bash scripts/device/cold_start.sh', carry [\".carry/coldstart\"]"
  exit 0
fi

OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
result=$OUT/cold_start.txt
plinth=$carry/bin/plinth
work=$(mktemp -d)
export PLINTH_CASCADE_DIR=$carry/cascades
export PLINTH_DEVICE=${PLINTH_DEVICE:-cuda:0}
unset PLINTH_CUBIN_DIR
image=$root/data/astronaut.png
reps=${REPS:-3}

{
  echo "# cold start of \`plinth detect data/astronaut.png\` on $PLINTH_DEVICE, host clock; $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1
  ls /usr/local/cuda/lib64/libnvrtc.so.* 2>/dev/null | head -2
  echo "store: $(sed -n 2p "$carry/share/plinth/cubins/sm_90/index.tsv" 2>/dev/null), $(($(wc -l < "$carry/share/plinth/cubins/sm_90/index.tsv") - 2)) programs, $(du -sh "$carry/share/plinth/cubins" | cut -f1)"
  "$plinth" devices 2>&1 | head -8
} > "$result"

# One timed run: case, repetition, cache dir, extra environment; prints seconds, the command's
# first output line and its program origins.
timed() {
  local label=$1 rep=$2 cache=$3
  shift 3
  local t0 t1 rc
  t0=$(date +%s%N)
  env PLINTH_CACHE_DIR="$cache" "$@" "$plinth" --program-origins detect "$image" > "$work/out" 2> "$work/err"
  rc=$?
  t1=$(date +%s%N)
  printf '%-22s rep %d  %8.3f s  rc %d  %s | %s\n' "$label" "$rep" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" "$rc" \
    "$(head -1 "$work/out")" "$(grep -h '^programs:' "$work/err" | head -1)" >> "$result"
  grep -v '^programs:' "$work/err" | head -3 >> "$result"
}

for rep in $(seq 1 "$reps"); do
  rm -rf "$work/a$rep" && mkdir -p "$work/a$rep"
  timed "(a) no store" "$rep" "$work/a$rep" PLINTH_CUBIN_DIR=off
  rm -rf "$work/b$rep" && mkdir -p "$work/b$rep"
  timed "(b) store" "$rep" "$work/b$rep"
done
mkdir -p "$work/warm"
env PLINTH_CACHE_DIR="$work/warm" PLINTH_CUBIN_DIR=off "$plinth" detect "$image" > /dev/null 2>&1
for rep in $(seq 1 "$reps"); do
  timed "(c) warm cache" "$rep" "$work/warm" PLINTH_CUBIN_DIR=off
done

# WARM=1: every recorded CUDA program into an empty cache with the store (a store of the whole
# list; with a subset, NVRTC compiles the rest one by one, many minutes).
if [ "${WARM:-0}" = 1 ]; then
mkdir -p "$work/cw"
t0=$(date +%s%N)
timeout 240 env PLINTH_CACHE_DIR="$work/cw" "$plinth" cache warm > "$work/warm.txt" 2>&1
rc=$?
t1=$(date +%s%N)
printf 'cache warm with the store: %.2f s, rc %d: %s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')" \
  "$rc" "$(tr '\n' ' ' < "$work/warm.txt" | cut -c1-400)" >> "$result"
fi
rm -rf "$work"
cat "$result"
