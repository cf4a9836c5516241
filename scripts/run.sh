#!/usr/bin/env bash
# Installs what is missing, builds novacat-gen and runs it on the seed specs
# (writing generated/), then builds `novacat` and runs a seed example on a
# fresh database: the fixture catalog is loaded (`novacat seed`) and a name
# is taken through initialize_nova -> ingest_new_nova -> refresh_references
# and discover_spectra_products (`novacat run ... --follow`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release \
  -DNOVACAT_BUILD_TESTS=OFF -DNOVACAT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build/release --target novacat-gen novacat -j "$(nproc)"
build/release/generator/novacat-gen specs/*.yaml

db=build/release/example.db
log=build/release/example.log
rm -f "$db" "$db-wal" "$db-shm"
build/release/workflows/novacat seed --db "$db"
echo "novacat run initialize_nova --follow (structured logs in $log):"
build/release/workflows/novacat run initialize_nova --db "$db" --follow \
  --input '{"candidate_name": "V1500 Cygni"}' 2>"$log"
