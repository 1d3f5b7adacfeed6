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
"$plinth" corners "$image" --max-corners 0 --min-distance 0 --harris --block-size 2 > "$tmp/all.txt" || fail "unlimited run"
[ "$(wc -l < "$tmp/all.txt")" -gt 40 ] || fail "an unlimited run found too few corners"

expect_error() {
  local what=$1; shift
  if "$plinth" "$@" > "$tmp/out" 2> "$tmp/err"; then fail "$what: exit 0"; fi
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$what: not one line: $(cat "$tmp/err")"
  grep -q "rror" "$tmp/err" || fail "$what: no error message"
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
