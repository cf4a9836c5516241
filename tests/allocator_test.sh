#!/usr/bin/env bash
# novacat-gen's allocator is mimalloc (novacat_use_fast_allocator): a link
# order that put the C library's malloc first would keep glibc's, silently.
# Read from mimalloc's own report (MIMALLOC_VERBOSE), which only the
# process's allocator makes at its start.
# Usage: allocator_test.sh NOVACAT_GEN
set -uo pipefail
source "$(dirname "$0")/lib.sh"
gen=$1

report=$(MIMALLOC_VERBOSE=1 "$gen" --version 2>&1 >/dev/null)
expect_eq "mimalloc starts" \
  "$(grep -cE '^mimalloc: process init: 0x[0-9a-f]+$' <<<"$report")" "1"
expect_eq "in 4 KiB pages" \
  "$(grep -E "^mimalloc: option 'large_os_pages'" <<<"$report")" \
  "mimalloc: option 'large_os_pages': 0"
finish "allocator: mimalloc"
