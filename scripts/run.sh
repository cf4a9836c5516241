#!/usr/bin/env bash
# Installs what is missing, builds novacat-gen and runs it on the seed specs,
# writing generated/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release \
  -DNOVACAT_BUILD_TESTS=OFF -DNOVACAT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/release --target novacat-gen -j "$(nproc)"
build/release/generator/novacat-gen specs/*.yaml
