#!/bin/bash
# CLI test of `plinth features` and of images as inputs to `plinth match` and `plinth bovw`
# (ctest: cli.surf). Checks that --json floats read back bit for bit as the -o .npy's float32
# values, that descriptors have unit length, that an image matched with itself pairs every
# keypoint with itself, --draw, and that bad input gives one Error line, a non-zero exit and no
# output file. Python's standard library only.
set -u
plinth=$1
source_dir=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { "$plinth" --device cpu "$@"; }

photo="$source_dir/data/astronaut.png"
[ -f "$photo" ] || fail "missing $photo"
# Small inputs: a flat image (no keypoints), one too small for the first octave, a non-image.
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
def pgm(path, w, h, value):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes([value]) * (w * h))
pgm(f"{d}/flat.pgm", 64, 48, 128)
pgm(f"{d}/tiny.pgm", 20, 40, 7)
open(f"{d}/text.png", "w").write("not an image")
PY

run features "$photo" --json > "$dir/kp.json" || fail "features --json"
run features "$photo" -o "$dir/kp.npy" --descriptors "$dir/desc.npy" > "$dir/out.txt" || fail "features -o"
python3 - "$dir" <<'PY' || exit 1
import json, struct, sys
d = sys.argv[1]
def load(path):
    raw = open(path, "rb").read()
    assert raw[:6] == b"\x93NUMPY", path
    n = struct.unpack("<H", raw[8:10])[0]
    header = eval(raw[10:10 + n].decode())
    assert header["descr"] == "<f4" and not header["fortran_order"], header
    rows, cols = header["shape"]
    values = struct.unpack("<%df" % (rows * cols), raw[10 + n:])
    return rows, cols, values
doc = json.load(open(f"{d}/kp.json"))
rows, cols, kp = load(f"{d}/kp.npy")
assert cols == 7 and rows == len(doc["keypoints"]) and rows > 100, (rows, cols)
f32 = lambda v: struct.unpack("<f", struct.pack("<f", v))[0]
for i, k in enumerate(doc["keypoints"]):
    row = kp[i * 7:(i + 1) * 7]
    for j, name in enumerate(("x", "y", "size", "angle", "response")):
        assert f32(k[name]) == row[j], (i, name, k[name], row[j])  # %.9g reads back as the same float32
    assert k["octave"] == row[5] and k["class_id"] == row[6], (i, k)
    assert 0 <= k["angle"] < 360, k
responses = [k["response"] for k in doc["keypoints"]]
assert responses == sorted(responses, reverse=True), "not in OpenCV's order"
rows_d, dim, desc = load(f"{d}/desc.npy")
assert rows_d == rows and dim == doc["descriptor_size"] == 64, (rows_d, dim)
for i in range(rows_d):
    norm = sum(v * v for v in desc[i * dim:(i + 1) * dim])
    assert abs(norm - 1) < 1e-4, (i, norm)
PY
# No keypoints: a valid, empty result.
run features "$dir/flat.pgm" --json > "$dir/flat.json" || fail "features of a flat image"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['keypoints']==[], d" "$dir/flat.json" || fail "flat image keypoints"
run features "$dir/flat.pgm" -o "$dir/flat.npy" > /dev/null || fail "features -o of a flat image"
python3 -c "import sys; r=open(sys.argv[1],'rb').read(); assert b\"'shape': (0, 7)\" in r, r" "$dir/flat.npy" || fail "flat .npy"

# match: an image against itself pairs every keypoint with itself; against an npy of its own
# descriptors too; --draw writes a PNG.
run match "$photo" "$photo" --cross-check --json > "$dir/m.json" || fail "match images"
python3 -c "
import json,sys
m=json.load(open(sys.argv[1]))['matches']; n=int(sys.argv[2])
assert len(m)==n and all(q==t and dist==0 for q,t,dist in m), (len(m), n)" "$dir/m.json" "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['keypoints']))" "$dir/kp.json")" || fail "match result"
run match "$photo" "$dir/desc.npy" --cross-check --json > "$dir/m2.json" || fail "match image with npy"
cmp -s "$dir/m.json" <(sed "s|\"train\": \"$dir/desc.npy\"|\"train\": \"$photo\"|" "$dir/m2.json") || fail "image and its .npy differ"
run match "$photo" "$photo" --draw "$dir/matches.png" > /dev/null || fail "match --draw"
head -c 8 "$dir/matches.png" | od -An -c | grep -q 'P   N   G' || fail "--draw wrote no PNG"

# bovw from images.
run bovw train "$photo" "$dir/desc.npy" --k 8 --seed 1 -o "$dir/vocab.npy" > /dev/null || fail "bovw train from an image"
run bovw encode "$photo" "$dir/flat.pgm" --vocab "$dir/vocab.npy" --json > "$dir/h.json" || fail "bovw encode from images"
python3 -c "
import json,sys
im=json.load(open(sys.argv[1]))['images']
assert abs(sum(im[0]['histogram'])-1)<1e-6 and im[1]['descriptors']==0 and im[1]['histogram']==[], im" "$dir/h.json" || fail "bovw histograms"

# Bad input: one Error line, non-zero exit, nothing written.
expect_error() {
  local out=$1; shift
  if run "$@" > "$dir/out.txt" 2> "$dir/err.txt"; then fail "succeeded: $*"; fi
  [ "$(grep -c '' "$dir/err.txt")" = 1 ] || fail "not one line for $*: $(cat "$dir/err.txt")"
  grep -q '^plinth: ' "$dir/err.txt" || fail "no 'plinth: ' error line for $*"
  [ -z "$out" ] || [ ! -e "$out" ] || fail "$out written for $*"
  [ -z "${VERBOSE:-}" ] || cat "$dir/err.txt"
}
expect_error "$dir/t.npy" features "$dir/tiny.pgm" -o "$dir/t.npy"               # too small for the first octave
expect_error "$dir/t.npy" features "$dir/missing.png" -o "$dir/t.npy"            # no such file
expect_error "$dir/t.npy" features "$dir/text.png" -o "$dir/t.npy"               # not an image
expect_error "$dir/t.npy" features "$photo" --threshold -1 -o "$dir/t.npy"       # bad parameters
expect_error "$dir/t.npy" features "$photo" --octaves 0 -o "$dir/t.npy"
expect_error "$dir/t.npy" features "$photo" --layers 9 -o "$dir/t.npy"
expect_error "$dir/t.txt" features "$photo" -o "$dir/t.txt"                      # not .npy
expect_error "" features "$photo" -o "$dir/kp.npy"                               # exists, no --force
expect_error "" features "$photo" --json -o "$dir/t2.npy"                        # exclusive
expect_error "$dir/d.png" match "$photo" "$dir/desc.npy" --draw "$dir/d.png"     # --draw needs two images
expect_error "" match "$photo" "$dir/flat.pgm"                                   # no keypoints to match
expect_error "" match "$dir/tiny.pgm" "$photo"
ls -a "$dir" | grep -q tmp && fail "a temporary file was left behind"
echo "cli.surf: ok"
