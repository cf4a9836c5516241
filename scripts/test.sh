#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors and
# runs every test, then runs them all again under AddressSanitizer and
# UndefinedBehaviorSanitizer. Says how long each step took, and at the end
# all of them together (CI's time per step).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
timings=()

# Runs "$@" as the step named $1, recording its time.
step() {
  local name=$1 began=$SECONDS
  shift
  echo "== $name"
  "$@"
  timings+=("$(printf '%-28s %5d s' "$name" $((SECONDS - began)))")
}

step "setup" scripts/setup.sh
python=$(scripts/python.sh)

configure_debug() {
  scripts/configure.sh build/debug -DCMAKE_BUILD_TYPE=Debug -DNOVACAT_WERROR=ON \
    -DPython3_EXECUTABLE="$python"
}
step "configure (Debug)" configure_debug
step "build (Debug, -Werror)" cmake --build build/debug -j "$jobs"
step "test (Debug)" ctest --test-dir build/debug --output-on-failure -j "$jobs"

# The sanitized build is a unity build (each target's sources compiled
# together, 8 to a translation unit): the sanitizers make every copy of a
# header's templates dearer to compile, and this build would otherwise take
# half as long again as the Debug one. The Debug build above compiles file
# by file, so each file's own includes stay checked.
configure_asan() {
  scripts/configure.sh build/asan -DCMAKE_BUILD_TYPE=Debug -DNOVACAT_WERROR=ON \
    -DNOVACAT_BUILD_BENCHMARKS=OFF -DNOVACAT_UNITY_BUILD=ON -DNOVACAT_TEST_PER_BINARY=ON \
    -DPython3_EXECUTABLE="$python" \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
}
step "configure (ASan+UBSan)" configure_asan
step "build (ASan+UBSan)" cmake --build build/asan -j "$jobs"
step "test (ASan+UBSan)" env ASAN_OPTIONS=detect_leaks=1 \
  ctest --test-dir build/asan --output-on-failure -j "$jobs"

echo "== all tests passed; time per step:"
printf '%s\n' "${timings[@]}"
echo "$(printf '%-28s %5d s' total "$SECONDS")"
