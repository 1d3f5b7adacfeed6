#!/usr/bin/env bash
# The sanitizer run (docs/RELIABILITY.md, "Sanitizers"): builds the library, the CLI and the test
# binaries that hold the fast tests (plinth_tests, plinth_jpeg_tests) with ASan + UBSan
# (PLINTH_SANITIZE=ON) in build-asan/, then runs
# the tests labelled `fast` (tests/labels.cmake) and `cli` under them, on PoCL where there is no GPU.
# Any sanitizer report fails the test that raised it. (The CLI keeps its bench command, which
# the cli tests use.)
set -euo pipefail
cd "$(dirname "$0")/.."
# ASan's leak check at exit, with the OpenCL runtime's own leaks suppressed (scripts/sanitize/lsan.supp
# lists only PoCL, LLVM and the ICD loader); UBSan stops at the first finding, with its stack.
export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$PWD/scripts/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
jobs=$(nproc)
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLINTH_SANITIZE=ON >/dev/null
cmake --build build-asan -j "$jobs" --target plinth_cli plinth_tests plinth_jpeg_tests
# PoCL at -O0, as scripts/test.sh runs the same tests (its kernels are then already in PoCL's cache).
POCL_EXTRA_BUILD_FLAGS=${POCL_EXTRA_BUILD_FLAGS--cl-opt-disable} \
  ctest --test-dir build-asan -L 'fast|cli' --output-on-failure -j "$jobs" --timeout 900
