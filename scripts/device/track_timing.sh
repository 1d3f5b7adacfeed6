#!/usr/bin/env bash
# `plinth track` end to end on vtest.avi's frames, with --timing (frames/s and the time of each
# stage: decode, upload, pyramid, detect, track, download, draw, encode, output). Runs here or on
# the GPU machine, which has no FFmpeg: there the frames come as PNG files made here beforehand:
#
#   here:   build/tools/plinth/plinth frames /usr/share/doc/opencv-doc/examples/data/vtest.avi \
#             .carry/vtest --gray --count 120          (ignored by git; about 20 MiB)
#   there:  command 'bash scripts/device/track_timing.sh', carry [".carry/device", ".carry/vtest"]
#
# Input: $PLINTH_TRACK_INPUT (default .carry/vtest, else vtest.avi where this build reads video).
# CLI: build-device's (scripts/device/run.sh builds it), else build/'s, else the carried one.
# Writes $OUT/track_timing.txt (or ./out/). Knobs: PLINTH_TRACK_ARGS (extra options for every run).
set -u
root=$(pwd)
OUT=${OUT:-$root/out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/track_timing.txt") 2>&1
export PLINTH_DEVICE=${PLINTH_DEVICE:-gpu}

plinth=""
for p in build-device/tools/plinth/plinth build/tools/plinth/plinth .carry/device/bin/plinth; do
  [ -x "$p" ] && plinth=$p && break
done
[ -n "$plinth" ] || { echo "no plinth CLI found (build it, or carry .carry/device)"; exit 1; }
input=${PLINTH_TRACK_INPUT:-}
if [ -z "$input" ]; then
  if [ -d .carry/vtest ]; then input=.carry/vtest
  else input=/usr/share/doc/opencv-doc/examples/data/vtest.avi; fi
fi
echo "track timing: $plinth on $input, PLINTH_DEVICE=$PLINTH_DEVICE, $(date -u +%FT%TZ)"
"$plinth" devices 2>&1 | head -5

one() {
  echo; echo "=== plinth track $input $*"
  # Twice: the first run compiles (or loads) the kernels; the second is the one to read.
  rm -rf "$draw"/*
  timeout 60 "$plinth" track "$input" "$@" ${PLINTH_TRACK_ARGS:-} > /dev/null 2> /dev/null
  rm -rf "$draw"/*
  timeout 60 "$plinth" track "$input" "$@" ${PLINTH_TRACK_ARGS:-} --timing > /dev/null
  echo "exit $?"
}
draw=$(mktemp -d /tmp/plinth-track.XXXXXX)
# The default set (1000 points, 21x21, 3 levels) with JSON out, then more points, then re-detection.
one --json
one --json --points 5000 --min-distance 5
one --json --redetect-below 800
# Drawing: a video where this CLI has FFmpeg, else PNG frames into a fresh folder.
if ldd "$plinth" 2>/dev/null | grep -q libavcodec; then one --draw "$draw/tracks.mp4"
else one --draw "$draw/frames"; fi
rm -rf "$draw"
