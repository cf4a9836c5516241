#!/usr/bin/env bash
# Builds the libFuzzer target with clang (ASan + UBSan) and fuzzes load +
# check for the given number of seconds (default 600), seeded from specs/
# and tests/malformed/. Findings are written to fuzz/findings/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    apt-get install -y -qq --no-install-recommends "$p"
done
scripts/configure.sh build/fuzz -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNOVACAT_BUILD_TESTS=OFF \
  -DNOVACAT_BUILD_BENCHMARKS=OFF -DNOVACAT_BUILD_FUZZERS=ON \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
cmake --build build/fuzz --target spec_fuzzer -j "$(nproc)"
corpus=build/fuzz/corpus
mkdir -p "$corpus" fuzz/findings
cp specs/*.yaml tests/malformed/*.yaml "$corpus"/
build/fuzz/spec_fuzzer "$corpus" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
  -artifact_prefix=fuzz/findings/
