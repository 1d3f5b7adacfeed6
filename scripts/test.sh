#!/usr/bin/env bash
# Sets up, builds and runs every test (GoogleTest through ctest) on the default device: PoCL on
# machines without a GPU. PLINTH_DEVICE picks another device (see `plinth devices`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 900
