#!/usr/bin/env bash
# ctest cubin_store_build: `plinth_cuda_check --store` on a two-program list, twice: both stores
# byte-identical (NVRTC's build is reproducible), the index has its two header lines and one
# line per program, and a failing program leaves no store. Exit 77 (skipped) without NVRTC.
# Usage: store_test.sh PLINTH_CUDA_CHECK
set -uo pipefail
check=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'cuda\tresize.cl\t\nopencl\tresize.cl\t -DIGNORED=1\ncuda\tarithm.cl\t -DSRC_T=uchar -DSRC_DEPTH=0 -DVEC=16\n' > "$work/list"
for n in 1 2; do
  "$check" --arch 90 --list "$work/list" --store "$work/store$n" > "$work/log$n" 2>&1
  rc=$?
  [ $rc = 77 ] && { cat "$work/log$n"; exit 77; }
  [ $rc = 0 ] || { echo "FAIL: build $n exited $rc"; cat "$work/log$n"; exit 1; }
done
diff -r "$work/store1" "$work/store2" > /dev/null || { echo "FAIL: two builds of the store differ"; exit 1; }
index=$work/store1/sm_90/index.tsv
[ "$(wc -l < "$index")" = 4 ] || { echo "FAIL: the index should hold 2 header lines and 2 programs:"; cat "$index"; exit 1; }
[ "$(find "$work/store1/sm_90" -name '*.cubin' | wc -l)" = 2 ] || { echo "FAIL: expected 2 cubins"; exit 1; }
grep -q -- '-DIGNORED' "$index" && { echo "FAIL: an opencl record went into the store"; exit 1; }
printf 'cuda\tresize.cl\t --no-such-nvrtc-option\n' > "$work/bad"
if "$check" --arch 90 --list "$work/bad" --store "$work/store3" > "$work/log3" 2>&1; then
  echo "FAIL: a program that does not compile gave a store"; exit 1
fi
[ -e "$work/store3/sm_90" ] && { echo "FAIL: a failed build left a store"; exit 1; }
echo "cubin store: reproducible, $(($(wc -l < "$index") - 2)) programs"
