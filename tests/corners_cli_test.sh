#!/usr/bin/env bash
# `plinth corners`: the JSON and text forms list the same corners, JSON parses and its floats read
# back exactly, limits hold, and bad input gives one Error line and a non-zero exit. (The corner
# lists themselves are compared with OpenCV in tests/corners_test.cpp.)
# Usage: corners_cli_test.sh PLINTH_BINARY SOURCE_DIR
set -u
plinth=$1
src=$2
image="$src/data/astronaut.png"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$plinth" corners "$image" --max-corners 40 --quality 0.02 --min-distance 7 --json > "$tmp/c.json" || fail "json run"
"$plinth" corners "$image" --max-corners 40 --quality 0.02 --min-distance 7 > "$tmp/c.txt" || fail "text run"
python3 - "$tmp/c.json" "$tmp/c.txt" <<'PY' || exit 1
import json, math, sys
doc = json.load(open(sys.argv[1]))
text = [tuple(float(v) for v in line.split()) for line in open(sys.argv[2]) if line.strip()]
corners = [tuple(c) for c in doc["corners"]]
assert doc["count"] == len(corners) == 40, ("count", doc["count"], len(corners))
assert corners == text, "JSON and text lists differ"
for (x, y) in corners:
    assert 0 < x < doc["width"] - 1 and 0 < y < doc["height"] - 1, (x, y)
for i, a in enumerate(corners):
    for b in corners[:i]:
        assert math.hypot(a[0] - b[0], a[1] - b[1]) >= 7, ("too close", a, b)
PY
# A mask of all 255 changes nothing; a mask of the left half keeps only corners there.
python3 - "$tmp" "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['width'], d['height'])" "$tmp/c.json")" <<'PY' || fail "mask files"
import sys
tmp, size = sys.argv[1], sys.argv[2].split()
w, h = int(size[0]), int(size[1])
open(f"{tmp}/full.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + b"\xff" * (w * h))
open(f"{tmp}/left.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + ((b"\xff" * (w // 2) + b"\0" * (w - w // 2)) * h))
PY
"$plinth" corners "$image" --max-corners 40 --quality 0.02 --min-distance 7 --mask "$tmp/full.pgm" > "$tmp/full.txt" || fail "full mask run"
cmp -s "$tmp/full.txt" "$tmp/c.txt" || fail "a full mask changed the corners"
"$plinth" corners "$image" --max-corners 40 --min-distance 7 --mask "$tmp/left.pgm" > "$tmp/left.txt" || fail "left mask run"
python3 -c "
import sys
pts = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
assert pts and all(x < int(sys.argv[2]) // 2 for x, y in pts), 'corner outside the mask'
" "$tmp/left.txt" "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['width'])" "$tmp/c.json")" || fail "left mask"

"$plinth" corners "$image" --max-corners 0 --min-distance 0 --harris --block-size 2 > "$tmp/all.txt" || fail "unlimited run"
[ "$(wc -l < "$tmp/all.txt")" -gt 40 ] || fail "an unlimited run found too few corners"

expect_error() {
  local what=$1; shift
  if "$plinth" "$@" > "$tmp/out" 2> "$tmp/err"; then fail "$what: exit 0"; fi
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$what: not one line: $(cat "$tmp/err")"
  grep -q "^plinth: " "$tmp/err" || fail "$what: not a plinth error line: $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "$what: printed output"
}
expect_error "block size" corners "$image" --block-size 0
expect_error "quality" corners "$image" --quality 0
expect_error "negative quality" corners "$image" --quality -1
expect_error "negative min distance" corners "$image" --min-distance -2
expect_error "gradient size" corners "$image" --gradient-size 4
expect_error "missing file" corners "$tmp/none.png"
printf 'P5\n3 2\n255\n\0\0\0\0\0\0' > "$tmp/small.pgm"
expect_error "mask size" corners "$image" --mask "$tmp/small.pgm"
echo "corners CLI: ok"
