#!/usr/bin/env bash
# Installs what is missing, builds novacat-gen and runs it on the seed specs
# (writing generated/), then builds `novacat` and runs a seed example on a
# fresh database: the fixture catalog is loaded (`novacat seed`) and a name
# is taken through initialize_nova -> ingest_new_nova -> refresh_references
# and discover_spectra_products -> download_and_validate_spectra (`novacat
# run ... --follow`, its clients of SIMBAD, VSX, ADS, ESO and MAST answered
# offline by their recorded responses, fixtures/archives/; the downloaded
# spectra land in example.db.objects/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/configure.sh build/release -DCMAKE_BUILD_TYPE=Release \
  -DNOVACAT_BUILD_TESTS=OFF -DNOVACAT_BUILD_BENCHMARKS=OFF
cmake --build build/release --target novacat-gen novacat -j "$(nproc)"
build/release/generator/novacat-gen specs/*.yaml

db=build/release/example.db
log=build/release/example.log
rm -rf "$db" "$db-wal" "$db-shm" "$db.objects"
build/release/workflows/novacat seed --db "$db"
echo "novacat run initialize_nova --follow (structured logs in $log):"
build/release/workflows/novacat run initialize_nova --db "$db" --follow \
  --input '{"candidate_name": "V1500 Cygni"}' 2>"$log"
echo "novacat jobs --nova d4bbdda3-6824-4e82-b1ce-1b781190fbec (V1500 CYG's runs):"
build/release/workflows/novacat jobs --db "$db" \
  --nova d4bbdda3-6824-4e82-b1ce-1b781190fbec
echo "novacat photometry add fixtures/photometry/v1500cyg_aavso.csv (V1500 CYG's light curve):"
build/release/workflows/novacat photometry add --db "$db" \
  --nova d4bbdda3-6824-4e82-b1ce-1b781190fbec \
  fixtures/photometry/v1500cyg_aavso.csv 2>>"$log"
echo "the catalog's files (in $db.objects: downloaded spectra, photometry, derived light curves):"
(cd "$db.objects" && find . -type f | sort)
