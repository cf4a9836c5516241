#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors and
# runs every test, then runs them all again under AddressSanitizer and
# UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
python=$(scripts/python.sh)
jobs=$(nproc)

echo "== build (Debug, -Werror) and test"
cmake -S . -B build/debug -DCMAKE_BUILD_TYPE=Debug -DNOVACAT_WERROR=ON \
  -DPython3_EXECUTABLE="$python" >/dev/null
cmake --build build/debug -j "$jobs"
ctest --test-dir build/debug --output-on-failure -j "$jobs"

# The sanitized build is a unity build (each target's sources compiled
# together, 8 to a translation unit): the sanitizers make every copy of a
# header's templates dearer to compile, and this build would otherwise take
# half as long again as the Debug one. The Debug build above compiles file
# by file, so each file's own includes stay checked.
echo "== build with ASan+UBSan and test"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DNOVACAT_WERROR=ON \
  -DNOVACAT_BUILD_BENCHMARKS=OFF -DCMAKE_UNITY_BUILD=ON \
  -DPython3_EXECUTABLE="$python" \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
  >/dev/null
cmake --build build/asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build/asan --output-on-failure \
  -j "$jobs"
echo "== all tests passed"
