#!/bin/bash
# CLI test of `plinth bovw train`, `plinth bovw encode` and `plinth match` (ctest: cli.bovw). Makes descriptor .npy
# files with Python's standard library (no numpy), trains a vocabulary, encodes, checks the JSON
# histograms sum to 1, and that bad input gives one Error line, a non-zero exit and no output file.
set -u
plinth=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 - "$dir" <<'PY'
import random, struct, sys
def save(path, rows, cols, values, dtype="<f4"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (dtype, rows, cols)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), dtype[-2]), *values))
random.seed(1)
d = sys.argv[1]
for name, n in (("a", 40), ("b", 25), ("c", 1)):
    save(f"{d}/{name}.npy", n, 16, [random.random() for _ in range(n * 16)])
save(f"{d}/nan.npy", 2, 16, [float("nan")] * 32)
save(f"{d}/dim8.npy", 3, 8, [random.random() for _ in range(24)])
save(f"{d}/ints.npy", 2, 16, list(range(32)), "<i4")
PY

"$plinth" --device cpu bovw train "$dir/a.npy" "$dir/b.npy" --k 5 --seed 3 -o "$dir/vocab.npy" > "$dir/train.txt" 2>&1 || fail "train: $(cat "$dir/train.txt")"
[ -s "$dir/vocab.npy" ] || fail "no vocabulary written"
"$plinth" --device cpu bovw encode "$dir/a.npy" "$dir/c.npy" --vocab "$dir/vocab.npy" --json > "$dir/hist.json" || fail "encode"
python3 - "$dir/hist.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["k"] == 5, doc
for image in doc["images"]:
    assert len(image["histogram"]) == 5, image
    assert abs(sum(image["histogram"]) - 1.0) < 1e-6, image
assert doc["images"][1]["descriptors"] == 1 and sorted(doc["images"][1]["histogram"])[-1] == 1.0
PY
"$plinth" --device cpu bovw encode "$dir/a.npy" "$dir/b.npy" --vocab "$dir/vocab.npy" -o "$dir/hist.npy" > /dev/null || fail "encode -o"
[ -s "$dir/hist.npy" ] || fail "no histograms written"

# Bad input: one Error line, non-zero exit, nothing written.
expect_error() {
  local out=$1; shift
  if "$plinth" --device cpu "$@" > "$dir/out.txt" 2> "$dir/err.txt"; then fail "succeeded: $*"; fi
  [ "$(grep -c '' "$dir/err.txt")" = 1 ] || fail "not one line for $*: $(cat "$dir/err.txt")"
  grep -q '^plinth: ' "$dir/err.txt" || fail "no 'plinth: ' error line for $*"
  [ -z "$out" ] || [ ! -e "$out" ] || fail "$out written for $*"
  [ -z "${VERBOSE:-}" ] || cat "$dir/err.txt"
}
expect_error "$dir/v2.npy" bovw train "$dir/c.npy" --k 5 -o "$dir/v2.npy"                      # k > descriptors
expect_error "$dir/v3.npy" bovw train "$dir/nan.npy" --k 1 -o "$dir/v3.npy"                    # NaN
expect_error "$dir/v4.npy" bovw train "$dir/ints.npy" --k 1 -o "$dir/v4.npy"                   # not float32
expect_error "$dir/h2.npy" bovw encode "$dir/dim8.npy" --vocab "$dir/vocab.npy" -o "$dir/h2.npy"  # wrong dimension
expect_error "" bovw encode "$dir/a.npy" --vocab "$dir/ints.npy"                                 # vocabulary of the wrong type
expect_error "" bovw train "$dir/a.npy" --k 2 -o "$dir/vocab.npy"                                # exists, no --force
# plinth match on the same files: a file against itself matches every descriptor to itself.
"$plinth" --device cpu match "$dir/a.npy" "$dir/a.npy" --cross-check --json > "$dir/m.json" || fail "match"
python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['matches']; assert len(m)==40 and all(q==t and d==0 for q,t,d in m), m" "$dir/m.json" || fail "match result"
expect_error "" match "$dir/a.npy" "$dir/dim8.npy"
ls -a "$dir" | grep -q tmp && fail "a temporary file was left behind"
echo "cli.bovw: ok"
